/**
 * Syncs another gateway instance made, stored without the upstream (`applyRelayed`, rule 5 of
 * store.ts): two stores over one fake upstream stand for two instances.
 */
import { TEST_NOW, transaction } from '@plans-gateway/rest-contract/testing';
import { describe, expect, it, vi } from 'vitest';
import {
  type AppliedChange,
  createReplicaStore,
  type FetchPlanResult,
} from '../../src/replica/store.js';
import { classifyFailure, createFakeUpstream, createManualClock } from './support/fake-upstream.js';
import { createRandomPlan } from './support/random-plan.js';

const MINUTE = 60_000;

function setup() {
  const { fake } = createRandomPlan(7, {
    accounts: 2,
    payees: 3,
    groups: 2,
    categories: 3,
    transactions: 20,
  });
  const upstream = createFakeUpstream();
  upstream.addToken('token-a', [fake]);
  const clock = createManualClock(TEST_NOW);
  const instance = () => {
    const heard: AppliedChange[] = [];
    const answers: FetchPlanResult[] = [];
    const store = createReplicaStore({
      fetchPlan: async (request) => {
        const answer = await upstream.fetchPlan(request);
        answers.push(answer);
        return answer;
      },
      classifyFailure,
      now: clock.now,
      onApplied: (change) => heard.push(change),
    });
    const read = (maxAgeMs = MINUTE) =>
      store.read({ token: 'token-a', tokenKey: 'key-a', planId: fake.id, freshness: { maxAgeMs } });
    return { store, heard, answers, read };
  };
  const accountId = [...fake.accounts.keys()][0]!;
  const outsideWrite = (id: string, memo: string) =>
    fake.write(() =>
      fake.putTransaction(transaction({ id, account_id: accountId, date: '2026-03-10', memo })),
    );
  return { fake, upstream, clock, a: instance(), b: instance(), outsideWrite };
}

describe('relayed syncs', () => {
  it('merge another instance’s delta without a call, count as synced when it was sent, and tell observers it was relayed', async () => {
    const { fake, upstream, clock, a, b, outsideWrite } = setup();
    await a.read();
    await b.read();
    const from = fake.knowledge;
    outsideWrite('relayed-1', 'from the other instance');
    clock.advance(2 * MINUTE);
    const sentAt = clock.now();
    await a.read(0);
    const delta = a.answers.at(-1)!;
    clock.advance(1_000);

    const relay = { kind: 'delta' as const, data: delta.data, fromKnowledge: from, sentAt };
    expect(b.store.applyRelayed('key-a', { ...relay, bytes: delta.bytes })).toBe('applied');
    expect(b.heard.at(-1)).toMatchObject({ relayed: true, source: { kind: 'delta' } });
    const calls = upstream.calls.length;
    const read = await b.read();
    expect(read.sync).toBe('none');
    expect(read.ageMs).toBe(1_000);
    expect(read.snapshot.transaction('relayed-1')?.memo).toBe('from the other instance');
    expect(upstream.calls).toHaveLength(calls);

    // The same delta again brings nothing: kept, not merged, not announced.
    const announced = b.heard.length;
    expect(b.store.applyRelayed('key-a', { ...relay, bytes: delta.bytes })).toBe('kept');
    expect(b.heard).toHaveLength(announced);
  });

  it('refuse a delta with nothing to merge into, or asked from beyond the replica', async () => {
    const { fake, clock, a, b, outsideWrite } = setup();
    await a.read();
    outsideWrite('gap-1', 'one');
    clock.advance(1_000);
    await a.read(0);
    const first = a.answers.at(-1)!;
    const middle = fake.knowledge;
    outsideWrite('gap-2', 'two');
    clock.advance(1_000);
    await a.read(0);
    const second = a.answers.at(-1)!;
    const sync = (data: FetchPlanResult['data'], fromKnowledge: number) => ({
      kind: 'delta' as const,
      data,
      fromKnowledge,
      sentAt: clock.now(),
      bytes: 1,
    });
    // B holds nothing yet.
    expect(b.store.applyRelayed('key-a', sync(first.data, 0))).toBe('gap');
    await b.read();
    // Loaded after both writes: the first delta is older (kept), a later one fits.
    expect(b.store.applyRelayed('key-a', sync(first.data, 0))).toBe('kept');
    const c = setup().b;
    expect(c.store.applyRelayed('key-a', { ...sync(a.answers[0]!.data, 0), kind: 'full' })).toBe(
      'applied',
    );
    expect(c.store.applyRelayed('key-a', sync(second.data, middle))).toBe('gap');
    expect(
      c.store.applyRelayed('key-a', sync(first.data, a.answers[0]!.data.server_knowledge)),
    ).toBe('applied');
    expect(c.store.applyRelayed('key-a', sync(second.data, middle))).toBe('applied');
    expect(c.store.peek('key-a', fake.id)?.snapshot.transaction('gap-2')?.memo).toBe('two');
  });

  it('keep a write of this instance that a relayed delta sent before it cannot vouch for', async () => {
    const { fake, clock, a, b, outsideWrite } = setup();
    await a.read();
    await b.read();
    const from = fake.knowledge;
    outsideWrite('shared', 'before');
    // A's request leaves before B's write of the same transaction...
    clock.advance(1_000);
    const sentAt = clock.now();
    await a.read(0);
    const delta = a.answers.at(-1)!;
    clock.advance(10);
    // ...whose REST answer carries no knowledge (as account writes do).
    outsideWrite('shared', 'mine');
    b.store.applySaved('key-a', fake.id, { transactions: [fake.transactionDetail('shared')] });
    const relay = { kind: 'delta' as const, data: delta.data, fromKnowledge: from, sentAt };
    expect(b.store.applyRelayed('key-a', { ...relay, bytes: delta.bytes })).toBe('applied');
    expect(b.store.peek('key-a', fake.id)!.snapshot.transaction('shared')?.memo).toBe('mine');
    // B's own next delta is asked from before the relay, so it carries the write for certain.
    clock.advance(1_000);
    await b.read(0);
    expect(b.store.peek('key-a', fake.id)!.snapshot.transaction('shared')?.memo).toBe('mine');
  });

  it('ask another instance for no more than the read did, however the clock ticked before sending', async () => {
    const { fake, upstream } = setup();
    // A busy process: every look at the clock finds it a millisecond on.
    let time = TEST_NOW;
    const ticking = () => {
      time += 1;
      return time;
    };
    const asked: { notSentBefore: number; sentBy: number }[] = [];
    let release = () => {};
    const store = createReplicaStore({
      fetchPlan: async (request) => {
        asked.push({ notSentBefore: request.notSentBefore, sentBy: time });
        if (asked.length === 1) await new Promise<void>((resolve) => (release = resolve));
        return upstream.fetchPlan(request);
      },
      classifyFailure,
      now: ticking,
    });
    const read = (maxAgeMs: number) =>
      store.read({ token: 'token-a', tokenKey: 'key-a', planId: fake.id, freshness: { maxAgeMs } });

    const cold = read(MINUTE);
    await vi.waitFor(() => expect(asked).toHaveLength(1), { timeout: 45_000 });
    // The read's own bound: a snapshot or relay sent within max-age of its arrival will do.
    expect(asked[0]!.notSentBefore).toBeLessThanOrEqual(TEST_NOW + 1 - MINUTE + 1);
    // A no-cache read meanwhile waits for the follow-up, which must be sent after it arrived.
    const arrivedBy = time;
    const noCache = read(0);
    release();
    await Promise.all([cold, noCache]);
    expect(asked).toHaveLength(2);
    expect(asked[1]!.notSentBefore).toBeGreaterThan(arrivedBy);
  });

  it('give a read that joined another read’s flight no older data than its own max-age allows', async () => {
    const { fake, upstream, clock } = setup();
    const asked: number[] = [];
    let release = () => {};
    const store = createReplicaStore({
      fetchPlan: async (request) => {
        asked.push(request.notSentBefore);
        const answer = await upstream.fetchPlan(request);
        if (asked.length > 1) return answer;
        // Another instance's export, sent 5 minutes ago: within the first read's 10.
        await new Promise<void>((resolve) => (release = resolve));
        return { ...answer, sentAt: clock.now() - 5 * MINUTE, relayed: true };
      },
      classifyFailure,
      now: clock.now,
    });
    const read = (maxAgeMs: number) =>
      store.read({ token: 'token-a', tokenKey: 'key-a', planId: fake.id, freshness: { maxAgeMs } });

    const lenient = read(10 * MINUTE);
    await vi.waitFor(() => expect(asked).toHaveLength(1), { timeout: 45_000 });
    // Joins the flight in the air (sent now, so new enough to join)...
    const strict = read(MINUTE);
    release();
    expect((await lenient).ageMs).toBe(5 * MINUTE);
    // ...but gets data no older than a minute: one more sync, asked for data sent after it.
    const answered = await strict;
    expect(answered.ageMs).toBeLessThanOrEqual(MINUTE);
    expect(asked).toHaveLength(2);
    expect(asked[1]).toBeGreaterThanOrEqual(clock.now() - MINUTE);
  });
});
