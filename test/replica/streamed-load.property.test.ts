/**
 * Property: a replica loaded as its export streams in (the body cut at random points, parsed in
 * batches of any size, rows built as they arrive by `PlanBuilder`) equals the replica an
 * ordinary parse builds: `JSON.parse` of the whole body merged into an empty replica by the
 * delta rules (`applyChangeSet`). Indexes and hybrid weights included, with split lines, rows
 * repeated or deleted inside the export, and text that needs escaping. Ids whose hashes collide
 * (the load compares hashes before ids) load as the ordinary parse does.
 */
import type { ResponseData } from '@plans-gateway/rest-contract';
import { subtransaction, TEST_MONTH, TEST_NOW } from '@plans-gateway/rest-contract/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergePlanDelta, planInfoOf } from '../../src/replica/delta.js';
import type { LazyMap } from '../../src/replica/lazy-map.js';
import { PlanBuilder } from '../../src/replica/plan-builder.js';
import { emptyPlanState, type PlanState } from '../../src/replica/plan-state.js';
import { keyHash, type ShardedMap } from '../../src/replica/sharded-map.js';
import { createPlanSnapshot } from '../../src/replica/snapshot.js';
import { ReplicaDataError } from '../../src/replica/validate.js';
import { JsonArraySplitter } from '../../src/upstream/json-array-stream.js';
import { cutAt } from '../support/chunks.js';
import { dumpIndexes, dumpSnapshot } from './support/inspect.js';
import { createRandomPlan, randomChange } from './support/random-plan.js';

type PlanExport = ResponseData['getPlanById'];
const options = { currentMonth: TEST_MONTH };
/** The random plans of both properties, with split lines. */
const PLAN_SHAPE = { accounts: 4, payees: 8, groups: 3, categories: 8, splitShare: 0.25 };

/** The streamed load: `body` cut at `cuts`, batches of about `batchBytes`. */
function streamedLoad(body: string, cuts: readonly number[], batchBytes: number): PlanState {
  const bytes = Buffer.from(body, 'utf8');
  const builder = new PlanBuilder(options);
  const splitter = new JsonArraySplitter(
    { at: ['data', 'plan'], onElements: (key, rows) => builder.add(key, rows) },
    { batchBytes },
  );
  for (const piece of cutAt(bytes, cuts)) splitter.write(piece);
  return builder.finish((splitter.end() as { data: unknown }).data);
}

/** The ordinary parse: the whole body, merged into an empty replica by the delta rules. */
function ordinaryLoad(body: string): PlanState {
  const { data } = JSON.parse(body) as { data: PlanExport };
  return mergePlanDelta(emptyPlanState(planInfoOf(data.plan)), data, options);
}

/** Everything a replica holds, as plain data: rows, indexes, and each hybrid list's weight. */
function dump(state: PlanState) {
  const weights = (lists: PlanState['transactionsByCategory']) =>
    Object.fromEntries(
      [...lists].map(([key, list]) => [key, list.weightBetween(0, list.size)]).sort(),
    );
  return {
    snapshot: dumpSnapshot(createPlanSnapshot(state, { now: () => TEST_NOW })),
    indexes: dumpIndexes(state),
    byCategoryWeights: weights(state.transactionsByCategory),
    byPayeeWeights: weights(state.transactionsByPayee),
  };
}

/**
 * An export with what a real one rarely has but a load must survive: text needing escapes and
 * several bytes per character, rows given twice (the later wins, a split line in its place),
 * deleted rows, a split line moved to another parent, and lines of a parent that is not there.
 */
function roughen(data: PlanExport, seed: number): PlanExport {
  const plan = structuredClone(data.plan);
  const transactions = plan.transactions;
  const subs = plan.subtransactions;
  const first = transactions[seed % Math.max(1, transactions.length)];
  if (first) {
    first.memo = 'naïve "quoted" \\ back\\slash ☕ 𝄞\n';
    transactions.push({ ...first, amount: first.amount + 1, date: '2026-01-02' });
  }
  const second = transactions[(seed >> 3) % Math.max(1, transactions.length)];
  // Half the time no row is deleted, so a repeated row alone must keep the load from deferring.
  if (second && second !== first && seed % 2 === 1) transactions.push({ ...second, deleted: true });
  const again = subs[(seed >> 2) % Math.max(1, subs.length)];
  if (again) subs.push({ ...again, memo: 'given again' });
  const line = subs[seed % Math.max(1, subs.length)];
  if (line && first) subs.push({ ...line, transaction_id: first.id, memo: 'moved' });
  if (line) subs.push({ ...line, id: `${line.id}-orphan`, transaction_id: 'no-such-parent' });
  const account = plan.accounts[0];
  if (account) plan.accounts.push({ ...account, name: 'Renamed ☕' });
  return { ...data, plan };
}

describe('streamed load (property)', () => {
  it('equals an ordinary parse, cut anywhere, in batches of any size', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 0, max: 40 }),
        fc.boolean(),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 24 }),
        fc.integer({ min: 1, max: 8192 }),
        (seed, changes, rough, cutPoints, batchBytes) => {
          const { fake, ids, rng } = createRandomPlan(seed, { ...PLAN_SHAPE, transactions: 120 });
          for (let i = 0; i < changes; i++) randomChange(fake, ids, rng);
          const data = rough ? roughen(fake.exportPlan(), seed) : fake.exportPlan();
          const body = JSON.stringify({ data });
          const length = Buffer.byteLength(body);
          const cuts = cutPoints.map((point) => Math.floor(point * length));
          expect(dump(streamedLoad(body, cuts, batchBytes))).toEqual(dump(ordinaryLoad(body)));
        },
      ),
      { numRuns: 60, seed: 20261126 },
    );
  });

  it('refuses a bad row with the path the ordinary parse names', () => {
    const { fake } = createRandomPlan(7, {
      accounts: 2,
      payees: 3,
      groups: 1,
      categories: 2,
      transactions: 20,
    });
    const data = fake.exportPlan();
    const rows = data.plan.transactions as unknown as Record<string, unknown>[];
    rows[13]!.amount = '12.5';
    const body = JSON.stringify({ data });
    const failure = (load: () => unknown) => {
      try {
        load();
      } catch (error) {
        return error instanceof ReplicaDataError ? error.message : String(error);
      }
      return 'loaded';
    };
    const streamed = failure(() => streamedLoad(body, [100, 2000], 300));
    expect(streamed).toMatch(/^data\.plan\.transactions\[13\]\.amount must be an integer/);
    expect(streamed).toBe(failure(() => ordinaryLoad(body)));
  });

  it('merges a later delta as an ordinary parse does, its lazy indexes built by the merge', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1, max: 30 }),
        fc.boolean(),
        (seed, changes, readFirst) => {
          const { fake, ids, rng } = createRandomPlan(seed, { ...PLAN_SHAPE, transactions: 80 });
          const body = JSON.stringify({ data: fake.exportPlan() });
          const streamed = streamedLoad(body, [], 4096);
          const ordinary = ordinaryLoad(body);
          expect((streamed.transactionsByAccount as LazyMap<string, unknown>).built).toBe(false);
          expect(streamed.transactions.filled).toBe(false);
          // Read by account first, or let the merge be the first to need the indexes.
          if (readFirst)
            expect([...streamed.transactionsByAccount.keys()].sort()).toEqual(
              [...ordinary.transactionsByAccount.keys()].sort(),
            );
          const knowledge = fake.knowledge;
          for (let i = 0; i < changes; i++) randomChange(fake, ids, rng);
          const delta = fake.exportPlan(knowledge);
          expect(dump(mergePlanDelta(streamed, delta, options))).toEqual(
            dump(mergePlanDelta(ordinary, delta, options)),
          );
        },
      ),
      { numRuns: 40, seed: 20261127 },
    );
  });
});

/** Ids of one length and the same first and last 8 characters: `keyHash` cannot tell them apart. */
const COLLIDING = [
  'aaaaaaaa-0000-4000-8000-bbbbbbbbbbbb',
  'aaaaaaaa-1111-4111-8111-bbbbbbbbbbbb',
  'aaaaaaaa-2222-4222-8222-bbbbbbbbbbbb',
];

/** A plan whose first two transactions take colliding ids, each with a split line. */
function collidingExport(): PlanExport {
  const { fake } = createRandomPlan(11, { ...PLAN_SHAPE, transactions: 30, splitShare: 0 });
  const plan = structuredClone(fake.exportPlan().plan);
  const [first, second] = plan.transactions;
  first!.id = COLLIDING[0]!;
  second!.id = COLLIDING[1]!;
  const line = (id: string, parent: string) =>
    subtransaction({ id, transaction_id: parent, amount: first!.amount, memo: `under ${parent}` });
  plan.subtransactions = [
    line('line-1', COLLIDING[0]!),
    line('line-2', COLLIDING[1]!),
    // Its parent is no row, though its hash is two rows' hash: the line is dropped.
    line('line-3', COLLIDING[2]!),
  ];
  return { server_knowledge: 5, plan };
}

describe('streamed load, ids whose hashes collide', () => {
  it('keeps rows whose ids only hash alike, their lines, and no line of a missing parent', () => {
    expect(new Set(COLLIDING.map(keyHash)).size).toBe(1);
    const body = JSON.stringify({ data: collidingExport() });
    const streamed = streamedLoad(body, [], 512);
    expect((streamed.transactions as ShardedMap<unknown>).filled).toBe(false);
    const ordinary = ordinaryLoad(body);
    expect(dump(streamed)).toEqual(dump(ordinary));
    expect(streamed.transactions.size).toBe(30);
    expect(streamed.transactions.get(COLLIDING[1]!)?.memo).toBe(
      ordinary.transactions.get(COLLIDING[1]!)?.memo,
    );
    expect([...streamed.subtransactions.values()].map((line) => line.id).sort()).toEqual([
      'line-1',
      'line-2',
    ]);
  });

  it('finds an id given twice among rows whose ids hash alike: the later row wins', () => {
    const data = collidingExport();
    const again = { ...data.plan.transactions[1]!, memo: 'given again' };
    data.plan.transactions.push(again);
    const body = JSON.stringify({ data });
    const streamed = streamedLoad(body, [], 512);
    expect(dump(streamed)).toEqual(dump(ordinaryLoad(body)));
    expect(streamed.transactions.size).toBe(30);
    expect(streamed.transactions.get(COLLIDING[1]!)?.memo).toBe('given again');
  });
});
