/**
 * The delta-capable endpoints as the property tests see them: how to replay a delta onto an
 * earlier response, and one full check of a write sequence that reports every disagreement.
 */
import { isRecord } from './check-shape.js';
import { isoDate, monthOf } from './dates.js';
import {
  canonical,
  deletedPaths,
  differences,
  type Entity,
  flattenCategoryGroups,
  mergeList,
  replayCategories,
  replayPlan,
} from './delta.js';
import type { Rest } from './rest.js';
import { exportPlan, startTestSandbox } from './sandbox.js';
import { applyWrite, favouredTargets, type Write, type WriteState } from './writes.js';

export interface DeltaEndpoint {
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

function flatEndpoint(
  name: string,
  path: string,
  key: string,
  keep: (entity: Entity) => boolean = () => true,
  id = 'id',
): DeltaEndpoint {
  return {
    name,
    path,
    replay: (base, delta) =>
      canonical(mergeList(list(base, key), list(delta, key), id).filter(keep)),
    current: (full) => canonical(list(full, key)),
    changes: (delta) => list(delta, key),
  };
}

export function endpoints(
  planId: string,
  targets: ReturnType<typeof favouredTargets>,
  today: string,
): DeltaEndpoint[] {
  const yearAgo = `${Number(today.slice(0, 4)) - 1}${today.slice(4)}`;
  const month = monthOf(today);
  const inWindow = (t: Entity): boolean => typeof t.date === 'string' && t.date >= yearAgo;
  const base = `/plans/${planId}`;
  return [
    {
      name: 'plan export',
      path: base,
      replay: (earlier, delta) => {
        if (!isRecord(earlier.plan) || !isRecord(delta.plan))
          throw new Error('plan export without data.plan');
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
      replay: (earlier, delta) =>
        canonical(
          replayCategories(list(earlier, 'category_groups'), list(delta, 'category_groups')),
        ),
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
    flatEndpoint(
      'scheduled transactions',
      `${base}/scheduled_transactions`,
      'scheduled_transactions',
    ),
  ];
}

export async function fetchData(rest: Rest, path: string, knowledge?: number): Promise<Entity> {
  const response = await rest.get(
    path,
    knowledge === undefined ? {} : { last_knowledge_of_server: knowledge },
  );
  if (response.status !== 200 || !isRecord(response.body) || !isRecord(response.body.data)) {
    throw new Error(
      `GET ${path} (knowledge ${String(knowledge)}) -> ${response.status} ${response.text.slice(0, 300)}`,
    );
  }
  return response.body.data;
}

export function knowledgeOf(data: Entity): number {
  if (typeof data.server_knowledge !== 'number')
    throw new Error('response without server_knowledge');
  return data.server_knowledge;
}

export async function snapshot(rest: Rest, all: DeltaEndpoint[]): Promise<Map<string, Entity>> {
  const snapshots = new Map<string, Entity>();
  for (const endpoint of all) snapshots.set(endpoint.name, await fetchData(rest, endpoint.path));
  return snapshots;
}

/** The plan every delta sequence starts from. */
export const DELTA_PLAN = { transactions: 40, seed: 3 } as const;

/**
 * Runs `writes` on a fresh sandbox, snapshotting every endpoint at the start and before write
 * `split`, then checks each endpoint's deltas from both points. Throws one error listing every
 * disagreement, followed by the writes that led there.
 */
export async function checkDeltaSequence(writes: readonly Write[], split: number): Promise<void> {
  const box = await startTestSandbox(DELTA_PLAN);
  const log: string[] = [];
  try {
    const today = isoDate(box.clock.now());
    const initial = (await exportPlan(box.rest, box.planId)).plan;
    const all = endpoints(box.planId, favouredTargets(initial, box.clock.now()), today);
    const start = await snapshot(box.rest, all);
    let middle = start;
    const state: WriteState = { counter: 0 };
    for (const [index, write] of writes.entries()) {
      if (index === split) middle = await snapshot(box.rest, all);
      const plan = (await exportPlan(box.rest, box.planId)).plan;
      const outcome = await applyWrite(box.rest, box.planId, plan, box.clock.now(), write, state);
      log.push(outcome?.description ?? `${write.kind}: nothing to do`);
    }
    const end = await snapshot(box.rest, all);

    // Every endpoint is checked before failing, so one report shows all that disagree.
    const failures: string[] = [];
    for (const endpoint of all) {
      const full = end.get(endpoint.name) ?? {};
      const deleted = deletedPaths(full);
      if (deleted.length > 0) {
        failures.push(
          `${endpoint.name}: full response holds deleted entities at ${deleted.slice(0, 3).join(', ')}`,
        );
      }
      for (const [label, earlier] of [
        ['start', start],
        ['middle', middle],
      ] as const) {
        const before = earlier.get(endpoint.name) ?? {};
        const delta = await fetchData(box.rest, endpoint.path, knowledgeOf(before));
        if (knowledgeOf(delta) !== knowledgeOf(full)) {
          failures.push(
            `${endpoint.name} from ${label}: delta knowledge ${knowledgeOf(delta)}, full ${knowledgeOf(full)}`,
          );
        }
        const diffs = differences(endpoint.replay(before, delta), endpoint.current(full));
        if (diffs.length > 0) {
          failures.push(
            `${endpoint.name} from ${label}: replay differs from the full response\n    ${diffs.join('\n    ')}`,
          );
        }
      }
      const empty = endpoint.changes(await fetchData(box.rest, endpoint.path, knowledgeOf(full)));
      if (empty.length > 0)
        failures.push(
          `${endpoint.name}: ${empty.length} entities in a delta at the current knowledge`,
        );
    }
    if (failures.length > 0) throw new Error(failures.join('\n'));
  } catch (error) {
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}\nwrites:\n  ${log.join('\n  ')}`,
    );
  } finally {
    await box.close();
  }
}
