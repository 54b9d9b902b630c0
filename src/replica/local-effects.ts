/**
 * Pure: the derived figures a write moves, computed from the replica held just before it, so a
 * write whose answer is exactly one knowledge step past the replica can answer them without a
 * delta sync (see `src/writes/pipeline.ts`). The rules are the product's, as the REST interface
 * documents them (and the sandbox implements them):
 *
 * - A live transaction adds its amount to its account's `balance`, and to `cleared_balance`
 *   unless uncleared (else to `uncleared_balance`).
 * - In an on-budget account, each categorized line (the transaction, or each split line) adds
 *   its amount to its category's `activity` in the transaction's month.
 * - balance(m, c) = max(0, balance(m-1, c)) + budgeted(m, c) + activity(m, c), walked from the
 *   first changed month to the last month held.
 * - Month totals: `income` = activity of 'Inflow: Ready to Assign', `budgeted` and `activity`
 *   the sums of the other categories; to_be_budgeted(m) = to_be_budgeted(m-1) + income(m) -
 *   budgeted(m) + overspent(m-1), overspent being the negative balances that were cash
 *   overspending. The Ready to Assign row shows activity = income, balance = to_be_budgeted.
 *
 * Every figure is computed as a difference applied to the held rows, so only the categories a
 * write touches are walked. Whatever these rules do not cover answers `null`, and the caller
 * falls back to a delta sync: categorized credit card lines and the categories whose money a
 * card's spending moves (card payment categories, and any category with card spending from that
 * month on; an uncategorized card line only moves the card's balance), transfers (their other side is a new transaction), future-dated transactions, months the
 * replica does not hold, categories with a target (their progress fields follow the amounts),
 * deleted categories, new payees, imported or matched transactions, and sums past 2^53.
 */
import type { IsoDate, TransactionDetail } from '@plans-gateway/rest-contract';
import type {
  AccountRow,
  CategoryRow,
  DerivedRowSet,
  DerivedRows,
  ExportCategory,
  MonthRow,
  PlanSnapshot,
  SubTransactionRow,
  TransactionRow,
} from './types.js';

/** The rows a write's derived effects change, and what they were before it. */
export type LocalEffects = DerivedRows;

/** What a write did, as far as its derived effects go. */
export type LocalWrite =
  /** Transactions saved (created, updated or deleted), as the write's answer carries them. */
  | { readonly kind: 'transactions'; readonly saved: readonly TransactionDetail[] }
  /** A month category's assigned amount set (`updateMonthCategory`). */
  | {
      readonly kind: 'budgeted';
      readonly month: IsoDate;
      readonly categoryId: string;
      readonly budgeted: number;
    };

/** The name the product gives the category income goes to. */
export const READY_TO_ASSIGN_NAME = 'Inflow: Ready to Assign';
/** The group of the credit card payment categories. */
const CARD_PAYMENTS_GROUP = 'Credit Card Payments';
/** Account types whose spending moves money into a payment category. */
const CARD_TYPES: ReadonlySet<string> = new Set(['creditCard', 'lineOfCredit']);
/** A category with this many transactions from a month on is not searched for card spending. */
const CARD_SCAN_LIMIT = 2000;

/** Private: the arithmetic cannot follow this write; the caller syncs instead. */
class Uncovered extends Error {
  override readonly name = 'Uncovered';
  readonly code = 'GW_ERR_LOCAL_EFFECTS_UNCOVERED';
}

function uncovered(): never {
  throw new Uncovered();
}

function num(value: number | bigint): number {
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : uncovered();
}

function sum(a: number, b: number): number {
  const total = a + b;
  return Number.isSafeInteger(total) ? total : uncovered();
}

const monthOf = (date: string): IsoDate => `${date.slice(0, 7)}-01`;

/** One line of a posting: what a category's activity receives. */
interface Line {
  readonly categoryId: string | null;
  readonly transferAccountId: string | null;
  readonly amount: number;
}

/** A transaction's effect, to add (+1) or take back (-1). */
interface Posting {
  readonly accountId: string;
  readonly date: string;
  readonly amount: number;
  readonly cleared: boolean;
  readonly transferAccountId: string | null;
  readonly lines: readonly Line[];
}

function postingOfRow(row: TransactionRow, subs: readonly SubTransactionRow[]): Posting {
  const live = subs.filter((sub) => !sub.deleted);
  return {
    accountId: row.account_id,
    date: row.date,
    amount: num(row.amount),
    cleared: row.cleared !== 'uncleared',
    transferAccountId: row.transfer_account_id ?? null,
    lines:
      live.length > 0
        ? live.map((sub) => ({
            categoryId: sub.category_id ?? null,
            transferAccountId: sub.transfer_account_id ?? null,
            amount: num(sub.amount),
          }))
        : [
            {
              categoryId: row.category_id ?? null,
              transferAccountId: row.transfer_account_id ?? null,
              amount: num(row.amount),
            },
          ],
  };
}

function postingOfDetail(detail: TransactionDetail): Posting {
  return postingOfRow(
    detail as unknown as TransactionRow,
    detail.subtransactions as unknown as readonly SubTransactionRow[],
  );
}

/** Private: differences accumulated over a write's postings. */
class Deltas {
  readonly accounts = new Map<string, { balance: number; cleared: number }>();
  /** category id → month → activity added. */
  readonly activity = new Map<string, Map<IsoDate, number>>();
  /** category id → month → budgeted set. */
  readonly budgeted = new Map<string, Map<IsoDate, number>>();

  account(id: string, amount: number, cleared: boolean): void {
    const held = this.accounts.get(id) ?? { balance: 0, cleared: 0 };
    held.balance = sum(held.balance, amount);
    if (cleared) held.cleared = sum(held.cleared, amount);
    this.accounts.set(id, held);
  }

  addActivity(categoryId: string, month: IsoDate, amount: number): void {
    let byMonth = this.activity.get(categoryId);
    if (!byMonth) {
      byMonth = new Map();
      this.activity.set(categoryId, byMonth);
    }
    byMonth.set(month, sum(byMonth.get(month) ?? 0, amount));
  }
}

/**
 * The rows `write` changes, from `snapshot` (the replica just before the write's answer is
 * applied), or null when the write does something these rules do not cover.
 */
export function localEffects(
  snapshot: PlanSnapshot,
  write: LocalWrite,
  today: IsoDate,
): LocalEffects | null {
  try {
    return computeEffects(snapshot, write, today);
  } catch (error) {
    if (error instanceof Uncovered) return null;
    throw error;
  }
}

function computeEffects(snapshot: PlanSnapshot, write: LocalWrite, today: IsoDate): LocalEffects {
  const context = new Context(snapshot, today);
  const deltas = new Deltas();
  if (write.kind === 'budgeted') {
    const month = monthOf(write.month);
    context.checkCategory(write.categoryId, month);
    deltas.budgeted.set(write.categoryId, new Map([[month, write.budgeted]]));
  } else {
    for (const detail of write.saved) {
      if (detail.import_id != null || detail.matched_transaction_id != null) uncovered();
      if (detail.payee_id != null && !snapshot.payee(detail.payee_id)) uncovered();
      const held = snapshot.transaction(detail.id);
      if (held && !held.deleted) {
        context.post(deltas, postingOfRow(held, snapshot.subtransactionsOf(held.id)), -1);
      }
      if (!detail.deleted) context.post(deltas, postingOfDetail(detail), 1);
    }
  }
  return context.effects(deltas);
}

/** Private: the snapshot's rows as the rules read them. */
class Context {
  private readonly months: readonly IsoDate[];
  private readonly readyToAssign: string | undefined;

  constructor(
    private readonly snapshot: PlanSnapshot,
    private readonly today: IsoDate,
  ) {
    this.months = snapshot
      .months()
      .map((row) => row.month)
      .sort();
    this.readyToAssign = snapshot.categories().find((row) => row.name === READY_TO_ASSIGN_NAME)?.id;
  }

  post(deltas: Deltas, posting: Posting, sign: 1 | -1): void {
    const account = this.snapshot.account(posting.accountId);
    if (!account || account.deleted) uncovered();
    if (posting.transferAccountId !== null || posting.date > this.today) uncovered();
    deltas.account(account.id, sign * posting.amount, posting.cleared);
    if (CARD_TYPES.has(account.type)) {
      // Uncategorized card lines only move the card's balance; categorized ones move money
      // into its payment category, which these rules do not follow.
      if (posting.lines.some((line) => line.categoryId !== null || line.transferAccountId !== null))
        uncovered();
      return;
    }
    if (!account.on_budget) return;
    const month = monthOf(posting.date);
    if (!this.months.includes(month)) uncovered();
    for (const line of posting.lines) {
      if (line.transferAccountId !== null) uncovered();
      if (line.categoryId === null || line.amount === 0) continue;
      this.checkCategory(line.categoryId, month);
      deltas.addActivity(line.categoryId, month, sign * line.amount);
    }
  }

  /** Uncovered unless the category's money moves by the rules above alone. */
  checkCategory(categoryId: string, month: IsoDate): void {
    if (!this.months.includes(month)) uncovered();
    const row = this.snapshot.category(categoryId, month);
    if (!row || row.deleted || row.month !== month || row.goal_type != null) uncovered();
    if (categoryId === this.readyToAssign) return;
    const group = this.snapshot.categoryGroup(row.category_group_id);
    if (!group || group.name === CARD_PAYMENTS_GROUP) uncovered();
    // Card spending in this category, from this month on, moves money the rules cannot follow.
    const page = this.snapshot.transactions({
      categoryId,
      sinceDate: month,
      first: CARD_SCAN_LIMIT,
    });
    if (page.rows.length >= CARD_SCAN_LIMIT) uncovered();
    for (const tx of page.rows) {
      const account = this.snapshot.account(tx.account_id);
      if (!account || CARD_TYPES.has(account.type)) uncovered();
    }
  }

  effects(deltas: Deltas): LocalEffects {
    const accounts: LocalEffects['accounts'][number][] = [];
    const previous = new Collected();
    for (const [id, delta] of deltas.accounts) {
      if (delta.balance === 0 && delta.cleared === 0) continue;
      const { plan_id: _plan, ...row } = this.snapshot.account(id) as AccountRow;
      previous.accounts.push(row);
      accounts.push({
        ...row,
        balance: sum(num(row.balance), delta.balance),
        cleared_balance: sum(num(row.cleared_balance), delta.cleared),
        uncleared_balance: sum(num(row.uncleared_balance), delta.balance - delta.cleared),
      });
    }
    const monthCategories: { month: IsoDate; category: ExportCategory }[] = [];
    const totals = new MonthTotals();
    const rta = this.readyToAssign;
    for (const categoryId of new Set([...deltas.activity.keys(), ...deltas.budgeted.keys()])) {
      const activity = deltas.activity.get(categoryId) ?? new Map<IsoDate, number>();
      const budgeted = deltas.budgeted.get(categoryId) ?? new Map<IsoDate, number>();
      if (categoryId === rta) {
        for (const [month, amount] of activity) totals.add(month, 'income', amount);
        continue;
      }
      this.walkCategory(categoryId, activity, budgeted, totals, monthCategories, previous);
    }
    const months = this.walkMonths(totals, monthCategories, previous);
    return { accounts, months, monthCategories, previous };
  }

  /** Private: one category's rows from its first changed month to the last month held. */
  private walkCategory(
    categoryId: string,
    activity: ReadonlyMap<IsoDate, number>,
    budgeted: ReadonlyMap<IsoDate, number>,
    totals: MonthTotals,
    out: { month: IsoDate; category: ExportCategory }[],
    previous: Collected,
  ): void {
    const first = [...activity.keys(), ...budgeted.keys()].sort()[0];
    if (first === undefined) return;
    const start = this.months.indexOf(first);
    let carry: number | undefined;
    const before = start > 0 ? this.monthRow(categoryId, this.months[start - 1]!) : undefined;
    carry = before ? Math.max(0, num(before.balance)) : 0;
    for (let i = start; i < this.months.length; i++) {
      const month = this.months[i]!;
      const row = this.monthRow(categoryId, month);
      if (!row) continue;
      if (row.goal_type != null) uncovered();
      const oldBudgeted = num(row.budgeted);
      const newBudgeted = budgeted.get(month) ?? oldBudgeted;
      const newActivity = sum(num(row.activity), activity.get(month) ?? 0);
      const newBalance = sum(sum(carry, newBudgeted), newActivity);
      const oldBalance = num(row.balance);
      carry = Math.max(0, newBalance);
      if (
        newBudgeted === oldBudgeted &&
        newActivity === num(row.activity) &&
        newBalance === oldBalance
      ) {
        // Nothing further moves once a month's balance is what it was.
        if (i > start && !hasLater(activity, budgeted, month)) break;
        continue;
      }
      totals.add(month, 'budgeted', newBudgeted - oldBudgeted);
      totals.add(month, 'activity', newActivity - num(row.activity));
      totals.add(month, 'overspent', Math.min(0, newBalance) - Math.min(0, oldBalance));
      const { plan_id: _plan, month: _month, ...category } = row;
      previous.monthCategories.push({ month, category });
      out.push({
        month,
        category: {
          ...category,
          budgeted: newBudgeted,
          activity: newActivity,
          balance: newBalance,
        },
      });
    }
  }

  /** Private: the month summaries (and Ready to Assign rows) the category changes move. */
  private walkMonths(
    totals: MonthTotals,
    out: { month: IsoDate; category: ExportCategory }[],
    previous: Collected,
  ): LocalEffects['months'][number][] {
    const changed = [...totals.byMonth.keys()].sort()[0];
    if (changed === undefined) return [];
    const months: LocalEffects['months'][number][] = [];
    let carried = 0; // to_be_budgeted moved in the month before
    let overspentBefore = 0; // overspent moved in the month before
    for (let i = this.months.indexOf(changed); i < this.months.length; i++) {
      const month = this.months[i]!;
      const row = this.snapshot.month(month) as MonthRow;
      const moved = totals.byMonth.get(month) ?? EMPTY_TOTALS;
      const tbbMoved = carried + moved.income - moved.budgeted + overspentBefore;
      carried = tbbMoved;
      overspentBefore = moved.overspent;
      if (tbbMoved === 0 && moved.income === 0 && moved.budgeted === 0 && moved.activity === 0) {
        continue;
      }
      const { plan_id: _plan, ...summary } = row;
      const toBeBudgeted = sum(num(row.to_be_budgeted), tbbMoved);
      previous.months.push({ ...summary, categories: [] });
      months.push({
        ...summary,
        income: sum(num(row.income), moved.income),
        budgeted: sum(num(row.budgeted), moved.budgeted),
        activity: sum(num(row.activity), moved.activity),
        to_be_budgeted: toBeBudgeted,
        categories: [],
      });
      const rta =
        this.readyToAssign === undefined ? undefined : this.monthRow(this.readyToAssign, month);
      if (rta) {
        const { plan_id: _p, month: _m, ...category } = rta;
        previous.monthCategories.push({ month, category });
        out.push({
          month,
          category: {
            ...category,
            budgeted: 0,
            activity: sum(num(rta.activity), moved.income),
            balance: toBeBudgeted,
          },
        });
      }
    }
    return months;
  }

  private monthRow(categoryId: string, month: IsoDate): CategoryRow | undefined {
    const row = this.snapshot.category(categoryId, month);
    return row && row.month === month ? row : undefined;
  }
}

function hasLater(
  activity: ReadonlyMap<IsoDate, number>,
  budgeted: ReadonlyMap<IsoDate, number>,
  month: IsoDate,
): boolean {
  return [...activity.keys(), ...budgeted.keys()].some((other) => other > month);
}

interface Totals {
  income: number;
  budgeted: number;
  activity: number;
  overspent: number;
}
const EMPTY_TOTALS: Readonly<Totals> = { income: 0, budgeted: 0, activity: 0, overspent: 0 };

/** Private: what the category changes move in each month's totals. */
class MonthTotals {
  readonly byMonth = new Map<IsoDate, Totals>();

  add(month: IsoDate, field: keyof Totals, amount: number): void {
    if (amount === 0) return;
    const held = this.byMonth.get(month) ?? { ...EMPTY_TOTALS };
    held[field] = sum(held[field], amount);
    this.byMonth.set(month, held);
  }
}

/** Private: rows as they were before the write. */
class Collected implements DerivedRowSet {
  readonly accounts: DerivedRowSet['accounts'][number][] = [];
  readonly months: DerivedRowSet['months'][number][] = [];
  readonly monthCategories: { month: IsoDate; category: ExportCategory }[] = [];
}
