/**
 * Scheduled transaction writes. They never post: a scheduled transaction moves no money until an
 * occurrence comes due and is entered as a transaction (handlers/scheduled-due.ts). Every new
 * `date_next` is queued in `store.scheduledDue` so that catch-up finds it.
 */
import type { FlagColor, Frequency, IsoDate } from '@plans-gateway/rest-contract';
import type { PlanStore } from './plan-store.js';
import type { ScheduledTransactionRecord } from './records.js';
import type { PayeeRef } from './transaction-state.js';
import { type IdSource, resolvePayee } from './transactions.js';

export interface ScheduledSubState {
  amount: number;
  payee: PayeeRef;
  transferAccountId: string | null;
  categoryId: string | null;
  memo: string | null;
}

export interface ScheduledState {
  accountId: string;
  dateFirst: IsoDate;
  dateNext: IsoDate;
  frequency: Frequency;
  amount: number;
  payee: PayeeRef;
  transferAccountId: string | null;
  categoryId: string | null;
  memo: string | null;
  flagColor: FlagColor | null;
  /** Only the seed creates split scheduled transactions; the interface cannot. */
  subtransactions: ScheduledSubState[];
}

export function createScheduledTransaction(
  store: PlanStore,
  newId: IdSource,
  state: ScheduledState,
): ScheduledTransactionRecord {
  const record: ScheduledTransactionRecord = {
    id: newId(),
    date_first: state.dateFirst,
    date_next: state.dateNext,
    frequency: state.frequency,
    amount: state.amount,
    memo: state.memo,
    flag_color: state.flagColor,
    account_id: state.accountId,
    payee_id: resolvePayee(store, newId, state.payee),
    category_id: state.subtransactions.length > 0 ? null : state.categoryId,
    transfer_account_id: state.transferAccountId,
    deleted: false,
    knowledge: 0,
    subtransactions: [],
  };
  for (const sub of state.subtransactions) {
    const subRecord = {
      id: newId(),
      scheduled_transaction_id: record.id,
      amount: sub.amount,
      memo: sub.memo,
      payee_id: resolvePayee(store, newId, sub.payee),
      category_id: sub.categoryId,
      transfer_account_id: sub.transferAccountId,
      deleted: false,
      knowledge: 0,
    };
    store.touch(subRecord);
    record.subtransactions.push(subRecord);
  }
  store.scheduledTransactions.set(record.id, record);
  store.scheduledDue.push(record.date_next, record.id);
  store.touch(record);
  return record;
}

/**
 * Applies the final state. A split keeps its amount and category (its lines must keep adding up),
 * like split transactions do.
 */
export function updateScheduledTransaction(
  store: PlanStore,
  newId: IdSource,
  record: ScheduledTransactionRecord,
  state: ScheduledState,
): void {
  const isSplit = record.subtransactions.length > 0;
  record.account_id = state.accountId;
  record.date_first = state.dateFirst;
  if (record.date_next !== state.dateNext) store.scheduledDue.push(state.dateNext, record.id);
  record.date_next = state.dateNext;
  record.frequency = state.frequency;
  if (!isSplit) {
    record.amount = state.amount;
    record.category_id = state.categoryId;
  }
  record.payee_id = resolvePayee(store, newId, state.payee);
  record.transfer_account_id = state.transferAccountId;
  record.memo = state.memo;
  record.flag_color = state.flagColor;
  store.touch(record);
}

export function deleteScheduledTransaction(
  store: PlanStore,
  record: ScheduledTransactionRecord,
): void {
  if (record.deleted) return;
  record.deleted = true;
  store.touch(record);
  for (const sub of record.subtransactions) {
    sub.deleted = true;
    store.touch(sub);
  }
}
