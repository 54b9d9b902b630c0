import { describe, expect, it } from 'vitest';
import type { Freshness } from '../../src/replica/types.js';
import { addTransaction } from './support/random-plan.js';
import { storeOverRandomPlan } from './support/store-over-plan.js';

const MINUTE = 60_000;

function setup() {
  const { fake, ids, rng, upstream, clock, store } = storeOverRandomPlan(2, {
    accounts: 2,
    payees: 2,
    groups: 1,
    categories: 2,
    transactions: 10,
  });
  const request = (freshness: Freshness, planId = fake.id) => ({
    token: 'token-a',
    tokenKey: 'key-a',
    planId,
    freshness,
  });
  return { fake, ids, rng, upstream, clock, store, request };
}

describe('a fresh read without a promise', () => {
  it('answers as read does within max-age, and never calls the upstream', async () => {
    const { upstream, clock, store, request } = setup();
    expect(store.readFresh!(request({ maxAgeMs: MINUTE }))).toBeUndefined();
    expect(upstream.calls).toHaveLength(0);
    await store.read(request({ maxAgeMs: MINUTE }));
    clock.advance(MINUTE);
    const fresh = store.readFresh!(request({ maxAgeMs: MINUTE }));
    const read = await store.read(request({ maxAgeMs: MINUTE }));
    expect(fresh).toEqual(read);
    expect(fresh).toMatchObject({ sync: 'none', ageMs: MINUTE });
    expect(upstream.calls).toHaveLength(1);
  });

  it('refuses where read would sync: past max-age, a forced sync, an expired replica', async () => {
    const { upstream, clock, store, request } = setup();
    await store.read(request({ maxAgeMs: MINUTE }));
    clock.advance(MINUTE + 1);
    expect(store.readFresh!(request({ maxAgeMs: MINUTE }))).toBeUndefined();
    expect(store.readFresh!(request({ maxAgeMs: 10 * MINUTE }))).toBeDefined();
    // The request's arrival counts (asOf), as read's: it came when the replica was within max-age.
    expect(store.readFresh!(request({ maxAgeMs: MINUTE, asOf: clock.now() - 2 }))?.ageMs).toBe(
      MINUTE + 1,
    );
    expect(store.readFresh!(request({ maxAgeMs: 10 * MINUTE, forceSync: true }))).toBeUndefined();
    store.expire('key-a', request({ maxAgeMs: 0 }).planId);
    expect(store.readFresh!(request({ maxAgeMs: 10 * MINUTE }))).toBeUndefined();
    expect(upstream.calls).toHaveLength(1);
  });

  it('shows a new version once a sync brought a change (never the old one)', async () => {
    const { fake, ids, rng, clock, store, request } = setup();
    const before = await store.read(request({ maxAgeMs: MINUTE }));
    fake.write(() => addTransaction(fake, ids, rng));
    clock.advance(MINUTE + 1);
    const synced = await store.read(request({ maxAgeMs: MINUTE }));
    expect(synced.sync).toBe('delta');
    const fresh = store.readFresh!(request({ maxAgeMs: MINUTE }));
    expect(fresh?.version).toBe(synced.version);
    expect(fresh?.version).not.toBe(before.version);
  });

  it('answers an alias once the read resolved it, as the plan it names', async () => {
    const { fake, store, request } = setup();
    expect(store.readFresh!(request({ maxAgeMs: MINUTE }, 'last-used'))).toBeUndefined();
    await store.read(request({ maxAgeMs: MINUTE }, 'last-used'));
    expect(store.readFresh!(request({ maxAgeMs: MINUTE }, 'last-used'))?.snapshot.planId).toBe(
      fake.id,
    );
  });
});
