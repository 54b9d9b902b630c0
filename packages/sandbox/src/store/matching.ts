/**
 * Matching imports to user-entered transactions. A transaction created with an `import_id` (by
 * POST /transactions or by an import run) on an account that holds a live, user-entered
 * transaction (no import_id, not matched, not a split, not a transfer) with the same amount, dated
 * at most 10 days away, is matched to it (nearest date first): the import is saved with the
 * entered transaction's date, payee, category, memo, flag and approval, cleared (or kept
 * reconciled), and `matched_transaction_id` set to the entered transaction; the entered one is
 * retired (`deleted: true`, pointing back). The pair thus shows as one transaction and its money
 * counts once.
 */
import { addDays, toEpochDay } from '../core/dates.js';
import type { PlanStore } from './plan-store.js';
import type { TransactionRecord } from './records.js';
import type { NewTransactionExtras, TransactionState } from './transaction-state.js';
import { createTransaction, deleteTransaction, type IdSource } from './transactions.js';

export const MATCH_WINDOW_DAYS = 10;

/** The user-entered transaction an import with this state would be matched to, if any. */
export function findImportMatch(
  store: PlanStore,
  state: TransactionState,
): TransactionRecord | undefined {
  if (state.subtransactions.length > 0 || state.transferAccountId !== null) return undefined;
  const order = store.transactionOrder;
  const target = toEpochDay(state.date);
  let best: TransactionRecord | undefined;
  let bestDistance = Infinity;
  const end = store.orderIndex(addDays(state.date, MATCH_WINDOW_DAYS + 1), '');
  for (let i = store.orderIndex(addDays(state.date, -MATCH_WINDOW_DAYS), ''); i < end; i++) {
    const tx = order[i] as TransactionRecord;
    if (
      tx.deleted ||
      tx.account_id !== state.accountId ||
      tx.amount !== state.amount ||
      tx.import_id !== null ||
      tx.matched_transaction_id !== null ||
      tx.subtransactions.length > 0 ||
      tx.transfer_account_id !== null
    ) {
      continue;
    }
    const distance = Math.abs(toEpochDay(tx.date) - target);
    if (distance < bestDistance) {
      best = tx;
      bestDistance = distance;
    }
  }
  return best;
}

/** Creates a transaction that carries an import_id, matching it to a user-entered one if possible. */
export function createImportedTransaction(
  store: PlanStore,
  newId: IdSource,
  state: TransactionState,
  extras: NewTransactionExtras,
): TransactionRecord {
  const entered = findImportMatch(store, state);
  if (!entered) return createTransaction(store, newId, state, extras);
  const merged: TransactionState = {
    ...state,
    date: entered.date,
    payee: entered.payee_id === null ? state.payee : { kind: 'id', id: entered.payee_id },
    categoryId: entered.category_id,
    memo: entered.memo ?? state.memo,
    flagColor: entered.flag_color ?? state.flagColor,
    approved: entered.approved,
    cleared: entered.cleared === 'reconciled' ? 'reconciled' : 'cleared',
  };
  const imported = createTransaction(store, newId, merged, extras);
  imported.matched_transaction_id = entered.id;
  deleteTransaction(store, entered);
  entered.matched_transaction_id = imported.id;
  return imported;
}
