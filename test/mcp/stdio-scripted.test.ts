/**
 * The scripted budgeting conversation (`support/budgeting-conversation.ts`) over stdio, as a
 * desktop assistant has it: the same script the Streamable HTTP test runs, with the SDK's client
 * (elicitation declared) talking to `src/cli.ts mcp` in a process group of its own, writes on,
 * against a sandbox on loopback. The server runs on real time, so "today" is the real date.
 */
import { createSandbox, type Sandbox } from '@plans-gateway/sandbox';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createUpstreamClient } from '../../src/upstream/client.js';
import { conversationClient, runBudgetingConversation } from './support/budgeting-conversation.js';
import { launchStdio, type StdioServer } from './support/mcp-clients.js';

let sandbox: Sandbox;
let server: StdioServer;
const { client, user } = conversationClient();

beforeAll(async () => {
  sandbox = await createSandbox({ port: 0, host: '127.0.0.1', rateLimit: false });
  server = await launchStdio(
    { UPSTREAM_URL: sandbox.url, PLANS_TOKEN: sandbox.users[0]!.token, MCP_WRITES: 'on' },
    undefined,
    { client },
  );
}, 60_000);
afterAll(async () => {
  await server?.close();
  await sandbox?.close();
});

it('lists, reviews, counts groceries, categorizes, splits, transfers, moves money and deletes over stdio', async () => {
  const steps = await runBudgetingConversation(server.client, user, {
    writer: createUpstreamClient({ baseUrl: sandbox.url, retry: { attempts: 1 } }),
    token: sandbox.users[0]!.token,
    planId: sandbox.users[0]!.planIds[0]!,
    today: new Date().toISOString().slice(0, 10),
  });
  expect(steps.map((step) => step.tool)).toEqual(
    expect.arrayContaining(['move_money', 'delete_transaction', 'spending_report']),
  );
  expect(user.asked.length).toBeGreaterThan(0);
}, 120_000);
