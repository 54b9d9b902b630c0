/** Plan aliases and the isolation of tokens. */

import { TEST_NOW } from '@plans-gateway/rest-contract/testing';
import { describe, expect, it } from 'vitest';
import { createReplicaStore } from '../../src/replica/store.js';
import { classifyFailure, createFakeUpstream, createManualClock } from './support/fake-upstream.js';
import { addTransaction, createRandomPlan } from './support/random-plan.js';

const MINUTE = 60_000;
const small = { accounts: 2, payees: 3, groups: 1, categories: 3, transactions: 10 };

function setup() {
  const p = createRandomPlan(11, small);
  const q = createRandomPlan(12, small);
  const upstream = createFakeUpstream();
  upstream.addToken('token-a', [p.fake, q.fake], { 'last-used': p.fake.id, default: q.fake.id });
  const clock = createManualClock(TEST_NOW);
  const store = createReplicaStore({
    fetchPlan: upstream.fetchPlan,
    classifyFailure,
    now: clock.now,
  });
  const read = (planId: string, maxAgeMs = MINUTE, token = 'token-a', tokenKey = 'key-a') =>
    store.read({ token, tokenKey, planId, freshness: { maxAgeMs } });
  return { p, q, upstream, clock, store, read };
}

describe('plan aliases', () => {
  it('resolves an alias to the plan the export returns and shares the replica with its id', async () => {
    const { p, upstream, store, read } = setup();
    const viaAlias = await read('last-used');
    expect(viaAlias.snapshot.planId).toBe(p.fake.id);
    expect(upstream.calls.map((c) => [c.planId, c.lastKnowledgeOfServer])).toEqual([
      ['last-used', undefined],
    ]);
    const viaId = await read(p.fake.id);
    expect(viaId.sync).toBe('none');
    expect(viaId.snapshot).toBe(viaAlias.snapshot);
    expect(store.peek('key-a', 'last-used')?.snapshot).toBe(viaAlias.snapshot);
    expect(await read('last-used')).toMatchObject({ sync: 'none' });
    expect(upstream.calls).toHaveLength(1);
  });

  it('refreshes an alias with a delta sent to the alias, from the knowledge of the plan it pointed to', async () => {
    const { p, upstream, clock, read } = setup();
    await read('last-used');
    const knowledge = p.fake.knowledge;
    p.fake.write(() => addTransaction(p.fake, p.ids, p.rng));
    clock.advance(MINUTE + 1);
    const result = await read('last-used');
    expect(upstream.calls.slice(1).map((c) => [c.planId, c.lastKnowledgeOfServer])).toEqual([
      ['last-used', knowledge],
    ]);
    expect(result.sync).toBe('delta');
    expect(result.snapshot.transactions({}).totalCount).toBe(11);
  });

  it('checks the alias again past max-age even when the plan itself was just synced by id', async () => {
    const { p, upstream, clock, read } = setup();
    await read('last-used');
    clock.advance(MINUTE + 1);
    await read(p.fake.id); // refreshes the plan, says nothing about where the alias points
    await read('last-used');
    expect(upstream.calls.map((c) => c.planId)).toEqual(['last-used', p.fake.id, 'last-used']);
  });

  it('loads the new plan in full when the alias moved, instead of merging', async () => {
    const { p, q, upstream, clock, store, read } = setup();
    const before = await read('last-used');
    upstream.setAlias('token-a', 'last-used', q.fake.id);
    clock.advance(MINUTE + 1);
    const after = await read('last-used');
    expect(after.snapshot.planId).toBe(q.fake.id);
    expect(after.sync).toBe('full');
    expect(upstream.calls.map((c) => [c.planId, c.lastKnowledgeOfServer])).toEqual([
      ['last-used', undefined],
      ['last-used', p.fake.knowledge],
      [q.fake.id, undefined],
    ]);
    // The old plan's replica is untouched and still served by id.
    expect(await read(p.fake.id, 10 * MINUTE)).toMatchObject({ sync: 'none' });
    expect((await read(p.fake.id, 10 * MINUTE)).snapshot).toBe(before.snapshot);
    expect(store.stats().replicas).toBe(2);
  });

  it('moves onto a plan the token already holds with a delta of that plan', async () => {
    const { p, q, upstream, clock, read } = setup();
    await read('last-used');
    await read(q.fake.id);
    upstream.setAlias('token-a', 'last-used', q.fake.id);
    clock.advance(MINUTE + 1);
    const after = await read('last-used');
    expect(after).toMatchObject({ sync: 'delta' });
    expect(after.snapshot.planId).toBe(q.fake.id);
    expect(upstream.calls.slice(2).map((c) => [c.planId, c.lastKnowledgeOfServer])).toEqual([
      ['last-used', p.fake.knowledge],
      [q.fake.id, q.fake.knowledge],
    ]);
  });

  it('keeps each alias separately', async () => {
    const { p, q, read } = setup();
    expect((await read('last-used')).snapshot.planId).toBe(p.fake.id);
    expect((await read('default')).snapshot.planId).toBe(q.fake.id);
  });
});

describe('token isolation', () => {
  it('never serves one token’s replica to another token, by id or by alias', async () => {
    const { p, upstream, store, read } = setup();
    const other = createRandomPlan(13, small);
    upstream.addToken('token-b', [p.fake, other.fake], { 'last-used': other.fake.id });
    await read(p.fake.id);
    await read('last-used');
    expect(store.peek('key-b', p.fake.id)).toBeUndefined();
    expect(store.peek('key-b', 'last-used')).toBeUndefined();

    const b = await read(p.fake.id, MINUTE, 'token-b', 'key-b');
    expect(b.sync).toBe('full');
    const bAlias = await read('last-used', MINUTE, 'token-b', 'key-b');
    expect(bAlias.snapshot.planId).toBe(other.fake.id);
    expect(upstream.calls.map((c) => [c.token, c.tokenKey, c.planId])).toEqual([
      ['token-a', 'key-a', p.fake.id],
      ['token-a', 'key-a', 'last-used'],
      ['token-b', 'key-b', p.fake.id],
      ['token-b', 'key-b', 'last-used'],
    ]);
    expect(b.snapshot).not.toBe(store.peek('key-a', p.fake.id)?.snapshot);
    expect(store.peek('key-a', 'last-used')?.snapshot.planId).toBe(p.fake.id);
  });

  it('does not confuse token keys that share a prefix with a plan id', async () => {
    const { p, store, read } = setup();
    await read(p.fake.id, MINUTE, 'token-a', 'a/b');
    expect(store.peek('a', `b/${p.fake.id}`)).toBeUndefined();
    expect(store.peek('a/b', p.fake.id)).toBeDefined();
  });
});
