/**
 * Change sets of live updates. A change stored in a replica (a delta, or a write applied at once)
 * becomes `ChangeKeys`: which entities it touched, by collection. Resolving the keys against the
 * replica after the change gives a `PlanChange`: the touched rows as the replica now holds them
 * (so an event shows exactly what a query would read), and the ids of those that are gone.
 *
 * A `PlanChange` is plain JSON (it may cross a process boundary on the bus). Changes merge:
 * a subscriber that reads slowly gets one change covering several, never a growing queue, since
 * a merged change holds at most one row per entity of the plan.
 */
import type { IsoDate, SubTransactionBase } from '@plans-gateway/rest-contract';
import type { ReplicaChangeSource } from './store.js';
import type {
  AccountRow,
  CategoryGroupRow,
  CategoryRow,
  MonthRow,
  PayeeRow,
  PlanExport,
  PlanSnapshot,
  SavedEntities,
  ScheduledTransactionRow,
  SubTransactionRow,
  TransactionRow,
} from './types.js';

/** Where a change came from. */
export type ChangeOrigin =
  /** A delta the gateway fetched: a poll, or any read's sync. */
  | 'SYNC'
  /** A write through this gateway, applied from its REST answer before a delta confirms it. */
  | 'WRITE'
  /** What a resuming subscriber missed since the knowledge it gave. */
  | 'REPLAY';

/** Where a transaction is filed: what account and category filters look at. */
export interface TransactionPlace {
  readonly id: string;
  readonly accountId: string;
  /** Its own category and its split lines' categories. */
  readonly categoryIds: readonly string[];
  /**
   * Known only from the change that deleted it: the replica never held it (made and deleted
   * between two deltas), so no client was shown it.
   */
  readonly unseen?: true;
}

export interface PlanDeletions {
  readonly accountIds: readonly string[];
  readonly categoryGroupIds: readonly string[];
  readonly categoryIds: readonly string[];
  readonly months: readonly IsoDate[];
  readonly payeeIds: readonly string[];
  readonly transactionIds: readonly string[];
  readonly scheduledTransactionIds: readonly string[];
}

export interface PlanChange {
  readonly planId: string;
  readonly origin: ChangeOrigin;
  /** The knowledge the subscriber has caught up to: resume from it. */
  readonly serverKnowledge: number;
  /** The knowledge before the change, when known. */
  readonly previousServerKnowledge: number | null;
  /**
   * A WRITE change: the knowledge the upstream answered the write with, when it did. The
   * replica's (`serverKnowledge`) does not move with a write: the delta after it does.
   */
  readonly writeServerKnowledge?: number;
  /**
   * A WRITE change that carries every effect of its writes (balances, activity, month totals,
   * computed from the product's arithmetic in one trip): no SYNC change repeats them.
   */
  readonly complete?: true;
  readonly accounts: readonly AccountRow[];
  readonly categoryGroups: readonly CategoryGroupRow[];
  /** With the amounts of the current month. */
  readonly categories: readonly CategoryRow[];
  readonly months: readonly MonthRow[];
  /** Category rows of the months whose amounts changed (`month` says which). */
  readonly monthCategories: readonly CategoryRow[];
  readonly payees: readonly PayeeRow[];
  readonly transactions: readonly TransactionRow[];
  /** The split lines of the transactions in `transactions`. */
  readonly subtransactions: readonly SubTransactionRow[];
  readonly scheduledTransactions: readonly ScheduledTransactionRow[];
  /**
   * Where changed or deleted transactions were filed before, so a filtered view sees them leave;
   * a transaction made within the change has none.
   */
  readonly transactionsBefore: readonly TransactionPlace[];
  /**
   * The change resends the whole plan (a replay from nothing, or through a large backfill):
   * `transactionsBefore` does not tell new transactions from old ones.
   */
  readonly wholePlan?: true;
  readonly deleted: PlanDeletions;
  /** One event of a change split to keep events bounded, and not its last one (`feed.ts`). */
  readonly continues?: boolean;
}

/** A change of `planId` with no rows and no deletions (a sync page with nothing new, a fixture). */
export function emptyPlanChange(
  planId: string,
  origin: ChangeOrigin,
  serverKnowledge: number,
  previousServerKnowledge: number | null = serverKnowledge,
): PlanChange {
  return {
    planId,
    origin,
    serverKnowledge,
    previousServerKnowledge,
    accounts: [],
    categoryGroups: [],
    categories: [],
    months: [],
    monthCategories: [],
    payees: [],
    transactions: [],
    subtransactions: [],
    transactionsBefore: [],
    scheduledTransactions: [],
    deleted: noDeletions(),
  };
}

/** Deletions of every kind, none yet, in lists a change or a page being gathered fills. */
export function noDeletions(): { [F in keyof PlanDeletions]: string[] } {
  return {
    accountIds: [],
    categoryGroupIds: [],
    categoryIds: [],
    months: [],
    payeeIds: [],
    transactionIds: [],
    scheduledTransactionIds: [],
  };
}

/** What a change touched, by collection. */
export interface ChangeKeys {
  readonly accounts: Set<string>;
  readonly categoryGroups: Set<string>;
  readonly categories: Set<string>;
  readonly months: Set<IsoDate>;
  /** Month → ids of the categories whose amounts in that month changed. */
  readonly monthCategories: Map<IsoDate, Set<string>>;
  readonly payees: Set<string>;
  readonly transactions: Set<string>;
  readonly scheduledTransactions: Set<string>;
  /** Where touched transactions were filed before; the first record of an id is kept. */
  readonly before: Map<string, TransactionPlace>;
}

/** The lookups resolving needs: a `PlanSnapshot`, or a view of a delta over one. */
export type RowSource = Pick<
  PlanSnapshot,
  | 'account'
  | 'categoryGroup'
  | 'category'
  | 'month'
  | 'payee'
  | 'transaction'
  | 'subtransactionsOf'
  | 'scheduledTransaction'
>;

/** The plan of a delta (or a full export) as the upstream sends it. */
type DeltaPlan = PlanExport['plan'];

/**
 * Private: the collections kept by row id alone, the same way in every function here: the
 * snapshot's list and lookup share their name's shape, the export's field is the REST name.
 */
type ByIdKind = 'accounts' | 'categoryGroups' | 'categories' | 'payees' | 'scheduledTransactions';
const BY_ID: {
  readonly [K in ByIdKind]: {
    readonly find: (source: RowSource, id: string) => PlanChange[K][number] | undefined;
    readonly field:
      | 'accounts'
      | 'category_groups'
      | 'categories'
      | 'payees'
      | 'scheduled_transactions';
  };
} = {
  accounts: { find: (s, id) => s.account(id), field: 'accounts' },
  categoryGroups: { find: (s, id) => s.categoryGroup(id), field: 'category_groups' },
  categories: { find: (s, id) => s.category(id), field: 'categories' },
  payees: { find: (s, id) => s.payee(id), field: 'payees' },
  scheduledTransactions: {
    find: (s, id) => s.scheduledTransaction(id),
    field: 'scheduled_transactions',
  },
};
const BY_ID_KINDS = Object.keys(BY_ID) as ByIdKind[];

// Private: `pickRows` for every collection kept by id.
function pickById(
  keys: ChangeKeys,
  source: RowSource,
): { [K in ByIdKind]: Picked<PlanChange[K][number]> } {
  const pick = <K extends ByIdKind>(kind: K) =>
    pickRows(keys[kind], (id) => BY_ID[kind].find(source, id));
  return {
    accounts: pick('accounts'),
    categoryGroups: pick('categoryGroups'),
    categories: pick('categories'),
    payees: pick('payees'),
    scheduledTransactions: pick('scheduledTransactions'),
  };
}

export function emptyKeys(): ChangeKeys {
  return {
    accounts: new Set(),
    categoryGroups: new Set(),
    categories: new Set(),
    months: new Set(),
    monthCategories: new Map(),
    payees: new Set(),
    transactions: new Set(),
    scheduledTransactions: new Set(),
    before: new Map(),
  };
}

/** Ids in the keys, all collections together (what a change log is bounded by). */
export function keyCount(keys: ChangeKeys): number {
  let count =
    keys.accounts.size +
    keys.categoryGroups.size +
    keys.categories.size +
    keys.months.size +
    keys.payees.size +
    keys.transactions.size +
    keys.scheduledTransactions.size;
  for (const ids of keys.monthCategories.values()) count += ids.size;
  return count;
}

/**
 * The keys of one stored change. `previous` is the replica before it (where transactions were
 * filed); `currentMonth` is the month a write's top-level categories hold amounts of.
 */
export function keysOfSource(
  source: ReplicaChangeSource,
  previous: PlanSnapshot | undefined,
  currentMonth: IsoDate,
): ChangeKeys {
  return source.kind === 'write'
    ? keysOfWrite(source.saved, previous, currentMonth)
    : keysOfDelta(source.data.plan, previous);
}

/** The keys of a write's saved entities (its REST answer, applied before a delta confirms it). */
export function keysOfWrite(
  saved: SavedEntities,
  previous: PlanSnapshot | undefined,
  currentMonth: IsoDate,
): ChangeKeys {
  const keys = emptyKeys();
  for (const account of saved.accounts ?? []) keys.accounts.add(account.id);
  for (const group of saved.categoryGroups ?? []) keys.categoryGroups.add(group.id);
  for (const category of saved.categories ?? []) {
    keys.categories.add(category.id);
    monthSet(keys, currentMonth).add(category.id);
  }
  for (const { month, category } of saved.monthCategories ?? []) {
    const first = firstOfMonth(month);
    monthSet(keys, first).add(category.id);
    if (first === currentMonth) keys.categories.add(category.id);
  }
  for (const payee of saved.payees ?? []) keys.payees.add(payee.id);
  for (const detail of saved.transactions ?? []) {
    keys.transactions.add(detail.id);
    // A payee created by name exists from this write on: show it.
    if (detail.payee_id !== null && previous?.payee(detail.payee_id) === undefined) {
      keys.payees.add(detail.payee_id);
    }
    noteBefore(keys, previous, detail.id, () =>
      detail.deleted ? placeOf(detail, detail.subtransactions) : undefined,
    );
  }
  for (const detail of saved.scheduledTransactions ?? []) {
    keys.scheduledTransactions.add(detail.id);
  }
  // A one-trip write's derived rows (local-effects.ts): its delta may never carry news of them.
  const derived = saved.derived;
  for (const account of derived?.accounts ?? []) keys.accounts.add(account.id);
  for (const month of derived?.months ?? []) keys.months.add(month.month);
  for (const { month, category } of derived?.monthCategories ?? []) {
    monthSet(keys, month).add(category.id);
    if (month === currentMonth) keys.categories.add(category.id);
  }
  for (const payee of derived?.payees ?? []) keys.payees.add(payee.id);
  for (const row of derived?.transactions ?? []) {
    keys.transactions.add(row.id);
    noteBefore(keys, previous, row.id, () => (row.deleted ? placeOf(row, []) : undefined));
  }
  return keys;
}

/** The keys of a delta (or a full export): every entity it carries. */
export function keysOfDelta(plan: DeltaPlan, previous: PlanSnapshot | undefined): ChangeKeys {
  const keys = emptyKeys();
  for (const kind of BY_ID_KINDS) {
    for (const row of plan[BY_ID[kind].field]) keys[kind].add(row.id);
  }
  for (const month of plan.months) {
    keys.months.add(month.month);
    const ids = monthSet(keys, month.month);
    for (const category of month.categories) ids.add(category.id);
  }
  addDeltaTransactions(keys, plan, previous);
  for (const sub of plan.scheduled_subtransactions) {
    keys.scheduledTransactions.add(sub.scheduled_transaction_id);
  }
  return keys;
}

export interface ChangeMeta {
  readonly planId: string;
  readonly origin: ChangeOrigin;
  readonly serverKnowledge: number;
  readonly previousServerKnowledge: number | null;
  readonly writeServerKnowledge?: number;
  readonly complete?: true;
}

/** The keys as rows of `source` (the replica after the change); what it lacks is deleted. */
export function resolveKeys(keys: ChangeKeys, source: RowSource, meta: ChangeMeta): PlanChange {
  const transactions = pickRows(keys.transactions, (id) => source.transaction(id));
  return changeOf(meta, {
    ...pickById(keys, source),
    months: pickRows(keys.months, (month) => source.month(month)),
    monthCategories: monthCategoryRows(keys.monthCategories, source),
    transactions,
    subtransactions: transactions.rows.flatMap((row) => source.subtransactionsOf(row.id)),
    transactionsBefore: [...keys.before.values()],
  });
}

/**
 * The keys whose rows differ between two versions of a replica. A delta asked from a knowledge
 * older than the replica's (a backfill for a replay) repeats rows the replica already held, and
 * a full reload repeats the whole plan: only what really changed is news to live subscribers.
 * A changed transaction's former place is the keys' record, else where `before` filed it.
 */
export function changedKeys(keys: ChangeKeys, before: RowSource, after: RowSource): ChangeKeys {
  const changed = emptyKeys();
  const keep = (
    ids: Set<string>,
    into: Set<string>,
    find: (s: RowSource, id: string) => object | undefined,
  ) => {
    for (const id of ids) if (!sameRow(find(before, id), find(after, id))) into.add(id);
  };
  for (const kind of BY_ID_KINDS) keep(keys[kind], changed[kind], BY_ID[kind].find);
  keep(keys.months, changed.months, (s, month) => s.month(month));
  for (const [month, ids] of keys.monthCategories) {
    const into = new Set<string>();
    keep(ids, into, (s, id) => s.category(id, month));
    if (into.size > 0) changed.monthCategories.set(month, into);
  }
  for (const id of keys.transactions) {
    const lines = (s: RowSource) => s.subtransactionsOf(id);
    const same =
      sameRow(before.transaction(id), after.transaction(id)) &&
      lines(before).length === lines(after).length &&
      lines(before).every((line, i) => sameRow(line, lines(after)[i]));
    if (same) continue;
    changed.transactions.add(id);
    const held = before.transaction(id);
    const place = keys.before.get(id) ?? (held ? placeOf(held, lines(before)) : undefined);
    if (place) changed.before.set(id, place);
  }
  return changed;
}

/**
 * The keys of every row either snapshot holds (what a full reload may have changed); where the
 * changed transactions were filed comes from `changedKeys`.
 */
export function keysOfSnapshots(before: PlanSnapshot, after: PlanSnapshot): ChangeKeys {
  const keys = emptyKeys();
  for (const snapshot of [before, after]) {
    for (const kind of BY_ID_KINDS) for (const row of snapshot[kind]()) keys[kind].add(row.id);
    for (const { month } of snapshot.months()) {
      keys.months.add(month);
      const ids = monthSet(keys, month);
      for (const row of snapshot.categories(month)) if (row.month === month) ids.add(row.id);
    }
    for (const row of allTransactions(snapshot)) keys.transactions.add(row.id);
  }
  return keys;
}

/** Every transaction of a snapshot, oldest first, read from its date index a chunk at a time. */
export function* allTransactions(snapshot: PlanSnapshot): Generator<TransactionRow> {
  let after: { date: IsoDate; id: string } | undefined;
  for (;;) {
    const { rows } = snapshot.transactions({
      order: 'DATE_ASC',
      first: TRANSACTION_CHUNK,
      ...(after ? { after } : {}),
    });
    yield* rows;
    const last = rows.at(-1);
    if (rows.length < TRANSACTION_CHUNK || !last) return;
    after = { date: last.date, id: last.id };
  }
}

/** The ids a delta marks deleted, as keys (what a replay over the whole plan still needs). */
export function deletedKeysOf(plan: DeltaPlan): ChangeKeys {
  const keys = emptyKeys();
  const gone = <Row extends { id: string; deleted: boolean }>(
    rows: readonly Row[],
    into: Set<string>,
  ) => {
    for (const row of rows) if (row.deleted) into.add(row.id);
  };
  for (const kind of BY_ID_KINDS) {
    const rows: readonly { id: string; deleted: boolean }[] = plan[BY_ID[kind].field];
    gone(rows, keys[kind]);
  }
  gone(plan.transactions, keys.transactions);
  for (const month of plan.months) if (month.deleted) keys.months.add(month.month);
  return keys;
}

export function isEmptyChange(change: PlanChange): boolean {
  const { deleted } = change;
  return (
    change.accounts.length === 0 &&
    change.categoryGroups.length === 0 &&
    change.categories.length === 0 &&
    change.months.length === 0 &&
    change.monthCategories.length === 0 &&
    change.payees.length === 0 &&
    change.transactions.length === 0 &&
    change.scheduledTransactions.length === 0 &&
    Object.values(deleted).every((ids: readonly string[]) => ids.length === 0)
  );
}

/**
 * Private: the write knowledge of two merged changes: only writes merged with writes keep one
 * (the latest); a sync after them brings the replica's knowledge past them.
 */
function writesOf(first: PlanChange, second: PlanChange): { writeServerKnowledge?: number } {
  if (second.origin !== 'WRITE') return {};
  const known = [first, second]
    .filter((change) => change.origin === 'WRITE')
    .flatMap((change) =>
      change.writeServerKnowledge === undefined ? [] : [change.writeServerKnowledge],
    );
  return known.length === 0 ? {} : { writeServerKnowledge: Math.max(...known) };
}

/**
 * Private: whether two merged changes are a complete WRITE: the second is one, and the first is
 * one too or a change that needs no SYNC after it.
 */
function completeOf(first: PlanChange, second: PlanChange): { complete?: true } {
  const complete = second.complete === true && (first.origin !== 'WRITE' || first.complete);
  return complete ? { complete: true } : {};
}

/** One change saying what `first` then `second` said: later rows win, a deletion removes a row. */
export function mergeChanges(first: PlanChange, second: PlanChange): PlanChange {
  const months = mergeRows(
    first.months,
    first.deleted.months,
    second.months,
    second.deleted.months,
    (row) => row.month,
  );
  const transactions = mergeById(first, second, 'transactions');
  return changeOf(
    {
      planId: first.planId,
      origin: second.origin,
      serverKnowledge: Math.max(first.serverKnowledge, second.serverKnowledge),
      previousServerKnowledge: first.previousServerKnowledge,
      ...writesOf(first, second),
      ...completeOf(first, second),
    },
    {
      accounts: mergeById(first, second, 'accounts'),
      categoryGroups: mergeById(first, second, 'categoryGroups'),
      categories: mergeById(first, second, 'categories'),
      months,
      monthCategories: mergeRows(
        first.monthCategories,
        [],
        second.monthCategories,
        [],
        (row) => `${row.id}:${row.month}`,
      ).rows.filter((row) => !months.gone.includes(row.month)),
      payees: mergeById(first, second, 'payees'),
      transactions,
      subtransactions: mergeSubtransactions(first, second, transactions.rows),
      scheduledTransactions: mergeById(first, second, 'scheduledTransactions'),
      transactionsBefore: mergeBefore(first, second),
    },
  );
}

/** Where a transaction row with these split lines is filed. */
export function placeOf(
  row: { readonly id: string; readonly account_id: string; readonly category_id: string | null },
  subtransactions: readonly { readonly category_id: string | null }[],
): TransactionPlace {
  const categoryIds = new Set<string>();
  if (row.category_id !== null) categoryIds.add(row.category_id);
  for (const sub of subtransactions) if (sub.category_id !== null) categoryIds.add(sub.category_id);
  return { id: row.id, accountId: row.account_id, categoryIds: [...categoryIds] };
}

/** Transactions read from the date index per step when walking a whole snapshot. */
const TRANSACTION_CHUNK = 256;

// Private: whether two versions of a row hold the same values (rows are flat REST shapes; the
// few nested values, such as a debt account's rates, are compared as JSON).
function sameRow(a: object | undefined, b: object | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  for (const key of keys) {
    const x = left[key];
    const y = right[key];
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (JSON.stringify(x) !== JSON.stringify(y)) return false;
  }
  return true;
}

// Private: a change's split lines by transaction id.
function linesByTransaction(change: PlanChange): Map<string, SubTransactionRow[]> {
  const lines = new Map<string, SubTransactionRow[]>();
  for (const sub of change.subtransactions) listIn(lines, sub.transaction_id).push(sub);
  return lines;
}

// Private: the value of `key` in `map`, made by `make` on first use.
function entryOf<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

// Private: the list of `key` in `map`, created on first use.
function listIn<K, V>(map: Map<K, V[]>, key: K): V[] {
  return entryOf(map, key, () => []);
}

// Private: the set of category ids of `month` in `keys`, created on first use.
function monthSet(keys: ChangeKeys, month: IsoDate): Set<string> {
  return entryOf(keys.monthCategories, month, () => new Set<string>());
}

// Private: records where a transaction was before, from the previous replica or the change itself.
function noteBefore(
  keys: ChangeKeys,
  previous: PlanSnapshot | undefined,
  id: string,
  fromChange: () => TransactionPlace | undefined,
): void {
  if (keys.before.has(id)) return;
  const row = previous?.transaction(id);
  if (row) {
    keys.before.set(id, placeOf(row, previous?.subtransactionsOf(id) ?? []));
    return;
  }
  const place = fromChange();
  if (place) keys.before.set(id, { ...place, unseen: true });
}

function firstOfMonth(date: IsoDate): IsoDate {
  return `${date.slice(0, 7)}-01`;
}

// Private: rows of two changes merged by key, later ones winning; a later deletion removes.
function mergeRows<Row>(
  firstRows: readonly Row[],
  firstGone: readonly string[],
  secondRows: readonly Row[],
  secondGone: readonly string[],
  keyOf: (row: Row) => string,
): { rows: Row[]; gone: string[] } {
  const rows = new Map<string, Row>();
  const gone = new Set<string>();
  for (const row of firstRows) rows.set(keyOf(row), row);
  for (const key of firstGone) gone.add(key);
  for (const row of secondRows) {
    rows.set(keyOf(row), row);
    gone.delete(keyOf(row));
  }
  for (const key of secondGone) {
    rows.delete(key);
    gone.add(key);
  }
  return { rows: [...rows.values()], gone: [...gone] };
}

/** Rows found for some keys, and the keys of those that are gone. */
interface Picked<Row> {
  readonly rows: Row[];
  readonly gone: string[];
}

// Private: what a change holds besides its meta, each collection with its deletions.
interface ChangeParts {
  readonly accounts: Picked<AccountRow>;
  readonly categoryGroups: Picked<CategoryGroupRow>;
  readonly categories: Picked<CategoryRow>;
  readonly months: Picked<MonthRow>;
  readonly monthCategories: CategoryRow[];
  readonly payees: Picked<PayeeRow>;
  readonly transactions: Picked<TransactionRow>;
  readonly subtransactions: SubTransactionRow[];
  readonly scheduledTransactions: Picked<ScheduledTransactionRow>;
  readonly transactionsBefore: TransactionPlace[];
}

// Private: the parts laid out as a `PlanChange`, the deletions gathered under `deleted`.
function changeOf(meta: ChangeMeta, parts: ChangeParts): PlanChange {
  return {
    ...meta,
    accounts: parts.accounts.rows,
    categoryGroups: parts.categoryGroups.rows,
    categories: parts.categories.rows,
    months: parts.months.rows,
    monthCategories: parts.monthCategories,
    payees: parts.payees.rows,
    transactions: parts.transactions.rows,
    subtransactions: parts.subtransactions,
    scheduledTransactions: parts.scheduledTransactions.rows,
    transactionsBefore: parts.transactionsBefore,
    deleted: {
      accountIds: parts.accounts.gone,
      categoryGroupIds: parts.categoryGroups.gone,
      categoryIds: parts.categories.gone,
      months: parts.months.gone,
      payeeIds: parts.payees.gone,
      transactionIds: parts.transactions.gone,
      scheduledTransactionIds: parts.scheduledTransactions.gone,
    },
  };
}

// Private: the rows `find` has for `ids`; the ids it lacks are gone.
function pickRows<Row>(ids: Iterable<string>, find: (id: string) => Row | undefined): Picked<Row> {
  const rows: Row[] = [];
  const gone: string[] = [];
  for (const id of ids) {
    const row = find(id);
    if (row === undefined) gone.push(id);
    else rows.push(row);
  }
  return { rows, gone };
}

// Private: the category rows of the months whose amounts changed.
function monthCategoryRows(
  monthCategories: ChangeKeys['monthCategories'],
  source: RowSource,
): CategoryRow[] {
  const rows: CategoryRow[] = [];
  for (const [month, ids] of monthCategories) {
    for (const id of ids) {
      // A month the replica lacks falls back to the current month's row: not this month's.
      const row = source.category(id, month);
      if (row !== undefined && row.month === month) rows.push(row);
    }
  }
  return rows;
}

// Private: the collections of a change keyed by row id, each with the field of its deleted ids.
const DELETED_IDS = {
  accounts: 'accountIds',
  categoryGroups: 'categoryGroupIds',
  categories: 'categoryIds',
  payees: 'payeeIds',
  transactions: 'transactionIds',
  scheduledTransactions: 'scheduledTransactionIds',
} as const satisfies Record<string, keyof PlanDeletions>;

// Private: one collection of two changes merged by row id.
function mergeById<K extends keyof typeof DELETED_IDS>(
  first: PlanChange,
  second: PlanChange,
  collection: K,
): Picked<PlanChange[K][number]> {
  const deleted = DELETED_IDS[collection];
  return mergeRows<PlanChange[K][number]>(
    first[collection],
    first.deleted[deleted],
    second[collection],
    second.deleted[deleted],
    (row) => row.id,
  );
}

// Private: split lines travel with the version of their transaction that won.
function mergeSubtransactions(
  first: PlanChange,
  second: PlanChange,
  transactions: readonly TransactionRow[],
): SubTransactionRow[] {
  const lines = linesByTransaction(first);
  for (const row of second.transactions) lines.set(row.id, []);
  for (const [id, subs] of linesByTransaction(second)) lines.set(id, subs);
  return transactions.flatMap((row) => lines.get(row.id) ?? []);
}

// Private: where merged transactions were filed before; the earlier change knows it first.
function mergeBefore(first: PlanChange, second: PlanChange): TransactionPlace[] {
  const before = new Map(second.transactionsBefore.map((place) => [place.id, place] as const));
  // What the first change touched is filed as it was before that change: nowhere, if it made it.
  for (const row of first.transactions) before.delete(row.id);
  for (const id of first.deleted.transactionIds) before.delete(id);
  for (const place of first.transactionsBefore) before.set(place.id, place);
  return [...before.values()];
}

// Private: the transactions of a delta and their split lines; where each was filed before.
function addDeltaTransactions(
  keys: ChangeKeys,
  plan: DeltaPlan,
  previous: PlanSnapshot | undefined,
): void {
  const deltaRows = new Map(plan.transactions.map((row) => [row.id, row] as const));
  const deltaLines = new Map<string, SubTransactionBase[]>();
  for (const row of plan.transactions) keys.transactions.add(row.id);
  for (const sub of plan.subtransactions) {
    keys.transactions.add(sub.transaction_id);
    listIn(deltaLines, sub.transaction_id).push(sub);
  }
  for (const id of keys.transactions) {
    noteBefore(keys, previous, id, () => {
      const row = deltaRows.get(id);
      return row?.deleted ? placeOf(row, deltaLines.get(id) ?? []) : undefined;
    });
  }
}
