/** What reads cost: the product's main metric is the number of upstream calls. */

import { TEST_NOW, transaction } from '@plans-gateway/rest-contract/testing';
import { describe, expect, it } from 'vitest';
import { createReplicaStore } from '../../src/replica/store.js';
import type { ReplicaReadRequest } from '../../src/replica/types.js';
import {
  classifyFailure,
  createFakeUpstream,
  createManualClock,
  settle,
} from './support/fake-upstream.js';
import { addTransaction, createRandomPlan } from './support/random-plan.js';

const MINUTE = 60_000;

function setup() {
  const { fake, ids, rng } = createRandomPlan(1, {
    accounts: 2,
    payees: 3,
    groups: 1,
    categories: 3,
    transactions: 20,
  });
  const upstream = createFakeUpstream();
  upstream.addToken('token-a', [fake]);
  const clock = createManualClock(TEST_NOW);
  const store = createReplicaStore({
    fetchPlan: upstream.fetchPlan,
    classifyFailure,
    now: clock.now,
  });
  const read = (maxAgeMs: number, extra: Partial<ReplicaReadRequest> = {}) =>
    store.read({
      token: 'token-a',
      tokenKey: 'key-a',
      planId: fake.id,
      freshness: { maxAgeMs },
      ...extra,
    });
  return { fake, ids, rng, upstream, clock, store, read };
}

describe('replica freshness and cost', () => {
  it('loads a cold plan with one full export', async () => {
    const { fake, upstream, read } = setup();
    const result = await read(MINUTE);
    expect(upstream.calls).toEqual([
      { token: 'token-a', tokenKey: 'key-a', planId: fake.id, lastKnowledgeOfServer: undefined },
    ]);
    expect(result.sync).toBe('full');
    expect(result.ageMs).toBe(0);
    expect(result.snapshot.transactions({}).totalCount).toBe(20);
  });

  it('answers within max-age without calling the upstream', async () => {
    const { upstream, clock, read } = setup();
    const first = await read(MINUTE);
    clock.advance(MINUTE);
    const second = await read(MINUTE);
    expect(upstream.calls).toHaveLength(1);
    expect(second).toMatchObject({ sync: 'none', ageMs: MINUTE });
    expect(second.snapshot).toBe(first.snapshot);
  });

  it('counts the age to the request’s arrival (asOf): its later reads share its one sync', async () => {
    const { fake, ids, rng, upstream, clock, read } = setup();
    await read(MINUTE);
    fake.write(() => addTransaction(fake, ids, rng));
    clock.advance(1_000);
    const asOf = clock.now();
    // The request's first read (a revalidation) syncs; later reads of the same request, a
    // moment later, accept that sync, even at max-age 0.
    expect((await read(0, { freshness: { maxAgeMs: 0, asOf } })).sync).toBe('delta');
    clock.advance(5);
    expect((await read(0, { freshness: { maxAgeMs: 0, asOf } })).sync).toBe('none');
    expect(upstream.calls).toHaveLength(2);
    // A read of its own, arriving now, asks again.
    expect((await read(0)).sync).toBe('delta');
    // A request arriving more than its max-age after the last sync asks too.
    clock.advance(MINUTE + 10);
    const later = clock.now();
    expect((await read(MINUTE, { freshness: { maxAgeMs: MINUTE, asOf: later } })).sync).toBe(
      'delta',
    );
    expect(upstream.calls).toHaveLength(4);
  });

  it('sends exactly one delta past max-age, from the replica’s knowledge', async () => {
    const { fake, ids, rng, upstream, clock, read } = setup();
    await read(MINUTE);
    const knowledge = fake.knowledge;
    let added = '';
    fake.write(() => {
      added = addTransaction(fake, ids, rng);
    });
    clock.advance(MINUTE + 1);
    const result = await read(MINUTE);
    expect(upstream.calls).toHaveLength(2);
    expect(upstream.calls[1]!.lastKnowledgeOfServer).toBe(knowledge);
    expect(result).toMatchObject({ sync: 'delta', ageMs: 0 });
    expect(result.snapshot.transaction(added)).toBeDefined();
    expect(result.snapshot.serverKnowledge).toBe(fake.knowledge);
  });

  it('shares one sync among 50 concurrent reads, cold and past max-age', async () => {
    const { upstream, clock, read } = setup();
    const cold = await Promise.all(Array.from({ length: 50 }, () => read(MINUTE)));
    expect(upstream.calls).toHaveLength(1);
    expect(new Set(cold.map((r) => r.snapshot)).size).toBe(1);

    clock.advance(2 * MINUTE);
    const warm = await Promise.all(
      Array.from({ length: 50 }, (_, i) => read(i % 2 === 0 ? MINUTE : 0)),
    );
    expect(upstream.calls).toHaveLength(2);
    expect(warm.every((r) => r.sync === 'delta')).toBe(true);
  });

  it('lets max-age 0 reads that arrive during a flight share one follow-up sync', async () => {
    const { fake, upstream, clock, read } = setup();
    await read(MINUTE);
    clock.advance(2 * MINUTE);
    const release = upstream.hold();
    const first = read(MINUTE); // starts the flight at t
    await settle();
    clock.advance(5); // later arrivals
    fake.write(() =>
      fake.putTransaction(
        transaction({
          id: 'after-send',
          account_id: fake.accounts.keys().next().value!,
          date: '2026-03-10',
        }),
      ),
    );
    const tolerant = read(MINUTE); // its max-age accepts the flight sent 5 ms ago
    const strict = Array.from({ length: 10 }, () => read(0)); // must see data requested after them
    await settle();
    expect(upstream.calls).toHaveLength(2);
    release();
    const [a, b] = await Promise.all([first, tolerant]);
    expect(a.snapshot).toBe(b.snapshot);
    expect(a.snapshot.transaction('after-send')).toBeUndefined();
    const later = await Promise.all(strict);
    expect(upstream.calls).toHaveLength(3);
    expect(new Set(later.map((r) => r.snapshot)).size).toBe(1);
    expect(later[0]!.snapshot.transaction('after-send')).toBeDefined();
  });

  it('forces a sync sent after a forced read arrives, even on a frozen clock', async () => {
    const { fake, ids, rng, upstream, read } = setup();
    await read(MINUTE); // synced "now"; the clock never moves in this test
    let added = '';
    fake.write(() => {
      added = addTransaction(fake, ids, rng);
    });
    const unforced = await read(0);
    expect(unforced.sync).toBe('none'); // same millisecond as the last sync: fresh enough for max-age 0
    const forced = await read(0, { freshness: { maxAgeMs: 0, forceSync: true } });
    expect(upstream.calls).toHaveLength(2);
    expect(forced.sync).toBe('delta');
    expect(forced.snapshot.transaction(added)).toBeDefined();
  });

  it('makes a forced read wait for a follow-up instead of sharing a sync already in the air', async () => {
    const { fake, ids, rng, upstream, read } = setup();
    await read(MINUTE);
    const release = upstream.hold();
    const inFlight = read(0, { freshness: { maxAgeMs: 0, forceSync: true } });
    await settle();
    let added = '';
    fake.write(() => {
      added = addTransaction(fake, ids, rng); // a write that lands while that sync is in the air
    });
    const forced = read(0, { freshness: { maxAgeMs: 0, forceSync: true } });
    await settle();
    expect(upstream.calls).toHaveLength(2);
    release();
    expect((await inFlight).snapshot.transaction(added)).toBeUndefined();
    expect((await forced).snapshot.transaction(added)).toBeDefined();
    expect(upstream.calls).toHaveLength(3);
  });

  it('syncs after expire whatever the max-age, and a sync sent before expire does not lift it', async () => {
    const { upstream, store, fake, read } = setup();
    await read(MINUTE);
    const release = upstream.hold();
    const early = read(0, { freshness: { maxAgeMs: 0, forceSync: true } }); // in the air before expire
    await settle();
    store.expire('key-a', fake.id);
    release();
    await early;
    expect(upstream.calls).toHaveLength(2);
    const next = await read(MINUTE);
    expect(next.sync).toBe('delta');
    expect(upstream.calls).toHaveLength(3);
    expect((await read(MINUTE)).sync).toBe('none');
    expect(upstream.calls).toHaveLength(3);
  });

  it('lets a reader give up without cancelling the shared sync', async () => {
    const { upstream, store, read } = setup();
    const release = upstream.hold();
    const controller = new AbortController();
    const leaving = read(MINUTE, { signal: controller.signal });
    const staying = read(MINUTE);
    await settle();
    controller.abort(new Error('client went away'));
    await expect(leaving).rejects.toThrow('client went away');
    release();
    const result = await staying;
    expect(result.sync).toBe('full');
    expect(upstream.calls).toHaveLength(1);
    expect(store.stats().replicas).toBe(1);
  });

  it('rejects a malformed request, naming the field, without calling the upstream', async () => {
    const { upstream, store } = setup();
    const base = { token: 't', tokenKey: 'k', planId: 'p', freshness: { maxAgeMs: 0 } };
    await expect(store.read({ ...base, freshness: { maxAgeMs: -1 } })).rejects.toThrow(
      'ReplicaReadRequest.freshness.maxAgeMs must be a non-negative number, got -1',
    );
    await expect(store.read({ ...base, tokenKey: '' })).rejects.toThrow(
      'tokenKey must be a non-empty string',
    );
    await expect(store.read({ ...base, planId: undefined as never })).rejects.toThrow(
      'planId must be a non-empty string',
    );
    expect(upstream.calls).toHaveLength(0);
  });

  it('peeks without calling the upstream', async () => {
    const { fake, upstream, clock, store, read } = setup();
    expect(store.peek('key-a', fake.id)).toBeUndefined();
    await read(MINUTE);
    clock.advance(10 * MINUTE);
    expect(store.peek('key-a', fake.id)).toMatchObject({ sync: 'none', ageMs: 10 * MINUTE });
    expect(upstream.calls).toHaveLength(1);
  });
});
