/**
 * The immutable data of one replica version. Every merge (delta, full export, applied write)
 * returns a new PlanState that shares everything it did not touch with the previous one, so a
 * snapshot handed to a reader never changes under it.
 */
import type { IsoDate } from '@plans-gateway/rest-contract';
import { OrderedTable } from './ordered-table.js';
import { ShardedMap } from './sharded-map.js';
import { SortedRows } from './sorted-rows.js';
import type {
  AccountRow,
  CategoryGroupRow,
  CategoryRow,
  MonthRow,
  PayeeLocationRow,
  PayeeRow,
  PlanInfo,
  ScheduledSubTransactionRow,
  ScheduledTransactionRow,
  SubTransactionRow,
  TransactionRow,
} from './types.js';

export interface PlanState {
  readonly info: PlanInfo;
  /** The `server_knowledge` of the newest upstream data merged into this version. */
  readonly serverKnowledge: number;

  readonly accounts: OrderedTable<AccountRow>;
  readonly payees: OrderedTable<PayeeRow>;
  readonly payeeLocations: OrderedTable<PayeeLocationRow>;
  readonly categoryGroups: OrderedTable<CategoryGroupRow>;
  /** The export's top-level categories; their `month` is the month that was current when stored. */
  readonly categories: OrderedTable<CategoryRow>;
  readonly months: OrderedTable<MonthRow>;
  /** Each month's categories with that month's amounts, keyed by month. */
  readonly monthCategories: ReadonlyMap<IsoDate, OrderedTable<CategoryRow>>;

  readonly transactions: ShardedMap<TransactionRow>;
  readonly subtransactions: ShardedMap<SubTransactionRow>;
  /** Live subtransactions of each transaction, in the order they arrived. */
  readonly subtransactionsByParent: ShardedMap<readonly SubTransactionRow[]>;
  /** Every transaction, sorted by (date, id). */
  readonly transactionsByDate: SortedRows<TransactionRow>;
  /** Keyed by account id; sorted by (date, id). */
  readonly transactionsByAccount: ReadonlyMap<string, SortedRows<TransactionRow>>;
  /**
   * Keyed by category id, own or of a subtransaction; sorted by (date, id); each transaction
   * weighs the rows it makes in the category's hybrid list (`hybridRowCount`).
   */
  readonly transactionsByCategory: ReadonlyMap<string, SortedRows<TransactionRow>>;
  /** Keyed by payee id, own or of a subtransaction; sorted by (date, id); weighed likewise. */
  readonly transactionsByPayee: ReadonlyMap<string, SortedRows<TransactionRow>>;

  readonly scheduledTransactions: OrderedTable<ScheduledTransactionRow>;
  readonly scheduledSubtransactions: OrderedTable<ScheduledSubTransactionRow>;
}

export function emptyPlanState(info: PlanInfo): PlanState {
  return {
    info,
    serverKnowledge: 0,
    accounts: OrderedTable.empty(),
    payees: OrderedTable.empty(),
    payeeLocations: OrderedTable.empty(),
    categoryGroups: OrderedTable.empty(),
    categories: OrderedTable.empty(),
    months: OrderedTable.empty(),
    monthCategories: new Map(),
    transactions: ShardedMap.empty(),
    subtransactions: ShardedMap.empty(),
    subtransactionsByParent: ShardedMap.empty(),
    transactionsByDate: SortedRows.empty(),
    transactionsByAccount: new Map(),
    transactionsByCategory: new Map(),
    transactionsByPayee: new Map(),
    scheduledTransactions: OrderedTable.empty(),
    scheduledSubtransactions: OrderedTable.empty(),
  };
}

/** The order of every transaction index: date, then id (plain code-unit order, not locale). */
export function compareTransactions(
  a: Pick<TransactionRow, 'date' | 'id'>,
  b: Pick<TransactionRow, 'date' | 'id'>,
): number {
  if (a.date !== b.date) return a.date < b.date ? -1 : 1;
  if (a.id === b.id) return 0;
  return a.id < b.id ? -1 : 1;
}

/** Category ids a transaction is listed under: its own and its subtransactions'. */
export function categoryKeysOf(
  row: TransactionRow,
  subtransactions: readonly SubTransactionRow[],
): Set<string> {
  const keys = new Set<string>();
  if (row.category_id !== null) keys.add(row.category_id);
  for (const sub of subtransactions) if (sub.category_id !== null) keys.add(sub.category_id);
  return keys;
}

/** Payee ids a transaction is listed under: its own and its subtransactions'. */
export function payeeKeysOf(
  row: TransactionRow,
  subtransactions: readonly SubTransactionRow[],
): Set<string> {
  const keys = new Set<string>();
  if (row.payee_id !== null) keys.add(row.payee_id);
  for (const sub of subtransactions) if (sub.payee_id !== null) keys.add(sub.payee_id);
  return keys;
}

/**
 * How many rows of the REST hybrid list of category or payee `id` (`by`) a transaction makes:
 * its whole row when it matches itself (for a category, only when it is not a split), plus each
 * of its split lines that matches. The indexes by category and payee keep these counts.
 */
export function hybridRowCount(
  row: TransactionRow,
  subtransactions: readonly SubTransactionRow[],
  by: 'category' | 'payee',
  id: string,
): number {
  let count = 0;
  if (by === 'category') {
    if (subtransactions.length === 0 && row.category_id === id) count += 1;
    for (const sub of subtransactions) if (sub.category_id === id) count += 1;
  } else {
    if (row.payee_id === id) count += 1;
    for (const sub of subtransactions) if (sub.payee_id === id) count += 1;
  }
  return count;
}

/** How many rows the state holds, across collections; feeds the memory estimate. */
export function countRows(state: PlanState): number {
  let monthCategoryRows = 0;
  for (const table of state.monthCategories.values()) monthCategoryRows += table.size;
  return (
    state.accounts.size +
    state.payees.size +
    state.payeeLocations.size +
    state.categoryGroups.size +
    state.categories.size +
    state.months.size +
    monthCategoryRows +
    state.transactions.size +
    state.subtransactions.size +
    state.scheduledTransactions.size +
    state.scheduledSubtransactions.size
  );
}

const ISO_DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

export function isIsoDate(value: unknown): value is IsoDate {
  return typeof value === 'string' && ISO_DATE.test(value);
}

/** The month `monthOf` last named, with its bounds: every replica read asks for the month. */
let lastMonth: { readonly from: number; readonly to: number; readonly month: IsoDate } | undefined;

/** The first day of the month of `epochMs`, UTC. */
export function monthOf(epochMs: number): IsoDate {
  const last = lastMonth;
  if (last && epochMs >= last.from && epochMs < last.to) return last.month;
  const date = new Date(epochMs);
  const year = date.getUTCFullYear();
  const index = date.getUTCMonth();
  const month: IsoDate = `${year}-${String(index + 1).padStart(2, '0')}-01`;
  // `setUTCFullYear`, not `Date.UTC`: that one reads years 0 to 99 as 1900 to 1999.
  const from = new Date(0).setUTCFullYear(year, index, 1);
  const to = new Date(0).setUTCFullYear(year, index + 1, 1);
  lastMonth = { from, to, month };
  return month;
}
