/**
 * `src/cli.ts mcp`: the MCP server over stdio as a desktop assistant starts it, a child process
 * in a process group of its own, against a sandbox this test runs (so its calls are counted
 * here), with the token from the environment. The SDK's own stdio client talks to it.
 */
import { createSandbox, type Sandbox } from '@plans-gateway/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/wait.js';
import { call, launchStdio, type StdioServer, textOf } from './support/mcp-clients.js';

let sandbox: Sandbox;
let server: StdioServer;

beforeAll(async () => {
  sandbox = await createSandbox({ port: 0, rateLimit: false });
  server = await launchStdio({
    UPSTREAM_URL: sandbox.url,
    PLANS_TOKEN: sandbox.users[0]!.token,
    // A long max-age: the repeated calls below are all within it, however slow the machine.
    MAX_AGE_SECONDS: '3600',
    MCP_SUBSCRIPTIONS_PER_PLAN: '3',
  });
}, 60_000);
afterAll(async () => {
  await server.client.close().catch(() => {});
  server.killGroup();
  await sandbox.close();
});

describe('mcp over stdio', () => {
  it('lists the read tools, and logs to stderr only', async () => {
    const { tools } = await server.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'get_transaction',
      'list_months',
      'list_payees',
      'list_plans',
      'month_budget',
      'plan_overview',
      'scheduled_transactions',
      'search_transactions',
      'spending_report',
    ]);
    // stdout carries only the protocol; the log line went to stderr.
    expect(server.stderr()).toContain('"msg":"mcp over stdio"');
  });

  it('calls each tool with the token from the environment', async () => {
    const planId = sandbox.users[0]!.planIds[0]!;
    for (const [name, args] of [
      ['list_plans', {}],
      ['plan_overview', { planId }],
      ['month_budget', { planId, month: 'current' }],
      ['search_transactions', { planId, type: 'unapproved' }],
      ['scheduled_transactions', { planId }],
    ] as const) {
      const result = await call(server.client, name, args);
      expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy();
      expect(result.structuredContent).toBeTypeOf('object');
    }
    const plans = await call(server.client, 'list_plans');
    expect((plans.structuredContent as { plans: { id: string }[] }).plans[0]?.id).toBe(planId);
  });

  it('answers 20 calls within max-age with no upstream call (counted at the sandbox)', async () => {
    await call(server.client, 'plan_overview');
    await call(server.client, 'month_budget');
    sandbox.resetCalls();
    for (let i = 0; i < 20; i += 1) {
      const result = await call(server.client, i % 2 === 0 ? 'plan_overview' : 'month_budget');
      expect(result.isError).toBeFalsy();
    }
    expect(sandbox.calls()).toEqual([]);
  });

  it('refuses writes (read-only by default) and bad arguments, naming them, with no upstream call', async () => {
    sandbox.resetCalls();
    const write = await call(server.client, 'assign_to_category', {
      categoryId: '0f0e8c27-5d4c-4d8c-9d9a-0a6f5a3f1b11',
      budgeted: '10.00',
    });
    expect(write.isError).toBe(true);
    expect(textOf(write)).toMatch(/read-only: .*MCP_WRITES=on/);
    const wrong = await call(server.client, 'search_transactions', { sinceDate: 'yesterday' });
    expect(wrong.isError).toBe(true);
    expect(textOf(wrong)).toMatch(/^Argument "sinceDate": /);
    expect(sandbox.calls()).toEqual([]);
  });

  it('bounds resource subscriptions as over HTTP: months of the plan, MCP_SUBSCRIPTIONS_PER_PLAN', async () => {
    const planId = sandbox.users[0]!.planIds[0]!;
    const plans = await call(server.client, 'list_plans');
    const { lastMonth } = (plans.structuredContent as { plans: { lastMonth: string }[] }).plans[0]!;
    const budget = (day: string) => `plans://${planId}/months/${day}/budget`;
    await expect(server.client.subscribeResource({ uri: budget('1000-01-01') })).rejects.toThrow(
      /Argument "month": 1000-01 is not a month of plan/,
    );
    for (const day of ['01', '02', '03'])
      await server.client.subscribeResource({ uri: budget(`${lastMonth.slice(0, 8)}${day}`) });
    await expect(
      server.client.subscribeResource({ uri: budget(`${lastMonth.slice(0, 8)}04`) }),
    ).rejects.toThrow(/already subscribes to 3 resources of plan .*MCP_SUBSCRIPTIONS_PER_PLAN/);
    for (const day of ['01', '02', '03'])
      await server.client.unsubscribeResource({ uri: budget(`${lastMonth.slice(0, 8)}${day}`) });
  });

  it('quotes at most a short prefix of a 900 KB argument (before: 4 MB on stdout)', async () => {
    const big = 'x'.repeat(900_000);
    const date = await call(server.client, 'search_transactions', { sinceDate: big });
    expect(textOf(date)).toMatch(/^Argument "sinceDate": got invalid value "x{40}…" \(900000/);
    const name = await call(server.client, 'search_transactions', { [big]: 1 });
    expect(textOf(name)).toMatch(/^Argument "x{40}…" \(900000 characters\): this tool takes/);
    for (const result of [date, name]) expect(textOf(result).length).toBeLessThan(1_000);
  });

  it('ends with its client, leaving no process behind', async () => {
    await server.client.close();
    await until(() => !server.alive(), 'the server process group to exit');
  });
});

describe('mcp over stdio without UPSTREAM_URL', () => {
  it('embeds the sandbox and answers with its demo token', async () => {
    const embedded = await launchStdio({});
    try {
      const plans = await call(embedded.client, 'list_plans');
      expect(plans.isError, textOf(plans)).toBeFalsy();
      expect((plans.structuredContent as { plans: unknown[] }).plans).toHaveLength(1);
    } finally {
      await embedded.client.close().catch(() => {});
      embedded.killGroup();
    }
  });
});
