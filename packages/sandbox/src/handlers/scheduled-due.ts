/**
 * Scheduled transactions coming due. Once the clock reaches an occurrence (`date_next` on or
 * before today) it is no longer upcoming: it is entered into its account as a transaction, as
 * YNAB does, and `date_next` moves on to the next occurrence of the series (a 'never' one is
 * deleted instead). Occurrences are entered in date order, every missed one after a long idle
 * time included, except those older than the 5 years a transaction may be dated back, and those
 * that would take a balance beyond the interface's int64 (a write doing that is refused).
 *
 * An entered occurrence looks as if the user had entered it: the scheduled payee, category (or
 * split lines), memo, flag and amount, no import id (so a later bank import matches it), not yet
 * approved, and uncleared except in cash accounts. A transfer enters as a transfer pair.
 *
 * Runs inside `PlanStore.change()`; only the scheduled transactions that are due are looked at.
 */
import type { IsoDate } from '@plans-gateway/rest-contract';
import { addYears } from '../core/dates.js';
import { nextOccurrence } from '../core/recurrence.js';
import type { DueEntry } from '../store/due-queue.js';
import type { PlanStore } from '../store/plan-store.js';
import type { ScheduledTransactionRecord } from '../store/records.js';
import { deleteScheduledTransaction } from '../store/scheduled.js';
import type { PayeeRef, TransactionState } from '../store/transaction-state.js';
import { createTransaction, type IdSource } from '../store/transactions.js';
import { inexactTransactionTotal } from '../validate/exact-totals.js';
import { PAST_YEARS_ALLOWED } from '../validate/transaction.js';

const NOT_IMPORTED = {
  importId: null,
  importPayeeName: null,
  importPayeeNameOriginal: null,
  debtTransactionType: null,
};

/** Private: the live scheduled transaction a queue entry still stands for, if any. */
function dueRecord(store: PlanStore, entry: DueEntry): ScheduledTransactionRecord | undefined {
  const record = store.scheduledTransactions.get(entry.id);
  return record && !record.deleted && record.date_next === entry.date ? record : undefined;
}

/** Private: the earliest live `date_next`, dropping queue entries that went stale; `undefined` when nothing is scheduled. */
function earliestScheduledDate(store: PlanStore): IsoDate | undefined {
  for (
    let entry = store.scheduledDue.peek();
    entry !== undefined;
    entry = store.scheduledDue.peek()
  ) {
    if (dueRecord(store, entry)) return entry.date;
    store.scheduledDue.pop();
  }
  return undefined;
}

/** Whether any scheduled transaction has an occurrence on or before `today`. */
export function hasDueScheduled(store: PlanStore, today: IsoDate): boolean {
  const earliest = earliestScheduledDate(store);
  return earliest !== undefined && earliest <= today;
}

function payeeRef(payeeId: string | null): PayeeRef {
  return payeeId === null ? { kind: 'none' } : { kind: 'id', id: payeeId };
}

/** Private: the transaction one occurrence of `record` enters, dated `date`. */
function occurrenceState(
  store: PlanStore,
  record: ScheduledTransactionRecord,
  date: IsoDate,
): TransactionState {
  const lines = record.subtransactions.filter((sub) => !sub.deleted);
  const isSplit = lines.length > 0;
  return {
    accountId: record.account_id,
    date,
    amount: record.amount,
    payee: payeeRef(record.payee_id),
    // Validation keeps transfers off scheduled splits; the lines carry theirs.
    transferAccountId: isSplit ? null : record.transfer_account_id,
    categoryId: isSplit ? null : record.category_id,
    memo: record.memo,
    cleared: store.accounts.get(record.account_id)?.type === 'cash' ? 'cleared' : 'uncleared',
    approved: false,
    flagColor: record.flag_color,
    subtransactions: lines.map((sub) => ({
      amount: sub.amount,
      payee: payeeRef(sub.payee_id),
      transferAccountId: sub.transfer_account_id,
      categoryId: sub.category_id,
      memo: sub.memo,
    })),
  };
}

/** Private: whether the occurrence can be entered as any transaction write could. */
function canEnter(store: PlanStore, state: TransactionState): boolean {
  const targets = [
    state.transferAccountId,
    ...state.subtransactions.map((sub) => sub.transferAccountId),
  ];
  return (
    store.liveAccount(state.accountId) !== undefined &&
    targets.every(
      (id) => id === null || (id !== state.accountId && store.liveAccount(id) !== undefined),
    ) &&
    inexactTransactionTotal(store, [
      { before: null, after: state, path: 'scheduled_transaction' },
    ]) === null
  );
}

/** Enters every occurrence dated on or before `today` and moves each `date_next` past today. */
export function enterDueScheduled(store: PlanStore, newId: IdSource, today: IsoDate): void {
  const oldest = addYears(today, -PAST_YEARS_ALLOWED);
  for (
    let entry = store.scheduledDue.peek();
    entry !== undefined && entry.date <= today;
    entry = store.scheduledDue.peek()
  ) {
    store.scheduledDue.pop();
    const record = dueRecord(store, entry);
    if (!record) continue;
    if (record.date_next >= oldest) {
      const state = occurrenceState(store, record, record.date_next);
      if (canEnter(store, state)) createTransaction(store, newId, state, NOT_IMPORTED);
    }
    const next = nextOccurrence(record.date_first, record.frequency, record.date_next);
    if (next === null) {
      deleteScheduledTransaction(store, record);
      continue;
    }
    record.date_next = next;
    store.touch(record);
    // Back in the queue: the next occurrence may be due as well and then enters in date order.
    store.scheduledDue.push(next, record.id);
  }
}
