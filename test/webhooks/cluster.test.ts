/**
 * Webhooks with Redis: three gateway processes share endpoints and the outbox; every event is
 * delivered once (one feed per token and plan in the cluster, one claim per delivery), and an
 * instance killed while a delivery is in flight loses nothing: another takes the feed and sends
 * the delivery again (same `webhook-id`, at least once), in order.
 */
import { randomBytes } from 'node:crypto';
import { createSandbox, type Sandbox } from '@plans-gateway/sandbox';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createUpstreamClient, type UpstreamClient } from '../../src/upstream/client.js';
import { type GatewayProcess, startGatewayProcess } from '../cluster/support/gateway-process.js';
import { gqlAt } from '../support/graphql.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { until } from '../support/wait.js';
import { type Receiver, startReceiver } from './support/receiver.js';
import { CREATE } from './support/webhook-stack.js';

const TOKEN = 'webhooks-cluster-000001';
const KEY = randomBytes(32).toString('base64');
let redis: TestRedis;
let sandbox: Sandbox;
let writer: UpstreamClient;
let receiver: Receiver;
const instances: GatewayProcess[] = [];

function instance(): Promise<GatewayProcess> {
  return startGatewayProcess({
    upstreamUrl: sandbox.url,
    redis: { url: redis.url, prefix: redis.prefix },
    env: { WEBHOOK_KEY: KEY, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on' },
  }).then((started) => {
    instances.push(started);
    return started;
  });
}

beforeAll(async () => {
  redis = await startTestRedis();
  sandbox = await createSandbox({
    port: 0,
    rateLimit: false,
    users: [{ token: TOKEN, plans: [{ seed: 41 }] }],
  });
  writer = createUpstreamClient({
    baseUrl: sandbox.url,
    retry: { attempts: 1 },
    readBackoff: false,
  });
  receiver = await startReceiver();
  await Promise.all([instance(), instance(), instance()]);
}, 120_000);

afterAll(async () => {
  await Promise.all(instances.map((each) => each.kill()));
  await receiver?.close();
  await writer?.close();
  await sandbox?.close();
  await redis?.close();
});

it('delivers each event once from three instances, and loses nothing when one dies mid-delivery', async () => {
  const { plans } = await writer.getPlans({ token: TOKEN }, {});
  const planId = plans[0]!.id;
  const { accounts } = await writer.getAccounts({ token: TOKEN }, { planId });
  const accountId = accounts.find((a) => !a.closed && a.on_budget)!.id;
  const created = await gqlAt<{ createWebhookEndpoint: { secret: string } }>(
    instances[0]!.url,
    CREATE,
    { input: { planId, url: receiver.url, kinds: ['TRANSACTIONS'] } },
    TOKEN,
  );
  const secret = created.body.data!.createWebhookEndpoint.secret;
  const memos = () =>
    receiver.delivered().map((r) => {
      const body = new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as {
        data: { transactions: { memo: string }[] };
      };
      return body.data.transactions.map((t) => t.memo).join(',');
    });
  // A change written behind the gateways, then a read on every live instance that syncs it.
  const change = async (memo: string) => {
    await writer.createTransaction(
      { token: TOKEN },
      {
        planId,
        body: { transaction: { account_id: accountId, date: '2025-06-01', amount: -500, memo } },
      },
    );
    for (const each of instances.filter((i) => !killed.has(i))) {
      await gqlAt(
        each.url,
        'query($id: PlanId!) { plan(id: $id) { serverKnowledge } }',
        { id: planId },
        TOKEN,
        {
          'cache-control': 'no-cache',
        },
      );
    }
  };
  const killed = new Set<GatewayProcess>();

  for (const memo of ['one', 'two', 'three']) {
    await change(memo);
    await until(() => memos().includes(memo), `"${memo}" delivered`);
  }
  expect(memos()).toEqual(['one', 'two', 'three']);
  const ids = receiver.delivered().map((r) => r.headers['webhook-id']);
  expect(new Set(ids).size).toBe(3);

  // Hold the next delivery, and kill instances until the one sending it is gone.
  receiver.hold = true;
  await change('in flight');
  await until(() => receiver.heldCount() === 1, 'a delivery in flight');
  await change('behind it');
  for (const each of [...instances]) {
    if (receiver.abandoned() > 0) break;
    await each.kill();
    killed.add(each);
  }
  await until(() => receiver.abandoned() === 1, 'the sender gone');
  receiver.hold = false;
  receiver.release();
  if (killed.size === instances.length) await instance();
  await change('after the crash');
  await until(
    () => memos().includes('after the crash') && memos().includes('behind it'),
    () => `every event (have ${memos().join(' | ')})`,
    { timeoutMs: 90_000 },
  );
  const seen = memos();
  const firsts = ['one', 'two', 'three', 'in flight', 'behind it', 'after the crash'].map((m) =>
    seen.indexOf(m),
  );
  expect(firsts.every((index) => index >= 0)).toBe(true);
  expect(firsts).toEqual([...firsts].sort((a, b) => a - b));
  // Only the delivery cut short arrives twice (at least once), with its id.
  const all = receiver.received.map((r) => String(r.headers['webhook-id']));
  const repeated = all.filter((id, index) => all.indexOf(id) !== index);
  expect(repeated).toHaveLength(1);
  expect(seen.filter((memo) => memo === 'in flight')).toHaveLength(2);
}, 420_000);
