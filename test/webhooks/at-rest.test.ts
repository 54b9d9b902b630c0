/**
 * What webhooks keep at rest holds nothing in clear (issue 29, items 4 and 14): after an endpoint
 * received a write with a new payee, its SQLite file and WAL, or every key of a real Redis, are
 * searched for the signing secrets (before and after a rotation), the token, the endpoint's URL,
 * the plan id, the payee's name, the amount and the memo: none is there, while the deliveries,
 * verified with the Standard Webhooks reference library, carry them. A store written before
 * sealing is sealed in place at start, loses nothing (its waiting delivery goes out, signed with
 * its secret) and keeps no clear copy in its file. A sealed value moved to another row does not
 * open: nothing is sent with it. The gateway writes no file but that store, and none without
 * WEBHOOK_KEY.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CLUSTER, type GatewayConfig } from '../../src/config/config.js';
import { tokenKey } from '../../src/upstream/token-key.js';
import { newEventId, newSecret } from '../../src/webhooks/signing.js';
import { killAll, launch } from '../cli/support/process.js';
import { openAccount } from '../live/support/live.js';
import { gqlAt } from '../support/graphql.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { type ServedGateway, startStack, type TimedStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import { type Needles, scanRedis, scanSqlite } from './support/at-rest.js';
import { type ClearStore, writeRedisBefore, writeSqliteBefore } from './support/before-sealing.js';
import { type Receiver, startReceiver } from './support/receiver.js';
import { createEndpoint, ENDPOINTS, tempDir, webhookConfig } from './support/webhook-stack.js';

const TOKEN = 'webhooks-at-rest-000001';
const HOOK_PATH = '/hooks/narwhal-receiver';
const PAYEE = 'Zebrafish Bakery At Rest';
const MEMO = 'quokka memo at rest';
const AMOUNT = -7_654_321;

const dir = tempDir();
let redis: TestRedis;
const stacks: TimedStack[] = [];
const receivers: Receiver[] = [];

beforeAll(async () => {
  redis = await startTestRedis({ own: true });
});
afterEach(async () => {
  for (const stack of stacks.splice(0)) await stack.close();
  for (const receiver of receivers.splice(0)) await receiver.close();
});
afterAll(async () => {
  killAll();
  await redis?.close();
  dir.remove();
});

async function receiver(): Promise<Receiver> {
  const started = await startReceiver(HOOK_PATH);
  receivers.push(started);
  return started;
}

async function stackWith(config: Partial<GatewayConfig>): Promise<TimedStack> {
  const stack = await startStack({
    clock: 'manual',
    timers: 'manual',
    log: true,
    sandbox: { rateLimit: false, users: [{ token: TOKEN, plans: [{ seed: 47 }] }] },
    config,
  });
  stacks.push(stack);
  return stack;
}

/** Closes a stack before the test ends (to read what it left). */
async function closed(stack: TimedStack): Promise<void> {
  stacks.splice(stacks.indexOf(stack), 1);
  await stack.close();
}

function inRedis(space: string, key = randomBytes(32)): Partial<GatewayConfig> {
  return {
    redisUrl: redis.url,
    cluster: { ...DEFAULT_CLUSTER, keyPrefix: `${redis.prefix}${space}:` },
    webhooks: webhookConfig(':memory:', { key }),
  };
}

const WRITE = `mutation($planId: PlanId!, $accountId: UUID!) {
  createTransaction(planId: $planId, input: { accountId: $accountId, date: "2025-06-15", amount: ${AMOUNT}, memo: "${MEMO}", payeeName: "${PAYEE}" }) {
    __typename
  }
}`;

interface Body {
  data: {
    planId: string;
    transactions?: { amount: number; memo: string | null }[];
    payees?: { name: string }[];
  };
}

/**
 * An endpoint of every kind that carries plan data, its secret rotated, a write with a new payee
 * delivered and verified under both secrets; what must not be found at rest.
 */
async function deliverAWrite(stack: TimedStack): Promise<Needles> {
  const r = await receiver();
  const endpoint = await createEndpoint(stack, r.url, {
    kinds: ['TRANSACTIONS', 'PAYEES', 'ACCOUNTS'],
  });
  const rotated = await stack.gql<{ rotateWebhookSecret: { secret: string } }>(
    'mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret } }',
    { id: endpoint.id },
  );
  const secret = rotated.body.data!.rotateWebhookSecret.secret;
  const written = await stack.gql(WRITE, {
    planId: stack.planId,
    accountId: await openAccount(stack),
  });
  expect(written.body.errors).toBeUndefined();
  // The write's own event, then the delta's after it: together they carry the new payee too.
  const verified = (key: string) =>
    r
      .delivered()
      .map(
        (each) =>
          new Webhook(key).verify(each.body, each.headers as Record<string, string>) as Body,
      );
  await until(
    () => verified(secret).some((body) => body.data.payees?.some((p) => p.name === PAYEE)),
    'the write and its payee delivered',
  );
  for (const key of [secret, endpoint.secret]) {
    const bodies = verified(key);
    expect(bodies.every((body) => body.data.planId === stack.planId)).toBe(true);
    expect(bodies.flatMap((body) => body.data.transactions ?? [])).toContainEqual(
      expect.objectContaining({ amount: AMOUNT, memo: MEMO }),
    );
  }
  return {
    'first secret': endpoint.secret,
    'rotated secret': secret,
    'secret bytes': endpoint.secret.slice('whsec_'.length),
    token: TOKEN,
    'endpoint URL': HOOK_PATH,
    'plan id': stack.planId,
    'payee name': PAYEE,
    amount: String(-AMOUNT),
    memo: MEMO,
  };
}

const nothing = (needles: Needles) =>
  Object.fromEntries(Object.keys(needles).map((name) => [name, []]));

describe('what webhooks keep', () => {
  it('holds no secret, token, URL, plan id or plan data in clear in the SQLite file or its WAL', async () => {
    const path = `${dir.path}/sealed.db`;
    const stack = await stackWith({ webhooks: webhookConfig(path) });
    const needles = await deliverAWrite(stack);
    // While it runs, the WAL holds the latest pages; after closing, the file does.
    expect(scanSqlite(path, needles)).toEqual(nothing(needles));
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(0);
    await closed(stack);
    expect(scanSqlite(path, needles)).toEqual(nothing(needles));
  });

  it('holds none in any key of Redis, its own or the cluster tier', async () => {
    const stack = await stackWith(inRedis('sealed'));
    const needles = await deliverAWrite(stack);
    expect((await redis.client.keys(`${redis.prefix}sealed:webhooks:*`)).length).toBeGreaterThan(5);
    expect(await scanRedis(redis.client, needles)).toEqual(nothing(needles));
  });
});

/** A store as the version before sealing left it: one endpoint of the stack's token and plan. */
async function clearStoreFor(stack: TimedStack, url: string, key: Uint8Array): Promise<ClearStore> {
  const knowledge = (
    await stack.gql<{ plan: { serverKnowledge: number } }>(
      'query($id: PlanId!) { plan(id: $id) { serverKnowledge } }',
      { id: stack.planId },
    )
  ).body.data!.plan.serverKnowledge;
  const eventId = newEventId();
  return {
    key,
    token: TOKEN,
    tokenKey: tokenKey(TOKEN),
    planId: stack.planId,
    endpointId: randomUUID(),
    url,
    description: 'ledger sync, before sealing',
    secret: newSecret(),
    knowledge,
    eventId,
    payload: JSON.stringify({
      type: 'plan.changed',
      timestamp: new Date(stack.clock.now()).toISOString(),
      data: {
        planId: stack.planId,
        serverKnowledge: knowledge,
        transactions: [{ id: randomUUID(), amount: AMOUNT, memo: MEMO }],
        payees: [{ id: randomUUID(), name: PAYEE }],
      },
    }),
    error: `ECONNREFUSED: connect ECONNREFUSED ${new URL(url).host}`,
    createdAt: stack.clock.now(),
  };
}

function clearNeedles(store: ClearStore): Needles {
  return {
    secret: store.secret,
    'endpoint URL': HOOK_PATH,
    description: store.description,
    'plan id': store.planId,
    'payee name': PAYEE,
    amount: String(-AMOUNT),
    memo: MEMO,
    error: 'ECONNREFUSED',
  };
}

/**
 * After the gateway opened a store written before sealing: the waiting delivery goes out with
 * its id, the endpoint lists as it was, and a new write reaches it, all signed with the secret
 * the store held in clear.
 */
async function expectNothingLost(
  stack: TimedStack,
  gateway: ServedGateway,
  r: Receiver,
  store: ClearStore,
) {
  await until(() => r.delivered().length >= 1, 'the waiting delivery');
  const [waiting] = r.delivered();
  expect(waiting!.headers['webhook-id']).toBe(store.eventId);
  expect(waiting!.body).toBe(store.payload);
  const verify = new Webhook(store.secret);
  expect(() =>
    verify.verify(waiting!.body, waiting!.headers as Record<string, string>),
  ).not.toThrow();
  const listed = await gateway.gql<{
    webhookEndpoints: {
      id: string;
      url: string;
      kinds: string[];
      enabled: boolean;
      deliveries: { eventId: string; attempts: { error: string | null }[] }[];
    }[];
  }>(ENDPOINTS);
  const [endpoint] = listed.body.data!.webhookEndpoints;
  expect(endpoint).toMatchObject({
    id: store.endpointId,
    url: store.url,
    kinds: ['TRANSACTIONS', 'PAYEES'],
    enabled: true,
  });
  expect(endpoint!.deliveries[0]!.attempts.map((a) => a.error)).toEqual([store.error, null]);
  const written = await gateway.gql(WRITE, {
    planId: stack.planId,
    accountId: await openAccount(stack),
  });
  expect(written.body.errors).toBeUndefined();
  await until(() => r.delivered().length >= 2, 'a new write delivered');
  const fresh = r.delivered()[1]!;
  const body = verify.verify(fresh.body, fresh.headers as Record<string, string>) as Body;
  expect(body.data.payees?.map((p) => p.name)).toContain(PAYEE);
}

describe('a store written before sealing', () => {
  it('SQLite: is sealed in place at start, loses nothing, and keeps no clear copy in the file', async () => {
    const path = `${dir.path}/before.db`;
    const key = randomBytes(32);
    const r = await receiver();
    // A gateway without webhooks reads the plan's knowledge; the store is written for it.
    const stack = await stackWith({});
    const store = await clearStoreFor(stack, r.url, key);
    writeSqliteBefore(path, store);
    const needles = clearNeedles(store);
    // The fixture really holds them in clear.
    expect(Object.values(scanSqlite(path, needles)).every((where) => where.length > 0)).toBe(true);

    const gateway = await stack.addGateway({ config: { webhooks: webhookConfig(path, { key }) } });
    await expectNothingLost(stack, gateway, r, store);
    expect(scanSqlite(path, needles)).toEqual(nothing(needles));
    await gateway.close();
    expect(scanSqlite(path, needles)).toEqual(nothing(needles));
    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    db.close();
  });

  it('Redis: is sealed in place at start, loses nothing, and keeps no clear value', async () => {
    const key = randomBytes(32);
    const r = await receiver();
    const stack = await stackWith({});
    const store = await clearStoreFor(stack, r.url, key);
    await writeRedisBefore(redis.client, `${redis.prefix}before:`, store);
    const needles = clearNeedles(store);
    const before = await scanRedis(redis.client, needles);
    expect(Object.values(before).every((where) => where.length > 0)).toBe(true);

    const gateway = await stack.addGateway({ config: inRedis('before', key) });
    await expectNothingLost(stack, gateway, r, store);
    expect(await scanRedis(redis.client, needles)).toEqual(nothing(needles));
  });

  it('is left as it was when WEBHOOK_KEY does not open its tokens', async () => {
    const path = `${dir.path}/before-other-key.db`;
    const r = await receiver();
    const stack = await stackWith({});
    const store = await clearStoreFor(stack, r.url, randomBytes(32));
    writeSqliteBefore(path, store);
    const gateway = await stack.addGateway({
      config: { webhooks: webhookConfig(path, { key: randomBytes(32) }) },
    });
    const answer = await gateway.gql(ENDPOINTS);
    expect(answer.body.errors?.[0]?.extensions?.code).toBe('WEBHOOKS_DISABLED');
    await gateway.close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(0);
    expect(db.prepare('SELECT url, plan_id FROM endpoints').all()).toEqual([
      { url: store.url, plan_id: store.planId },
    ]);
    expect(db.prepare('SELECT secret FROM secrets').all()).toEqual([{ secret: store.secret }]);
    db.close();
    expect(r.received).toEqual([]);
  });
});

describe('a sealed value moved to another row', () => {
  it('does not open there: nothing is sent with it, and its endpoint says why', async () => {
    const path = `${dir.path}/moved.db`;
    const stack = await stackWith({ webhooks: webhookConfig(path) });
    const [mine, theirs] = [await receiver(), await receiver()];
    const first = await createEndpoint(stack, mine.url, { kinds: ['TRANSACTIONS'] });
    const second = await createEndpoint(stack, theirs.url, { kinds: ['TRANSACTIONS'] });
    mine.status = 503;
    theirs.status = 503;
    const written = await stack.gql(WRITE, {
      planId: stack.planId,
      accountId: await openAccount(stack),
    });
    expect(written.body.errors).toBeUndefined();
    await until(() => mine.received.length >= 1 && theirs.received.length >= 1, 'failed attempts');
    // Someone with the file moves the first endpoint's sealed payload onto the second's delivery.
    const db = new Database(path);
    const payload = db
      .prepare<[string], { payload: string }>(
        'SELECT payload FROM deliveries WHERE endpoint_id = ?',
      )
      .get(first.id)!.payload;
    db.prepare('UPDATE deliveries SET payload = ? WHERE endpoint_id = ?').run(payload, second.id);
    db.close();
    theirs.status = 204;
    mine.status = 204;
    const listed = async () =>
      (
        await stack.gql<{ webhookEndpoints: { id: string; disabledReason: string | null }[] }>(
          '{ webhookEndpoints { id disabledReason } }',
        )
      ).body.data!.webhookEndpoints;
    await until(async () => {
      await stack.scheduler.advance(60_000);
      return (await listed()).some((e) => e.id === second.id && e.disabledReason !== null);
    }, 'the second endpoint disabled');
    expect((await listed()).find((e) => e.id === second.id)?.disabledReason).toContain(
      'does not open',
    );
    expect(theirs.delivered()).toEqual([]);
    await until(async () => {
      await stack.scheduler.advance(60_000);
      return mine.delivered().length >= 1;
    }, 'the first endpoint served');
  });
});

describe('what the gateway writes to disk', () => {
  it('is the webhook store alone, and nothing without WEBHOOK_KEY', async () => {
    const stack = await stackWith({});
    const accountId = await openAccount(stack);
    for (const key of [undefined, randomBytes(32).toString('base64')]) {
      const data = `${dir.path}/data-${key ? 'webhooks' : 'none'}`;
      const gateway = launch('node', ['--import', 'tsx', 'src/cli.ts'], {
        PORT: '0',
        UPSTREAM_URL: stack.sandbox.url,
        NODE_ENV: '',
        DATA_DIR: data,
        WEBHOOK_KEY: key,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on',
        WEBHOOK_DB: undefined,
        REDIS_URL: undefined,
      });
      const url = `${await gateway.listening}/graphql`;
      const read = await gqlAt(url, '{ plans { id name } }', {}, TOKEN);
      expect(read.body.errors).toBeUndefined();
      const written = await gqlAt(url, WRITE, { planId: stack.planId, accountId }, TOKEN);
      expect(written.body.errors).toBeUndefined();
      if (key) {
        const created = await gqlAt(url, CREATE_ENDPOINT, { planId: stack.planId }, TOKEN);
        expect(created.body.errors).toBeUndefined();
      }
      gateway.child.kill('SIGTERM');
      await gateway.exited;
      if (key) {
        expect(
          readdirSync(data).filter((name) => !/^webhooks\.db(-wal|-shm)?$/.test(name)),
        ).toEqual([]);
        expect(readdirSync(data)).toContain('webhooks.db');
      } else {
        expect(existsSync(data)).toBe(false);
      }
    }
    // Two gateway processes start through tsx: a liveness limit sized for a loaded machine.
  }, 240_000);
});

const CREATE_ENDPOINT = `mutation($planId: PlanId!) {
  createWebhookEndpoint(input: { planId: $planId, url: "http://127.0.0.1:9/plans", kinds: [TRANSACTIONS] }) { secret }
}`;
