/**
 * Pure: how a replica differs from a full export of the same plan at the same knowledge, kind of
 * entity by kind. Each row is hashed once (its fields in sorted key order, so rows merged from
 * deltas and writes compare equal to the export's whatever order their keys arrived in); a kind's
 * digest is the hash of its (id, row hash) pairs in id order. Only kinds whose digests differ are
 * compared id by id, so a clean replica costs the hashing and one comparison per kind.
 *
 * What the comparison names is ids, never names or amounts: the caller logs them.
 */
import { createHash } from 'node:crypto';
import type { PlanState } from './plan-state.js';
import type { DriftKind, PlanDrift } from './types.js';

/** The kinds of entity a replica holds, as the drift counter labels them. */
export const DRIFT_KINDS: readonly DriftKind[] = [
  'accounts',
  'payees',
  'payeeLocations',
  'categoryGroups',
  'categories',
  'months',
  'monthCategories',
  'transactions',
  'subtransactions',
  'scheduledTransactions',
  'scheduledSubtransactions',
];

/** One kind's rows: id (or month, or month/id) → hash of the row. */
type KindRows = Map<string, string>;

export interface KindDigest {
  readonly digest: string;
  readonly rows: KindRows;
}

export type PlanDigest = Readonly<Record<DriftKind, KindDigest>>;

/** Fields that say where a row is kept rather than what it holds. */
const LOCAL_FIELDS: ReadonlySet<string> = new Set(['plan_id']);
/**
 * Top-level categories carry the month that was current when stored (`CategoryRow.month`): a
 * replica stored last month and an export of today differ there and nowhere else.
 */
const CATEGORY_LOCAL_FIELDS: ReadonlySet<string> = new Set(['plan_id', 'month']);

/** Private: JSON of `value` with every object's keys sorted; `skip` applies to the top level. */
function canonical(value: unknown, skip: ReadonlySet<string>): string {
  // A sum past 2^53 is a bigint: its digits, as the JSON integer it was read from.
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v, EMPTY)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined && !skip.has(key))
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(record[key], EMPTY)}`).join(',')}}`;
}
const EMPTY: ReadonlySet<string> = new Set();

function hashOf(text: string): string {
  return createHash('sha1').update(text).digest('base64');
}

/**
 * Whether two rows of one kind hold the same figures, whatever their key order: an account or
 * month (`plan_id` and a month's `categories` aside), a category (`plan_id` and `month` aside), a
 * transaction or a payee (`plan_id` aside).
 */
export function sameRow(
  kind: 'accounts' | 'months' | 'monthCategories' | 'transactions' | 'payees',
  a: object,
  b: object,
): boolean {
  const skip = kind === 'monthCategories' ? CATEGORY_LOCAL_FIELDS : ROW_LOCAL_FIELDS;
  return canonical(a, skip) === canonical(b, skip);
}
/** A month of an export carries its categories; the replica keeps them apart. */
const ROW_LOCAL_FIELDS: ReadonlySet<string> = new Set(['plan_id', 'categories']);

/** Private: the rows of one kind keyed, each hashed. */
function kindRows<T>(
  rows: Iterable<T>,
  keyOf: (row: T) => string,
  skip: ReadonlySet<string>,
): KindDigest {
  const hashed: KindRows = new Map();
  for (const row of rows) hashed.set(keyOf(row), hashOf(canonical(row, skip)));
  const digest = createHash('sha256');
  for (const key of [...hashed.keys()].sort()) digest.update(`${key}\u0000${hashed.get(key)}\n`);
  return { digest: digest.digest('base64'), rows: hashed };
}

const byId = (row: { readonly id: string }) => row.id;

/** Every kind's digest and row hashes. Linear in the rows, plus one sort of each kind's ids. */
export function digestPlan(state: PlanState): PlanDigest {
  const monthCategories: { key: string; row: unknown }[] = [];
  for (const [month, table] of state.monthCategories) {
    for (const row of table.rows) monthCategories.push({ key: `${month}/${row.id}`, row });
  }
  return {
    accounts: kindRows(state.accounts.rows, byId, LOCAL_FIELDS),
    payees: kindRows(state.payees.rows, byId, LOCAL_FIELDS),
    payeeLocations: kindRows(state.payeeLocations.rows, byId, LOCAL_FIELDS),
    categoryGroups: kindRows(state.categoryGroups.rows, byId, LOCAL_FIELDS),
    categories: kindRows(state.categories.rows, byId, CATEGORY_LOCAL_FIELDS),
    months: kindRows(state.months.rows, (row) => row.month, LOCAL_FIELDS),
    monthCategories: {
      // Keyed by month and id; the row's own `month` is the key's, so it stays in the hash.
      ...kindRows(monthCategories, (entry) => entry.key, LOCAL_FIELDS),
    },
    transactions: kindRows(state.transactions.values(), byId, LOCAL_FIELDS),
    subtransactions: kindRows(state.subtransactions.values(), byId, LOCAL_FIELDS),
    scheduledTransactions: kindRows(state.scheduledTransactions.rows, byId, LOCAL_FIELDS),
    scheduledSubtransactions: kindRows(state.scheduledSubtransactions.rows, byId, LOCAL_FIELDS),
  };
}

/** The ids that differ, for the kinds whose digests differ; empty when the two agree. */
export function compareDigests(replica: PlanDigest, exported: PlanDigest): PlanDrift {
  const drift: { -readonly [K in DriftKind]?: PlanDrift[K] } = {};
  for (const kind of DRIFT_KINDS) {
    const held = replica[kind];
    const truth = exported[kind];
    if (held.digest === truth.digest) continue;
    const changed: string[] = [];
    const extra: string[] = [];
    const missing: string[] = [];
    for (const [key, hash] of held.rows) {
      const other = truth.rows.get(key);
      if (other === undefined) extra.push(key);
      else if (other !== hash) changed.push(key);
    }
    for (const key of truth.rows.keys()) if (!held.rows.has(key)) missing.push(key);
    drift[kind] = { changed, extra, missing };
  }
  return drift;
}

/** How many ids of each kind differ. */
export function driftCounts(drift: PlanDrift): Partial<Record<DriftKind, number>> {
  const counts: Partial<Record<DriftKind, number>> = {};
  for (const kind of DRIFT_KINDS) {
    const found = drift[kind];
    if (found) counts[kind] = found.changed.length + found.extra.length + found.missing.length;
  }
  return counts;
}

export function hasDrift(drift: PlanDrift): boolean {
  return DRIFT_KINDS.some((kind) => drift[kind] !== undefined);
}
