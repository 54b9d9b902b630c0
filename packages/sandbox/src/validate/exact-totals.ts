/**
 * Milliunits are exact only up to 2^53 - 1. A write that would push an account balance, a
 * category's activity or assignment in a month, or a month's totals beyond that is refused
 * before anything changes, so the plan never holds an inexact amount.
 *
 * Not checked: category balances carried from month to month, which sum a category's whole
 * history, and what card spending moves into a payment category (at most the spending itself);
 * reaching the limit there takes amounts no household sees.
 */
import { monthOf } from '../core/dates.js';
import { badRequest } from '../core/errors.js';
import type { PlanStore } from '../store/plan-store.js';
import type { TransactionRecord } from '../store/records.js';
import type { TransactionState } from '../store/transaction-state.js';
import { effectiveCategory } from '../store/transactions.js';

const LIMIT = Number.MAX_SAFE_INTEGER;

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
  readonly values = new Map<string, { delta: number; path: string }>();
  add(key: string, amount: number, path: string) {
    const current = this.values.get(key);
    this.values.set(key, { delta: (current?.delta ?? 0) + amount, path: current?.path ?? path });
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

function exact(value: number): boolean {
  return Number.isSafeInteger(value) && Math.abs(value) <= LIMIT;
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
      !exact(account.balance + pending.balance + delta) ||
      !exact(account.cleared_balance + pending.cleared + delta)
    ) {
      return beyond(path, `the balance of account '${account.name}'`);
    }
  }
  const monthTotals = new Map<string, { income: number; activity: number; path: string }>();
  for (const [key, { delta, path }] of deltas.activity.values) {
    const [categoryId = '', month = ''] = key.split('\u0000');
    const current =
      (store.monthsByKey.get(month)?.categories.get(categoryId)?.activity ?? 0) +
      store.pendingActivity(categoryId, month);
    const name = store.categories.get(categoryId)?.name ?? categoryId;
    if (!exact(current + delta))
      return beyond(path, `the activity of category '${name}' in ${month}`);
    const totals = monthTotals.get(month) ?? { income: 0, activity: 0, path };
    if (categoryId === store.readyToAssignCategoryId) totals.income += delta;
    else totals.activity += delta;
    monthTotals.set(month, totals);
  }
  for (const [month, { income, activity, path }] of monthTotals) {
    const record = store.monthsByKey.get(month);
    if (!exact((record?.income ?? 0) + income) || !exact((record?.activity ?? 0) + activity)) {
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
  const total = (record?.budgeted ?? 0) - before + budgeted;
  const beyond = (what: string) =>
    badRequest(`category.budgeted would take ${what} beyond ±${LIMIT} milliunits`);
  if (!exact(total)) throw beyond(`the amount assigned in ${month}`);
  const activity = record?.categories.get(categoryId)?.activity ?? 0;
  if (!exact(budgeted + activity)) throw beyond(`the balance of the category in ${month}`);
}
