/**
 * Budget arithmetic. The rules (documented in the README, where the product's help pages they
 * follow are cited):
 *
 * - activity(m, c): sum of the amounts of live transactions and subtransactions categorized to c,
 *   dated in month m, in on-budget accounts. Maintained incrementally from posting deltas. For a
 *   credit card payment category it is what card spending moved into it (below) minus the
 *   payments made to the card from other budget accounts (store/transactions.ts posts those).
 * - balance(m, c) = carry(m, c) + budgeted(m, c) + activity(m, c), where
 *   carry(m, c) = max(0, balance(m-1, c)) and carry(first month) = 0: a negative balance never
 *   rolls over in the category.
 * - Credit card spending: in each month, a category's money pays for its cash spending first;
 *   card refunds give money back and move it out of the card's payment category; what is left
 *   funds the month's card spending (cards in account id order), and each funded amount moves
 *   into that card's payment category. Card spending beyond that is credit overspending: it stays
 *   on the card as debt. Because this is settled on the month's totals, assigning money later in
 *   the month covers the overspending and moves it after all.
 * - month.income = activity of 'Inflow: Ready to Assign' in m;
 *   month.budgeted = sum of budgeted; month.activity = sum of activity of all other categories;
 *   month.to_be_budgeted = to_be_budgeted(m-1) + income(m) - budgeted(m) + cashOverspent(m-1),
 *   where cashOverspent(m) is the (negative) sum over categories of the overspending that is not
 *   credit overspending: cash overspending is taken from next month's Ready to Assign, credit
 *   overspending is not (it became card debt).
 * - The Ready to Assign category itself shows budgeted 0, activity = income(m) and
 *   balance = to_be_budgeted(m).
 *
 * Every sum is exact past 2^53 (core/exact.ts): a category's balance carried over many months,
 * the month totals and Ready to Assign never round.
 *
 * Only categories whose activity, card activity or budgeted amounts changed are recomputed, from
 * the earliest changed month on (then the payment categories their moves changed); month totals
 * are recomputed from the earliest dirty month. With at most a few dozen months and categories
 * this is microseconds, whatever the number of transactions.
 */
import type { IsoDate } from '@plans-gateway/rest-contract';
import { addMonths, monthsBetween } from '../core/dates.js';
import { add, type Exact, max, min, negate, subtract } from '../core/exact.js';
import type { PlanStore } from './plan-store.js';
import type { CategoryRecord, MonthCategoryRecord, MonthRecord } from './records.js';

/** The store's settler: applies pending deltas and recomputes what they affect. */
export function settleBudget(store: PlanStore): void {
  store.flushAccountDeltas();
  store.flushActivityDeltas();
  store.flushCardActivityDeltas();
  if (store.dirtyCategories.size === 0) return;
  // Spending categories first: their card spending moves money into payment categories, which
  // marks those dirty in turn.
  for (const [categoryId, fromMonth] of [...store.dirtyCategories]) {
    if (store.categories.get(categoryId)?.role !== 'creditCardPayment')
      recomputeCategory(store, categoryId, fromMonth);
  }
  let earliest: IsoDate | null = null;
  for (const [categoryId, fromMonth] of store.dirtyCategories) {
    if (store.categories.get(categoryId)?.role === 'creditCardPayment')
      recomputeCategory(store, categoryId, fromMonth);
    if (earliest === null || fromMonth < earliest) earliest = fromMonth;
  }
  store.dirtyCategories.clear();
  if (earliest !== null) recomputeMonthTotals(store, earliest);
}

function monthPosition(store: PlanStore, month: IsoDate): number {
  return Math.max(0, monthsBetween(store.firstMonth, month));
}

/** Private: walks one category's balance chain from `fromMonth` to the last month. */
function recomputeCategory(store: PlanStore, categoryId: string, fromMonth: IsoDate): void {
  const category = store.categories.get(categoryId);
  if (!category || category.role === 'readyToAssign') return;
  const start = monthPosition(store, fromMonth);
  let previous = start > 0 ? store.months[start - 1]?.categories.get(categoryId) : undefined;
  for (let i = start; i < store.months.length; i++) {
    const month = store.months[i] as MonthRecord;
    const monthCategory = month.categories.get(categoryId);
    if (!monthCategory) continue;
    const carry = previous ? max(0, previous.balance) : 0;
    const balance = add(add(carry, monthCategory.budgeted), monthCategory.activity);
    if (balance !== monthCategory.balance) {
      monthCategory.balance = balance;
      store.touch(monthCategory);
    }
    if (category.role === 'regular') settleCardSpending(store, month.month, monthCategory, carry);
    previous = monthCategory;
  }
}

/**
 * Private: what one category's card activity in one month moves to the cards' payment
 * categories (see the rules above). Changes to earlier moves are applied to the payment
 * categories' activity, which marks them for recomputation.
 */
function settleCardSpending(
  store: PlanStore,
  month: IsoDate,
  monthCategory: MonthCategoryRecord,
  carry: Exact,
): void {
  const cards = monthCategory.cardActivity;
  if (!cards && !monthCategory.movedToCards && !monthCategory.creditOverspent) return;
  const moved = new Map<string, Exact>();
  let creditOverspent: Exact = 0;
  if (cards) {
    let onCards: Exact = 0;
    for (const amount of cards.values()) onCards = add(onCards, amount);
    // Cash spending is paid first; card refunds add back what they return.
    let funds = subtract(add(add(carry, monthCategory.budgeted), monthCategory.activity), onCards);
    for (const [cardId, amount] of cards) {
      if (amount > 0) {
        moved.set(cardId, negate(amount));
        funds = add(funds, amount);
      }
    }
    funds = max(0, funds);
    for (const cardId of [...cards.keys()].sort()) {
      const spent = negate(cards.get(cardId) ?? 0);
      if (spent <= 0) continue;
      const funded = min(spent, funds);
      funds = subtract(funds, funded);
      creditOverspent = add(creditOverspent, subtract(spent, funded));
      if (funded > 0) moved.set(cardId, funded);
    }
  }
  const before = monthCategory.movedToCards;
  for (const cardId of new Set([...moved.keys(), ...(before?.keys() ?? [])])) {
    const change = subtract(moved.get(cardId) ?? 0, before?.get(cardId) ?? 0);
    if (change !== 0) movePaymentActivity(store, cardId, month, change);
  }
  monthCategory.movedToCards = moved.size > 0 ? moved : undefined;
  monthCategory.creditOverspent = creditOverspent > 0 ? creditOverspent : undefined;
}

/** Private: adds to the activity of a card's payment category in a month. */
function movePaymentActivity(store: PlanStore, cardId: string, month: IsoDate, amount: Exact) {
  const paymentCategoryId = store.paymentCategoryByCard.get(cardId);
  const record =
    paymentCategoryId === undefined
      ? undefined
      : store.monthsByKey.get(month)?.categories.get(paymentCategoryId);
  if (paymentCategoryId === undefined || !record) return;
  record.activity = add(record.activity, amount);
  store.touch(record);
  store.markCategoryDirty(paymentCategoryId, month);
}

/** Card spending of a month that no category could fund, by card: the card debt it added. */
export function creditOverspendingByCard(month: MonthRecord): Map<string, Exact> {
  const byCard = new Map<string, Exact>();
  for (const monthCategory of month.categories.values()) {
    if (!monthCategory.creditOverspent || !monthCategory.cardActivity) continue;
    for (const [cardId, amount] of monthCategory.cardActivity) {
      const unfunded = subtract(negate(amount), monthCategory.movedToCards?.get(cardId) ?? 0);
      if (amount < 0 && unfunded > 0) byCard.set(cardId, add(byCard.get(cardId) ?? 0, unfunded));
    }
  }
  return byCard;
}

/** The overspending of a category in a month that Ready to Assign covers next month (<= 0). */
export function cashOverspending(monthCategory: MonthCategoryRecord): Exact {
  if (monthCategory.balance >= 0) return 0;
  return add(monthCategory.balance, monthCategory.creditOverspent ?? 0);
}

/** Private: recomputes month summaries (and the Ready to Assign row) from `fromMonth` on. */
function recomputeMonthTotals(store: PlanStore, fromMonth: IsoDate): void {
  const start = monthPosition(store, fromMonth);
  const rtaId = store.readyToAssignCategoryId;
  let previousTbb: Exact = 0;
  let previousOverspent: Exact = 0;
  if (start > 0) {
    const previous = store.months[start - 1] as MonthRecord;
    previousTbb = previous.to_be_budgeted;
    previousOverspent = overspentOf(store, previous);
  }
  for (let i = start; i < store.months.length; i++) {
    const month = store.months[i] as MonthRecord;
    let budgeted: Exact = 0;
    let activity: Exact = 0;
    let overspent: Exact = 0;
    for (const [categoryId, monthCategory] of month.categories) {
      if (categoryId === rtaId || store.categories.get(categoryId)?.deleted) continue;
      budgeted = add(budgeted, monthCategory.budgeted);
      activity = add(activity, monthCategory.activity);
      overspent = add(overspent, cashOverspending(monthCategory));
    }
    const rta = month.categories.get(rtaId);
    const income = rta ? rta.activity : 0;
    const toBeBudgeted = add(subtract(add(previousTbb, income), budgeted), previousOverspent);
    if (
      month.income !== income ||
      month.budgeted !== budgeted ||
      month.activity !== activity ||
      month.to_be_budgeted !== toBeBudgeted
    ) {
      month.income = income;
      month.budgeted = budgeted;
      month.activity = activity;
      month.to_be_budgeted = toBeBudgeted;
      store.touch(month);
    }
    if (rta && (rta.balance !== toBeBudgeted || rta.budgeted !== 0)) {
      rta.balance = toBeBudgeted;
      rta.budgeted = 0;
      store.touch(rta);
    }
    previousTbb = toBeBudgeted;
    previousOverspent = overspent;
  }
}

function overspentOf(store: PlanStore, month: MonthRecord): Exact {
  let overspent: Exact = 0;
  for (const [categoryId, monthCategory] of month.categories) {
    if (categoryId === store.readyToAssignCategoryId || store.categories.get(categoryId)?.deleted)
      continue;
    overspent = add(overspent, cashOverspending(monthCategory));
  }
  return overspent;
}

function newMonthCategory(store: PlanStore, categoryId: string): MonthCategoryRecord {
  const record: MonthCategoryRecord = {
    categoryId,
    budgeted: 0,
    activity: 0,
    balance: 0,
    knowledge: 0,
  };
  store.touch(record);
  return record;
}

function newMonth(store: PlanStore, month: IsoDate): MonthRecord {
  const record: MonthRecord = {
    month,
    note: null,
    income: 0,
    budgeted: 0,
    activity: 0,
    to_be_budgeted: 0,
    age_of_money: null,
    deleted: false,
    knowledge: 0,
    categories: new Map(),
  };
  for (const category of store.categories.values()) {
    record.categories.set(category.id, newMonthCategory(store, category.id));
  }
  store.touch(record);
  return record;
}

/**
 * Makes sure the plan has a month record for `month`, extending the contiguous range backwards
 * or forwards. New months start empty; balances carry into them when the change settles.
 */
export function ensureMonth(store: PlanStore, month: IsoDate): MonthRecord {
  const known = store.monthsByKey.get(month);
  if (known) return known;
  if (store.months.length === 0) {
    const record = newMonth(store, month);
    store.months = [record];
    store.monthsByKey.set(month, record);
    return record;
  }
  const fresh: MonthRecord[] = [];
  if (month < store.firstMonth) {
    for (let m = month; m < store.firstMonth; m = addMonths(m, 1)) fresh.push(newMonth(store, m));
    store.months = [...fresh, ...store.months];
  } else {
    for (let m = addMonths(store.lastMonth, 1); m <= month; m = addMonths(m, 1))
      fresh.push(newMonth(store, m));
    store.months = [...store.months, ...fresh];
  }
  for (const record of fresh) store.monthsByKey.set(record.month, record);
  // Every chain is recomputed from the first new month to the end (carry flows forward).
  const from = (fresh[0] as MonthRecord).month;
  for (const category of store.categories.values()) store.markCategoryDirty(category.id, from);
  return store.monthsByKey.get(month) as MonthRecord;
}

/** Adds a new category to every month (all amounts zero). */
export function addCategoryToMonths(store: PlanStore, category: CategoryRecord): void {
  for (const month of store.months) {
    month.categories.set(category.id, newMonthCategory(store, category.id));
    store.touch(month);
  }
}

/** Sets the assigned amount of a category in a month; the balance chain follows on settle. */
export function setBudgeted(
  store: PlanStore,
  month: MonthRecord,
  categoryId: string,
  budgeted: number,
): void {
  const monthCategory = month.categories.get(categoryId);
  if (!monthCategory || monthCategory.budgeted === budgeted) return;
  monthCategory.budgeted = budgeted;
  store.touch(monthCategory);
  store.markCategoryDirty(categoryId, month.month);
}
