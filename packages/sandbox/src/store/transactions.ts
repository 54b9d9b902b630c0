/**
 * Transaction writes on a plan: create, update, delete, with the transfer pairing they imply.
 * All functions run inside `PlanStore.change()` on input that validation already accepted.
 *
 * Posting: a live transaction contributes its amount to its account's balance (and cleared
 * balance unless uncleared) and, in an on-budget account, to the activity of its category (or of
 * its subtransactions' categories) in its month. Every write unposts the old values and posts the
 * new ones; the store nets the deltas so nothing is recomputed from scratch.
 *
 * Transfers: a transaction (or subtransaction) whose payee is account B's transfer payee gets a
 * counterpart transaction in B with the opposite amount, the same date and memo, and the source
 * account's transfer payee. Both sides point at each other through transfer_account_id and
 * transfer_transaction_id (for a split, the counterpart points at the subtransaction).
 */
import type { IsoDate } from '@plans-gateway/rest-contract';
import { monthOf } from '../core/dates.js';
import { ensureMonth } from './budget.js';
import type { PlanStore } from './plan-store.js';
import type { PayeeRecord, SubTransactionRecord, TransactionRecord } from './records.js';
import { rememberScope } from './scopes.js';
import type {
  NewTransactionExtras,
  PayeeRef,
  SubTransactionState,
  TransactionState,
} from './transaction-state.js';

export type IdSource = () => string;

/** Private: adds (+1) or removes (-1) a transaction's effect on balances and activity. */
function post(store: PlanStore, tx: TransactionRecord, sign: 1 | -1): void {
  if (tx.deleted) return;
  const account = store.accounts.get(tx.account_id);
  if (!account) return;
  store.addAccountDelta(
    account.id,
    sign * tx.amount,
    tx.cleared === 'uncleared' ? 0 : sign * tx.amount,
  );
  if (!account.on_budget) return;
  const month = monthOf(tx.date);
  const cardId = store.paymentCategoryByCard.has(account.id) ? account.id : null;
  if (tx.subtransactions.length === 0) {
    postLine(store, month, cardId, tx.category_id, tx.transfer_account_id, sign * tx.amount);
    return;
  }
  for (const sub of tx.subtransactions) {
    if (!sub.deleted)
      postLine(store, month, cardId, sub.category_id, sub.transfer_account_id, sign * sub.amount);
  }
}

/**
 * Private: one line's effect on the budget: its category's activity and, on a credit card, the
 * card activity the payment category rules settle (store/budget.ts). An uncategorized transfer
 * between a card and another budget account is a payment (or, outward, a cash advance or balance
 * transfer): it draws the card's payment category down by what it pays.
 */
function postLine(
  store: PlanStore,
  month: IsoDate,
  cardId: string | null,
  categoryId: string | null,
  transferAccountId: string | null,
  amount: number,
): void {
  if (categoryId !== null) {
    store.addActivity(categoryId, month, amount);
    if (cardId !== null && categoryId !== store.readyToAssignCategoryId)
      store.addCardActivity(categoryId, month, cardId, amount);
    return;
  }
  if (cardId === null || !isOnBudget(store, transferAccountId)) return;
  const paymentCategoryId = store.paymentCategoryByCard.get(cardId);
  if (paymentCategoryId !== undefined) store.addActivity(paymentCategoryId, month, -amount);
}

/** The payee with exactly this name that a `payee_name` resolves to (transfer payees excluded). */
export function findPayeeByName(store: PlanStore, name: string): PayeeRecord | undefined {
  for (const payee of store.payees.values()) {
    if (!payee.deleted && payee.transfer_account_id === null && payee.name === name) return payee;
  }
  return undefined;
}

/** Resolves a payee reference, creating the payee when a new name is used. */
export function resolvePayee(store: PlanStore, newId: IdSource, ref: PayeeRef): string | null {
  if (ref.kind === 'none') return null;
  if (ref.kind === 'id') return ref.id;
  const existing = findPayeeByName(store, ref.name);
  if (existing) return existing.id;
  const payee: PayeeRecord = {
    id: newId(),
    name: ref.name,
    transfer_account_id: null,
    deleted: false,
    knowledge: 0,
  };
  store.payees.set(payee.id, payee);
  store.touch(payee);
  return payee.id;
}

function isOnBudget(store: PlanStore, accountId: string | null): boolean {
  return accountId !== null && store.accounts.get(accountId)?.on_budget === true;
}

/**
 * The category a posting really gets: none for a transfer between two on-budget accounts (the
 * money stays in the budget) and none for credit card payment categories, which the interface
 * says are ignored when supplied.
 */
export function effectiveCategory(
  store: PlanStore,
  accountId: string,
  transferAccountId: string | null,
  categoryId: string | null,
): string | null {
  if (categoryId === null) return null;
  if (
    transferAccountId !== null &&
    isOnBudget(store, accountId) &&
    isOnBudget(store, transferAccountId)
  )
    return null;
  if (store.categories.get(categoryId)?.role === 'creditCardPayment') return null;
  return categoryId;
}

function addTransaction(store: PlanStore, tx: TransactionRecord): void {
  store.transactions.set(tx.id, tx);
  store.insertInOrder(tx);
  store.indexImportId(tx);
  store.touch(tx);
}

/** Private: the other side of a transfer, in the target account. */
function createCounterpart(
  store: PlanStore,
  newId: IdSource,
  source: {
    id: string;
    account_id: string;
    date: string;
    amount: number;
    memo: string | null;
    approved: boolean;
  },
  targetAccountId: string,
): TransactionRecord {
  const sourceAccount = store.accounts.get(source.account_id);
  const counterpart: TransactionRecord = {
    id: newId(),
    date: source.date,
    amount: -source.amount,
    memo: source.memo,
    cleared: 'uncleared',
    approved: source.approved,
    flag_color: null,
    account_id: targetAccountId,
    payee_id: sourceAccount?.transfer_payee_id ?? null,
    category_id: null,
    transfer_account_id: source.account_id,
    transfer_transaction_id: source.id,
    matched_transaction_id: null,
    import_id: null,
    import_payee_name: null,
    import_payee_name_original: null,
    debt_transaction_type: null,
    deleted: false,
    knowledge: 0,
    subtransactions: [],
  };
  addTransaction(store, counterpart);
  post(store, counterpart, 1);
  return counterpart;
}

function createSubTransaction(
  store: PlanStore,
  newId: IdSource,
  tx: TransactionRecord,
  state: SubTransactionState,
): void {
  const sub: SubTransactionRecord = {
    id: newId(),
    transaction_id: tx.id,
    amount: state.amount,
    memo: state.memo,
    payee_id: resolvePayee(store, newId, state.payee),
    category_id: effectiveCategory(store, tx.account_id, state.transferAccountId, state.categoryId),
    transfer_account_id: state.transferAccountId,
    transfer_transaction_id: null,
    deleted: false,
    knowledge: 0,
  };
  store.subtransactions.set(sub.id, sub);
  store.touch(sub);
  tx.subtransactions.push(sub);
  if (sub.transfer_account_id !== null) {
    const source = {
      id: sub.id,
      account_id: tx.account_id,
      date: tx.date,
      amount: sub.amount,
      memo: sub.memo,
      approved: tx.approved,
    };
    sub.transfer_transaction_id = createCounterpart(
      store,
      newId,
      source,
      sub.transfer_account_id,
    ).id;
  }
}

export function createTransaction(
  store: PlanStore,
  newId: IdSource,
  state: TransactionState,
  extras: NewTransactionExtras,
): TransactionRecord {
  ensureMonth(store, monthOf(state.date));
  const isSplit = state.subtransactions.length > 0;
  const tx: TransactionRecord = {
    id: newId(),
    date: state.date,
    amount: state.amount,
    memo: state.memo,
    cleared: state.cleared,
    approved: state.approved,
    flag_color: state.flagColor,
    account_id: state.accountId,
    payee_id: resolvePayee(store, newId, state.payee),
    category_id: isSplit
      ? null
      : effectiveCategory(store, state.accountId, state.transferAccountId, state.categoryId),
    transfer_account_id: state.transferAccountId,
    transfer_transaction_id: null,
    matched_transaction_id: null,
    import_id: extras.importId,
    import_payee_name: extras.importPayeeName,
    import_payee_name_original: extras.importPayeeNameOriginal,
    debt_transaction_type: extras.debtTransactionType,
    deleted: false,
    knowledge: 0,
    subtransactions: [],
  };
  addTransaction(store, tx);
  for (const sub of state.subtransactions) createSubTransaction(store, newId, tx, sub);
  if (tx.transfer_account_id !== null) {
    tx.transfer_transaction_id = createCounterpart(store, newId, tx, tx.transfer_account_id).id;
  }
  post(store, tx, 1);
  return tx;
}

/** Private: marks one transaction (never a split) deleted and removes its effect. */
function retire(store: PlanStore, tx: TransactionRecord): void {
  if (tx.deleted) return;
  post(store, tx, -1);
  store.unindexImportId(tx);
  tx.deleted = true;
  store.touch(tx);
}

/** The subtransaction a counterpart belongs to, when the transfer came from a split. */
export function splitSourceOf(
  store: PlanStore,
  tx: TransactionRecord,
): SubTransactionRecord | undefined {
  if (tx.transfer_transaction_id === null || store.transactions.has(tx.transfer_transaction_id))
    return undefined;
  return store.subtransactions.get(tx.transfer_transaction_id);
}

export function deleteTransaction(store: PlanStore, tx: TransactionRecord): void {
  if (tx.deleted) return;
  post(store, tx, -1);
  store.unindexImportId(tx);
  tx.deleted = true;
  store.touch(tx);
  for (const sub of tx.subtransactions) {
    sub.deleted = true;
    store.touch(sub);
    const counterpart =
      sub.transfer_transaction_id === null
        ? undefined
        : store.transactions.get(sub.transfer_transaction_id);
    if (counterpart) retire(store, counterpart);
  }
  if (tx.transfer_transaction_id === null) return;
  const counterpart = store.transactions.get(tx.transfer_transaction_id);
  if (counterpart) {
    retire(store, counterpart);
    return;
  }
  // The other side is a subtransaction of a split: it stays, as an ordinary uncategorized line.
  const source = store.subtransactions.get(tx.transfer_transaction_id);
  const parent = source && store.transactions.get(source.transaction_id);
  if (!source || !parent || parent.deleted) return;
  rememberScope(store, parent);
  // Re-posted: on a card the line was a payment, and an ordinary line is not.
  post(store, parent, -1);
  source.payee_id = null;
  source.transfer_account_id = null;
  source.transfer_transaction_id = null;
  post(store, parent, 1);
  store.touch(source);
  store.touch(parent);
}

/**
 * Applies the final state of an existing transaction. For a split, date, amount, category and
 * subtransactions stay as they are (the interface ignores changes to them).
 */
export function updateTransaction(
  store: PlanStore,
  newId: IdSource,
  tx: TransactionRecord,
  state: TransactionState,
): void {
  rememberScope(store, tx);
  post(store, tx, -1);
  const wasSplit = tx.subtransactions.length > 0;
  const previousTarget = tx.transfer_account_id;
  const accountChanged = state.accountId !== tx.account_id;

  if (!wasSplit && state.date !== tx.date) {
    store.removeFromOrder(tx);
    tx.date = state.date;
    store.insertInOrder(tx);
  }
  ensureMonth(store, monthOf(tx.date));
  if (!wasSplit) tx.amount = state.amount;
  if (accountChanged) {
    store.unindexImportId(tx);
    tx.account_id = state.accountId;
    store.indexImportId(tx);
  }
  tx.payee_id = resolvePayee(store, newId, state.payee);
  tx.transfer_account_id = state.transferAccountId;
  tx.memo = state.memo;
  tx.cleared = state.cleared;
  tx.approved = state.approved;
  tx.flag_color = state.flagColor;
  if (!wasSplit) {
    if (state.subtransactions.length > 0) {
      tx.category_id = null;
      for (const sub of state.subtransactions) createSubTransaction(store, newId, tx, sub);
    } else {
      tx.category_id = effectiveCategory(
        store,
        tx.account_id,
        tx.transfer_account_id,
        state.categoryId,
      );
    }
  }
  if (accountChanged) followMovedSplit(store, tx);
  store.touch(tx);
  reconcileCounterpart(store, newId, tx, previousTarget);
  post(store, tx, 1);
}

/** Private: counterparts of a moved split's transfer lines now come from the new account. */
function followMovedSplit(store: PlanStore, tx: TransactionRecord): void {
  const account = store.accounts.get(tx.account_id);
  for (const sub of tx.subtransactions) {
    const counterpart =
      sub.transfer_transaction_id === null
        ? undefined
        : store.transactions.get(sub.transfer_transaction_id);
    if (!counterpart || counterpart.deleted) continue;
    rememberScope(store, counterpart);
    // Re-posted: whether a card's transfer is a payment depends on the account at the other end.
    post(store, counterpart, -1);
    counterpart.payee_id = account?.transfer_payee_id ?? null;
    counterpart.transfer_account_id = tx.account_id;
    post(store, counterpart, 1);
    store.touch(counterpart);
  }
}

/**
 * Changes a split line's memo or category, as the product's own apps can (the interface keeps an
 * existing split's lines as they are). The parent is re-posted, so activity follows the category.
 */
export function editSplitLine(
  store: PlanStore,
  sub: SubTransactionRecord,
  changes: { memo?: string | null; categoryId?: string | null },
): void {
  const parent = store.transactions.get(sub.transaction_id);
  if (!parent) return;
  rememberScope(store, parent);
  post(store, parent, -1);
  if (changes.memo !== undefined) sub.memo = changes.memo;
  if (changes.categoryId !== undefined) {
    sub.category_id = effectiveCategory(
      store,
      parent.account_id,
      sub.transfer_account_id,
      changes.categoryId,
    );
  }
  post(store, parent, 1);
  store.touch(sub);
  store.touch(parent);
}

/** Private: keeps the other side of a (top-level) transfer in step after an update. */
function reconcileCounterpart(
  store: PlanStore,
  newId: IdSource,
  tx: TransactionRecord,
  previousTarget: string | null,
): void {
  if (splitSourceOf(store, tx)) return; // validation keeps such a counterpart's amount, date and account
  const counterpart =
    tx.transfer_transaction_id === null
      ? undefined
      : store.transactions.get(tx.transfer_transaction_id);
  if (
    counterpart &&
    !counterpart.deleted &&
    previousTarget !== null &&
    previousTarget === tx.transfer_account_id
  ) {
    rememberScope(store, counterpart);
    post(store, counterpart, -1);
    if (counterpart.date !== tx.date) {
      store.removeFromOrder(counterpart);
      counterpart.date = tx.date;
      store.insertInOrder(counterpart);
    }
    counterpart.amount = -tx.amount;
    counterpart.payee_id = store.accounts.get(tx.account_id)?.transfer_payee_id ?? null;
    counterpart.transfer_account_id = tx.account_id;
    counterpart.category_id = effectiveCategory(
      store,
      counterpart.account_id,
      tx.account_id,
      counterpart.category_id,
    );
    store.touch(counterpart);
    post(store, counterpart, 1);
    return;
  }
  if (counterpart) retire(store, counterpart);
  tx.transfer_transaction_id = null;
  if (tx.transfer_account_id !== null) {
    tx.transfer_transaction_id = createCounterpart(store, newId, tx, tx.transfer_account_id).id;
  }
}

/**
 * Touches every transaction and scheduled transaction that shows a renamed payee, category or
 * account, so delta responses carry the new `..._name`.
 */
export function touchRecordsShowing(
  store: PlanStore,
  kind: 'payee' | 'category' | 'account',
  id: string,
): void {
  const field = kind === 'payee' ? 'payee_id' : kind === 'category' ? 'category_id' : 'account_id';
  for (const tx of store.transactions.values()) {
    if (tx[field] === id) {
      store.touch(tx);
      continue;
    }
    if (kind === 'account') continue;
    for (const sub of tx.subtransactions) {
      if (sub[field as 'payee_id' | 'category_id'] === id) {
        store.touch(sub);
        store.touch(tx);
      }
    }
  }
  for (const scheduled of store.scheduledTransactions.values()) {
    if (scheduled[field] === id) store.touch(scheduled);
    if (kind === 'account') continue;
    for (const sub of scheduled.subtransactions) {
      if (sub[field as 'payee_id' | 'category_id'] === id) {
        store.touch(sub);
        store.touch(scheduled);
      }
    }
  }
}

/** Changes status fields of a transaction, keeping cleared balances right. */
export function setTransactionStatus(
  store: PlanStore,
  tx: TransactionRecord,
  fields: Partial<Pick<TransactionRecord, 'cleared' | 'approved' | 'debt_transaction_type'>>,
): void {
  rememberScope(store, tx);
  post(store, tx, -1);
  Object.assign(tx, fields);
  store.touch(tx);
  post(store, tx, 1);
}
