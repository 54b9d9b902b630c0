/**
 * The REST cache on its own (src/loaders/rest-cache.ts): each read brings its max-age, one load
 * serves concurrent reads, a failed refresh answers the held copy when the failure allows it,
 * the byte budget holds and a token's entries go with it.
 */
import { describe, expect, it } from 'vitest';
import { createRestCache, type RestCacheOptions } from '../../src/loaders/rest-cache.js';

function setup(options: Partial<RestCacheOptions> = {}) {
  let time = 1_000;
  const cache = createRestCache({
    classifyFailure: (error) => (String(error).includes('503') ? 'UPSTREAM_UNAVAILABLE' : null),
    now: () => time,
    ...options,
  });
  let calls = 0;
  const answer =
    <T>(value: T) =>
    async () => {
      calls += 1;
      return value;
    };
  /** A load that stays in flight until the test calls `release`: no timer decides the overlap. */
  const held = <T>(value: T) => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const load = async () => {
      calls += 1;
      await released;
      return value;
    };
    return { load, release };
  };
  const failure = (message: string) => async () => {
    calls += 1;
    throw new Error(message);
  };
  return {
    cache,
    answer,
    held,
    failure,
    calls: () => calls,
    advance: (ms: number) => {
      time += ms;
    },
  };
}

describe('REST cache', () => {
  it('shares one load among concurrent reads and answers later ones within their max-age', async () => {
    const { cache, answer, held, calls, advance } = setup();
    const first = held(1);
    const both = Promise.all([
      cache.read('t', 'getUser', 100, first.load),
      cache.read('t', 'getUser', 100, answer(2)),
    ]);
    first.release();
    const reads = await both;
    expect(reads).toEqual([
      { value: 1, ageMs: 0, hit: false },
      { value: 1, ageMs: 0, hit: false },
    ]);
    advance(50);
    expect(await cache.read('t', 'getUser', 100, answer(3))).toEqual({
      value: 1,
      ageMs: 50,
      hit: true,
    });
    expect(await cache.read('t', 'getUser', 10, answer(4))).toEqual({
      value: 4,
      ageMs: 0,
      hit: false,
    });
    expect(calls()).toBe(2);
  });

  it('answers the held copy while a stricter read refreshes it', async () => {
    const { cache, answer, held, advance } = setup();
    await cache.read('t', 'getPlans', 100, answer('old'));
    advance(10);
    const fresh = held('new');
    const refresh = cache.read('t', 'getPlans', 0, fresh.load);
    let during: unknown;
    void cache.read('t', 'getPlans', 100, answer('unused')).then((read) => {
      during = read;
    });
    // Every promise job runs before the next turn: a read that waits for the refresh has not
    // answered by then.
    await new Promise((resolve) => setImmediate(resolve));
    expect(during).toMatchObject({ value: 'old', hit: true });
    fresh.release();
    expect(await refresh).toMatchObject({ value: 'new', hit: false });
  });

  it('answers a stale copy when a refresh fails for a reason that allows it, else fails', async () => {
    const { cache, answer, failure, advance } = setup();
    await cache.read('t', 'getUser', 100, answer('kept'));
    advance(200);
    const stale = await cache.read('t', 'getUser', 100, failure('503'));
    expect(stale).toMatchObject({ value: 'kept', ageMs: 200, hit: false });
    expect(stale.stale?.reason).toBe('UPSTREAM_UNAVAILABLE');
    // The held copy stays for reads that accept its age.
    expect(await cache.read('t', 'getUser', 1_000, answer('unused'))).toMatchObject({
      value: 'kept',
      hit: true,
    });
    await expect(cache.read('t', 'getUser', 100, failure('400'))).rejects.toThrow('400');
    await expect(cache.read('t', 'getPlans', 100, failure('503'))).rejects.toThrow('503');
  });

  it('answers but does not keep an answer larger than the budget', async () => {
    const { cache, answer } = setup({ maxBytes: 1_000 });
    await cache.read('t', 'getUser', 100, answer('small'));
    const big = await cache.read('t', 'getPlans', 100, answer('x'.repeat(600)));
    expect(big.value).toHaveLength(600);
    expect(cache.stats()).toEqual({ entries: 1, bytes: 14 });
  });

  it('forgets a token and invalidates by prefix, for that token only', async () => {
    const { cache, answer } = setup();
    await cache.read('t', 'getMoneyMovements:a', 100, answer(1));
    await cache.read('t', 'getUser', 100, answer(2));
    await cache.read('u', 'getMoneyMovements:a', 100, answer(3));
    cache.invalidate('t', 'getMoneyMovements');
    expect(cache.stats().entries).toBe(2);
    expect(await cache.read('t', 'getUser', 100, answer(0))).toMatchObject({ hit: true });
    cache.forgetToken('t');
    expect(cache.stats().entries).toBe(1);
    expect(await cache.read('u', 'getMoneyMovements:a', 100, answer(0))).toMatchObject({
      value: 3,
      hit: true,
    });
  });

  it('takes an answer another instance loaded within max-age from the shared tier', async () => {
    const shared = new Map<string, { value: unknown; at: number }>();
    const { cache, answer, calls } = setup({
      shared: {
        get: async (tokenKey, key) => shared.get(`${tokenKey}/${key}`),
        set: (tokenKey, key, entry) => shared.set(`${tokenKey}/${key}`, entry),
        invalidate: () => {},
        onInvalidated: () => {},
      },
    });
    shared.set('t/getUser', { value: 'theirs', at: 990 });
    expect(await cache.read('t', 'getUser', 100, answer('mine'))).toEqual({
      value: 'theirs',
      ageMs: 10,
      hit: true,
    });
    await cache.read('t', 'getPlans', 100, answer('loaded'));
    expect(shared.get('t/getPlans')).toEqual({ value: 'loaded', at: 1_000 });
    expect(calls()).toBe(1);
  });
});
