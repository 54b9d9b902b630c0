/**
 * Milliunits are exact only up to 2^53 - 1. A write that would push an account balance beyond
 * that is refused before anything changes, so the plan never holds an inexact amount.
 *
 * Only account balances are checked: they are where a single large amount lands whole. A
 * category's monthly activity sums amounts across accounts and is not checked.
 */
import { badRequest } from '../errors.js';
import type { PlanStore } from '../store/plan-store.js';
import type { TransactionRecord } from '../store/records.js';
import type { TransactionState } from '../store/transaction-state.js';

const LIMIT = Number.MAX_SAFE_INTEGER;

export interface PlannedWrite {
  /** The transaction as it is now; null for a create. */
  before: TransactionRecord | null;
  /** The transaction as it will be; null for a delete. */
  after: TransactionState | null;
  /** Where the write came from in the request, for the error message. */
  path: string;
}

/** Private: adds a transaction's effect on account balances, transfers' counterparts included. */
function post(deltas: Map<string, number>, accountId: string, amount: number, transfers: readonly { accountId: string | null; amount: number }[], sign: 1 | -1) {
  deltas.set(accountId, (deltas.get(accountId) ?? 0) + sign * amount);
  for (const transfer of transfers) {
    if (transfer.accountId !== null) deltas.set(transfer.accountId, (deltas.get(transfer.accountId) ?? 0) - sign * transfer.amount);
  }
}

/**
 * Whether creating `state` inside the running change keeps every balance it moves exact, counting
 * what the change has moved already. For writes nobody requested (a scheduled occurrence coming
 * due), where there is no one to answer 400.
 */
export function newTransactionStaysExact(store: PlanStore, state: TransactionState): boolean {
  const deltas = new Map<string, number>();
  const transfers = state.subtransactions.length > 0
    ? state.subtransactions.map((s) => ({ accountId: s.transferAccountId, amount: s.amount }))
    : [{ accountId: state.transferAccountId, amount: state.amount }];
  post(deltas, state.accountId, state.amount, transfers, 1);
  for (const [accountId, delta] of deltas) {
    const account = store.accounts.get(accountId);
    if (!account || delta === 0) continue;
    const pending = store.pendingAccountDelta(accountId);
    for (const balance of [account.balance + pending.balance, account.cleared_balance + pending.cleared]) {
      const result = balance + delta;
      if (!Number.isSafeInteger(result) || Math.abs(result) > LIMIT) return false;
    }
  }
  return true;
}

export function assertBalancesStaySafe(store: PlanStore, writes: readonly PlannedWrite[]): void {
  const deltas = new Map<string, number>();
  const paths = new Map<string, string>();
  for (const { before, after, path } of writes) {
    if (before && !before.deleted) {
      const transfers = before.subtransactions.length > 0
        ? before.subtransactions.filter((s) => !s.deleted).map((s) => ({ accountId: s.transfer_account_id, amount: s.amount }))
        : [{ accountId: before.transfer_account_id, amount: before.amount }];
      post(deltas, before.account_id, before.amount, transfers, -1);
    }
    if (after) {
      const transfers = after.subtransactions.length > 0
        ? after.subtransactions.map((s) => ({ accountId: s.transferAccountId, amount: s.amount }))
        : [{ accountId: after.transferAccountId, amount: after.amount }];
      post(deltas, after.accountId, after.amount, transfers, 1);
      paths.set(after.accountId, path);
      for (const t of transfers) if (t.accountId !== null && !paths.has(t.accountId)) paths.set(t.accountId, path);
    }
  }
  for (const [accountId, delta] of deltas) {
    const account = store.accounts.get(accountId);
    if (!account || delta === 0) continue;
    for (const balance of [account.balance, account.cleared_balance]) {
      const result = balance + delta;
      if (!Number.isSafeInteger(result) || Math.abs(result) > LIMIT) {
        throw badRequest(
          `${paths.get(accountId) ?? 'transaction'}.amount would take the balance of account '${account.name}' beyond ±${LIMIT} milliunits`,
        );
      }
    }
  }
}
