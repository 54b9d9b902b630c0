/**
 * MCP resources over Streamable HTTP: reading a plan's overview and a month's budget, and
 * `resources/subscribe`, fed by the live hub's one poller per (token, plan): an outside REST
 * write reaches the subscriber with the next poll, a GraphQL subscription of the same plan
 * shares that poller, and unsubscribing releases it.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_POLL_INTERVAL_MS, openAccount } from '../live/support/live.js';
import { sseClient } from '../live/support/subscribers.js';
import { startStack, type TimedStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import { connectHttp } from './support/mcp-clients.js';

let stack: TimedStack;
let client: Client;
const updated: string[] = [];

beforeAll(async () => {
  stack = await startStack({
    clock: 'manual',
    timers: 'manual',
    sandbox: { rateLimit: false },
    mcp: {},
  });
  client = await connectHttp(stack.mcpUrl, stack.token);
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    updated.push(notification.params.uri);
  });
});
afterAll(async () => {
  await client.close();
  await stack.close();
});

const overviewUri = () => `plans://${stack.planId}/overview`;
const budgetUri = () => `plans://${stack.planId}/months/current/budget`;

describe('resources', () => {
  it("lists the templates and each plan's resources", async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
      'plans://{planId}/months/{month}/budget',
      'plans://{planId}/overview',
    ]);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual([budgetUri(), overviewUri()]);
  });

  it('reads a resource as its tool answers', async () => {
    const read = await client.readResource({ uri: overviewUri() });
    const [content] = read.contents;
    expect(content).toMatchObject({ uri: overviewUri(), mimeType: 'application/json' });
    const tool = await client.callTool({
      name: 'plan_overview',
      arguments: { planId: stack.planId },
    });
    expect(JSON.parse(String((content as { text: string }).text))).toEqual(tool.structuredContent);
  });

  it('refuses a plan the token does not have, naming it', async () => {
    await expect(
      client.readResource({ uri: 'plans://0f0e8c27-5d4c-4d8c-9d9a-0a6f5a3f1b11/overview' }),
    ).rejects.toThrow(/Argument "planId": this token has no plan/);
    await expect(client.subscribeResource({ uri: 'plans://x/nothing' })).rejects.toThrow(
      /Unknown resource "plans:\/\/x\/nothing"/,
    );
  });
});

describe('resources/subscribe', () => {
  it('notifies both resources of an outside REST write, through the one poller of the plan', async () => {
    const graphql = sseClient(stack.url, stack.token).subscribe<unknown>(
      'subscription($p: PlanId!) { planChanged(planId: $p) { serverKnowledge } }',
      { p: stack.planId },
    );
    await client.subscribeResource({ uri: overviewUri() });
    await client.subscribeResource({ uri: budgetUri() });
    await until(
      () => stack.gateway.live.stats().subscribers === 2,
      () => `2 subscribers (${JSON.stringify(stack.gateway.live.stats())})`,
    );
    // One channel, so one poller, for the MCP session and the GraphQL subscription.
    expect(stack.gateway.live.stats().channels).toBe(1);

    const account = await openAccount(stack);
    const { category_groups } = await stack.writer.getCategories(
      { token: stack.token },
      { planId: stack.planId },
    );
    const groceries = category_groups
      .flatMap((g) => g.categories)
      .find((c) => c.name === 'Groceries')!;
    stack.resetUpstreamCalls();
    updated.length = 0;
    // Categorized spending this month: it moves the account (overview) and the month's budget.
    await stack.writer.createTransaction(
      { token: stack.token },
      {
        planId: stack.planId,
        body: {
          transaction: {
            account_id: account,
            category_id: groceries.id,
            date: new Date(stack.clock.now()).toISOString().slice(0, 10),
            amount: -12_340,
            memo: 'seen by mcp',
          },
        },
      },
    );
    await stack.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
    await until(
      () => updated.includes(overviewUri()) && updated.includes(budgetUri()),
      () => `both resources notified (got ${JSON.stringify(updated)})`,
    );
    // One delta served both consumers (the other call is the test's own REST write).
    expect(stack.upstreamCalls()).toEqual(['createTransaction', 'getPlanById']);

    graphql.stop();
    await client.unsubscribeResource({ uri: overviewUri() });
    await client.unsubscribeResource({ uri: budgetUri() });
    await until(
      () => stack.gateway.live.stats().channels === 0,
      () => `the channel closed (${JSON.stringify(stack.gateway.live.stats())})`,
    );
  });

  it("ends a session's subscriptions when the session ends", async () => {
    const other = await connectHttp(stack.mcpUrl, stack.token);
    await other.subscribeResource({ uri: overviewUri() });
    await until(
      () => stack.gateway.live.stats().subscribers === 1,
      () => 'a subscriber',
    );
    await other.close();
    await stack.mcp?.close();
    await until(
      () => stack.gateway.live.stats().channels === 0,
      () => 'no channel left',
    );
  });
});
