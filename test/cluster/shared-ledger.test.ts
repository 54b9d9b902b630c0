/**
 * The shared request ledger on a real Redis (issue 18, item 11): two instances count each
 * other's requests, and only entries signed with the token's key for that ledger count, by the
 * time they carry: entries copied from another token's ledger, or kept in the window by moving
 * their score, are not counted and are removed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisLink, type RedisLink } from '../../src/cluster/redis.js';
import { redisName, TokenSeals } from '../../src/cluster/seal.js';
import { createSharedLedger } from '../../src/cluster/shared-ledger.js';
import { tokenKey } from '../../src/upstream/token-key.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { until } from '../support/wait.js';

const X = 'ledger-token-x-0123456789';
const Y = 'ledger-token-y-0123456789';
const HOUR = 3_600_000;

let redis: TestRedis;
const links: RedisLink[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
});

afterAll(async () => {
  await Promise.all(links.map((link) => link.close()));
  await redis?.close();
});

describe('the shared ledger', () => {
  it('counts every instance, and only what the token signed for that ledger', async () => {
    let now = 1_750_000_000_000;
    const rejected: string[] = [];
    const instance = async (id: string) => {
      const link = createRedisLink({ url: redis.url, prefix: redis.prefix });
      links.push(link);
      expect(await link.ready(5_000)).toBe(true);
      const seals = new TokenSeals();
      for (const token of [X, Y]) seals.remember(token, tokenKey(token));
      return createSharedLedger({
        link,
        seals,
        kind: 'calls',
        instanceId: id,
        now: () => now,
        onRejected: (what) => rejected.push(what),
      });
    };
    const [one, two] = [await instance('one'), await instance('two')];
    const [x, y] = [tokenKey(X), tokenKey(Y)];
    const keyOf = (key: string) => `${redis.prefix}l:${redisName('calls', key)}`;
    for (let n = 0; n < 3; n += 1) one.record(x);
    for (let n = 0; n < 2; n += 1) two.record(x);
    two.record(y);
    await until(async () => (await redis.client.zcard(keyOf(x))) === 5, 'the entries sent');
    for (const ledger of [one, two]) expect((await ledger.shared(x)).used).toBe(5);

    // X's entries copied into Y's ledger: they do not verify there.
    const copied = await redis.client.zrange(keyOf(x), 0, -1);
    await redis.client.zadd(keyOf(y), ...copied.flatMap((member) => [now, member]));
    expect((await one.shared(y)).used).toBe(1);
    expect(rejected).toEqual(['5 ledger entries that failed authentication']);
    await until(async () => (await redis.client.zcard(keyOf(y))) === 1, 'the copies removed');

    // A real entry whose score is moved far ahead counts only while its own time is in the window.
    await redis.client.zadd(keyOf(x), now + 100 * HOUR, copied[0]!);
    now += HOUR + 1;
    expect((await two.shared(x)).used).toBe(0);
    await until(async () => (await redis.client.zcard(keyOf(x))) === 0, 'the kept entry removed');
  });
});
