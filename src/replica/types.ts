/**
 * The replica's public contract: what the schema reads (PlanSnapshot) and how the gateway asks
 * for a fresh-enough copy of a plan (Replicas).
 *
 * Rows are the REST shapes of the plan export plus `plan_id` (and `month` for month rows), so a
 * resolver holding any row can reach its plan without a lookup table. The replica attaches
 * these keys once, when it stores a row; readers must treat rows as immutable.
 */
import type {
  Account,
  AccountBase,
  Category,
  CategoryBase,
  CategoryGroup,
  CurrencyFormat,
  DateFormat,
  IsoDate,
  IsoDateTime,
  MonthSummaryBase,
  Payee,
  PayeeLocation,
  PlanDetail,
  ScheduledSubTransactionBase,
  ScheduledTransactionDetail,
  ScheduledTransactionSummaryBase,
  SubTransactionBase,
  TransactionDetail,
  TransactionListType,
  TransactionSummaryBase,
  Uuid,
} from '@plans-gateway/rest-contract';

export interface PlanScoped {
  readonly plan_id: Uuid;
}

/**
 * Milliunits that may pass 2^53: a number while a safe integer, a bigint beyond. The interface's
 * amounts are int64; one amount fits a number (the replica refuses one that does not), but the
 * upstream's sums need not: balances, a category's activity and the balance it carries across
 * months, a month's figures. The upstream client reads such an integer as a bigint
 * (`parseExactJson`), so the replica holds it exactly; the graph refuses to round it.
 */
export type ExactMilliunits = number | bigint;

/** Private: `T` with the number of each field `K` widened to `ExactMilliunits`. */
type WithExact<T, K extends keyof T> = Omit<T, K> & {
  readonly [P in keyof Pick<T, K>]: Exclude<Pick<T, K>[P], number> | ExactMilliunits;
};

export type AccountRow = WithExact<
  AccountBase,
  'balance' | 'cleared_balance' | 'uncleared_balance'
> &
  PlanScoped;
export type PayeeRow = Payee & PlanScoped;
export type PayeeLocationRow = PayeeLocation & PlanScoped;
export type CategoryGroupRow = CategoryGroup & PlanScoped;
/** A category with the amounts of one month; `month` says which. */
export type CategoryRow = WithExact<
  CategoryBase,
  | 'budgeted'
  | 'activity'
  | 'balance'
  | 'goal_under_funded'
  | 'goal_overall_funded'
  | 'goal_overall_left'
> &
  PlanScoped & { readonly month: IsoDate };
export type MonthRow = WithExact<
  MonthSummaryBase,
  'income' | 'budgeted' | 'activity' | 'to_be_budgeted'
> &
  PlanScoped;
export type TransactionRow = TransactionSummaryBase & PlanScoped;
export type SubTransactionRow = SubTransactionBase & PlanScoped;
export type ScheduledTransactionRow = ScheduledTransactionSummaryBase & PlanScoped;
export type ScheduledSubTransactionRow = ScheduledSubTransactionBase & PlanScoped;

/** Private: a row without the plan id the replica adds. */
type Unscoped<T> = Omit<T, 'plan_id'>;
/** A category of a plan export: its amounts may pass 2^53 (`ExactMilliunits`). */
export type ExportCategory = Omit<CategoryRow, 'plan_id' | 'month'>;

/**
 * A plan export (`getPlanById`'s data, full or delta) as the upstream client reads it: the REST
 * shape, with the sums that may pass 2^53 (balances, category and month figures) read exactly
 * (`ExactMilliunits`). What the replica is built from and what instances relay to each other.
 */
export interface PlanExport {
  readonly server_knowledge: number;
  readonly plan: Omit<PlanDetail, 'accounts' | 'categories' | 'months'> & {
    readonly accounts: Unscoped<AccountRow>[];
    readonly categories: ExportCategory[];
    readonly months: (Unscoped<MonthRow> & { readonly categories: ExportCategory[] })[];
  };
}

export interface PlanInfo {
  readonly id: Uuid;
  readonly name: string;
  readonly last_modified_on: IsoDateTime;
  readonly first_month: IsoDate;
  readonly last_month: IsoDate;
  readonly date_format: DateFormat | null;
  readonly currency_format: CurrencyFormat | null;
}

export type TransactionOrder = 'DATE_DESC' | 'DATE_ASC';

/** Where a page starts: the sort key of the last row already seen. */
export interface TransactionSeekKey {
  readonly date: IsoDate;
  readonly id: string;
}

export interface TransactionQuery {
  accountId?: Uuid;
  /** Matches the transaction's own category or any of its subtransactions' categories. */
  categoryId?: Uuid;
  /** Matches the transaction's own payee or any of its subtransactions' payees. */
  payeeId?: Uuid;
  /** Inclusive bounds. A month filter is expressed as since = first day, until = last day. */
  sinceDate?: IsoDate;
  untilDate?: IsoDate;
  type?: TransactionListType;
  /**
   * Text, matched case-insensitively within the memo, payee name or category name of the
   * transaction or of one of its split lines. Checked row by row within the chosen window.
   */
  search?: string;
  order?: TransactionOrder;
  /** Rows strictly after this key in the chosen order. */
  after?: TransactionSeekKey;
  /** Rows strictly before this key in the chosen order (backward paging). */
  before?: TransactionSeekKey;
  /** At most this many rows from the start of the window (after `after`). */
  first?: number;
  /** At most this many rows from the end of the window (before `before`). */
  last?: number;
}

/** The category or payee of a REST hybrid list (`category.transactions`, `payee.transactions`). */
export type HybridMatch = { readonly categoryId: Uuid } | { readonly payeeId: Uuid };

export interface TransactionPage {
  readonly rows: readonly TransactionRow[];
  /** Rows matching the filters, ignoring after/before/first/last. */
  readonly totalCount: number;
  readonly hasNextPage: boolean;
  readonly hasPreviousPage: boolean;
}

/**
 * A read view over one plan of one token. Lists come in the order the plan export gave them
 * (which is the REST order), deleted entities never appear.
 */
export interface PlanSnapshot {
  readonly planId: Uuid;
  readonly serverKnowledge: number;
  readonly info: PlanInfo;

  accounts(): readonly AccountRow[];
  account(id: string): AccountRow | undefined;

  payees(): readonly PayeeRow[];
  payee(id: string): PayeeRow | undefined;
  payeeLocations(): readonly PayeeLocationRow[];
  payeeLocation(id: string): PayeeLocationRow | undefined;
  payeeLocationsOfPayee(payeeId: string): readonly PayeeLocationRow[];

  categoryGroups(): readonly CategoryGroupRow[];
  categoryGroup(id: string): CategoryGroupRow | undefined;
  /** Categories with the amounts of `month` (default: the current month, UTC). */
  categories(month?: IsoDate): readonly CategoryRow[];
  categoriesOfGroup(groupId: string, month?: IsoDate): readonly CategoryRow[];
  category(id: string, month?: IsoDate): CategoryRow | undefined;

  months(): readonly MonthRow[];
  month(month: IsoDate): MonthRow | undefined;
  /** The first day of the current month (UTC) by the replica's clock. */
  currentMonth(): IsoDate;

  transaction(id: string): TransactionRow | undefined;
  subtransactionsOf(transactionId: string): readonly SubTransactionRow[];
  subtransaction(id: string): SubTransactionRow | undefined;
  /** Whether the transaction passes the list filter `type`, as `transactions({ type })` applies it. */
  hasType(row: TransactionRow, type: TransactionListType): boolean;
  /** Uses the secondary indexes; never scans every transaction of the plan for a filtered page. */
  transactions(query: TransactionQuery): TransactionPage;
  /**
   * How many rows the hybrid list of `match` holds between the dates (whole transactions and
   * split lines, as REST lists them), from the weights its index keeps: O(log n), no row visited.
   */
  hybridCount(match: HybridMatch, dates: Pick<TransactionQuery, 'sinceDate' | 'untilDate'>): number;

  scheduledTransactions(): readonly ScheduledTransactionRow[];
  scheduledTransaction(id: string): ScheduledTransactionRow | undefined;
  scheduledSubtransactionsOf(scheduledTransactionId: string): readonly ScheduledSubTransactionRow[];
}

/** Why an answer came from a replica older than the caller asked for. */
export type StaleReason = 'RATE_LIMITED' | 'UPSTREAM_ERROR' | 'UPSTREAM_UNAVAILABLE';

export interface Freshness {
  /** Accept a replica synced at most this long before `asOf`. */
  maxAgeMs: number;
  /**
   * Epoch ms the age is counted to: the arrival of the request these reads answer. Every read of
   * one request (a revalidation at the door, then each of its executor's loads) then asks for the
   * same data, synced no earlier than `asOf - maxAgeMs`: a `no-cache` request costs one delta,
   * not one per read that comes a millisecond later. @default each read's own arrival
   */
  asOf?: number;
  /**
   * Sync with a request sent after this read arrived, whatever the replica's age, never sharing
   * a sync that was already in the air (it may have been answered before the caller's write).
   * For read-your-writes: the write's derived effects (balances, activity) only arrive this way.
   */
  forceSync?: boolean;
}

export interface ReplicaRead {
  readonly snapshot: PlanSnapshot;
  /** Milliseconds since the replica last heard from the upstream. */
  readonly ageMs: number;
  /** What this read cost: no call, one delta request, or a full export. */
  readonly sync: 'none' | 'delta' | 'full';
  /**
   * Names the data this replica holds: equal versions of one (token, plan) hold equal data. The
   * upstream knowledge, plus the writes applied on top that no sync has confirmed yet (those are
   * named uniquely). HTTP caching builds ETags from it.
   */
  readonly version: string;
  /** Set when the upstream failed and an older replica answered instead. */
  readonly stale?: { readonly reason: StaleReason; readonly error: unknown };
}

// ---------------------------------------------------------------------------------------------
// The store (added by the replica module; implemented by `createReplicaStore` in store.ts).

export interface ReplicaReadRequest {
  /** The caller's access token. Only handed to the upstream fetch; never part of a key. */
  readonly token: string;
  /** A stable hash of the token: the isolation boundary between callers. */
  readonly tokenKey: string;
  /** A plan id, or the alias `last-used` / `default`. */
  readonly planId: string;
  readonly freshness: Freshness;
  /**
   * Gives up waiting; a shared sync carries on for others. The read then answers from the held
   * replica as stale when `classifyFailure(signal.reason)` names a reason (an operation
   * deadline), else rejects with the signal's reason.
   */
  readonly signal?: AbortSignal;
  /**
   * Told when the read waits on a load with no replica held to answer from if it gives up:
   * `progress()` is when that load last received bytes (undefined before any). The caller may
   * hold `signal` back meanwhile (the operation deadline does, `extendWhile`); the store calls
   * the function returned once it stops waiting. @default none
   */
  readonly onColdLoad?: (progress: () => number | undefined) => () => void;
  /**
   * Opaque to the store: handed to `fetchPlan` when this read starts a sync, so the caller that
   * triggers a sync pays for it (readers that join a sync in flight pay nothing).
   */
  readonly meter?: unknown;
}

/**
 * Entities returned by REST writes, in their REST shapes (with `_formatted` / `_currency`
 * companions and names), to apply to a replica before the next delta confirms them.
 * An entity with `deleted: true` is removed.
 */
export interface SavedEntities {
  /** The write response's `server_knowledge`, when it carried one. */
  readonly serverKnowledge?: number;
  readonly accounts?: readonly Account[];
  readonly categoryGroups?: readonly CategoryGroup[];
  /** Categories from createCategory / updateCategory: the amounts of the current month. */
  readonly categories?: readonly Category[];
  /** The category from updateMonthCategory, with the month it was saved in. */
  readonly monthCategories?: readonly { readonly month: IsoDate; readonly category: Category }[];
  readonly payees?: readonly Payee[];
  /** With their complete `subtransactions` (a split's list replaces the replica's). */
  readonly transactions?: readonly TransactionDetail[];
  readonly scheduledTransactions?: readonly ScheduledTransactionDetail[];
  /**
   * The write's derived effects computed by the gateway (`local-effects.ts`): rows applied after
   * the entities above, checked against the next delta (a mismatch is repaired and counted).
   */
  readonly derived?: DerivedRows;
}

/** Rows a write's derived effects set, in the export's shapes (see `local-effects.ts`). */
export interface DerivedRowSet {
  readonly accounts: readonly PlanExport['plan']['accounts'][number][];
  /** Month summaries (their `categories` empty: the month's category rows are below). */
  readonly months: readonly PlanExport['plan']['months'][number][];
  readonly monthCategories: readonly {
    readonly month: IsoDate;
    readonly category: ExportCategory;
  }[];
  /** Transactions the write changed that its answer does not carry (a transfer's other side). */
  readonly transactions?: readonly TransactionSummaryBase[];
  /** Payees the write created by name (`deleted: true` in `previous`: they were not there). */
  readonly payees?: readonly Payee[];
}

/** The rows a write's derived effects change, and those rows as they were before it. */
export interface DerivedRows extends DerivedRowSet {
  readonly previous: DerivedRowSet;
}

/** A delta from a knowledge older than the replica's (see `ReplicaStore.backfill`). */
export interface BackfillRequest {
  readonly token: string;
  readonly tokenKey: string;
  /** The concrete plan id. */
  readonly planId: string;
  /** The knowledge the delta is asked from. */
  readonly since: number;
  /** Opaque to the store, as a read's: handed to `fetchPlan` (the poll budget's meter). */
  readonly meter?: unknown;
  /**
   * Told of the delta once it arrived, before it is merged, with the replica as it was then
   * (the live hub extends its change log back to `since` before the merge is announced).
   */
  readonly beforeMerge?: (data: PlanExport, held: PlanSnapshot | undefined) => void;
}

/** A sync answered to another gateway instance (see `ReplicaStore.applyRelayed`). */
export interface RelayedSync {
  readonly kind: 'full' | 'delta';
  readonly data: PlanExport;
  /** For a delta: the knowledge it was asked from. */
  readonly fromKnowledge?: number;
  /** Clock time the upstream request that produced it was sent; ages count from here. */
  readonly sentAt: number;
  /** Size of the answer's JSON, for the memory estimate of a full export. */
  readonly bytes: number;
  /** Requested ids (`last-used`, `default`) that resolved to this plan. */
  readonly aliases?: readonly string[];
  /** When those aliases were resolved. @default sentAt */
  readonly aliasCheckedAt?: number;
}

/** The kinds of entity a replica holds, as reconciliation compares and counts them. */
export type DriftKind =
  | 'accounts'
  | 'payees'
  | 'payeeLocations'
  | 'categoryGroups'
  | 'categories'
  | 'months'
  | 'monthCategories'
  | 'transactions'
  | 'subtransactions'
  | 'scheduledTransactions'
  | 'scheduledSubtransactions';

/** Ids that differ in one kind: changed in place, only in the replica, only in the export. */
export interface KindDrift {
  readonly changed: readonly string[];
  /** In the replica, gone from the export (a deletion no delta brought). */
  readonly extra: readonly string[];
  /** In the export, missing from the replica (a creation no delta brought). */
  readonly missing: readonly string[];
}

export type PlanDrift = Readonly<Partial<Record<DriftKind, KindDrift>>>;

/** A comparison of a held replica with a full export (see `ReplicaStore.reconcile`). */
export interface ReconcileRequest {
  readonly token: string;
  readonly tokenKey: string;
  /** The concrete plan id. */
  readonly planId: string;
  /** Opaque to the store, as a read's: handed to `fetchPlan` (the poll budget's meter). */
  readonly meter?: unknown;
  readonly signal?: AbortSignal;
}

/**
 * What a reconciliation found. `clean`: the replica equals the export; `repaired`: it did not,
 * and the export replaced it (observers heard of it as a full reload); `skipped`: nothing was
 * compared (no replica held, the plan moved on while the export was read, or writes not yet
 * confirmed sit on top of the replica), to be tried again next period.
 */
export type ReconcileResult =
  | {
      readonly outcome: 'clean' | 'repaired';
      /** The ids that differed, by kind (empty when clean). */
      readonly drift: PlanDrift;
      /** The knowledge both were at. */
      readonly knowledge: number;
      /** Size of the export's body. */
      readonly bytes: number;
    }
  | { readonly outcome: 'skipped'; readonly reason: 'not-held' | 'moved' | 'unconfirmed-writes' };

/** Per-token plan replicas: freshness, single-flight sync, read-your-writes, a byte budget. */
export interface ReplicaStore {
  /** A replica no older than `freshness.maxAgeMs`: no call, one delta, or a full export. */
  read(request: ReplicaReadRequest): Promise<ReplicaRead>;
  /**
   * What `read` answers at once, with no upstream call: the held replica when it is fresh enough
   * for `request`; undefined when `read` would sync (or join a sync). Answers without a promise
   * (the answer cache's replays revalidate through it). A wrapper that does something on `read`
   * (notes the token, counts the read) must do it here too, or leave this out.
   */
  readFresh?(request: ReplicaReadRequest): ReplicaRead | undefined;
  /**
   * Applies saved entities to the replica of (tokenKey, planId) without advancing its
   * knowledge. Returns the new snapshot, or undefined when no replica is held.
   */
  applySaved(tokenKey: string, planId: string, saved: SavedEntities): PlanSnapshot | undefined;
  /**
   * The knowledge whose every effect the held replica shows: its own, or the last of the writes
   * applied on top with their derived effects (`SavedEntities.derived`) when they follow it one
   * knowledge step each. Undefined when none is held, it must resync (expired, suspect), or a
   * write on top awaits its delta for its derived effects.
   */
  exactKnowledge?(tokenKey: string, planId: string): number | undefined;
  /** The replica held for (tokenKey, planId), whatever its age; never calls the upstream. */
  peek(tokenKey: string, planId: string): ReplicaRead | undefined;
  /**
   * Stores a sync another gateway instance made (the cluster relays it, or keeps it in its
   * snapshot tier), without calling the upstream. A full export replaces or creates the replica;
   * a delta is merged only into a replica it covers (asked from at most the replica's knowledge).
   * Observers hear of it with `relayed: true`.
   * @returns `applied`, `kept` (nothing newer in it: the replica only counts as synced at its
   * `sentAt`), or `gap` (a delta asked from beyond the replica's knowledge, or none held)
   */
  applyRelayed(tokenKey: string, sync: RelayedSync): 'applied' | 'kept' | 'gap';
  /**
   * One delta from `since`, a knowledge below the replica's (a live replay older than the change
   * log), sent through `fetchPlan` like any sync (the sync metrics; with a cluster its flight
   * lease and relay), then stored like a delta fetched outside a read (`applyRelayed`).
   */
  backfill(request: BackfillRequest): Promise<void>;
  /**
   * Compares the held replica with a full export of the plan, through `fetchPlan` like any sync
   * (so with the caller's meter, and a cluster's relay), and repairs it when they differ: the
   * export replaces it, and observers hear of a full reload (the live hub publishes what
   * differs). Costs one export when the replica is at the export's knowledge; one delta more when
   * it was behind (caught up first, as a read would). Never called for a replica not held.
   */
  reconcile(request: ReconcileRequest): Promise<ReconcileResult>;
  /**
   * Makes the next read of (tokenKey, planId) sync whatever its max-age, keeping the data for
   * stale answers meanwhile. For a write whose outcome is unknown: the upstream may hold a change
   * the replica cannot know about.
   */
  expire(tokenKey: string, planId: string): void;
  /**
   * Drops every replica and alias of the token (the upstream refused it); syncs of the token
   * in flight still answer their readers but store nothing.
   */
  forgetToken(tokenKey: string): void;
  stats(): { replicas: number; bytes: number };
  /** Drops every replica and alias; syncs in flight still answer their readers. */
  clear(): void;
}
