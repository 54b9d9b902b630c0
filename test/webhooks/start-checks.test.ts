/**
 * What a gateway says about its webhook store when it starts (issue 29, items 10 and 12), over
 * real SQLite files and a real Redis: another WEBHOOK_KEY than the store's turns webhooks off
 * with one message that names it, changes nothing stored, and the right key brings everything
 * back; a Redis with neither AOF nor RDB is warned about at start and whenever the connection
 * comes back.
 */
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CLUSTER, type GatewayConfig } from '../../src/config/config.js';
import { DEFAULT_POLL_INTERVAL_MS, openAccount, outsideWrite } from '../live/support/live.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { type ServedGateway, startStack, type TimedStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import { type Receiver, startReceiver } from './support/receiver.js';
import { CREATE, ENDPOINTS, tempDir, webhookConfig } from './support/webhook-stack.js';

const dir = tempDir();
let redis: TestRedis;
let stack: TimedStack;
let receiver: Receiver;

beforeAll(async () => {
  redis = await startTestRedis({ own: true });
  stack = await startStack({
    clock: 'manual',
    timers: 'manual',
    sandbox: {
      rateLimit: false,
      users: [{ token: 'webhooks-start-00000001', plans: [{ seed: 53 }] }],
    },
  });
  receiver = await startReceiver();
});
const gateways: ServedGateway[] = [];
afterEach(async () => {
  for (const gateway of gateways.splice(0)) await gateway.close();
});
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
  await redis?.close();
  dir.remove();
});

async function gatewayWith(config: Partial<GatewayConfig>): Promise<ServedGateway> {
  const gateway = await stack.addGateway({ log: true, config });
  gateways.push(gateway);
  return gateway;
}

function inRedis(space: string, key: Uint8Array): Partial<GatewayConfig> {
  return {
    redisUrl: redis.url,
    cluster: { ...DEFAULT_CLUSTER, keyPrefix: `${redis.prefix}${space}:` },
    webhooks: webhookConfig(':memory:', { key }),
  };
}

/** Creates an endpoint through `gateway`; its secret. */
async function endpointOn(gateway: ServedGateway): Promise<string> {
  const created = await gateway.gql<{ createWebhookEndpoint: { secret: string } }>(CREATE, {
    input: { planId: stack.planId, url: receiver.url, kinds: ['TRANSACTIONS'] },
  });
  expect(created.body.errors).toBeUndefined();
  return created.body.data!.createWebhookEndpoint.secret;
}

/** Every row of every table of a SQLite file, to tell whether anything changed. */
function rowsOf(path: string): unknown {
  const db = new Database(path, { readonly: true });
  const tables = db
    .prepare<[], { name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
    )
    .all();
  const rows = Object.fromEntries(
    tables.map(({ name }) => [name, db.prepare(`SELECT * FROM "${name}"`).all()]),
  );
  db.close();
  return rows;
}

/**
 * A gateway on a store sealed under another key: one error line naming WEBHOOK_KEY however long
 * it runs, every webhook call WEBHOOKS_DISABLED saying so, nothing sent.
 */
async function expectRefused(gateway: ServedGateway): Promise<void> {
  const errors = () => gateway.log.filter((line) => line.level === 'error');
  await until(() => errors().length >= 1, 'the refusal logged');
  for (let second = 0; second < 60; second += 1) await stack.scheduler.advance(1_000);
  expect(errors()).toHaveLength(1);
  expect(String(errors()[0]!.msg)).toMatch(
    /^WEBHOOK_KEY does not open the webhook store .*key with id/,
  );
  expect(JSON.stringify(gateway.log)).not.toMatch(/Decipheriv|decipher/i);
  for (const answer of [
    await gateway.gql(ENDPOINTS),
    await gateway.gql(CREATE, {
      input: { planId: stack.planId, url: receiver.url, kinds: ['TRANSACTIONS'] },
    }),
  ]) {
    const [error] = answer.body.errors ?? [];
    expect(error?.extensions?.code).toBe('WEBHOOKS_DISABLED');
    expect(error?.message).toContain(
      'WEBHOOK_KEY is not the key the webhook store was sealed with',
    );
    expect(error?.message).not.toContain(dir.path);
  }
}

/** The endpoint is back with the right key: listed enabled, and a change reaches it, signed. */
async function expectServed(gateway: ServedGateway, secret: string, memo: string): Promise<void> {
  const listed = await gateway.gql<{ webhookEndpoints: { enabled: boolean }[] }>(ENDPOINTS);
  expect(listed.body.data?.webhookEndpoints.map((e) => e.enabled)).toEqual([true]);
  const before = receiver.delivered().length;
  await outsideWrite(stack, await openAccount(stack), memo);
  await until(async () => {
    await stack.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
    return receiver.delivered().length > before;
  }, 'the change delivered');
  const delivered = receiver.delivered().at(-1)!;
  const body = new Webhook(secret).verify(
    delivered.body,
    delivered.headers as Record<string, string>,
  ) as { data: { transactions: { memo: string }[] } };
  expect(body.data.transactions.map((t) => t.memo)).toContain(memo);
}

describe('another WEBHOOK_KEY than the store was sealed with', () => {
  it('SQLite: turns webhooks off with one message naming WEBHOOK_KEY, and changes nothing', async () => {
    const path = `${dir.path}/key.db`;
    const key = randomBytes(32);
    const first = await gatewayWith({ webhooks: webhookConfig(path, { key }) });
    const secret = await endpointOn(first);
    await first.close();
    const stored = rowsOf(path);

    const wrong = await gatewayWith({ webhooks: webhookConfig(path, { key: randomBytes(32) }) });
    await expectRefused(wrong);
    await wrong.close();
    expect(rowsOf(path)).toEqual(stored);
    expect(receiver.received).toEqual([]);

    const right = await gatewayWith({ webhooks: webhookConfig(path, { key }) });
    await expectServed(right, secret, 'after the right key');
  });

  it('Redis: the same', async () => {
    const key = randomBytes(32);
    const first = await gatewayWith(inRedis('key', key));
    const secret = await endpointOn(first);
    await first.close();
    const stored = await redis.dump();

    const wrong = await gatewayWith(inRedis('key', randomBytes(32)));
    await expectRefused(wrong);
    await wrong.close();
    const webhookKeys = (dump: Map<string, Buffer[]>) =>
      [...dump].filter(([name]) => name.includes(':webhooks:') && !name.includes(':claim:'));
    expect(webhookKeys(await redis.dump())).toEqual(webhookKeys(stored));

    const right = await gatewayWith(inRedis('key', key));
    await expectServed(right, secret, 'after the right key, in Redis');
  });
});

describe('a Redis that keeps nothing on disk', () => {
  const persistenceLines = (gateway: ServedGateway) =>
    gateway.log.filter((line) => 'redisPersistence' in line);

  it('is warned about at start and when the connection comes back', async () => {
    const gateway = await gatewayWith(inRedis('persistence', randomBytes(32)));
    await until(() => persistenceLines(gateway).length === 1, 'a warning at start');
    expect(persistenceLines(gateway)[0]).toMatchObject({ level: 'warn', redisPersistence: 'none' });
    expect(String(persistenceLines(gateway)[0]!.msg)).toMatch(/neither AOF nor RDB/);
    await redis.stop();
    await redis.start();
    await until(() => persistenceLines(gateway).length === 2, 'a warning after Redis came back');
    expect(persistenceLines(gateway)[1]).toMatchObject({ level: 'warn', redisPersistence: 'none' });
  }, 120_000);

  it('is not, once it saves snapshots', async () => {
    // RDB rather than AOF: turning AOF on would write its files in this process's folder at once,
    // while a snapshot an hour after a change never falls due in a test.
    await redis.client.config('SET', 'save', '3600 1');
    try {
      const gateway = await gatewayWith(inRedis('persistent', randomBytes(32)));
      await until(() => persistenceLines(gateway).length === 1, 'what persistence Redis has');
      expect(persistenceLines(gateway)[0]).toMatchObject({
        level: 'info',
        redisPersistence: 'RDB',
      });
    } finally {
      await redis.client.config('SET', 'save', '');
    }
  });
});
