/**
 * Durability: a gateway process killed with SIGKILL while a delivery is in flight, with another
 * event queued behind it and a third change made while it is down, loses nothing once restarted
 * on the same SQLite file: every event arrives, in order, the one in flight again with the same
 * `webhook-id` (at least once).
 */
import { randomBytes } from 'node:crypto';
import { createSandbox, type Sandbox } from '@plans-gateway/sandbox';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createUpstreamClient, type UpstreamClient } from '../../src/upstream/client.js';
import { killAll, type Launched, launch } from '../cli/support/process.js';
import { gqlAt } from '../support/graphql.js';
import { until } from '../support/wait.js';
import { type Receiver, startReceiver } from './support/receiver.js';
import { CREATE, tempDir } from './support/webhook-stack.js';

const TOKEN = 'webhooks-restart-000001';
const dir = tempDir();
const key = randomBytes(32).toString('base64');
let sandbox: Sandbox;
let writer: UpstreamClient;
let receiver: Receiver;

beforeAll(async () => {
  sandbox = await createSandbox({
    port: 0,
    rateLimit: false,
    users: [{ token: TOKEN, plans: [{ seed: 21 }] }],
  });
  writer = createUpstreamClient({
    baseUrl: sandbox.url,
    retry: { attempts: 1 },
    readBackoff: false,
  });
  receiver = await startReceiver();
});
afterAll(async () => {
  killAll();
  await receiver?.close();
  await writer?.close();
  await sandbox?.close();
  dir.remove();
});

function gateway(): Launched {
  return launch('node', ['--import', 'tsx', 'src/cli.ts'], {
    PORT: '0',
    UPSTREAM_URL: sandbox.url,
    NODE_ENV: '',
    WEBHOOK_KEY: key,
    WEBHOOK_DB: `${dir.path}/restart.db`,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on',
  });
}

/** A transaction written straight at the REST interface, then a query that syncs the gateway. */
async function change(url: string | null, planId: string, accountId: string, memo: string) {
  await writer.createTransaction(
    { token: TOKEN },
    {
      planId,
      body: { transaction: { account_id: accountId, date: '2025-06-01', amount: -1_000, memo } },
    },
  );
  if (url) {
    const synced = await gqlAt(
      url,
      'query($id: PlanId!) { plan(id: $id) { serverKnowledge } }',
      { id: planId },
      TOKEN,
      { 'cache-control': 'no-cache' },
    );
    expect(synced.body.errors).toBeUndefined();
  }
}

it('loses nothing when killed mid-delivery and restarted', async () => {
  const { plans } = await writer.getPlans({ token: TOKEN }, {});
  const planId = plans[0]!.id;
  const { accounts } = await writer.getAccounts({ token: TOKEN }, { planId });
  const accountId = accounts.find((a) => !a.closed && a.on_budget)!.id;

  const first = gateway();
  const url = `${await first.listening}/graphql`;
  const created = await gqlAt<{ createWebhookEndpoint: { secret: string } }>(
    url,
    CREATE,
    { input: { planId, url: receiver.url, kinds: ['TRANSACTIONS'] } },
    TOKEN,
  );
  const secret = created.body.data!.createWebhookEndpoint.secret;

  receiver.hold = true;
  await change(url, planId, accountId, 'in flight');
  await until(() => receiver.heldCount() === 1, 'the first delivery in flight');
  await change(url, planId, accountId, 'queued');
  first.killGroup();
  await first.exited;
  receiver.release();
  receiver.hold = false;
  await change(null, planId, accountId, 'while down');

  const second = gateway();
  await second.listening;
  const memos = () =>
    receiver.received.map((r) => {
      const body = new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as {
        data: { transactions: { memo: string }[] };
      };
      return body.data.transactions.map((t) => t.memo).join(',');
    });
  await until(
    () => memos().join('|').includes('while down'),
    () => `every event (have ${memos().join(' | ')})`,
  );
  // The one in flight arrives again (its answer never reached the killed process), same id.
  const seen = memos();
  expect(seen[0]).toBe('in flight');
  const order = ['in flight', 'queued', 'while down'].map((memo) => seen.lastIndexOf(memo));
  expect(order).toEqual([...order].sort((a, b) => a - b));
  const ids = receiver.received.map((r) => r.headers['webhook-id']);
  expect(ids.filter((id) => id === ids[0])).toHaveLength(2);
  expect(new Set(ids).size).toBe(3);
  second.killGroup();
}, 180_000);
