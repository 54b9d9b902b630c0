/**
 * `ReplicaStore.backfill`: a live replay's delta from a knowledge older than the replica's goes
 * through the store's one fetch path (`fetchPlan`: the sync metrics, the cluster's flight and
 * relay wrap it), never beside it, and is stored like a delta fetched outside a read.
 */
import { TEST_NOW, transaction } from '@plans-gateway/rest-contract/testing';
import { describe, expect, it } from 'vitest';
import {
  type AppliedChange,
  createReplicaStore,
  type FetchPlanRequest,
} from '../../src/replica/store.js';
import type { PlanSnapshot } from '../../src/replica/types.js';
import {
  classifyFailure,
  createFakeUpstream,
  createManualClock,
  FakeUpstreamError,
} from './support/fake-upstream.js';
import { createRandomPlan } from './support/random-plan.js';

const MINUTE = 60_000;

function setup() {
  const { fake } = createRandomPlan(11, {
    accounts: 2,
    payees: 3,
    groups: 2,
    categories: 3,
    transactions: 20,
  });
  const upstream = createFakeUpstream();
  upstream.addToken('token-a', [fake]);
  const clock = createManualClock(TEST_NOW);
  const requests: FetchPlanRequest[] = [];
  const heard: AppliedChange[] = [];
  const store = createReplicaStore({
    fetchPlan: (request) => {
      requests.push(request);
      return upstream.fetchPlan(request);
    },
    classifyFailure,
    now: clock.now,
    onApplied: (change) => heard.push(change),
  });
  const accountId = [...fake.accounts.keys()][0]!;
  const outsideWrite = (id: string, memo: string) =>
    fake.write(() =>
      fake.putTransaction(transaction({ id, account_id: accountId, date: '2026-03-10', memo })),
    );
  const read = () =>
    store.read({
      token: 'token-a',
      tokenKey: 'key-a',
      planId: fake.id,
      freshness: { maxAgeMs: MINUTE },
    });
  return { fake, upstream, clock, store, requests, heard, outsideWrite, read };
}

describe('a backfill', () => {
  it('asks fetchPlan for a delta from its knowledge with its meter, then stores it like any delta', async () => {
    const { fake, clock, store, requests, heard, outsideWrite, read } = setup();
    await read();
    const since = fake.knowledge;
    outsideWrite('missed-1', 'before the replay');
    clock.advance(2 * MINUTE);
    await store.read({
      token: 'token-a',
      tokenKey: 'key-a',
      planId: fake.id,
      freshness: { maxAgeMs: 0 },
    });
    outsideWrite('missed-2', 'after the last sync');
    const held = store.peek('key-a', fake.id)!.snapshot.serverKnowledge;
    expect(held).toBeGreaterThan(since);
    requests.length = 0;
    heard.length = 0;

    const meter = { record() {} };
    const told: { knowledge: number; held: number | undefined; announced: number }[] = [];
    clock.advance(1_000);
    await store.backfill({
      token: 'token-a',
      tokenKey: 'key-a',
      planId: fake.id,
      since,
      meter,
      beforeMerge: (data, replica: PlanSnapshot | undefined) =>
        told.push({
          knowledge: data.server_knowledge,
          held: replica?.serverKnowledge,
          announced: heard.length,
        }),
    });

    // One request, through fetchPlan, from the replay's knowledge, charged to the given meter;
    // only its own answer serves it (another instance's is relative to that one's replica).
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      token: 'token-a',
      tokenKey: 'key-a',
      planId: fake.id,
      lastKnowledgeOfServer: since,
      notSentBefore: Number.POSITIVE_INFINITY,
    });
    expect(requests[0]!.meter).toBe(meter);
    // Told before the merge was announced, with the replica as it was.
    expect(told).toEqual([{ knowledge: fake.knowledge, held, announced: 0 }]);
    // Stored: the replica reaches the delta's knowledge, as synced when it was sent.
    const after = store.peek('key-a', fake.id)!;
    expect(after.snapshot.serverKnowledge).toBe(fake.knowledge);
    expect(after.snapshot.transaction('missed-2')?.memo).toBe('after the last sync');
    expect(after.ageMs).toBe(0);
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatchObject({
      planId: fake.id,
      source: { kind: 'delta', fromKnowledge: since },
    });
  });

  it('that fails stores nothing and rejects with the failure', async () => {
    const { fake, upstream, store, heard, outsideWrite, read } = setup();
    await read();
    const since = fake.knowledge;
    outsideWrite('missed-1', 'never fetched');
    heard.length = 0;
    upstream.failNext(new FakeUpstreamError(503));
    let told = false;
    await expect(
      store.backfill({
        token: 'token-a',
        tokenKey: 'key-a',
        planId: fake.id,
        since,
        beforeMerge: () => {
          told = true;
        },
      }),
    ).rejects.toThrow('upstream answered 503');
    expect(told).toBe(false);
    expect(heard).toEqual([]);
    expect(store.peek('key-a', fake.id)!.snapshot.serverKnowledge).toBe(since);
  });

  it('refuses a knowledge that cannot be one, naming it, before any request', async () => {
    const { fake, store, requests } = setup();
    for (const since of [-1, 1.5, Number.NaN]) {
      await expect(
        store.backfill({ token: 'token-a', tokenKey: 'key-a', planId: fake.id, since }),
      ).rejects.toThrow(/BackfillRequest\.since must be a non-negative integer/);
    }
    expect(requests).toEqual([]);
  });
});
