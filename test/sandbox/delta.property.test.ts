/**
 * Property: for every delta-capable endpoint, replaying the delta response (asked with
 * `last_knowledge_of_server`) onto an earlier full response reproduces the current full
 * response, from the start of a random write sequence and from a point in its middle; and a
 * delta from the current knowledge is empty.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, isoDate, monthOf } from './support/dates.js';
import { isRecord } from './support/check-shape.js';
import { canonical, deletedPaths, flattenCategoryGroups, mergeList, replayCategories, replayPlan, type Entity } from './support/delta.js';
import type { Rest } from './support/rest.js';
import { exportPlan, startTestSandbox } from './support/sandbox.js';
import { applyWrite, favouredTargets, writeSequenceArbitrary, type WriteState } from './support/writes.js';

const SEED = 20_250_615;
const RUNS = 25;
const MAX_WRITES = 15;

interface DeltaEndpoint {
  name: string;
  path: string;
  /** The earlier data with the delta data replayed onto it, in comparable form. */
  replay(base: Entity, delta: Entity): unknown;
  /** The full data in the same comparable form. */
  current(full: Entity): unknown;
  /** The entity lists of a delta response (to check it is empty when nothing changed). */
  changes(delta: Entity): unknown[];
}

function list(data: Entity, key: string): Entity[] {
  const value = data[key];
  if (!Array.isArray(value) || !value.every(isRecord)) throw new Error(`data.${key} is not a list`);
  return value;
}

function flatEndpoint(name: string, path: string, key: string, keep: (entity: Entity) => boolean = () => true, id = 'id'): DeltaEndpoint {
  return {
    name,
    path,
    replay: (base, delta) => canonical(mergeList(list(base, key), list(delta, key), id).filter(keep)),
    current: (full) => canonical(list(full, key)),
    changes: (delta) => list(delta, key),
  };
}

function endpoints(planId: string, targets: ReturnType<typeof favouredTargets>, today: string): DeltaEndpoint[] {
  const yearAgo = `${Number(today.slice(0, 4)) - 1}${today.slice(4)}`;
  const month = monthOf(today);
  const inWindow = (t: Entity): boolean => typeof t.date === 'string' && t.date >= yearAgo;
  const base = `/plans/${planId}`;
  return [
    {
      name: 'plan export',
      path: base,
      replay: (earlier, delta) => {
        if (!isRecord(earlier.plan) || !isRecord(delta.plan)) throw new Error('plan export without data.plan');
        return canonical(replayPlan(earlier.plan, delta.plan));
      },
      current: (full) => canonical(full.plan),
      changes: (delta) => {
        const plan = isRecord(delta.plan) ? delta.plan : {};
        return Object.values(plan).filter(Array.isArray).flat();
      },
    },
    flatEndpoint('accounts', `${base}/accounts`, 'accounts'),
    {
      name: 'categories',
      path: `${base}/categories`,
      replay: (earlier, delta) => canonical(replayCategories(list(earlier, 'category_groups'), list(delta, 'category_groups'))),
      current: (full) => canonical(flattenCategoryGroups(list(full, 'category_groups'))),
      changes: (delta) => {
        const flat = flattenCategoryGroups(list(delta, 'category_groups'));
        return [...flat.groups, ...flat.categories];
      },
    },
    flatEndpoint('payees', `${base}/payees`, 'payees'),
    flatEndpoint('months', `${base}/months`, 'months', () => true, 'month'),
    flatEndpoint('all transactions', `${base}/transactions`, 'transactions', inWindow),
    flatEndpoint(
      'account transactions',
      `${base}/accounts/${targets.accountId}/transactions`,
      'transactions',
      (t) => inWindow(t) && t.account_id === targets.accountId,
    ),
    flatEndpoint(
      'category transactions',
      `${base}/categories/${targets.categoryId}/transactions`,
      'transactions',
      (t) => inWindow(t) && t.category_id === targets.categoryId,
    ),
    flatEndpoint(
      'payee transactions',
      `${base}/payees/${targets.payeeId}/transactions`,
      'transactions',
      (t) => inWindow(t) && t.payee_id === targets.payeeId,
    ),
    flatEndpoint(
      'month transactions',
      `${base}/months/${month}/transactions`,
      'transactions',
      (t) => typeof t.date === 'string' && monthOf(t.date) === month,
    ),
    flatEndpoint('scheduled transactions', `${base}/scheduled_transactions`, 'scheduled_transactions'),
  ];
}

async function fetchData(rest: Rest, path: string, knowledge?: number): Promise<Entity> {
  const response = await rest.get(path, knowledge === undefined ? {} : { last_knowledge_of_server: knowledge });
  if (response.status !== 200 || !isRecord(response.body) || !isRecord(response.body.data)) {
    throw new Error(`GET ${path} (knowledge ${String(knowledge)}) -> ${response.status} ${response.text.slice(0, 300)}`);
  }
  return response.body.data;
}

function knowledgeOf(data: Entity): number {
  if (typeof data.server_knowledge !== 'number') throw new Error('response without server_knowledge');
  return data.server_knowledge;
}

async function snapshot(rest: Rest, all: DeltaEndpoint[]): Promise<Map<string, Entity>> {
  const snapshots = new Map<string, Entity>();
  for (const endpoint of all) snapshots.set(endpoint.name, await fetchData(rest, endpoint.path));
  return snapshots;
}

describe('delta requests', () => {
  it('replay onto an earlier full response to give the current one, for every delta endpoint', async () => {
    await fc.assert(
      fc.asyncProperty(writeSequenceArbitrary(MAX_WRITES), fc.nat(), async (writes, splitChoice) => {
        const box = await startTestSandbox({ transactions: 40, seed: 3 });
        const log: string[] = [];
        try {
          const today = isoDate(box.clock.now());
          const initial = (await exportPlan(box.rest, box.planId)).plan;
          const all = endpoints(box.planId, favouredTargets(initial, box.clock.now()), today);
          const start = await snapshot(box.rest, all);
          const split = splitChoice % (writes.length + 1);
          let middle = start;
          const state: WriteState = { counter: 0 };
          for (const [index, write] of writes.entries()) {
            if (index === split) middle = await snapshot(box.rest, all);
            const plan = (await exportPlan(box.rest, box.planId)).plan;
            const outcome = await applyWrite(box.rest, box.planId, plan, box.clock.now(), write, state);
            log.push(outcome?.description ?? `${write.kind}: nothing to do`);
          }
          const end = await snapshot(box.rest, all);

          for (const endpoint of all) {
            const full = end.get(endpoint.name) ?? {};
            expect(deletedPaths(full), `${endpoint.name}: full response with deleted entities`).toEqual([]);
            for (const [label, earlier] of [
              ['start', start],
              ['middle', middle],
            ] as const) {
              const before = earlier.get(endpoint.name) ?? {};
              const delta = await fetchData(box.rest, endpoint.path, knowledgeOf(before));
              expect(knowledgeOf(delta), `${endpoint.name} from ${label}: knowledge`).toBe(knowledgeOf(full));
              expect(endpoint.replay(before, delta), `${endpoint.name} from ${label}`).toEqual(endpoint.current(full));
            }
            const empty = await fetchData(box.rest, endpoint.path, knowledgeOf(full));
            expect(endpoint.changes(empty), `${endpoint.name}: delta at the current knowledge`).toEqual([]);
          }
        } catch (error) {
          throw new Error(`${error instanceof Error ? error.message : String(error)}\nwrites:\n  ${log.join('\n  ')}`);
        } finally {
          await box.close();
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  });

  it('carries a write in the deltas of every endpoint it touches', async () => {
    const box = await startTestSandbox({ transactions: 40, seed: 3 });
    try {
      const today = isoDate(box.clock.now());
      const plan = (await exportPlan(box.rest, box.planId)).plan;
      const targets = favouredTargets(plan, box.clock.now());
      const all = endpoints(box.planId, targets, today);
      const before = await snapshot(box.rest, all);
      const response = await box.rest.post(`/plans/${box.planId}/transactions`, {
        transaction: {
          account_id: targets.accountId,
          date: addDays(today, -1),
          amount: -12_340,
          payee_id: targets.payeeId,
          category_id: targets.categoryId,
        },
      });
      expect(response.status).toBe(201);
      for (const name of ['plan export', 'accounts', 'categories', 'months', 'all transactions', 'account transactions', 'category transactions', 'payee transactions', 'month transactions']) {
        const endpoint = all.find((e) => e.name === name);
        if (endpoint === undefined) throw new Error(name);
        const delta = await fetchData(box.rest, endpoint.path, knowledgeOf(before.get(name) ?? {}));
        expect(endpoint.changes(delta).length, name).toBeGreaterThan(0);
      }
      for (const name of ['payees', 'scheduled transactions']) {
        const endpoint = all.find((e) => e.name === name);
        if (endpoint === undefined) throw new Error(name);
        const delta = await fetchData(box.rest, endpoint.path, knowledgeOf(before.get(name) ?? {}));
        expect(endpoint.changes(delta), name).toEqual([]);
      }
    } finally {
      await box.close();
    }
  });
});
