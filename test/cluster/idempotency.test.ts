/**
 * Idempotent writes across instances (issue 35): two gateway processes on a real Redis. A write
 * applied through one with an `Idempotency-Key` answers its original result when replayed through
 * the other, with no second upstream write; two replays of one key sent at once to both make one
 * upstream write (a claim in Redis); Redis holds the answers sealed (no key, payee name or amount
 * in clear), per token, with a TTL.
 */
import { createSandbox, type Sandbox } from '@plans-gateway/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gqlAt } from '../support/graphql.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { callsOf } from './support/calls.js';
import { type GatewayProcess, startGatewayProcesses } from './support/gateway-process.js';

const TOKEN = 'cluster-idempotency-token-1';
const CREATE = `mutation Create($input: CreateTransactionInput!) {
  createTransaction(planId: "last-used", input: $input) {
    __typename
    ... on CreateTransactionPayload { transaction { id amount memo payee { name } } }
    ... on Error { message }
  }
}`;
const ACCOUNTS = '{ plan(id: "last-used") { accounts { id closed } } }';
interface Created {
  createTransaction: null | {
    __typename: string;
    transaction?: { id: string; amount: number; memo: string; payee: { name: string } | null };
  };
}

let redis: TestRedis;
let sandbox: Sandbox;
let a: GatewayProcess;
let b: GatewayProcess;
let accountId: string;

beforeAll(async () => {
  redis = await startTestRedis();
  sandbox = await createSandbox({
    port: 0,
    users: [{ token: TOKEN, plans: [{ seed: 21, transactions: 30 }], defaultPlan: 0 }],
  });
  const cluster = { url: redis.url, prefix: redis.prefix };
  [a, b] = (await startGatewayProcesses([
    { upstreamUrl: sandbox.url, redis: cluster },
    { upstreamUrl: sandbox.url, redis: cluster },
  ])) as [GatewayProcess, GatewayProcess];
  const accounts = await gqlAt<{ plan: { accounts: { id: string; closed: boolean }[] } }>(
    a.url,
    ACCOUNTS,
    {},
    TOKEN,
  );
  accountId = accounts.body.data!.plan.accounts.find((each) => !each.closed)!.id;
  // B has seen the token too (a request brings its seal to an instance).
  await gqlAt(b.url, ACCOUNTS, {}, TOKEN);
}, 120_000);

afterAll(async () => {
  await Promise.all([a, b].map((each) => each?.kill()));
  await sandbox?.close();
  await redis?.close();
});

const creates = () => callsOf(sandbox, TOKEN).filter((call) => call === 'createTransaction');
const input = (memo: string, amount: number) => ({
  accountId,
  date: new Date().toISOString().slice(0, 10),
  amount,
  memo,
  payeeName: 'Quixotic Lanterns Emporium',
});

describe('an Idempotency-Key across instances', () => {
  it('a write applied through A, replayed through B, answers the original for no second write', async () => {
    const before = creates().length;
    const headers = { 'idempotency-key': 'k-7f3a9c-across-instances' };
    const vars = { input: input('offline across', -73_210) };
    const first = await gqlAt<Created>(a.url, CREATE, vars, TOKEN, headers);
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data!.createTransaction?.__typename).toBe('CreateTransactionPayload');
    const replay = await gqlAt<Created>(b.url, CREATE, vars, TOKEN, headers);
    expect(replay.body.data!.createTransaction).toEqual(first.body.data!.createTransaction);
    expect(creates().length - before).toBe(1);
  }, 60_000);

  it('two replays of one key at once, one per instance, make one upstream write', async () => {
    const before = creates().length;
    const headers = { 'idempotency-key': 'k-5d21e0-concurrent' };
    const vars = { input: input('offline concurrent', -12_340) };
    const both = await Promise.all(
      [a, b].map((each) => gqlAt<Created>(each.url, CREATE, vars, TOKEN, headers)),
    );
    expect(creates().length - before).toBe(1);
    // One applied it; the other answered it too, or was told to send it again (in progress).
    const applied = both.filter(
      (each) => each.body.data?.createTransaction?.__typename === 'CreateTransactionPayload',
    );
    expect(applied.length).toBeGreaterThanOrEqual(1);
    for (const each of both.filter((one) => !applied.includes(one))) {
      expect(each.body.errors?.[0]?.message).toMatch(/in progress/);
    }
    // Sent again afterwards, through either: the original answer, still one write.
    const again = await gqlAt<Created>(b.url, CREATE, vars, TOKEN, headers);
    expect(again.body.data!.createTransaction).toEqual(applied[0]!.body.data!.createTransaction);
    const viaA = await gqlAt<Created>(a.url, CREATE, vars, TOKEN, headers);
    expect(viaA.body.data!.createTransaction).toEqual(applied[0]!.body.data!.createTransaction);
    expect(creates().length - before).toBe(1);
  }, 60_000);

  it('keeps the answers in Redis sealed, with a TTL of about a day', async () => {
    const stored = await redis.dump();
    const secrets = [
      'Quixotic Lanterns Emporium',
      'k-7f3a9c-across-instances',
      'k-5d21e0-concurrent',
      'offline across',
      '-73210',
      '73210',
      TOKEN,
    ];
    let idempotencyKeys = 0;
    for (const [key, values] of stored) {
      for (const secret of secrets) {
        expect(key).not.toContain(secret);
        for (const value of values) expect(value.includes(Buffer.from(secret))).toBe(false);
      }
      if (key.startsWith(`${redis.prefix}ik:`)) {
        idempotencyKeys += 1;
        const ttl = await redis.client.pttl(key);
        expect(ttl).toBeGreaterThan(23 * 3_600_000);
        expect(ttl).toBeLessThanOrEqual(25 * 3_600_000);
      }
    }
    expect(idempotencyKeys).toBe(1);
  });
});
