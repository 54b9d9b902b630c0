/**
 * Transaction writes: create (single or batch), bulk update, update, delete and import.
 * Every body is fully validated before the plan changes, so a 400 or 409 changes nothing.
 */
import { badRequest, conflict, resourceNotFound } from '../core/errors.js';
import { presentTransactionDetail } from '../present/transactions.js';
import { createImportedTransaction } from '../store/matching.js';
import type { PlanStore } from '../store/plan-store.js';
import type { TransactionRecord } from '../store/records.js';
import type { NewTransactionExtras, TransactionState } from '../store/transaction-state.js';
import { createTransaction, deleteTransaction, updateTransaction } from '../store/transactions.js';
import { assertTransactionTotalsExact } from '../validate/exact-totals.js';
import { readArray, readObject } from '../validate/fields.js';
import {
  parseTransactionDraft,
  type ResolveContext,
  resolveNewTransaction,
  resolveTransactionUpdate,
  type TransactionDraft,
} from '../validate/transaction.js';
import {
  bodyObject,
  created,
  type Handler,
  type HandlerContext,
  idParam,
  moneyOf,
  ok,
  usePlan,
  write,
} from './context.js';

const NOT_IMPORTED: Omit<NewTransactionExtras, 'importId'> = {
  importPayeeName: null,
  importPayeeNameOriginal: null,
  debtTransactionType: null,
};

/** Private: creates a transaction; one with an import_id may be matched to a user-entered one. */
function save(
  store: PlanStore,
  newId: () => string,
  state: TransactionState,
  importId: string | null,
): TransactionRecord {
  const extras = { ...NOT_IMPORTED, importId };
  return importId === null
    ? createTransaction(store, newId, state, extras)
    : createImportedTransaction(store, newId, state, extras);
}

function accountName(store: PlanStore, accountId: string): string {
  return store.accounts.get(accountId)?.name ?? accountId;
}

const createTransactionHandler: Handler<'createTransaction'> = (ctx) => {
  const entry = usePlan(ctx);
  const { store, newId } = entry;
  if (ctx.body === undefined)
    throw badRequest("The request body is required and must hold 'transaction' or 'transactions'");
  const body = readObject(ctx.body, 'request body');
  const hasOne = body.transaction !== undefined && body.transaction !== null;
  const hasMany = body.transactions !== undefined && body.transactions !== null;
  if (hasOne && hasMany)
    throw badRequest('Give either transaction (one) or transactions (several), not both');
  if (!hasOne && !hasMany) throw badRequest('transaction or transactions is required');
  const resolve: ResolveContext = { store, today: ctx.today };
  const money = moneyOf(store);

  if (hasOne) {
    const draft = parseTransactionDraft(body.transaction, 'transaction');
    const state = resolveNewTransaction(resolve, draft);
    const importId = draft.importId ?? null;
    if (importId !== null && store.findByImportId(state.accountId, importId)) {
      throw conflict(
        `A transaction with import_id '${importId}' already exists on account '${accountName(store, state.accountId)}'`,
      );
    }
    assertTransactionTotalsExact(store, [{ before: null, after: state, path: 'transaction' }]);
    const tx = write(ctx, entry, () => save(store, newId, state, importId));
    return created({
      transaction_ids: [tx.id],
      transaction: presentTransactionDetail(store, tx, money),
      server_knowledge: store.knowledge,
    });
  }

  const items = readArray(body.transactions, 'transactions');
  if (items.length === 0) throw badRequest('transactions must hold at least one transaction');
  const accepted: { state: TransactionState; importId: string | null }[] = [];
  const duplicates: string[] = [];
  const seen = new Set<string>();
  items.forEach((item, index) => {
    const draft = parseTransactionDraft(item, `transactions[${index}]`);
    const state = resolveNewTransaction(resolve, draft);
    const importId = draft.importId ?? null;
    if (importId !== null) {
      const key = `${state.accountId}\u0000${importId}`;
      if (seen.has(key) || store.findByImportId(state.accountId, importId)) {
        duplicates.push(importId);
        return;
      }
      seen.add(key);
    }
    accepted.push({ state, importId });
  });
  assertTransactionTotalsExact(
    store,
    accepted.map(({ state }, i) => ({ before: null, after: state, path: `transactions[${i}]` })),
  );
  const saved = write(ctx, entry, () =>
    accepted.map(({ state, importId }) => save(store, newId, state, importId)),
  );
  return created({
    transaction_ids: saved.map((tx) => tx.id),
    transactions: saved.map((tx) => presentTransactionDetail(store, tx, money)),
    duplicate_import_ids: duplicates,
    server_knowledge: store.knowledge,
  });
};

/** Private: the transaction a bulk update entry names, by `id` or else by `import_id`. */
function lookUp(store: PlanStore, draft: TransactionDraft): TransactionRecord {
  const path = draft.path;
  const id = draft.id ?? null;
  const importId = draft.importId ?? null;
  if (id !== null && importId !== null) {
    throw badRequest(
      `${path}: give either id or import_id, not both (import_id is only a lookup key and cannot be changed)`,
    );
  }
  if (id !== null) {
    const tx = store.liveTransaction(id);
    if (!tx) throw badRequest(`${path}.id '${id}' is not a transaction of this plan`);
    return tx;
  }
  if (importId === null) throw badRequest(`${path}: id or import_id is required`);
  const matches: TransactionRecord[] = [];
  for (const byImportId of store.importIds.values()) {
    const tx = byImportId.get(importId);
    if (tx && !tx.deleted) matches.push(tx);
  }
  if (matches.length === 0)
    throw badRequest(`${path}.import_id '${importId}' matches no transaction of this plan`);
  if (matches.length > 1) {
    throw badRequest(
      `${path}.import_id '${importId}' matches transactions in ${matches.length} accounts; use id instead`,
    );
  }
  return matches[0] as TransactionRecord;
}

const updateTransactions: Handler<'updateTransactions'> = (ctx) => {
  const entry = usePlan(ctx);
  const { store, newId } = entry;
  const items = readArray(bodyArray(ctx), 'transactions');
  if (items.length === 0) throw badRequest('transactions must hold at least one transaction');
  const resolve: ResolveContext = { store, today: ctx.today };
  const planned: { tx: TransactionRecord; state: TransactionState }[] = [];
  const targets = new Map<string, number>();
  items.forEach((item, index) => {
    const draft = parseTransactionDraft(item, `transactions[${index}]`);
    const tx = lookUp(store, draft);
    const earlier = targets.get(tx.id);
    if (earlier !== undefined)
      throw badRequest(
        `transactions[${index}] updates the same transaction as transactions[${earlier}]`,
      );
    targets.set(tx.id, index);
    planned.push({ tx, state: resolveTransactionUpdate(resolve, draft, tx) });
  });
  assertTransactionTotalsExact(
    store,
    planned.map(({ tx, state }) => ({
      before: tx,
      after: state,
      path: `transactions[${targets.get(tx.id) ?? 0}]`,
    })),
  );
  write(ctx, entry, () => {
    for (const { tx, state } of planned) updateTransaction(store, newId, tx, state);
  });
  const money = moneyOf(store);
  return ok({
    transaction_ids: planned.map(({ tx }) => tx.id),
    transactions: planned.map(({ tx }) => presentTransactionDetail(store, tx, money)),
    duplicate_import_ids: [],
    server_knowledge: store.knowledge,
  });
};

function bodyArray(ctx: HandlerContext): unknown {
  if (ctx.body === undefined)
    throw badRequest("The request body is required and must hold 'transactions'");
  const body = readObject(ctx.body, 'request body');
  if (body.transactions === undefined) throw badRequest('transactions is required');
  return body.transactions;
}

function liveTransaction(store: PlanStore, ctx: HandlerContext): TransactionRecord {
  const id = idParam(ctx, 'transaction_id');
  const tx = store.liveTransaction(id);
  if (!tx) throw resourceNotFound(`Transaction '${id}' was not found`);
  return tx;
}

const updateTransactionHandler: Handler<'updateTransaction'> = (ctx) => {
  const entry = usePlan(ctx);
  const { store, newId } = entry;
  const tx = liveTransaction(store, ctx);
  const draft = parseTransactionDraft(bodyObject(ctx, 'transaction'), 'transaction');
  if (draft.importId !== undefined && draft.importId !== tx.import_id) {
    throw badRequest('transaction.import_id cannot be changed');
  }
  const state = resolveTransactionUpdate({ store, today: ctx.today }, draft, tx);
  assertTransactionTotalsExact(store, [{ before: tx, after: state, path: 'transaction' }]);
  write(ctx, entry, () => updateTransaction(store, newId, tx, state));
  return ok({
    transaction: presentTransactionDetail(store, tx, moneyOf(store)),
    server_knowledge: store.knowledge,
  });
};

const deleteTransactionHandler: Handler<'deleteTransaction'> = (ctx) => {
  const entry = usePlan(ctx);
  const { store } = entry;
  const tx = liveTransaction(store, ctx);
  write(ctx, entry, () => deleteTransaction(store, tx));
  return ok({
    transaction: presentTransactionDetail(store, tx, moneyOf(store)),
    server_knowledge: store.knowledge,
  });
};

/**
 * Imports what the linked accounts' queues hold (dated today or earlier): cleared, unapproved,
 * uncategorized transactions with `YNAB:<amount>:<date>:<occurrence>` import ids, matched to
 * user-entered transactions like any import (store/matching.ts).
 */
const importTransactions: Handler<'importTransactions'> = (ctx) => {
  const entry = usePlan(ctx);
  const { store, newId } = entry;
  const ids = write(ctx, entry, () => {
    const saved: TransactionRecord[] = [];
    const waiting = [];
    for (const item of store.importQueue) {
      const account = store.liveAccount(item.accountId);
      if (!account?.direct_import_linked || item.date > ctx.today) {
        if (account) waiting.push(item);
        continue;
      }
      let occurrence = 1;
      while (store.findByImportId(account.id, `YNAB:${item.amount}:${item.date}:${occurrence}`))
        occurrence++;
      const state: TransactionState = {
        accountId: account.id,
        date: item.date,
        amount: item.amount,
        payee: { kind: 'name', name: item.payeeName },
        transferAccountId: null,
        categoryId: null,
        memo: item.memo,
        cleared: 'cleared',
        approved: false,
        flagColor: null,
        subtransactions: [],
      };
      saved.push(
        createImportedTransaction(store, newId, state, {
          importId: `YNAB:${item.amount}:${item.date}:${occurrence}`,
          importPayeeName: item.payeeName,
          importPayeeNameOriginal: item.statementName,
          debtTransactionType: null,
        }),
      );
    }
    store.importQueue = waiting;
    return saved.map((tx) => tx.id);
  });
  return { status: ids.length > 0 ? 201 : 200, data: { transaction_ids: ids } };
};

export const transactionWriteHandlers = {
  createTransaction: createTransactionHandler,
  updateTransactions,
  importTransactions,
  updateTransaction: updateTransactionHandler,
  deleteTransaction: deleteTransactionHandler,
};
