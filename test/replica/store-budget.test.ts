/** The byte budget: LRU eviction across replicas, reload after eviction, oversized replicas. */

import { TEST_NOW } from '@plans-gateway/rest-contract/testing';
import { describe, expect, it } from 'vitest';
import { HEAP_BYTES_PER_JSON_BYTE } from '../../src/replica/cache.js';
import { createReplicaStore } from '../../src/replica/store.js';
import {
  classifyFailure,
  createFakeUpstream,
  createManualClock,
  settle,
} from './support/fake-upstream.js';
import { addTransaction, createRandomPlan } from './support/random-plan.js';

const MINUTE = 60_000;
const sizes = { accounts: 2, payees: 5, groups: 2, categories: 4, transactions: 200 };

function setup(maxBytes: number) {
  const plans = [31, 32, 33].map((seed) => createRandomPlan(seed, sizes));
  const upstream = createFakeUpstream();
  upstream.addToken(
    'token-a',
    plans.map((p) => p.fake),
  );
  const clock = createManualClock(TEST_NOW);
  const store = createReplicaStore({
    fetchPlan: upstream.fetchPlan,
    classifyFailure,
    now: clock.now,
    maxBytes,
  });
  const read = (index: number, maxAgeMs = 10 * MINUTE) =>
    store.read({
      token: 'token-a',
      tokenKey: 'key-a',
      planId: plans[index]!.fake.id,
      freshness: { maxAgeMs },
    });
  const fullCalls = (index: number) =>
    upstream.calls.filter(
      (c) => c.planId === plans[index]!.fake.id && c.lastKnowledgeOfServer === undefined,
    ).length;
  const exportBytes = JSON.stringify(plans[0]!.fake.exportPlan()).length;
  return { plans, upstream, clock, store, read, fullCalls, exportBytes };
}

describe('the byte budget', () => {
  it('estimates a replica from its export size', async () => {
    const { store, read, exportBytes } = setup(256 * 1024 * 1024);
    await read(0);
    expect(store.stats()).toEqual({
      replicas: 1,
      bytes: Math.ceil(exportBytes * HEAP_BYTES_PER_JSON_BYTE),
    });
  });

  it('grows the estimate with rows added by deltas, not with delta sizes', async () => {
    const { plans, store, clock, read } = setup(256 * 1024 * 1024);
    await read(0);
    const before = store.stats().bytes;
    const { fake, ids, rng } = plans[0]!;
    clock.advance(11 * MINUTE);
    // A delta that only replaces rows leaves the estimate as it was.
    fake.write(() =>
      fake.putAccount({ ...fake.accounts.values().next().value!.row, name: 'Renamed' }),
    );
    await read(0);
    expect(store.stats().bytes).toBe(before);
    for (let i = 0; i < 20; i += 1) fake.write(() => addTransaction(fake, ids, rng, 0));
    clock.advance(11 * MINUTE);
    await read(0);
    const grown = store.stats().bytes - before;
    expect(grown).toBeGreaterThan(0);
    expect(grown).toBeLessThan(before / 5);
  });

  it('evicts the least recently read replica first and reloads it in full', async () => {
    const probe = setup(256 * 1024 * 1024);
    await probe.read(0);
    const one = probe.store.stats().bytes;
    const { store, read, fullCalls, upstream } = setup(Math.floor(one * 2.5));
    await read(0);
    await read(1);
    await read(0); // within max-age: no call, but 0 becomes the most recent
    expect(upstream.calls).toHaveLength(2);
    await read(2); // over budget: 1 is the least recently read
    expect(store.stats().replicas).toBe(2);
    expect(store.peek('key-a', probe.plans[1]!.fake.id)).toBeUndefined();
    expect((await read(0)).sync).toBe('none');
    expect((await read(1)).sync).toBe('full');
    expect(fullCalls(1)).toBe(2);
    expect(store.stats().bytes).toBeLessThanOrEqual(Math.floor(one * 2.5));
  });

  it('serves a replica larger than the whole budget without keeping it', async () => {
    const { store, read, upstream } = setup(10_000);
    const first = await read(0);
    expect(first.sync).toBe('full');
    expect(first.snapshot.transactions({}).totalCount).toBe(200);
    expect(store.stats()).toEqual({ replicas: 0, bytes: 0 });
    expect((await read(0)).sync).toBe('full');
    expect(upstream.calls).toHaveLength(2);
  });

  it('loads in full when the replica a delta was meant for is evicted while in flight', async () => {
    const probe = setup(256 * 1024 * 1024);
    await probe.read(0);
    const one = probe.store.stats().bytes;
    const { plans, store, clock, read, upstream } = setup(Math.floor(one * 1.5));
    await read(0);
    clock.advance(11 * MINUTE);
    const release = upstream.hold((call) => call.planId === plans[0]!.fake.id);
    const pending = read(0);
    await settle();
    await read(1); // evicts plan 0
    expect(store.peek('key-a', plans[0]!.fake.id)).toBeUndefined();
    release();
    const result = await pending;
    expect(result.sync).toBe('full');
    expect(
      upstream.calls.map((c) => [
        c.planId === plans[0]!.fake.id ? 0 : 1,
        c.lastKnowledgeOfServer ?? 'full',
      ]),
    ).toEqual([
      [0, 'full'],
      [0, plans[0]!.fake.knowledge],
      [1, 'full'],
      [0, 'full'],
    ]);
  });

  it('clears everything', async () => {
    const { store, read } = setup(256 * 1024 * 1024);
    await read(0);
    await read(1);
    store.clear();
    expect(store.stats()).toEqual({ replicas: 0, bytes: 0 });
    expect((await read(0)).sync).toBe('full');
  });
});
