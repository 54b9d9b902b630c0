/**
 * Records → REST shapes for transactions, subtransactions and scheduled transactions. The detailed
 * shapes extend the base object in place (`Object.assign`) rather than spreading it into a new
 * literal: V8 builds the spread copy several times slower, and lists present up to a million.
 */
import type {
  FlagColor,
  HybridTransaction,
  ScheduledSubTransaction,
  ScheduledSubTransactionBase,
  ScheduledTransactionDetail,
  ScheduledTransactionSummaryBase,
  SubTransaction,
  SubTransactionBase,
  TransactionDetail,
  TransactionSummaryBase,
} from '@plans-gateway/rest-contract';
import type { PlanStore } from '../store/plan-store.js';
import type {
  ScheduledSubTransactionRecord,
  ScheduledTransactionRecord,
  SubTransactionRecord,
  TransactionRecord,
} from '../store/records.js';
import type { MoneyPresenter } from './money.js';

export const SPLIT_CATEGORY_NAME = 'Split';
/** Hybrid rows need a category name; uncategorized rows get this one. */
export const UNCATEGORIZED_NAME = 'Uncategorized';

function flagName(store: PlanStore, color: FlagColor | null): string | null {
  if (color === null || color === '') return null;
  return store.flagNames[color] ?? null;
}

function payeeName(store: PlanStore, payeeId: string | null): string | null {
  return payeeId === null ? null : (store.payees.get(payeeId)?.name ?? null);
}

function categoryName(store: PlanStore, categoryId: string | null): string | null {
  return categoryId === null ? null : (store.categories.get(categoryId)?.name ?? null);
}

function accountName(store: PlanStore, accountId: string): string {
  return store.accounts.get(accountId)?.name ?? '';
}

/** Subtransactions a response shows: the live ones, or all of them for a deleted parent. */
function visibleSubtransactions<T extends { deleted: boolean }>(
  parentDeleted: boolean,
  subs: readonly T[],
): T[] {
  return parentDeleted ? [...subs] : subs.filter((sub) => !sub.deleted);
}

export function presentTransactionSummaryBase(
  store: PlanStore,
  tx: TransactionRecord,
): TransactionSummaryBase {
  return {
    id: tx.id,
    date: tx.date,
    amount: tx.amount,
    memo: tx.memo,
    cleared: tx.cleared,
    approved: tx.approved,
    flag_color: tx.flag_color,
    flag_name: flagName(store, tx.flag_color),
    account_id: tx.account_id,
    payee_id: tx.payee_id,
    category_id: tx.category_id,
    transfer_account_id: tx.transfer_account_id,
    transfer_transaction_id: tx.transfer_transaction_id,
    matched_transaction_id: tx.matched_transaction_id,
    import_id: tx.import_id,
    import_payee_name: tx.import_payee_name,
    import_payee_name_original: tx.import_payee_name_original,
    debt_transaction_type: tx.debt_transaction_type,
    deleted: tx.deleted,
  };
}

export function presentSubTransactionBase(
  store: PlanStore,
  sub: SubTransactionRecord,
): SubTransactionBase {
  return {
    id: sub.id,
    transaction_id: sub.transaction_id,
    amount: sub.amount,
    memo: sub.memo,
    payee_id: sub.payee_id,
    payee_name: payeeName(store, sub.payee_id),
    category_id: sub.category_id,
    category_name: categoryName(store, sub.category_id),
    transfer_account_id: sub.transfer_account_id,
    transfer_transaction_id: sub.transfer_transaction_id,
    deleted: sub.deleted,
  };
}

export function presentSubTransaction(
  store: PlanStore,
  sub: SubTransactionRecord,
  money: MoneyPresenter,
): SubTransaction {
  const amount = money(sub.amount);
  return Object.assign(presentSubTransactionBase(store, sub), {
    amount_formatted: amount.formatted,
    amount_currency: amount.currency,
  });
}

export function presentTransactionDetail(
  store: PlanStore,
  tx: TransactionRecord,
  money: MoneyPresenter,
): TransactionDetail {
  const amount = money(tx.amount);
  const isSplit = tx.subtransactions.length > 0;
  return Object.assign(presentTransactionSummaryBase(store, tx), {
    amount_formatted: amount.formatted,
    amount_currency: amount.currency,
    account_name: accountName(store, tx.account_id),
    payee_name: payeeName(store, tx.payee_id),
    category_name: isSplit ? SPLIT_CATEGORY_NAME : categoryName(store, tx.category_id),
    subtransactions: visibleSubtransactions(tx.deleted, tx.subtransactions).map((sub) =>
      presentSubTransaction(store, sub, money),
    ),
  });
}

/** A hybrid row for a whole transaction (by-category and by-payee lists). */
export function presentHybridTransaction(
  store: PlanStore,
  tx: TransactionRecord,
  money: MoneyPresenter,
): HybridTransaction {
  const amount = money(tx.amount);
  const isSplit = tx.subtransactions.length > 0;
  return Object.assign(presentTransactionSummaryBase(store, tx), {
    amount_formatted: amount.formatted,
    amount_currency: amount.currency,
    type: 'transaction' as const,
    parent_transaction_id: null,
    account_name: accountName(store, tx.account_id),
    payee_name: payeeName(store, tx.payee_id),
    category_name: isSplit
      ? SPLIT_CATEGORY_NAME
      : (categoryName(store, tx.category_id) ?? UNCATEGORIZED_NAME),
  });
}

/**
 * A hybrid row for one subtransaction: its own amount, memo, payee, category and transfer, with
 * the parent's date, status, flag, account and import fields.
 */
export function presentHybridSubTransaction(
  store: PlanStore,
  tx: TransactionRecord,
  sub: SubTransactionRecord,
  money: MoneyPresenter,
): HybridTransaction {
  const amount = money(sub.amount);
  return Object.assign(presentTransactionSummaryBase(store, tx), {
    id: sub.id,
    amount: sub.amount,
    memo: sub.memo,
    payee_id: sub.payee_id,
    category_id: sub.category_id,
    transfer_account_id: sub.transfer_account_id,
    transfer_transaction_id: sub.transfer_transaction_id,
    matched_transaction_id: null,
    deleted: tx.deleted || sub.deleted,
    amount_formatted: amount.formatted,
    amount_currency: amount.currency,
    type: 'subtransaction' as const,
    parent_transaction_id: tx.id,
    account_name: accountName(store, tx.account_id),
    payee_name: payeeName(store, sub.payee_id),
    category_name: categoryName(store, sub.category_id) ?? UNCATEGORIZED_NAME,
  });
}

export function presentScheduledSummaryBase(
  store: PlanStore,
  scheduled: ScheduledTransactionRecord,
): ScheduledTransactionSummaryBase {
  return {
    id: scheduled.id,
    date_first: scheduled.date_first,
    date_next: scheduled.date_next,
    frequency: scheduled.frequency,
    amount: scheduled.amount,
    memo: scheduled.memo,
    flag_color: scheduled.flag_color,
    flag_name: flagName(store, scheduled.flag_color),
    account_id: scheduled.account_id,
    payee_id: scheduled.payee_id,
    category_id: scheduled.category_id,
    transfer_account_id: scheduled.transfer_account_id,
    deleted: scheduled.deleted,
  };
}

export function presentScheduledSubBase(
  store: PlanStore,
  sub: ScheduledSubTransactionRecord,
): ScheduledSubTransactionBase {
  return {
    id: sub.id,
    scheduled_transaction_id: sub.scheduled_transaction_id,
    amount: sub.amount,
    memo: sub.memo,
    payee_id: sub.payee_id,
    payee_name: payeeName(store, sub.payee_id),
    category_id: sub.category_id,
    category_name: categoryName(store, sub.category_id),
    transfer_account_id: sub.transfer_account_id,
    deleted: sub.deleted,
  };
}

export function presentScheduledDetail(
  store: PlanStore,
  scheduled: ScheduledTransactionRecord,
  money: MoneyPresenter,
): ScheduledTransactionDetail {
  const amount = money(scheduled.amount);
  const isSplit = scheduled.subtransactions.length > 0;
  return {
    ...presentScheduledSummaryBase(store, scheduled),
    amount_formatted: amount.formatted,
    amount_currency: amount.currency,
    account_name: accountName(store, scheduled.account_id),
    payee_name: payeeName(store, scheduled.payee_id),
    category_name: isSplit ? SPLIT_CATEGORY_NAME : categoryName(store, scheduled.category_id),
    subtransactions: visibleSubtransactions(scheduled.deleted, scheduled.subtransactions).map(
      (sub): ScheduledSubTransaction => {
        const subAmount = money(sub.amount);
        return {
          ...presentScheduledSubBase(store, sub),
          amount_formatted: subAmount.formatted,
          amount_currency: subAmount.currency,
        };
      },
    ),
  };
}
