/**
 * The read view over one immutable PlanState (see PlanSnapshot in types.ts). Lists are returned
 * as stored, never copied per read; lookups that need a grouping the state does not keep
 * (locations by payee, categories by group, scheduled subtransactions by parent) build it on
 * first use and keep it for the life of the snapshot, which is safe because the state never
 * changes.
 */
import type { IsoDate, TransactionListType } from '@plans-gateway/rest-contract';
import { type Clock, epochNow } from '../time/clock.js';
import { isIsoDate, monthOf, type PlanState } from './plan-state.js';
import {
  countHybridRows,
  isUncategorized,
  type QueryMeter,
  queryTransactions,
} from './transaction-query.js';
import type {
  AccountRow,
  CategoryGroupRow,
  CategoryRow,
  HybridMatch,
  MonthRow,
  PayeeLocationRow,
  PayeeRow,
  PlanInfo,
  PlanSnapshot,
  ScheduledSubTransactionRow,
  ScheduledTransactionRow,
  SubTransactionRow,
  TransactionPage,
  TransactionQuery,
  TransactionRow,
} from './types.js';

export interface PlanSnapshotOptions {
  /** Clock for the current month, epoch milliseconds. @default epochNow */
  now?: Clock;
  /** Counts rows visited by `transactions()`; for tests and diagnostics. */
  meter?: QueryMeter;
}

export function createPlanSnapshot(
  state: PlanState,
  options: PlanSnapshotOptions = {},
): PlanSnapshot {
  return new StateSnapshot(state, options.now ?? epochNow, options.meter);
}

const NONE: readonly never[] = [];

class StateSnapshot implements PlanSnapshot {
  private _locationsByPayee?: Map<string, PayeeLocationRow[]>;
  private readonly _categoriesByGroup = new Map<IsoDate, Map<string, CategoryRow[]>>();
  private readonly _categoriesInOrder = new Map<PlanState['categories'], readonly CategoryRow[]>();
  private _scheduledSubsByParent?: Map<string, ScheduledSubTransactionRow[]>;

  constructor(
    private readonly _state: PlanState,
    private readonly _now: Clock,
    private readonly _meter: QueryMeter | undefined,
  ) {}

  get planId(): string {
    return this._state.info.id;
  }

  get serverKnowledge(): number {
    return this._state.serverKnowledge;
  }

  get info(): PlanInfo {
    return this._state.info;
  }

  accounts(): readonly AccountRow[] {
    return this._state.accounts.rows;
  }

  account(id: string): AccountRow | undefined {
    return this._state.accounts.get(id);
  }

  payees(): readonly PayeeRow[] {
    return this._state.payees.rows;
  }

  payee(id: string): PayeeRow | undefined {
    return this._state.payees.get(id);
  }

  payeeLocations(): readonly PayeeLocationRow[] {
    return this._state.payeeLocations.rows;
  }

  payeeLocation(id: string): PayeeLocationRow | undefined {
    return this._state.payeeLocations.get(id);
  }

  payeeLocationsOfPayee(payeeId: string): readonly PayeeLocationRow[] {
    this._locationsByPayee ??= groupBy(this._state.payeeLocations.rows, (row) => row.payee_id);
    return this._locationsByPayee.get(payeeId) ?? NONE;
  }

  categoryGroups(): readonly CategoryGroupRow[] {
    return this._state.categoryGroups.rows;
  }

  categoryGroup(id: string): CategoryGroupRow | undefined {
    return this._state.categoryGroups.get(id);
  }

  /**
   * The month's categories; the top-level categories when the plan has no such month. In REST's
   * display order: by category group, then in the order the categories arrived. (A category
   * first seen in a delta is appended to its table, but REST lists it within its group.)
   */
  categories(month?: IsoDate): readonly CategoryRow[] {
    const table = this._categoryTable(month);
    let ordered = this._categoriesInOrder.get(table);
    if (!ordered) {
      const rank = new Map(this._state.categoryGroups.rows.map((group, i) => [group.id, i]));
      const rankOf = (row: CategoryRow) => rank.get(row.category_group_id) ?? rank.size;
      const rows = table.rows;
      const inOrder = rows.every((row, i) => i === 0 || rankOf(rows[i - 1]!) <= rankOf(row));
      // Usually already in order: the stored list itself is returned, shared between versions.
      ordered = inOrder ? rows : [...rows].sort((a, b) => rankOf(a) - rankOf(b));
      this._categoriesInOrder.set(table, ordered);
    }
    return ordered;
  }

  categoriesOfGroup(groupId: string, month?: IsoDate): readonly CategoryRow[] {
    const key = this._resolveMonth(month);
    let byGroup = this._categoriesByGroup.get(key);
    if (!byGroup) {
      byGroup = groupBy(this._categoryTable(key).rows, (row) => row.category_group_id);
      this._categoriesByGroup.set(key, byGroup);
    }
    return byGroup.get(groupId) ?? NONE;
  }

  category(id: string, month?: IsoDate): CategoryRow | undefined {
    return this._categoryTable(month).get(id);
  }

  months(): readonly MonthRow[] {
    return this._state.months.rows;
  }

  month(month: IsoDate): MonthRow | undefined {
    return this._state.months.get(this._resolveMonth(month));
  }

  currentMonth(): IsoDate {
    return monthOf(this._now());
  }

  transaction(id: string): TransactionRow | undefined {
    return this._state.transactions.get(id);
  }

  subtransactionsOf(transactionId: string): readonly SubTransactionRow[] {
    return this._state.subtransactionsByParent.get(transactionId) ?? NONE;
  }

  subtransaction(id: string): SubTransactionRow | undefined {
    return this._state.subtransactions.get(id);
  }

  hasType(row: TransactionRow, type: TransactionListType): boolean {
    if (type === 'unapproved') return !row.approved;
    return isUncategorized(this._state, row, this.subtransactionsOf(row.id));
  }

  transactions(query: TransactionQuery): TransactionPage {
    return queryTransactions(this._state, query, this._meter);
  }

  hybridCount(
    match: HybridMatch,
    dates: Pick<TransactionQuery, 'sinceDate' | 'untilDate'>,
  ): number {
    return countHybridRows(this._state, match, dates);
  }

  scheduledTransactions(): readonly ScheduledTransactionRow[] {
    return this._state.scheduledTransactions.rows;
  }

  scheduledTransaction(id: string): ScheduledTransactionRow | undefined {
    return this._state.scheduledTransactions.get(id);
  }

  scheduledSubtransactionsOf(
    scheduledTransactionId: string,
  ): readonly ScheduledSubTransactionRow[] {
    this._scheduledSubsByParent ??= groupBy(
      this._state.scheduledSubtransactions.rows,
      (row) => row.scheduled_transaction_id,
    );
    return this._scheduledSubsByParent.get(scheduledTransactionId) ?? NONE;
  }

  /** Private: the category table of a month, falling back to the top-level categories. */
  private _categoryTable(month: IsoDate | undefined): PlanState['categories'] {
    return this._state.monthCategories.get(this._resolveMonth(month)) ?? this._state.categories;
  }

  /** Private: `current`, a month's first day or any day of it, as the month's first day. */
  private _resolveMonth(month: IsoDate | undefined): IsoDate {
    if (month === undefined || month === 'current') return this.currentMonth();
    if (!isIsoDate(month)) {
      throw new RangeError(
        `month must be a YYYY-MM-DD date or "current", got ${JSON.stringify(month)}`,
      );
    }
    return `${month.slice(0, 7)}-01`;
  }
}

/** Private: rows grouped by a key, each group in the rows' order. */
function groupBy<T>(rows: readonly T[], keyOf: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const key = keyOf(row);
    let group = groups.get(key);
    if (!group) {
      group = [];
      groups.set(key, group);
    }
    group.push(row);
  }
  return groups;
}
