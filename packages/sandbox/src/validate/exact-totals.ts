/**
 * The interface's amounts are int64. The sandbox keeps every sum exact past 2^53 (core/exact.ts),
 * so what is left to refuse is a write that would push an account balance, a category's activity
 * in a month, or a month's totals beyond ±(2^63 − 1): it gets a 400 before anything changes.
 * (One amount in a request is at most ±(2^53 − 1), what JSON numbers carry exactly.)
 *
 * Not checked: category balances carried from month to month and Ready to Assign, which sum a
 * whole history; they stay exact, and pass int64 only after thousands of the largest amounts.
 */
import { monthOf } from '../core/dates.js';
import { badRequest } from '../core/errors.js';
import { add, type Exact, isInt64, subtract } from '../core/exact.js';
import type { PlanStore } from '../store/plan-store.js';
import type { TransactionRecord } from '../store/records.js';
import type { TransactionState } from '../store/transaction-state.js';
import { effectiveCategory } from '../store/transactions.js';

/** The largest int64, as the error details show it. */
const LIMIT = '9223372036854775807';

export interface PlannedWrite {
  /** The transaction as it is now; null for a create. */
  before: TransactionRecord | null;
  /** The transaction as it will be; null for a delete. */
  after: TransactionState | null;
  /** Where the write came from in the request, for the error message. */
  path: string;
}

interface Posting {
  accountId: string;
  date: string;
  amount: number;
  lines: readonly { amount: number; categoryId: string | null; transferAccountId: string | null }[];
  transferAccountId: string | null;
  categoryId: string | null;
}

function postingOfRecord(tx: TransactionRecord): Posting {
  return {
    accountId: tx.account_id,
    date: tx.date,
    amount: tx.amount,
    transferAccountId: tx.transfer_account_id,
    categoryId: tx.category_id,
    lines: tx.subtransactions
      .filter((s) => !s.deleted)
      .map((s) => ({
        amount: s.amount,
        categoryId: s.category_id,
        transferAccountId: s.transfer_account_id,
      })),
  };
}

function postingOfState(state: TransactionState): Posting {
  return {
    accountId: state.accountId,
    date: state.date,
    amount: state.amount,
    transferAccountId: state.transferAccountId,
    categoryId: state.categoryId,
    lines: state.subtransactions.map((s) => ({
      amount: s.amount,
      categoryId: s.categoryId,
      transferAccountId: s.transferAccountId,
    })),
  };
}

/** Sums of the changes a set of writes makes, each with the request path that caused it. */
class Deltas {
  readonly values = new Map<string, { delta: Exact; path: string }>();
  add(key: string, amount: Exact, path: string) {
    const current = this.values.get(key);
    this.values.set(key, { delta: add(current?.delta ?? 0, amount), path: current?.path ?? path });
  }
}

function post(
  store: PlanStore,
  deltas: { accounts: Deltas; activity: Deltas },
  posting: Posting,
  sign: 1 | -1,
  path: string,
) {
  deltas.accounts.add(posting.accountId, sign * posting.amount, path);
  const onBudget = store.accounts.get(posting.accountId)?.on_budget === true;
  const month = monthOf(posting.date);
  const lines = posting.lines.length > 0 ? posting.lines : [posting];
  for (const line of lines) {
    if (line.transferAccountId !== null)
      deltas.accounts.add(line.transferAccountId, -sign * line.amount, path);
    const category = onBudget
      ? effectiveCategory(store, posting.accountId, line.transferAccountId, line.categoryId)
      : null;
    if (category !== null) {
      deltas.activity.add(`${category}\u0000${month}`, sign * line.amount, path);
    } else if (onBudget && line.transferAccountId !== null) {
      // A transfer between a card and another budget account draws on the card's payment
      // category by what reaches the card (store/transactions.ts), on either side.
      const paymentHere = store.paymentCategoryByCard.get(posting.accountId);
      const paymentThere = store.paymentCategoryByCard.get(line.transferAccountId);
      const otherOnBudget = store.accounts.get(line.transferAccountId)?.on_budget === true;
      if (paymentHere !== undefined && otherOnBudget)
        deltas.activity.add(`${paymentHere}\u0000${month}`, -sign * line.amount, path);
      if (paymentThere !== undefined && otherOnBudget)
        deltas.activity.add(`${paymentThere}\u0000${month}`, sign * line.amount, path);
    }
  }
}

/**
 * What would leave the exact range if these transaction writes were made, as an error detail,
 * or null. Inside a running change (scheduled occurrences coming due), the change's unsettled
 * deltas count too.
 */
export function inexactTransactionTotal(
  store: PlanStore,
  writes: readonly PlannedWrite[],
): string | null {
  const deltas = { accounts: new Deltas(), activity: new Deltas() };
  for (const { before, after, path } of writes) {
    if (before && !before.deleted) post(store, deltas, postingOfRecord(before), -1, path);
    if (after) post(store, deltas, postingOfState(after), 1, path);
  }
  const beyond = (path: string, what: string) =>
    `${path}.amount would take ${what} beyond ±${LIMIT} milliunits`;
  for (const [accountId, { delta, path }] of deltas.accounts.values) {
    const account = store.accounts.get(accountId);
    if (!account || delta === 0) continue;
    const pending = store.pendingAccountDelta(accountId);
    if (
      !isInt64(add(add(account.balance, pending.balance), delta)) ||
      !isInt64(add(add(account.cleared_balance, pending.cleared), delta))
    ) {
      return beyond(path, `the balance of account '${account.name}'`);
    }
  }
  const monthTotals = new Map<string, { income: Exact; activity: Exact; path: string }>();
  for (const [key, { delta, path }] of deltas.activity.values) {
    const [categoryId = '', month = ''] = key.split('\u0000');
    const current = add(
      store.monthsByKey.get(month)?.categories.get(categoryId)?.activity ?? 0,
      store.pendingActivity(categoryId, month),
    );
    const name = store.categories.get(categoryId)?.name ?? categoryId;
    if (!isInt64(add(current, delta)))
      return beyond(path, `the activity of category '${name}' in ${month}`);
    const totals = monthTotals.get(month) ?? { income: 0, activity: 0, path };
    if (categoryId === store.readyToAssignCategoryId) totals.income = add(totals.income, delta);
    else totals.activity = add(totals.activity, delta);
    monthTotals.set(month, totals);
  }
  for (const [month, { income, activity, path }] of monthTotals) {
    const record = store.monthsByKey.get(month);
    if (
      !isInt64(add(record?.income ?? 0, income)) ||
      !isInt64(add(record?.activity ?? 0, activity))
    ) {
      return beyond(path, `the totals of month ${month}`);
    }
  }
  return null;
}

/** Refuses transaction writes whose balances or activity would leave the exact range. */
export function assertTransactionTotalsExact(
  store: PlanStore,
  writes: readonly PlannedWrite[],
): void {
  const problem = inexactTransactionTotal(store, writes);
  if (problem !== null) throw badRequest(problem);
}

/** Refuses an assignment whose category or month totals would leave the exact range. */
export function assertAssignmentExact(
  store: PlanStore,
  month: string,
  categoryId: string,
  budgeted: number,
): void {
  const record = store.monthsByKey.get(month);
  const before = record?.categories.get(categoryId)?.budgeted ?? 0;
  const total = add(subtract(record?.budgeted ?? 0, before), budgeted);
  const beyond = (what: string) =>
    badRequest(`category.budgeted would take ${what} beyond ±${LIMIT} milliunits`);
  if (!isInt64(total)) throw beyond(`the amount assigned in ${month}`);
  const activity = record?.categories.get(categoryId)?.activity ?? 0;
  if (!isInt64(add(budgeted, activity))) throw beyond(`the balance of the category in ${month}`);
}
