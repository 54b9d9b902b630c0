/**
 * The shared idempotency store on a real Redis: answers kept per token within a byte budget (the
 * oldest go first), gone after the TTL, and none for a token whose seal is not here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSharedIdempotency } from '../../src/cluster/idempotency-store.js';
import { createRedisLink, type RedisLink } from '../../src/cluster/redis.js';
import { TokenSeals } from '../../src/cluster/seal.js';
import { tokenKey } from '../../src/upstream/token-key.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';

const X = 'idem-store-token-x-012345';
const Y = 'idem-store-token-y-012345';
const HOUR = 3_600_000;

let redis: TestRedis;
let link: RedisLink;

beforeAll(async () => {
  redis = await startTestRedis();
  link = createRedisLink({ url: redis.url, prefix: redis.prefix });
  expect(await link.ready(5_000)).toBe(true);
}, 30_000);

afterAll(async () => {
  await link?.close();
  await redis?.close();
});

describe('the shared idempotency store', () => {
  it('keeps answers per token within its byte budget and for its TTL', async () => {
    let now = 1_750_000_000_000;
    const seals = new TokenSeals();
    seals.remember(X, tokenKey(X));
    seals.remember(Y, tokenKey(Y));
    const store = createSharedIdempotency({ link, seals, instanceId: 'i1', now: () => now });
    const limits = { ttlMs: 25 * HOUR, maxBytes: 2_000 };
    const kept = (n: number) => ({
      fingerprint: `write ${n}`,
      answer: JSON.stringify({ memo: 'x'.repeat(400), n }),
      expiresAt: now + limits.ttlMs,
    });
    for (let n = 1; n <= 6; n += 1) {
      now += 1_000;
      await store.keep(tokenKey(X), `key-${n}`, kept(n), limits);
    }
    await store.keep(tokenKey(Y), 'key-1', kept(100), limits);
    // Six answers of ~500 sealed bytes do not fit in 2,000: the oldest went, the newest stayed.
    expect(await store.find(tokenKey(X), 'key-1')).toBe('none');
    const newest = await store.find(tokenKey(X), 'key-6');
    expect(newest).toMatchObject({ fingerprint: 'write 6' });
    // Another token's budget is its own.
    expect(await store.find(tokenKey(Y), 'key-1')).toMatchObject({ fingerprint: 'write 100' });
    const { n: bytes } = (await redis.client.hgetall(
      (
        await redis.client.keys(`${redis.prefix}ik:*`)
      )[0]!,
    )) as { n: string };
    expect(Number(bytes)).toBeLessThanOrEqual(2_000);
    // Past the TTL: gone.
    now += 26 * HOUR;
    expect(await store.find(tokenKey(X), 'key-6')).toBe('none');
    // A token whose seal is not here: not shared (the caller keeps it in process).
    expect(await store.find(tokenKey('idem-store-unknown-token'), 'key-1')).toBeUndefined();
  });

  it('lets one claim of a key at a time, and frees it on release', async () => {
    const seals = new TokenSeals();
    seals.remember(X, tokenKey(X));
    const one = createSharedIdempotency({ link, seals, instanceId: 'i1', now: () => 0 });
    const two = createSharedIdempotency({ link, seals, instanceId: 'i2', now: () => 0 });
    const release = await one.claim(tokenKey(X), 'claimed');
    expect(typeof release).toBe('function');
    expect(await two.claim(tokenKey(X), 'claimed')).toBe('busy');
    await (release as () => Promise<void>)();
    expect(typeof (await two.claim(tokenKey(X), 'claimed'))).toBe('function');
  });
});
