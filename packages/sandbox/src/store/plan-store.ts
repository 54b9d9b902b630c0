/**
 * One plan's state: entity maps, the per-plan server knowledge counter and the indexes the
 * handlers need. Every mutation runs inside `change()`, which hands out one new knowledge value
 * for the whole request, applies the accumulated balance and activity deltas, settles the budget
 * arithmetic and only then advances the counter. Handlers validate before calling `change()`, so
 * a change never fails half-way.
 */
import type { CurrencyFormat, DateFormat, IsoDate } from '@plans-gateway/rest-contract';
import { monthOf } from '../core/dates.js';
import { add, type Exact, subtract } from '../core/exact.js';
import { createDueQueue } from './due-queue.js';
import type {
  AccountRecord,
  CategoryGroupRecord,
  CategoryRecord,
  FlagNames,
  ImportableTransaction,
  MoneyMovementGroupRecord,
  MoneyMovementRecord,
  MonthRecord,
  PayeeLocationRecord,
  PayeeRecord,
  ScheduledTransactionRecord,
  SubTransactionRecord,
  TransactionRecord,
  Versioned,
} from './records.js';

export interface PlanIdentity {
  id: string;
  name: string;
  ownerUserId: string;
  currencyFormat: CurrencyFormat | null;
  dateFormat: DateFormat | null;
  flagNames: FlagNames;
}

/** Settles derived values (account balances, category and month arithmetic) at the end of a change. */
export type Settler = (store: PlanStore) => void;

export interface AccountDelta {
  balance: Exact;
  cleared: Exact;
}

export class PlanStore {
  readonly id: string;
  name: string;
  readonly ownerUserId: string;
  currencyFormat: CurrencyFormat | null;
  dateFormat: DateFormat | null;
  flagNames: FlagNames;
  /** Epoch ms of the last change. */
  lastModifiedOn: number;
  /** The plan's server knowledge: the value handed out by the last committed change. */
  knowledge = 0;
  /** Month (`YYYY-MM-01`) whose amounts the category endpoints show; follows the clock. */
  currentMonth: IsoDate;

  readonly accounts = new Map<string, AccountRecord>();
  readonly payees = new Map<string, PayeeRecord>();
  readonly payeeLocations = new Map<string, PayeeLocationRecord>();
  readonly categoryGroups = new Map<string, CategoryGroupRecord>();
  readonly categories = new Map<string, CategoryRecord>();
  /** Ascending by month, contiguous. */
  months: MonthRecord[] = [];
  readonly monthsByKey = new Map<IsoDate, MonthRecord>();
  readonly transactions = new Map<string, TransactionRecord>();
  /** Every transaction (deleted ones too) ascending by (date, id); lists scan it in order. */
  readonly transactionOrder: TransactionRecord[] = [];
  readonly subtransactions = new Map<string, SubTransactionRecord>();
  /** accountId → import_id → live transaction, for the per-account uniqueness rule. */
  readonly importIds = new Map<string, Map<string, TransactionRecord>>();
  readonly scheduledTransactions = new Map<string, ScheduledTransactionRecord>();
  /** Scheduled transactions by `date_next`: which ones have come due (handlers/scheduled-due.ts). */
  readonly scheduledDue = createDueQueue();
  readonly moneyMovements: MoneyMovementRecord[] = [];
  readonly moneyMovementGroups: MoneyMovementGroupRecord[] = [];
  /** What POST /transactions/import will bring in, oldest first. */
  importQueue: ImportableTransaction[] = [];

  readyToAssignCategoryId = '';
  startingBalancePayeeId = '';
  /** Credit card account id → its payment category id. */
  readonly paymentCategoryByCard = new Map<string, string>();

  private pendingKnowledge: number | null = null;
  private touchedAny = false;
  /**
   * During a silent change (a fault): each touched record's knowledge from before, put back when
   * the change ends. `null` outside one.
   */
  private silentOriginals: Map<Versioned, number> | null = null;
  private readonly accountDeltas = new Map<string, AccountDelta>();
  /** categoryId → month → activity delta, applied when the change settles. */
  private readonly activityDeltas = new Map<string, Map<IsoDate, Exact>>();
  /** categoryId → month → card account id → card activity delta, applied when the change settles. */
  private readonly cardActivityDeltas = new Map<string, Map<IsoDate, Map<string, Exact>>>();
  /** categoryId → earliest month whose balance must be recomputed. */
  readonly dirtyCategories = new Map<string, IsoDate>();

  constructor(
    identity: PlanIdentity,
    today: IsoDate,
    nowMs: number,
    private readonly settle: Settler,
  ) {
    this.id = identity.id;
    this.name = identity.name;
    this.ownerUserId = identity.ownerUserId;
    this.currencyFormat = identity.currencyFormat;
    this.dateFormat = identity.dateFormat;
    this.flagNames = identity.flagNames;
    this.lastModifiedOn = nowMs;
    this.currentMonth = monthOf(today);
  }

  /**
   * Runs `mutate` as one change: everything touched gets the same new knowledge value, derived
   * values are settled, and the counter advances only if something actually changed.
   *
   * `silent` makes it a fault the sandbox can inject: the change is made and settled like any
   * other, then every record it touched gets its former knowledge back (transactions remember
   * no former scope for it), and neither the counter nor the plan's last-modified time moves. Full reads and the export show the change; no delta ever carries
   * it. A nested call joins the running change.
   */
  change<T>(nowMs: number, mutate: () => T, { silent = false }: { silent?: boolean } = {}): T {
    if (this.pendingKnowledge !== null) return mutate();
    const pending = this.knowledge + 1;
    this.pendingKnowledge = pending;
    this.touchedAny = false;
    this.silentOriginals = silent ? new Map() : null;
    try {
      const result = mutate();
      this.settle(this);
      if (this.silentOriginals) this.forget(this.silentOriginals);
      else if (this.touchedAny) {
        this.knowledge = pending;
        this.lastModifiedOn = nowMs;
      }
      return result;
    } finally {
      this.pendingKnowledge = null;
      this.silentOriginals = null;
      this.accountDeltas.clear();
      this.activityDeltas.clear();
      this.cardActivityDeltas.clear();
      this.dirtyCategories.clear();
    }
  }

  /** Private: gives the records a silent change touched their former knowledge back. */
  private forget(originals: Map<Versioned, number>): void {
    for (const [record, former] of originals) record.knowledge = former;
  }

  /** Whether the running change is silent (see `change`): it leaves no trace for deltas. */
  get silent(): boolean {
    return this.silentOriginals !== null;
  }

  /** Marks a record as changed by the running change. */
  touch(record: Versioned): void {
    if (this.pendingKnowledge === null) throw new Error('PlanStore.touch called outside change()');
    if (this.silentOriginals && !this.silentOriginals.has(record))
      this.silentOriginals.set(record, record.knowledge);
    record.knowledge = this.pendingKnowledge;
    this.touchedAny = true;
  }

  /** The knowledge value records touched now receive. */
  get changeKnowledge(): number {
    if (this.pendingKnowledge === null)
      throw new Error('PlanStore.changeKnowledge read outside change()');
    return this.pendingKnowledge;
  }

  // -------------------------------------------------------------------------------------------
  // Deltas that settle at the end of the change

  addAccountDelta(accountId: string, balance: number, cleared: number): void {
    const delta = this.accountDeltas.get(accountId) ?? { balance: 0, cleared: 0 };
    delta.balance = add(delta.balance, balance);
    delta.cleared = add(delta.cleared, cleared);
    this.accountDeltas.set(accountId, delta);
  }

  /** What the running change has added so far to an account's balance and cleared balance. */
  pendingAccountDelta(accountId: string): Readonly<AccountDelta> {
    return this.accountDeltas.get(accountId) ?? { balance: 0, cleared: 0 };
  }

  /** What the running change has added so far to a category's activity in a month. */
  pendingActivity(categoryId: string, month: IsoDate): Exact {
    return this.activityDeltas.get(categoryId)?.get(month) ?? 0;
  }

  addActivity(categoryId: string, month: IsoDate, amount: number): void {
    let byMonth = this.activityDeltas.get(categoryId);
    if (!byMonth) {
      byMonth = new Map();
      this.activityDeltas.set(categoryId, byMonth);
    }
    byMonth.set(month, add(byMonth.get(month) ?? 0, amount));
  }

  /** Records that `amount` of a category's activity in `month` happened on credit card `cardId`. */
  addCardActivity(categoryId: string, month: IsoDate, cardId: string, amount: number): void {
    let byMonth = this.cardActivityDeltas.get(categoryId);
    if (!byMonth) {
      byMonth = new Map();
      this.cardActivityDeltas.set(categoryId, byMonth);
    }
    let byCard = byMonth.get(month);
    if (!byCard) {
      byCard = new Map();
      byMonth.set(month, byCard);
    }
    byCard.set(cardId, add(byCard.get(cardId) ?? 0, amount));
  }

  markCategoryDirty(categoryId: string, fromMonth: IsoDate): void {
    const known = this.dirtyCategories.get(categoryId);
    if (known === undefined || fromMonth < known) this.dirtyCategories.set(categoryId, fromMonth);
  }

  /** Applies and clears the accumulated account deltas; touches accounts whose balances moved. */
  flushAccountDeltas(): void {
    for (const [accountId, delta] of this.accountDeltas) {
      const account = this.accounts.get(accountId);
      if (!account || (delta.balance === 0 && delta.cleared === 0)) continue;
      account.balance = add(account.balance, delta.balance);
      account.cleared_balance = add(account.cleared_balance, delta.cleared);
      account.uncleared_balance = subtract(account.balance, account.cleared_balance);
      this.touch(account);
    }
    this.accountDeltas.clear();
  }

  /** Applies and clears the accumulated activity deltas, marking the categories dirty. */
  flushActivityDeltas(): void {
    for (const [categoryId, byMonth] of this.activityDeltas) {
      for (const [month, amount] of byMonth) {
        if (amount === 0) continue;
        const monthCategory = this.monthsByKey.get(month)?.categories.get(categoryId);
        if (!monthCategory) continue;
        monthCategory.activity = add(monthCategory.activity, amount);
        // Touch here, not only when the balance moves: activity can change with an unchanged balance.
        this.touch(monthCategory);
        this.markCategoryDirty(categoryId, month);
      }
    }
    this.activityDeltas.clear();
  }

  /**
   * Applies and clears the accumulated card activity deltas, marking the categories dirty: a
   * purchase moved from a bank account to a card leaves activity as it was but moves money.
   */
  flushCardActivityDeltas(): void {
    for (const [categoryId, byMonth] of this.cardActivityDeltas) {
      for (const [month, byCard] of byMonth) {
        const monthCategory = this.monthsByKey.get(month)?.categories.get(categoryId);
        if (!monthCategory) continue;
        for (const [cardId, amount] of byCard) {
          if (amount === 0) continue;
          const cards = monthCategory.cardActivity ?? new Map<string, Exact>();
          const total = add(cards.get(cardId) ?? 0, amount);
          if (total === 0) cards.delete(cardId);
          else cards.set(cardId, total);
          monthCategory.cardActivity = cards.size > 0 ? cards : undefined;
          this.markCategoryDirty(categoryId, month);
        }
      }
    }
    this.cardActivityDeltas.clear();
  }

  // -------------------------------------------------------------------------------------------
  // Transaction order and indexes

  insertInOrder(transaction: TransactionRecord): void {
    this.transactionOrder.splice(this.orderIndex(transaction.date, transaction.id), 0, transaction);
  }

  removeFromOrder(transaction: TransactionRecord): void {
    const index = this.orderIndex(transaction.date, transaction.id);
    if (this.transactionOrder[index] === transaction) this.transactionOrder.splice(index, 1);
  }

  /** First position whose (date, id) is not below the given key. */
  orderIndex(date: IsoDate, id: string): number {
    let low = 0;
    let high = this.transactionOrder.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const at = this.transactionOrder[mid] as TransactionRecord;
      if (at.date < date || (at.date === date && at.id < id)) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  indexImportId(transaction: TransactionRecord): void {
    if (transaction.import_id === null || transaction.deleted) return;
    let byImportId = this.importIds.get(transaction.account_id);
    if (!byImportId) {
      byImportId = new Map();
      this.importIds.set(transaction.account_id, byImportId);
    }
    byImportId.set(transaction.import_id, transaction);
  }

  unindexImportId(transaction: TransactionRecord): void {
    if (transaction.import_id === null) return;
    const byImportId = this.importIds.get(transaction.account_id);
    if (byImportId?.get(transaction.import_id) === transaction)
      byImportId.delete(transaction.import_id);
  }

  findByImportId(accountId: string, importId: string): TransactionRecord | undefined {
    return this.importIds.get(accountId)?.get(importId);
  }

  // -------------------------------------------------------------------------------------------
  // Lookups of live (not deleted) entities

  liveAccount(id: string): AccountRecord | undefined {
    const account = this.accounts.get(id);
    return account && !account.deleted ? account : undefined;
  }

  livePayee(id: string): PayeeRecord | undefined {
    const payee = this.payees.get(id);
    return payee && !payee.deleted ? payee : undefined;
  }

  liveCategory(id: string): CategoryRecord | undefined {
    const category = this.categories.get(id);
    return category && !category.deleted ? category : undefined;
  }

  liveTransaction(id: string): TransactionRecord | undefined {
    const transaction = this.transactions.get(id);
    return transaction && !transaction.deleted ? transaction : undefined;
  }

  get firstMonth(): IsoDate {
    return (this.months[0] as MonthRecord).month;
  }

  get lastMonth(): IsoDate {
    return (this.months[this.months.length - 1] as MonthRecord).month;
  }
}
