/**
 * `PlanBuilder`: a replica built from a full export whose rows arrive in batches, as the export
 * streams in (see `src/upstream/json-array-stream.ts`), never holding the export whole.
 *
 * Why not `applyChangeSet` on an empty state: that is the merge path, made for deltas of a few
 * rows; on a 1,000,000-transaction export it spends seconds in copy-on-write drafts and holds
 * the parsed export beside the replica (twice the memory). Here:
 *
 * - each batch is checked (`validate.ts`) and its transaction rows kept as they were parsed,
 *   their repeated strings (account, payee and category ids and names) replaced by one shared
 *   copy per distinct value; the parsed objects become the replica's rows (`plan_id` is added
 *   to them at the end, when the plan's id is known), so nothing is copied;
 * - `finish` builds the tables and indexes in bulk: one sort by (date, id), the maps sharded
 *   once; the indexes by account, category and payee, each a stable grouping of that order, are
 *   built when first read (`lazy-map.ts`), and so is the transactions table by id when no row
 *   is deleted or given twice (`ShardedMap.deferred`; the hashes `add` noted tell, see
 *   `repeatsAnId`).
 *
 * The small collections (accounts, categories, months...) go through `applyChangeSet`, so their
 * rules are written once. The result equals what `applyChangeSet(emptyPlanState(info), export)`
 * builds (`test/replica/streamed-load.property.test.ts`), duplicates and deleted rows included.
 */
import type {
  CategoryGroup,
  IsoDate,
  Payee,
  PayeeLocation,
  ScheduledSubTransactionBase,
  ScheduledTransactionSummaryBase,
  SubTransactionBase,
  TransactionSummaryBase,
} from '@plans-gateway/rest-contract';
import { applyChangeSet } from './change-set.js';
import { planInfoOf } from './delta.js';
import { LazyMap } from './lazy-map.js';
import {
  categoryKeysOf,
  compareTransactions,
  emptyPlanState,
  hybridRowCount,
  type PlanState,
  payeeKeysOf,
} from './plan-state.js';
import { keyHash, ShardedMap, type ShardedMapDraft } from './sharded-map.js';
import { SortedRows } from './sorted-rows.js';
import type { PlanExport, SubTransactionRow, TransactionRow } from './types.js';
import { assertEntity, assertExportHead, assertMonth } from './validate.js';

/** The array members of `data.plan` in a plan export. */
export const EXPORT_COLLECTIONS = [
  'accounts',
  'payees',
  'payee_locations',
  'category_groups',
  'categories',
  'months',
  'transactions',
  'subtransactions',
  'scheduled_transactions',
  'scheduled_subtransactions',
] as const;

export type ExportCollection = (typeof EXPORT_COLLECTIONS)[number];

/** Fields whose values repeat across transaction and split rows: one copy of each is kept. */
const SHARED_VALUE_FIELDS = [
  'account_id',
  'account_name',
  'payee_id',
  'payee_name',
  'category_id',
  'category_name',
  'transfer_account_id',
  'import_payee_name',
  'import_payee_name_original',
] as const;

/** Distinct shared values kept at most; past it, new values are kept as they came. */
const MAX_SHARED_VALUES = 1 << 20;

/** Mutable while building: the parsed rows become the replica's rows. */
type Building<T> = T & { plan_id: string };

export class PlanBuilder {
  private readonly _currentMonth: IsoDate;
  private readonly _counts = new Map<ExportCollection, number>();
  private readonly _small = {
    accounts: [] as PlanExport['plan']['accounts'],
    payees: [] as Payee[],
    payee_locations: [] as PayeeLocation[],
    category_groups: [] as CategoryGroup[],
    categories: [] as PlanExport['plan']['categories'],
    months: [] as PlanExport['plan']['months'],
    scheduled_transactions: [] as ScheduledTransactionSummaryBase[],
    scheduled_subtransactions: [] as ScheduledSubTransactionBase[],
  };
  private readonly _transactions: Building<TransactionSummaryBase>[] = [];
  /** `keyHash` of each transaction's id, in the order of `_transactions`: taken while hot. */
  private readonly _idHashes: number[] = [];
  private _deletedTransactions = 0;
  private readonly _subtransactions: Building<SubTransactionBase>[] = [];
  private readonly _shared = new Map<string, string>();
  private _finished = false;

  constructor(options: { readonly currentMonth: IsoDate }) {
    this._currentMonth = options.currentMonth;
  }

  /** Whether `key` names a collection the replica keeps (others are ignored). */
  static keeps(key: string): key is ExportCollection {
    return (EXPORT_COLLECTIONS as readonly string[]).includes(key);
  }

  /**
   * Takes the next rows of `collection` in export order; throws `ReplicaDataError` naming the
   * first bad field. Rows of collections the replica does not keep are ignored.
   */
  add(collection: string, rows: readonly unknown[]): void {
    if (this._finished) throw new Error('PlanBuilder: add after finish');
    if (!PlanBuilder.keeps(collection)) return;
    const start = this._counts.get(collection) ?? 0;
    this._counts.set(collection, start + rows.length);
    const path = (index: number) => `data.plan.${collection}[${start + index}]`;
    if (collection === 'months') {
      for (const [index, row] of rows.entries()) {
        assertMonth(row, path(index));
        this._small.months.push(row as PlanExport['plan']['months'][number]);
      }
      return;
    }
    let index = 0;
    const pathOfIndex = () => path(index);
    for (; index < rows.length; index++) assertEntity(collection, rows[index], pathOfIndex);
    if (collection === 'transactions') {
      for (const row of rows) {
        const transaction = this._share(row as Building<TransactionSummaryBase>);
        this._transactions.push(transaction);
        this._idHashes.push(keyHash(transaction.id));
        if (transaction.deleted) this._deletedTransactions += 1;
      }
    } else if (collection === 'subtransactions') {
      for (const row of rows) {
        this._subtransactions.push(this._share(row as Building<SubTransactionBase>));
      }
    } else {
      const list: unknown[] = this._small[collection];
      for (const row of rows) list.push(row);
    }
  }

  /**
   * The replica, given the export without its collections (`data` with the plan-level fields
   * and `server_knowledge`); throws `ReplicaDataError` when those are wrong.
   */
  finish(head: unknown): PlanState {
    if (this._finished) throw new Error('PlanBuilder: finish called twice');
    this._finished = true;
    assertExportHead(head);
    const info = planInfoOf(head.plan);
    const small = this._small;
    const state = applyChangeSet(emptyPlanState(info), {
      info,
      serverKnowledge: head.server_knowledge,
      currentMonth: this._currentMonth,
      accounts: small.accounts,
      payees: small.payees,
      payeeLocations: small.payee_locations,
      categoryGroups: small.category_groups,
      categories: small.categories,
      months: small.months,
      scheduledTransactions: small.scheduled_transactions,
      scheduledSubtransactions: small.scheduled_subtransactions,
    });
    const transactions: ExportTransactions = {
      rows: this._transactions,
      idHashes: this._idHashes,
      deleted: this._deletedTransactions,
    };
    return { ...state, ...buildTransactions(info.id, transactions, this._subtransactions) };
  }

  // Private: one shared copy of each repeated value of a row (the row is ours to change).
  private _share<T extends object>(row: T): T {
    const record = row as Record<string, unknown>;
    const shared = this._shared;
    for (const field of SHARED_VALUE_FIELDS) {
      const value = record[field];
      if (typeof value !== 'string') continue;
      const kept = shared.get(value);
      if (kept !== undefined) record[field] = kept;
      else if (shared.size < MAX_SHARED_VALUES) shared.set(value, value);
    }
    return row;
  }
}

type TransactionParts = Pick<
  PlanState,
  | 'transactions'
  | 'subtransactions'
  | 'subtransactionsByParent'
  | 'transactionsByDate'
  | 'transactionsByAccount'
  | 'transactionsByCategory'
  | 'transactionsByPayee'
>;

/**
 * Private: the transaction tables and indexes from the rows in export order, by the rules of
 * `applyTransactions` on an empty state: a later row of the same id replaces an earlier one, a
 * deleted one removes it (and its split lines so far); a split line is kept only under a live
 * parent and keeps its place among its siblings.
 */
function buildTransactions(
  planId: string,
  exported: ExportTransactions,
  subtransactionList: Building<SubTransactionBase>[],
): TransactionParts {
  const transactionList = exported.rows;
  for (const row of transactionList) row.plan_id = planId;
  let transactions: ShardedMap<TransactionRow>;
  let live: TransactionRow[];
  let hasParent: (id: string) => boolean;
  if (exported.deleted === 0 && !repeatsAnId(exported)) {
    // Every row is live and its own: the table by id is filled when first read (see
    // `ShardedMap.deferred`), and split lines find their parents by hash first.
    transactions = ShardedMap.deferred<TransactionRow>(transactionList, idOf);
    live = transactionList;
    const parents = presentParents(exported, subtransactionList);
    hasParent = (id) => parents.has(id);
  } else {
    const table = ShardedMap.sized<TransactionRow>(transactionList.length).edit();
    for (const row of transactionList) {
      if (row.deleted) table.delete(row.id);
      else table.set(row.id, row);
    }
    transactions = table.finish();
    live = transactionList.filter((row) => !row.deleted && transactions.get(row.id) === row);
    hasParent = (id) => transactions.has(id);
  }
  const subtransactions = ShardedMap.sized<SubTransactionRow>(subtransactionList.length).edit();
  const byParent = new Map<string, SubTransactionRow[]>();
  for (const row of subtransactionList) {
    row.plan_id = planId;
    const existing = subtransactions.get(row.id);
    const keep = !row.deleted && hasParent(row.transaction_id);
    if (existing && (!keep || existing.transaction_id !== row.transaction_id)) {
      detach(byParent, subtransactions, existing);
    }
    if (!keep) continue;
    subtransactions.set(row.id, row);
    const siblings = byParent.get(row.transaction_id);
    if (!siblings) byParent.set(row.transaction_id, [row]);
    else {
      const position = existing ? siblings.indexOf(existing) : -1;
      if (position < 0) siblings.push(row);
      else siblings[position] = row;
    }
  }
  // Sorted from export order: the upstream lists transactions by date, so the sort mostly finds
  // runs already in order (measured: 5 times faster than from the map's hash order at 1,000,000).
  const transactionsByDate = SortedRows.fromSorted(live.sort(compareTransactions));
  const subtransactionsByParent = ShardedMap.fromMap<readonly SubTransactionRow[]>(byParent);
  // Built when a read or a merge first needs them: see lazy-map.ts.
  let grouped: GroupedIndexes | undefined;
  const group = () => {
    grouped ??= groupedIndexes(transactionsByDate, subtransactionsByParent);
    return grouped;
  };
  return {
    transactions,
    subtransactions: subtransactions.finish(),
    subtransactionsByParent,
    transactionsByDate,
    transactionsByAccount: new LazyMap(() => group().transactionsByAccount),
    transactionsByCategory: new LazyMap(() => group().transactionsByCategory),
    transactionsByPayee: new LazyMap(() => group().transactionsByPayee),
  };
}

/** The transaction rows of an export, in export order, with what `add` noted as they came. */
interface ExportTransactions {
  readonly rows: Building<TransactionSummaryBase>[];
  readonly idHashes: readonly number[];
  /** How many rows are marked deleted. */
  readonly deleted: number;
}

function idOf(row: TransactionRow): string {
  return row.id;
}

/**
 * Private: whether two rows share an id. Their hashes are sorted and compared first, which
 * touches no id; only the ids of rows whose hash another row has (a few in a million) are then
 * compared.
 */
function repeatsAnId({ rows, idHashes }: ExportTransactions): boolean {
  const sorted = Int32Array.from(idHashes).sort();
  const shared = new Set<number>();
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i] === sorted[i - 1]) shared.add(sorted[i]!);
  }
  if (shared.size === 0) return false;
  const seen = new Set<string>();
  for (let i = 0; i < rows.length; i++) {
    if (!shared.has(idHashes[i]!)) continue;
    const id = rows[i]!.id;
    if (seen.has(id)) return true;
    seen.add(id);
  }
  return false;
}

/**
 * Private: the ids split lines name as parents that are rows of the export, found by comparing
 * hashes first, so only the rows whose id hashes like a wanted parent's are read.
 */
function presentParents(
  { rows, idHashes }: ExportTransactions,
  lines: readonly SubTransactionBase[],
): Set<string> {
  const present = new Set<string>();
  if (lines.length === 0) return present;
  const wanted = new Set<string>();
  const wantedHashes = new Set<number>();
  for (const line of lines) {
    wanted.add(line.transaction_id);
    wantedHashes.add(keyHash(line.transaction_id));
  }
  for (let i = 0; i < rows.length; i++) {
    if (!wantedHashes.has(idHashes[i]!)) continue;
    const id = rows[i]!.id;
    if (wanted.has(id)) present.add(id);
  }
  return present;
}

function detach(
  byParent: Map<string, SubTransactionRow[]>,
  subtransactions: ShardedMapDraft<SubTransactionRow>,
  sub: SubTransactionRow,
): void {
  const siblings = byParent.get(sub.transaction_id) ?? [];
  const rest = siblings.filter((row) => row !== sub);
  if (rest.length > 0) byParent.set(sub.transaction_id, rest);
  else byParent.delete(sub.transaction_id);
  subtransactions.delete(sub.id);
}

/**
 * Private: the indexes by account, category and payee: stable groupings of the sorted rows,
 * each row weighed as it is grouped (`hybridRowCount`; a row without split lines weighs 1 in
 * its own category and payee), so no index looks a row's split lines up again.
 */
type GroupedIndexes = Pick<
  TransactionParts,
  'transactionsByAccount' | 'transactionsByCategory' | 'transactionsByPayee'
>;

function groupedIndexes(
  sorted: Iterable<TransactionRow>,
  byParent: Pick<ShardedMap<readonly SubTransactionRow[]>, 'get'>,
): GroupedIndexes {
  const accounts = new Map<string, TransactionRow[]>();
  const categories = new Map<string, WeighedRows>();
  const payees = new Map<string, WeighedRows>();
  for (const row of sorted) {
    push(accounts, row.account_id, row);
    const subs = byParent.get(row.id);
    if (subs === undefined || subs.length === 0) {
      if (row.category_id !== null) pushWeighed(categories, row.category_id, row, 1);
      if (row.payee_id !== null) pushWeighed(payees, row.payee_id, row, 1);
      continue;
    }
    for (const key of categoryKeysOf(row, subs)) {
      pushWeighed(categories, key, row, hybridRowCount(row, subs, 'category', key));
    }
    for (const key of payeeKeysOf(row, subs)) {
      pushWeighed(payees, key, row, hybridRowCount(row, subs, 'payee', key));
    }
  }
  const weighed = (list: WeighedRows) => SortedRows.fromSortedWeights(list.rows, list.weights);
  return {
    transactionsByAccount: mapValues(accounts, (rows) => SortedRows.fromSorted(rows)),
    transactionsByCategory: mapValues(categories, weighed),
    transactionsByPayee: mapValues(payees, weighed),
  };
}

/** Private: an index's rows in order and what each weighs there. */
interface WeighedRows {
  readonly rows: TransactionRow[];
  readonly weights: number[];
}

function push<T>(lists: Map<string, T[]>, key: string, row: T): void {
  const list = lists.get(key);
  if (list) list.push(row);
  else lists.set(key, [row]);
}

function pushWeighed(
  lists: Map<string, WeighedRows>,
  key: string,
  row: TransactionRow,
  weight: number,
): void {
  const list = lists.get(key);
  if (list) {
    list.rows.push(row);
    list.weights.push(weight);
  } else lists.set(key, { rows: [row], weights: [weight] });
}

function mapValues<A, B>(
  map: ReadonlyMap<string, A>,
  f: (value: A, key: string) => B,
): Map<string, B> {
  const out = new Map<string, B>();
  for (const [key, value] of map) out.set(key, f(value, key));
  return out;
}
