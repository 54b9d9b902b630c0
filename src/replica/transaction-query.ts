/**
 * Answers `PlanSnapshot.transactions(query)` from the sorted indexes without scanning the plan.
 *
 * 1. Candidate lists: the by-account, by-category and by-payee list of each id filter given,
 *    or the by-date list of every transaction when there is none. All are sorted by (date, id).
 * 2. Each candidate's date window [lo, hi) comes from two binary searches on the date bounds;
 *    the smallest window wins. Filters the chosen list does not answer (the other ids, `type`,
 *    `search`) become a residual predicate checked row by row inside that window only. A text
 *    search finds the payees and categories whose names match once per query (a scan of those
 *    tables, not of the transactions), so each row costs a set look-up and a memo comparison.
 * 3. Seek keys narrow the window by binary search; the page is read by walking from the start
 *    (`first`) or the end (`last`) of the window in the requested order.
 *
 * Cost, for an index of n rows and k candidate lists: O(k log n) to choose, then
 * - no residual predicate: O(log n + page) for the rows; `totalCount`, `hasNextPage` and
 *   `hasPreviousPage` are O(1) (window arithmetic);
 * - with a residual predicate: the walk visits rows of the chosen window until the page is full
 *   (at most the window); `totalCount` visits the whole window and the page flags walk until
 *   the next match. Those three are computed lazily, on first read, so a caller that does not
 *   ask for them does not pay for them.
 */
import type { Uuid } from '@plans-gateway/rest-contract';
import type { PlanState } from './plan-state.js';
import { compareTransactions, isIsoDate } from './plan-state.js';
import { SortedRows } from './sorted-rows.js';
import type {
  HybridMatch,
  SubTransactionRow,
  TransactionOrder,
  TransactionPage,
  TransactionQuery,
  TransactionRow,
  TransactionSeekKey,
} from './types.js';

/** Counts the work done by queries, so tests can prove a page does not scan the plan. */
export interface QueryMeter {
  /** Rows looked at one by one (binary-search probes are not counted). */
  rowsVisited: number;
}

const ORDERS: readonly TransactionOrder[] = ['DATE_DESC', 'DATE_ASC'];
const TYPES = ['uncategorized', 'unapproved'] as const;
const NO_SUBTRANSACTIONS: readonly SubTransactionRow[] = [];

type Predicate = (row: TransactionRow) => boolean;

export function queryTransactions(
  state: PlanState,
  query: TransactionQuery,
  meter?: QueryMeter,
): TransactionPage {
  assertQuery(query);
  const order = query.order ?? 'DATE_DESC';
  const { list, lo, hi, served } = chooseList(state, query);
  const residual = residualPredicate(state, query, served);

  // The window after seek keys, as positions [a, b) of the chosen (ascending) list.
  let a = lo;
  let b = hi;
  const seekAfter = order === 'DATE_ASC' ? query.after : query.before;
  const seekBefore = order === 'DATE_ASC' ? query.before : query.after;
  if (seekAfter)
    a = clamp(
      list.partitionPoint((row) => compareToKey(row, seekAfter) <= 0),
      lo,
      hi,
    );
  if (seekBefore)
    b = clamp(
      list.partitionPoint((row) => compareToKey(row, seekBefore) < 0),
      lo,
      hi,
    );
  // Crossed keys leave an empty window, placed at the `after` bound of the requested order.
  if (b < a) {
    if (order === 'DATE_ASC') b = a;
    else a = b;
  }

  // Walking in the requested order: from `start` towards (not reaching) `end`, by `step`.
  const step: 1 | -1 = order === 'DATE_ASC' ? 1 : -1;
  const start = step === 1 ? a : b - 1;
  const end = step === 1 ? b : a - 1;
  const visited = (): void => {
    if (meter) meter.rowsVisited += 1;
  };
  const collect = (from: number, to: number, by: 1 | -1, limit: number): Found => {
    const found: Found = { rows: [], first: -1, last: -1 };
    if (limit <= 0) return found;
    list.walk(from, by, (row, position) => {
      if (by === 1 ? position >= to : position <= to) return false;
      visited();
      if (residual && !residual(row)) return true;
      if (found.rows.length === 0) found.first = position;
      found.last = position;
      found.rows.push(row);
      return found.rows.length < limit;
    });
    return found;
  };
  const exists = (from: number, to: number, by: 1 | -1): boolean => {
    if (!residual) return by === 1 ? from < to : from > to;
    let hit = false;
    list.walk(from, by, (row, position) => {
      if (by === 1 ? position >= to : position <= to) return false;
      visited();
      hit = residual(row);
      return !hit;
    });
    return hit;
  };

  let rows: TransactionRow[];
  // Positions (in the chosen list) of the first and last returned rows, in the requested order.
  let pageStart: number;
  let pageEnd: number;
  const backward = query.last !== undefined && query.first === undefined;
  if (backward) {
    const found = collect(end - step, start - step, step === 1 ? -1 : 1, query.last ?? 0);
    rows = found.rows.reverse();
    [pageStart, pageEnd] = [found.last, found.first];
  } else {
    const found = collect(start, end, step, query.first ?? Number.POSITIVE_INFINITY);
    rows = found.rows;
    [pageStart, pageEnd] = [found.first, found.last];
    if (query.last !== undefined && rows.length > query.last) {
      const dropped = rows.length - query.last;
      rows = rows.slice(dropped);
      // The new first row is the `dropped`-th match: find its position by walking once more.
      pageStart = positionOfNth(list, pageStart, step, dropped, residual, visited);
    }
  }
  const empty = rows.length === 0;
  const nextFrom = empty ? (backward ? end : start) : pageEnd + step;
  const previousFrom = empty ? (backward ? end - step : start - step) : pageStart - step;
  // The filtered list (date bounds included) ends at these positions in the requested order.
  const lastOfAll = step === 1 ? hi : lo - 1;
  const firstOfAll = step === 1 ? lo - 1 : hi;

  return lazyPage(rows, {
    totalCount: () => (residual ? countMatches(list, lo, hi, residual, visited) : hi - lo),
    hasNextPage: () => exists(nextFrom, lastOfAll, step),
    hasPreviousPage: () => exists(previousFrom, firstOfAll, step === 1 ? -1 : 1),
  });
}

interface Found {
  rows: TransactionRow[];
  /** Positions of the first and last found rows in walking order; -1 when none. */
  first: number;
  last: number;
}

type Served = 'account' | 'category' | 'payee' | 'all';

/**
 * The rows of the hybrid list of `match` (REST's by-category or by-payee list) between the
 * dates: the weights its index keeps over the date window, found by two binary searches.
 */
export function countHybridRows(
  state: PlanState,
  match: HybridMatch,
  { sinceDate, untilDate }: Pick<TransactionQuery, 'sinceDate' | 'untilDate'>,
): number {
  const list =
    'categoryId' in match
      ? state.transactionsByCategory.get(match.categoryId)
      : state.transactionsByPayee.get(match.payeeId);
  if (!list) return 0;
  const lo = sinceDate === undefined ? 0 : list.partitionPoint((row) => row.date < sinceDate);
  const hi =
    untilDate === undefined ? list.size : list.partitionPoint((row) => row.date <= untilDate);
  return list.weightBetween(lo, hi);
}

/** Private: the candidate list with the smallest date window. */
function chooseList(
  state: PlanState,
  query: TransactionQuery,
): { list: SortedRows<TransactionRow>; lo: number; hi: number; served: Served } {
  const candidates: { list: SortedRows<TransactionRow>; served: Served }[] = [];
  const keyed = (lists: ReadonlyMap<string, SortedRows<TransactionRow>>, key: Uuid) =>
    lists.get(key) ?? SortedRows.empty<TransactionRow>();
  if (query.accountId !== undefined) {
    candidates.push({
      list: keyed(state.transactionsByAccount, query.accountId),
      served: 'account',
    });
  }
  if (query.categoryId !== undefined) {
    candidates.push({
      list: keyed(state.transactionsByCategory, query.categoryId),
      served: 'category',
    });
  }
  if (query.payeeId !== undefined) {
    candidates.push({ list: keyed(state.transactionsByPayee, query.payeeId), served: 'payee' });
  }
  if (candidates.length === 0) candidates.push({ list: state.transactionsByDate, served: 'all' });

  let best:
    | { list: SortedRows<TransactionRow>; lo: number; hi: number; served: Served }
    | undefined;
  for (const { list, served } of candidates) {
    const { sinceDate, untilDate } = query;
    const lo = sinceDate === undefined ? 0 : list.partitionPoint((row) => row.date < sinceDate);
    const hi =
      untilDate === undefined ? list.size : list.partitionPoint((row) => row.date <= untilDate);
    const window = { list, lo, hi: Math.max(lo, hi), served };
    if (!best || window.hi - window.lo < best.hi - best.lo) best = window;
  }
  return best!;
}

/** Private: the filters the chosen list does not answer by itself, or null when none remain. */
function residualPredicate(
  state: PlanState,
  query: TransactionQuery,
  served: Served,
): Predicate | null {
  const checks: Predicate[] = [];
  const subsOf = (row: TransactionRow): readonly SubTransactionRow[] =>
    state.subtransactionsByParent.get(row.id) ?? NO_SUBTRANSACTIONS;
  const { accountId, categoryId, payeeId } = query;
  if (accountId !== undefined && served !== 'account') {
    checks.push((row) => row.account_id === accountId);
  }
  if (categoryId !== undefined && served !== 'category') {
    checks.push(
      (row) =>
        row.category_id === categoryId || subsOf(row).some((sub) => sub.category_id === categoryId),
    );
  }
  if (payeeId !== undefined && served !== 'payee') {
    checks.push(
      (row) => row.payee_id === payeeId || subsOf(row).some((sub) => sub.payee_id === payeeId),
    );
  }
  if (query.type === 'unapproved') checks.push((row) => !row.approved);
  if (query.type === 'uncategorized')
    checks.push((row) => isUncategorized(state, row, subsOf(row)));
  if (query.search !== undefined) checks.push(searchPredicate(state, query.search, subsOf));
  if (checks.length === 0) return null;
  if (checks.length === 1) return checks[0]!;
  return (row) => checks.every((check) => check(row));
}

/**
 * A transaction that still needs a category: none set, not a split, in an on-budget account,
 * and not a transfer to another on-budget account (those never take a category). Tracking
 * accounts never categorise, so their transactions are not listed. An account the replica does
 * not know counts as on budget.
 */
export function isUncategorized(
  state: PlanState,
  row: TransactionRow,
  subtransactions: readonly SubTransactionRow[],
): boolean {
  if (row.category_id !== null || subtransactions.length > 0) return false;
  const onBudget = (accountId: string): boolean => state.accounts.get(accountId)?.on_budget ?? true;
  if (!onBudget(row.account_id)) return false;
  return row.transfer_account_id === null || !onBudget(row.transfer_account_id);
}

/**
 * Private: whether a transaction or one of its split lines mentions `text` in its memo, payee
 * name or category name, ignoring case. The matching payees and categories are found once.
 */
function searchPredicate(
  state: PlanState,
  text: string,
  subsOf: (row: TransactionRow) => readonly SubTransactionRow[],
): Predicate {
  const needle = text.toLowerCase();
  const mentions = (value: string | null | undefined) =>
    (value ?? '').toLowerCase().includes(needle);
  const payees = new Set<string>();
  for (const payee of state.payees.rows) if (mentions(payee.name)) payees.add(payee.id);
  const categories = new Set<string>();
  for (const category of state.categories.rows)
    if (mentions(category.name)) categories.add(category.id);
  const matches = (line: {
    memo: string | null;
    payee_id: string | null;
    category_id: string | null;
  }) =>
    mentions(line.memo) ||
    (line.payee_id !== null && payees.has(line.payee_id)) ||
    (line.category_id !== null && categories.has(line.category_id));
  return (row) => matches(row) || subsOf(row).some(matches);
}

/** Private: the position of the n-th (0-based) match walking from `from` by `step`. */
function positionOfNth(
  list: SortedRows<TransactionRow>,
  from: number,
  step: 1 | -1,
  n: number,
  residual: Predicate | null,
  visited: () => void,
): number {
  if (!residual) return from + n * step;
  let seen = -1;
  let found = from;
  list.walk(from, step, (row, position) => {
    visited();
    if (!residual(row)) return true;
    seen += 1;
    found = position;
    return seen < n;
  });
  return found;
}

/** Private: how many rows of [lo, hi) pass `residual`. */
function countMatches(
  list: SortedRows<TransactionRow>,
  lo: number,
  hi: number,
  residual: Predicate,
  visited: () => void,
): number {
  let count = 0;
  list.walk(lo, 1, (row, position) => {
    if (position >= hi) return false;
    visited();
    if (residual(row)) count += 1;
    return true;
  });
  return count;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max);
}

/** Private: (date, id) order of a row against a seek key. */
function compareToKey(row: TransactionRow, key: TransactionSeekKey): number {
  return compareTransactions(row, key);
}

/**
 * Private: a page whose counts are computed on first read and remembered. They are own,
 * enumerable getters so spreading or serialising the page still sees them.
 */
function lazyPage(
  rows: readonly TransactionRow[],
  compute: { totalCount: () => number; hasNextPage: () => boolean; hasPreviousPage: () => boolean },
): TransactionPage {
  const page = { rows } as { rows: readonly TransactionRow[] } & Partial<TransactionPage>;
  for (const [name, fn] of Object.entries(compute) as [
    keyof typeof compute,
    () => number | boolean,
  ][]) {
    let memo: number | boolean | undefined;
    Object.defineProperty(page, name, {
      enumerable: true,
      get: () => (memo ??= fn()),
    });
  }
  return page as TransactionPage;
}

/** Private: rejects a query the caller got wrong, naming the field. */
function assertQuery(query: TransactionQuery): void {
  const fail = (field: string, expected: string, got: unknown): never => {
    throw new RangeError(
      `TransactionQuery.${field} must be ${expected}, got ${JSON.stringify(got)}`,
    );
  };
  for (const field of ['accountId', 'categoryId', 'payeeId'] as const) {
    const value = query[field];
    if (value !== undefined && (typeof value !== 'string' || value === ''))
      fail(field, 'a non-empty string', value);
  }
  for (const field of ['sinceDate', 'untilDate'] as const) {
    const value = query[field];
    if (value !== undefined && !isIsoDate(value)) fail(field, 'a YYYY-MM-DD date', value);
  }
  for (const field of ['first', 'last'] as const) {
    const value = query[field];
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) {
      fail(field, 'a non-negative integer', value);
    }
  }
  for (const field of ['after', 'before'] as const) {
    const key = query[field];
    if (key === undefined) continue;
    if (typeof key !== 'object' || key === null) fail(field, 'a { date, id } key', key);
    if (!isIsoDate(key.date)) fail(`${field}.date`, 'a YYYY-MM-DD date', key.date);
    if (typeof key.id !== 'string') fail(`${field}.id`, 'a string', key.id);
  }
  if (query.order !== undefined && !ORDERS.includes(query.order))
    fail('order', ORDERS.join(' or '), query.order);
  if (query.type !== undefined && !(TYPES as readonly string[]).includes(query.type)) {
    fail('type', TYPES.join(' or '), query.type);
  }
  if (query.search !== undefined && (typeof query.search !== 'string' || query.search === ''))
    fail('search', 'a non-empty string', query.search);
}
