/**
 * A model of one plan on the upstream side, for replica tests: it keeps a knowledge counter,
 * remembers the knowledge at which each entity last changed, keeps deleted entities as
 * tombstones, and answers `getPlanById` bodies either in full or as a delta since a knowledge.
 *
 * It deliberately behaves like a normalised server, to exercise the merge's harder cases:
 * - category amounts live per month; a category's own fields (name, group, note...) live once,
 *   so renaming a category changes its top-level row but none of its month rows;
 * - `category_group_name` is joined at export time, so renaming a group changes no category;
 * - a month in a delta lists only the categories whose amounts changed in that month;
 * - deleting a split may leave its subtransactions out of the delta (`quietSubs`).
 */
import type {
  Account,
  AccountBase,
  Category,
  CategoryBase,
  CategoryGroup,
  IsoDate,
  MonthSummaryBase,
  Payee,
  PayeeLocation,
  ResponseData,
  ScheduledSubTransactionBase,
  ScheduledTransactionDetail,
  ScheduledTransactionSummaryBase,
  SubTransactionBase,
  TransactionDetail,
  TransactionSummaryBase,
} from '@plans-gateway/rest-contract';
import { planExport, ZERO_AMOUNTS } from '@plans-gateway/rest-contract/testing';

/** Fields of a category that are the same in every month. */
export const SHARED_FIELDS = [
  'name',
  'hidden',
  'internal',
  'note',
  'category_group_id',
  'original_category_group_id',
] as const;
type SharedField = (typeof SHARED_FIELDS)[number];
export type CategoryEntity = Pick<CategoryBase, 'id' | SharedField | 'deleted'>;
export type MonthAmounts = Omit<
  CategoryBase,
  'id' | SharedField | 'category_group_name' | 'deleted'
>;

interface Versioned<T> {
  row: T;
  changedAt: number;
}

export class FakePlan {
  knowledge = 0;
  readonly accounts = new Map<string, Versioned<AccountBase>>();
  readonly payees = new Map<string, Versioned<Payee>>();
  readonly locations = new Map<string, Versioned<PayeeLocation>>();
  readonly groups = new Map<string, Versioned<CategoryGroup>>();
  readonly categories = new Map<string, Versioned<CategoryEntity>>();
  readonly months = new Map<IsoDate, Versioned<MonthSummaryBase>>();
  /** month → category id → that month's amounts. */
  readonly amounts = new Map<IsoDate, Map<string, Versioned<MonthAmounts>>>();
  readonly transactions = new Map<string, Versioned<TransactionSummaryBase>>();
  readonly subtransactions = new Map<string, Versioned<SubTransactionBase>>();
  readonly scheduled = new Map<string, Versioned<ScheduledTransactionSummaryBase>>();
  readonly scheduledSubs = new Map<string, Versioned<ScheduledSubTransactionBase>>();
  name = 'Fake Plan';

  constructor(
    readonly id: string,
    readonly currentMonth: IsoDate,
  ) {}

  /** Runs `change` as one upstream write: everything it touches shares one new knowledge. */
  write(change: () => void): number {
    this.knowledge += 1;
    change();
    return this.knowledge;
  }

  putAccount(row: AccountBase): void {
    put(this.accounts, row.id, row, this.knowledge);
  }

  putPayee(row: Payee): void {
    put(this.payees, row.id, row, this.knowledge);
  }

  putLocation(row: PayeeLocation): void {
    put(this.locations, row.id, row, this.knowledge);
  }

  putGroup(row: CategoryGroup): void {
    put(this.groups, row.id, row, this.knowledge);
  }

  /** Creates or changes a category's own fields; a new category gets zero amounts everywhere. */
  putCategory(row: CategoryEntity): void {
    const isNew = !this.categories.has(row.id);
    put(this.categories, row.id, row, this.knowledge);
    if (isNew) for (const month of this.months.keys()) this.setAmounts(month, row.id, {});
  }

  setAmounts(month: IsoDate, categoryId: string, amounts: Partial<MonthAmounts>): void {
    let byCategory = this.amounts.get(month);
    if (!byCategory) {
      byCategory = new Map();
      this.amounts.set(month, byCategory);
    }
    const previous = byCategory.get(categoryId)?.row ?? ZERO_AMOUNTS;
    put(byCategory, categoryId, { ...previous, ...amounts }, this.knowledge);
  }

  /** Creates or changes a month summary; a new month gets zero amounts for every category. */
  putMonth(row: MonthSummaryBase): void {
    const isNew = !this.months.has(row.month);
    put(this.months, row.month, row, this.knowledge);
    if (isNew) {
      for (const [id, category] of this.categories) {
        if (!category.row.deleted) this.setAmounts(row.month, id, {});
      }
    }
  }

  /** Upserts a transaction; `subs`, when given, is its complete new subtransaction list. */
  putTransaction(row: TransactionSummaryBase, subs?: SubTransactionBase[]): void {
    put(this.transactions, row.id, row, this.knowledge);
    if (!subs) return;
    const keep = new Set(subs.map((sub) => sub.id));
    for (const [id, sub] of this.subtransactions) {
      if (sub.row.transaction_id === row.id && !sub.row.deleted && !keep.has(id)) {
        put(this.subtransactions, id, { ...sub.row, deleted: true }, this.knowledge);
      }
    }
    for (const sub of subs) put(this.subtransactions, sub.id, sub, this.knowledge);
  }

  /** Deletes a transaction; with `quietSubs` its subtransactions go without a delta entry. */
  deleteTransaction(id: string, quietSubs: boolean): void {
    const current = this.transactions.get(id);
    if (!current) return;
    put(this.transactions, id, { ...current.row, deleted: true }, this.knowledge);
    for (const [subId, sub] of this.subtransactions) {
      if (sub.row.transaction_id !== id || sub.row.deleted) continue;
      const row = { ...sub.row, deleted: true };
      if (quietSubs) this.subtransactions.set(subId, { row, changedAt: sub.changedAt });
      else put(this.subtransactions, subId, row, this.knowledge);
    }
  }

  putScheduled(row: ScheduledTransactionSummaryBase, subs?: ScheduledSubTransactionBase[]): void {
    put(this.scheduled, row.id, row, this.knowledge);
    if (!subs) return;
    const keep = new Set(subs.map((sub) => sub.id));
    for (const [id, sub] of this.scheduledSubs) {
      if (sub.row.scheduled_transaction_id === row.id && !sub.row.deleted && !keep.has(id)) {
        put(this.scheduledSubs, id, { ...sub.row, deleted: true }, this.knowledge);
      }
    }
    for (const sub of subs) put(this.scheduledSubs, sub.id, sub, this.knowledge);
  }

  deleteScheduled(id: string, quietSubs: boolean): void {
    const current = this.scheduled.get(id);
    if (!current) return;
    put(this.scheduled, id, { ...current.row, deleted: true }, this.knowledge);
    for (const [subId, sub] of this.scheduledSubs) {
      if (sub.row.scheduled_transaction_id !== id || sub.row.deleted) continue;
      const row = { ...sub.row, deleted: true };
      if (quietSubs) this.scheduledSubs.set(subId, { row, changedAt: sub.changedAt });
      else put(this.scheduledSubs, subId, row, this.knowledge);
    }
  }

  /** Tombstones an entity of a simple collection. */
  remove(
    collection: 'accounts' | 'payees' | 'locations' | 'groups' | 'categories' | 'months',
    key: string,
  ): void {
    const map = this[collection] as Map<string, Versioned<{ deleted: boolean }>>;
    const current = map.get(key);
    if (current) put(map, key, { ...current.row, deleted: true }, this.knowledge);
  }

  /** The `getPlanById` body: the whole live plan, or what changed after `since`. */
  exportPlan(since?: number): ResponseData['getPlanById'] {
    const full = since === undefined;
    const include = (entry: Versioned<{ deleted: boolean }>): boolean =>
      full ? !entry.row.deleted : entry.changedAt > since;
    const rows = <T extends { deleted: boolean }>(map: Map<string, Versioned<T>>): T[] =>
      [...map.values()].filter(include).map((entry) => entry.row);

    const categories: CategoryBase[] = [];
    for (const [id, entity] of this.categories) {
      const current = this.amounts.get(this.currentMonth)?.get(id);
      const changedAt = Math.max(entity.changedAt, current?.changedAt ?? 0);
      if (full ? entity.row.deleted : changedAt <= since) continue;
      categories.push(this.categoryRow(entity.row, current?.row ?? ZERO_AMOUNTS));
    }

    const months: ResponseData['getPlanById']['plan']['months'] = [];
    for (const [key, summary] of this.months) {
      const monthCategories: CategoryBase[] = [];
      for (const [id, entity] of this.categories) {
        if (entity.row.deleted) continue;
        const amounts = this.amounts.get(key)?.get(id);
        if (!amounts || (!full && amounts.changedAt <= since)) continue;
        monthCategories.push(this.categoryRow(entity.row, amounts.row));
      }
      if (full ? summary.row.deleted : summary.changedAt <= since && monthCategories.length === 0)
        continue;
      months.push({ ...summary.row, categories: summary.row.deleted ? [] : monthCategories });
    }

    return planExport(
      {
        id: this.id,
        name: this.name,
        accounts: rows(this.accounts),
        payees: rows(this.payees),
        payee_locations: rows(this.locations),
        category_groups: rows(this.groups),
        categories,
        months,
        transactions: rows(this.transactions),
        subtransactions: rows(this.subtransactions),
        scheduled_transactions: rows(this.scheduled),
        scheduled_subtransactions: rows(this.scheduledSubs),
      },
      this.knowledge,
    );
  }

  /** The REST detail of a transaction, as a write would return it. */
  transactionDetail(id: string): TransactionDetail {
    const row = this.transactions.get(id)!.row;
    const subs = [...this.subtransactions.values()]
      .map((entry) => entry.row)
      .filter((sub) => sub.transaction_id === id && !sub.deleted);
    return {
      ...row,
      ...money('amount', row.amount),
      account_name: this.accounts.get(row.account_id)?.row.name ?? 'Unknown',
      payee_name: row.payee_id ? (this.payees.get(row.payee_id)?.row.name ?? null) : null,
      category_name:
        subs.length > 0
          ? 'Split'
          : row.category_id
            ? (this.categories.get(row.category_id)?.row.name ?? null)
            : null,
      subtransactions: subs.map((sub) => ({ ...sub, ...money('amount', sub.amount) })),
    };
  }

  scheduledDetail(id: string): ScheduledTransactionDetail {
    const row = this.scheduled.get(id)!.row;
    const subs = [...this.scheduledSubs.values()]
      .map((entry) => entry.row)
      .filter((sub) => sub.scheduled_transaction_id === id && !sub.deleted);
    return {
      ...row,
      ...money('amount', row.amount),
      account_name: this.accounts.get(row.account_id)?.row.name ?? 'Unknown',
      payee_name: null,
      category_name: null,
      subtransactions: subs.map((sub) => ({ ...sub, ...money('amount', sub.amount) })),
    };
  }

  accountDetail(id: string): Account {
    const row = this.accounts.get(id)!.row;
    return {
      ...row,
      ...money('balance', row.balance),
      ...money('cleared_balance', row.cleared_balance),
      ...money('uncleared_balance', row.uncleared_balance),
    };
  }

  /** The REST category of `month` (default: the current month), as a write would return it. */
  categoryDetail(id: string, month: IsoDate = this.currentMonth): Category {
    const entity = this.categories.get(id)!.row;
    const base = this.categoryRow(entity, this.amounts.get(month)?.get(id)?.row ?? ZERO_AMOUNTS);
    return {
      ...base,
      ...money('balance', base.balance),
      ...money('activity', base.activity),
      ...money('budgeted', base.budgeted),
      goal_target_formatted: null,
      goal_target_currency: null,
      goal_under_funded_formatted: null,
      goal_under_funded_currency: null,
      goal_overall_funded_formatted: null,
      goal_overall_funded_currency: null,
      goal_overall_left_formatted: null,
      goal_overall_left_currency: null,
    };
  }

  private categoryRow(entity: CategoryEntity, amounts: MonthAmounts): CategoryBase {
    const group = this.groups.get(entity.category_group_id)?.row;
    return { ...amounts, ...entity, category_group_name: group?.name ?? 'Unknown' };
  }
}

function put<T>(map: Map<string, Versioned<T>>, key: string, row: T, knowledge: number): void {
  map.set(key, { row, changedAt: knowledge });
}

/** `_formatted` / `_currency` companions of an amount, in a plain format. */
function money<K extends string>(
  field: K,
  milliunits: number,
): Record<`${K}_formatted`, string> & Record<`${K}_currency`, number> {
  const currency = milliunits / 1000;
  return {
    [`${field}_formatted`]: `€${currency.toFixed(2)}`,
    [`${field}_currency`]: currency,
  } as Record<`${K}_formatted`, string> & Record<`${K}_currency`, number>;
}
