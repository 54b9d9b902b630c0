/**
 * Budget arithmetic. The rules (documented in the README):
 *
 * - activity(m, c): sum of the amounts of live transactions and subtransactions categorized to c,
 *   dated in month m, in on-budget accounts. Maintained incrementally from posting deltas.
 * - balance(m, c) = carry(m, c) + budgeted(m, c) + activity(m, c), where
 *   carry(m, c) = max(0, balance(m-1, c)) and carry(first month) = 0. Overspending (a negative
 *   balance) does not roll over in the category; it is taken from Ready to Assign next month.
 * - month.income = activity of 'Inflow: Ready to Assign' in m;
 *   month.budgeted = sum of budgeted; month.activity = sum of activity of all other categories;
 *   month.to_be_budgeted = to_be_budgeted(m-1) + income(m) - budgeted(m) + overspent(m-1), where
 *   overspent(m) is the (negative) sum of the negative category balances of m.
 * - The Ready to Assign category itself shows budgeted 0, activity = income(m) and
 *   balance = to_be_budgeted(m).
 *
 * Only categories whose activity or budgeted amounts changed are recomputed, from the earliest
 * changed month on; month totals are recomputed from the earliest dirty month. With at most a few
 * dozen months and categories this is microseconds, whatever the number of transactions.
 */
import type { IsoDate } from '../../upstream/types.js';
import { addMonths, monthsBetween } from '../dates.js';
import type { PlanStore } from './plan-store.js';
import type { CategoryRecord, MonthCategoryRecord, MonthRecord } from './records.js';

/** The store's settler: applies pending deltas and recomputes what they affect. */
export function settleBudget(store: PlanStore): void {
  store.flushAccountDeltas();
  store.flushActivityDeltas();
  if (store.dirtyCategories.size === 0) return;
  let earliest: IsoDate | null = null;
  for (const [categoryId, fromMonth] of store.dirtyCategories) {
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
    const monthCategory = (store.months[i] as MonthRecord).categories.get(categoryId);
    if (!monthCategory) continue;
    const carry = previous ? Math.max(0, previous.balance) : 0;
    const balance = carry + monthCategory.budgeted + monthCategory.activity;
    if (balance !== monthCategory.balance) {
      monthCategory.balance = balance;
      store.touch(monthCategory);
    }
    previous = monthCategory;
  }
}

/** Private: recomputes month summaries (and the Ready to Assign row) from `fromMonth` on. */
function recomputeMonthTotals(store: PlanStore, fromMonth: IsoDate): void {
  const start = monthPosition(store, fromMonth);
  const rtaId = store.readyToAssignCategoryId;
  let previousTbb = 0;
  let previousOverspent = 0;
  if (start > 0) {
    const previous = store.months[start - 1] as MonthRecord;
    previousTbb = previous.to_be_budgeted;
    previousOverspent = overspentOf(store, previous);
  }
  for (let i = start; i < store.months.length; i++) {
    const month = store.months[i] as MonthRecord;
    let budgeted = 0;
    let activity = 0;
    let overspent = 0;
    for (const [categoryId, monthCategory] of month.categories) {
      if (categoryId === rtaId || store.categories.get(categoryId)?.deleted) continue;
      budgeted += monthCategory.budgeted;
      activity += monthCategory.activity;
      if (monthCategory.balance < 0) overspent += monthCategory.balance;
    }
    const rta = month.categories.get(rtaId);
    const income = rta ? rta.activity : 0;
    const toBeBudgeted = previousTbb + income - budgeted + previousOverspent;
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

function overspentOf(store: PlanStore, month: MonthRecord): number {
  let overspent = 0;
  for (const [categoryId, monthCategory] of month.categories) {
    if (categoryId === store.readyToAssignCategoryId || store.categories.get(categoryId)?.deleted)
      continue;
    if (monthCategory.balance < 0) overspent += monthCategory.balance;
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
