import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ShardedMap } from '../../src/replica/sharded-map.js';
import { SortedRows } from '../../src/replica/sorted-rows.js';

interface Row {
  key: number;
  id: string;
}
const compare = (a: Row, b: Row) => a.key - b.key || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Batches of changes: insert a new row with a key, or remove an existing row by its rank. */
const batches = (maxLength: number) =>
  fc.array(
    fc.array(
      fc.oneof(
        fc.record({ insert: fc.integer({ min: 0, max: 5000 }) }),
        fc.record({ remove: fc.nat() }),
      ),
      {
        maxLength,
      },
    ),
    { minLength: 1, maxLength: 12 },
  );

describe('SortedRows', () => {
  it.each([
    ['from empty, large batches (rebuilds)', 0, 400],
    ['from 4000 rows, small batches (chunk surgery)', 4000, 40],
  ])(
    'matches a sorted array under batches of inserts and removals: %s',
    (_name, initial, batchSize) => {
      fc.assert(
        fc.property(batches(batchSize), (plan) => {
          let serial = 0;
          let model: Row[] = Array.from({ length: initial }, (_, i) => ({
            key: (i * 7919) % 5000,
            id: `r${serial++}`,
          }));
          model.sort(compare);
          let list = SortedRows.fromSorted(model);
          for (const batch of plan) {
            const previous = list;
            const previousModel = [...model];
            const draft = list.edit(compare);
            const live = new Set(model);
            for (const change of batch) {
              if ('insert' in change) {
                const row = { key: change.insert, id: `r${serial++}` };
                draft.insert(row);
                live.add(row);
              } else if (live.size > 0) {
                const row = [...live][change.remove % live.size]!;
                if (!model.includes(row)) continue; // only rows the base list holds can be removed
                draft.remove(row);
                live.delete(row);
              }
            }
            list = draft.finish();
            model = [...live].sort(compare);
            expect([...list]).toEqual(model);
            expect(list.size).toBe(model.length);
            expect([...previous]).toEqual(previousModel);
          }
          // Random access, lower bounds and walks agree with the array.
          for (const probe of [0, 1, 777, 2500, 4999, 5001]) {
            const expected = model.findIndex((row) => row.key >= probe);
            expect(list.partitionPoint((row) => row.key < probe)).toBe(
              expected < 0 ? model.length : expected,
            );
          }
          for (let i = 0; i < model.length; i += 37) expect(list.at(i)).toBe(model[i]);
          const from = Math.floor(model.length / 2);
          const forward: Row[] = [];
          list.walk(from, 1, (row) => forward.push(row) < 300);
          expect(forward).toEqual(model.slice(from, from + 300));
          const backward: Row[] = [];
          list.walk(from, -1, (row) => backward.push(row) < 300);
          expect(backward).toEqual(model.slice(Math.max(0, from - 299), from + 1).reverse());
        }),
        { numRuns: 60, seed: 7 },
      );
    },
  );

  it.each([
    ['from empty, large batches (rebuilds)', 0, 400],
    ['from 4000 rows, small batches (chunk surgery)', 4000, 40],
  ])(
    'sums the weights of any range as the rows weigh when last put in: %s',
    (_name, initial, batchSize) => {
      fc.assert(
        fc.property(batches(batchSize), fc.array(fc.nat(), { maxLength: 30 }), (plan, picks) => {
          // Weights live outside the rows, as split lines do: a row put back weighs anew.
          const weights = new Map<string, number>();
          const weigh = (row: Row) => weights.get(row.id) ?? 1;
          let serial = 0;
          let model: Row[] = Array.from({ length: initial }, (_, i) => ({
            key: (i * 7919) % 5000,
            id: `r${serial++}`,
          }));
          model.sort(compare);
          for (const row of model) weights.set(row.id, row.key % 3);
          let list = SortedRows.fromSorted(model, weigh);
          for (const [round, batch] of plan.entries()) {
            const draft = list.edit(compare, weigh);
            const live = new Set(model);
            for (const change of batch) {
              if ('insert' in change) {
                const row = { key: change.insert, id: `r${serial++}` };
                weights.set(row.id, change.insert % 4);
                draft.insert(row);
                live.add(row);
              } else if (live.size > 0) {
                const row = [...live][change.remove % live.size]!;
                if (!model.includes(row)) continue;
                draft.remove(row);
                live.delete(row);
              }
            }
            // Reweigh a row the batch left alone: out and back in, weighing one more.
            const kept = model.filter((row) => live.has(row));
            const pick = kept[(picks[round] ?? 0) % Math.max(1, kept.length)];
            if (pick) {
              weights.set(pick.id, (weights.get(pick.id) ?? 0) + 1);
              draft.remove(pick);
              draft.insert(pick);
            }
            list = draft.finish();
            model = [...live].sort(compare);
          }
          const sum = (from: number, to: number) =>
            model.slice(from, to).reduce((total, row) => total + weigh(row), 0);
          const bounds = [0, 1, 255, 256, 257, 1000, model.length - 1, model.length];
          for (const pick of picks) bounds.push(pick % (model.length + 1));
          for (const from of bounds)
            for (const to of bounds) expect(list.weightBetween(from, to)).toBe(sum(from, to));
          expect(SortedRows.fromSorted(model).weightBetween(0, model.length)).toBe(model.length);
        }),
        { numRuns: 40, seed: 11 },
      );
    },
  );

  it('shares untouched chunks between versions', () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => ({ key: i, id: `r${i}` }));
    const list = SortedRows.fromSorted(rows);
    const draft = list.edit(compare);
    draft.insert({ key: 5000, id: 'new' });
    const next = draft.finish();
    const before = list._internals().chunks;
    const after = next._internals().chunks;
    const shared = after.filter((chunk) => before.includes(chunk)).length;
    expect(shared).toBe(before.length - 1);
  });

  it('refuses to remove a row it does not hold', () => {
    const list = SortedRows.fromSorted(
      Array.from({ length: 1000 }, (_, i) => ({ key: i, id: `r${i}` })),
    );
    const draft = list.edit(compare);
    draft.remove({ key: 5, id: 'r5' });
    expect(() => draft.finish()).toThrow('a row to remove is not in the list');
  });
});

describe('ShardedMap', () => {
  it('matches a Map under batches of sets and deletes, old versions unchanged', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.array(fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.boolean()), { maxLength: 2000 }),
          {
            maxLength: 8,
          },
        ),
        (plan) => {
          let map = ShardedMap.empty<number>();
          const model = new Map<string, number>();
          for (const [step, batch] of plan.entries()) {
            const previous = map;
            const previousModel = new Map(model);
            const draft = map.edit();
            for (const [key, keep] of batch) {
              if (keep) {
                draft.set(`k${key}`, step);
                model.set(`k${key}`, step);
              } else {
                draft.delete(`k${key}`);
                model.delete(`k${key}`);
              }
            }
            map = draft.finish();
            expect(map.size).toBe(model.size);
            expect(new Map(map.entries())).toEqual(model);
            expect(new Map(previous.entries())).toEqual(previousModel);
            for (const key of ['k1', 'k2999', 'k-1']) expect(map.get(key)).toBe(model.get(key));
          }
        },
      ),
      { numRuns: 40, seed: 11 },
    );
  });
});
