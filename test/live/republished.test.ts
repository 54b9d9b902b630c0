/**
 * What the hub publishes when the replica receives rows it already held: a delta asked from an
 * older knowledge (a replay's backfill, which also syncs the replica) and a full reload (the
 * upstream's knowledge went back) carry the whole window again, yet only the rows that differ
 * reach live subscribers, for no upstream call.
 */

import {
  account,
  planExport,
  TEST_MONTH,
  TEST_NOW,
  transaction,
  uuid,
} from '@plans-gateway/rest-contract/testing';
import { describe, expect, it } from 'vitest';
import { createPollBudget } from '../../src/live/budget.js';
import { createLiveHub, type LiveHub } from '../../src/live/hub.js';
import type { PlanChange } from '../../src/replica/changes.js';
import { buildPlanState, mergePlanDelta } from '../../src/replica/delta.js';
import { createPlanSnapshot } from '../../src/replica/snapshot.js';
import type { PlanSnapshot, ReplicaRead } from '../../src/replica/types.js';
import type { Scheduler } from '../../src/time/scheduler.js';

const PLAN = uuid(1, 1);
const A1 = uuid(2, 1);
const T = [1, 2, 3].map((n) => uuid(7, n));
const options = { currentMonth: TEST_MONTH };
const snapshotOf = (state: Parameters<typeof createPlanSnapshot>[0]) =>
  createPlanSnapshot(state, { now: () => TEST_NOW });

function rows(memos: readonly string[]) {
  return T.map((id, i) =>
    transaction({ id, account_id: A1, date: `2026-03-0${i + 1}`, memo: memos[i] ?? null }),
  );
}

/** A hub over one replica the test replaces, with no timer that ever fires and no upstream. */
function hubOver(first: PlanSnapshot): { hub: LiveHub; hold(next: PlanSnapshot): void } {
  let held = first;
  const read = (): ReplicaRead => ({ snapshot: held, ageMs: 0, sync: 'none', version: '1' });
  const scheduler: Scheduler = { now: () => TEST_NOW, setTimeout: () => ({ cancel() {} }) };
  const hub = createLiveHub({
    replicas: {
      read: async () => read(),
      peek: () => read(),
      backfill: () => Promise.reject(new Error('no upstream call expected')),
    },
    budget: createPollBudget({
      usage: () => {
        throw new Error('no poll runs in these tests');
      },
    }),
    scheduler,
  });
  return {
    hub,
    hold(next) {
      held = next;
    },
  };
}

async function subscribed(hub: LiveHub) {
  const feed = await hub.open<PlanChange>({
    credentials: { token: 'token', tokenKey: 'key' },
    planId: PLAN,
    freshness: { maxAgeMs: 30_000 },
    select: (change) => change,
  });
  const first = feed.next(); // attaches; waits for the first change
  return { feed, first };
}

describe('rows published again', () => {
  it('only those that differ reach subscribers after a delta from an older knowledge', async () => {
    const base = buildPlanState(
      planExport(
        { id: PLAN, accounts: [account({ id: A1 })], transactions: rows(['a', 'b', 'c']) },
        10,
      ),
      options,
    );
    const { hub, hold } = hubOver(snapshotOf(base));
    const { first } = await subscribed(hub);
    // A backfill from 2: the three transactions again, one of them changed since 10.
    const data = planExport({ id: PLAN, transactions: rows(['a', 'B', 'c']) }, 12);
    const next = snapshotOf(mergePlanDelta(base, data, options));
    hold(next);
    hub.applied({
      tokenKey: 'key',
      planId: PLAN,
      source: { kind: 'delta', data, fromKnowledge: 2 },
      previous: snapshotOf(base),
      snapshot: next,
    });
    const change = (await first).value as PlanChange;
    expect(change.transactions.map((tx) => [tx.id, tx.memo])).toEqual([[T[1], 'B']]);
    expect(change.origin).toBe('SYNC');
    await hub.close();
  });

  it('only those that differ reach subscribers after a full reload', async () => {
    const exported = (memos: string[], knowledge: number) =>
      planExport(
        { id: PLAN, accounts: [account({ id: A1 })], transactions: rows(memos) },
        knowledge,
      );
    const before = snapshotOf(buildPlanState(exported(['a', 'b', 'c'], 20), options));
    const { hub, hold } = hubOver(before);
    const { first } = await subscribed(hub);
    // The upstream's knowledge went back (17 after 20): reloaded, one memo differs.
    const reloaded = snapshotOf(buildPlanState(exported(['a', 'b', 'C'], 17), options));
    hold(reloaded);
    hub.applied({
      tokenKey: 'key',
      planId: PLAN,
      source: { kind: 'full', data: exported(['a', 'b', 'C'], 17) },
      previous: before,
      snapshot: reloaded,
    });
    const change = (await first).value as PlanChange;
    expect(change.transactions.map((tx) => [tx.id, tx.memo])).toEqual([[T[2], 'C']]);
    expect(change.accounts).toEqual([]);
    expect(change.serverKnowledge).toBe(17);
    await hub.close();
  });
});
