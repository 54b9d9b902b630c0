/**
 * The five transaction lists and the single read.
 *
 * Lists are ordered by date, then id. `since_date` defaults to one year before today on every
 * list except by-month. Filters apply to delta requests too, so a delta holds the changed
 * transactions that match the same query. `type=uncategorized` means: in an on-budget account,
 * not a split, not a transfer between two on-budget accounts, and without a category.
 */
import type { HybridTransaction, IsoDate, TransactionDetail, TransactionListType } from '../../upstream/types.js';
import { addDays, addMonths, addYears } from '../dates.js';
import { resourceNotFound } from '../errors.js';
import {
  presentHybridSubTransaction,
  presentHybridTransaction,
  presentTransactionDetail,
} from '../present/transactions.js';
import type { PlanStore } from '../store/plan-store.js';
import type { SubTransactionRecord, TransactionRecord } from '../store/records.js';
import { readDateParam, readKnowledgeParam, readTypeParam } from '../validate/query.js';
import { idParam, moneyOf, ok, useMonth, usePlan, type Handler, type HandlerContext } from './context.js';

interface ListFilter {
  since: IsoDate | null;
  until: IsoDate | null;
  type: TransactionListType | null;
  knowledge: number | null;
}

/** Private: reads the list parameters; all are validated before the plan is looked at. */
function readListFilter(ctx: HandlerContext, defaultSince: boolean): ListFilter {
  const since = readDateParam(ctx.query, 'since_date');
  return {
    since: since ?? (defaultSince ? addYears(ctx.today, -1) : null),
    until: readDateParam(ctx.query, 'until_date'),
    type: readTypeParam(ctx.query),
    knowledge: readKnowledgeParam(ctx.query),
  };
}

/** Private: the transactions within the filter's dates, in order, without scanning the rest. */
function* inDateRange(store: PlanStore, since: IsoDate | null, until: IsoDate | null): Generator<TransactionRecord> {
  const order = store.transactionOrder;
  const start = since === null ? 0 : store.orderIndex(since, '');
  const end = until === null ? order.length : store.orderIndex(addDays(until, 1), '');
  for (let i = start; i < end; i++) yield order[i] as TransactionRecord;
}

function isUncategorized(store: PlanStore, tx: TransactionRecord, categoryId: string | null): boolean {
  if (categoryId !== null || tx.subtransactions.length > 0) return false;
  if (!store.accounts.get(tx.account_id)?.on_budget) return false;
  return !(tx.transfer_account_id !== null && store.accounts.get(tx.transfer_account_id)?.on_budget);
}

function visible(record: { knowledge: number; deleted: boolean }, filter: ListFilter): boolean {
  return filter.knowledge === null ? !record.deleted : record.knowledge > filter.knowledge;
}

function matchesType(store: PlanStore, filter: ListFilter, tx: TransactionRecord, categoryId: string | null): boolean {
  if (filter.type === 'unapproved') return !tx.approved;
  if (filter.type === 'uncategorized') return isUncategorized(store, tx, categoryId);
  return true;
}

/** Private: a TransactionDetail list over the transactions `include` accepts. */
function detailList(store: PlanStore, filter: ListFilter, include: (tx: TransactionRecord) => boolean) {
  const money = moneyOf(store);
  const transactions: TransactionDetail[] = [];
  for (const tx of inDateRange(store, filter.since, filter.until)) {
    if (visible(tx, filter) && include(tx) && matchesType(store, filter, tx, tx.category_id)) {
      transactions.push(presentTransactionDetail(store, tx, money));
    }
  }
  return { transactions, server_knowledge: store.knowledge };
}

const getTransactions: Handler<'getTransactions'> = (ctx) => {
  const filter = readListFilter(ctx, true);
  return ok(detailList(usePlan(ctx).store, filter, () => true));
};

const getTransactionsByAccount: Handler<'getTransactionsByAccount'> = (ctx) => {
  const filter = readListFilter(ctx, true);
  const { store } = usePlan(ctx);
  const accountId = idParam(ctx, 'account_id');
  if (!store.liveAccount(accountId)) throw resourceNotFound(`Account '${accountId}' was not found`);
  return ok(detailList(store, filter, (tx) => tx.account_id === accountId));
};

const getTransactionsByMonth: Handler<'getTransactionsByMonth'> = (ctx) => {
  const filter = readListFilter(ctx, false);
  const { store } = usePlan(ctx);
  const month = useMonth(ctx, store).month;
  const monthEnd = addDays(addMonths(month, 1), -1);
  const since = filter.since === null || filter.since < month ? month : filter.since;
  const until = filter.until === null || filter.until > monthEnd ? monthEnd : filter.until;
  return ok(detailList(store, { ...filter, since, until }, () => true));
};

/**
 * Private: hybrid rows. A transaction row for a matching whole transaction, a subtransaction row
 * for each matching line of a split (unless the whole split already matched).
 */
function hybridList(
  store: PlanStore,
  filter: ListFilter,
  matchTx: (tx: TransactionRecord) => boolean,
  matchSub: (sub: SubTransactionRecord) => boolean,
) {
  const money = moneyOf(store);
  const rows: HybridTransaction[] = [];
  for (const tx of inDateRange(store, filter.since, filter.until)) {
    if (matchTx(tx)) {
      if (visible(tx, filter) && matchesType(store, filter, tx, tx.category_id)) {
        rows.push(presentHybridTransaction(store, tx, money));
      }
      continue;
    }
    for (const sub of tx.subtransactions) {
      if (!matchSub(sub)) continue;
      const row = { knowledge: Math.max(tx.knowledge, sub.knowledge), deleted: tx.deleted || sub.deleted };
      if (visible(row, filter) && matchesType(store, filter, tx, sub.category_id)) {
        rows.push(presentHybridSubTransaction(store, tx, sub, money));
      }
    }
  }
  return { transactions: rows, server_knowledge: store.knowledge };
}

const getTransactionsByCategory: Handler<'getTransactionsByCategory'> = (ctx) => {
  const filter = readListFilter(ctx, true);
  const { store } = usePlan(ctx);
  const categoryId = idParam(ctx, 'category_id');
  if (!store.liveCategory(categoryId)) throw resourceNotFound(`Category '${categoryId}' was not found`);
  return ok(hybridList(
    store,
    filter,
    (tx) => tx.subtransactions.length === 0 && tx.category_id === categoryId,
    (sub) => sub.category_id === categoryId,
  ));
};

const getTransactionsByPayee: Handler<'getTransactionsByPayee'> = (ctx) => {
  const filter = readListFilter(ctx, true);
  const { store } = usePlan(ctx);
  const payeeId = idParam(ctx, 'payee_id');
  if (!store.livePayee(payeeId)) throw resourceNotFound(`Payee '${payeeId}' was not found`);
  return ok(hybridList(
    store,
    filter,
    (tx) => tx.payee_id === payeeId,
    (sub) => sub.payee_id === payeeId,
  ));
};

const getTransactionById: Handler<'getTransactionById'> = (ctx) => {
  const { store } = usePlan(ctx);
  const id = idParam(ctx, 'transaction_id');
  const tx = store.liveTransaction(id);
  if (!tx) throw resourceNotFound(`Transaction '${id}' was not found`);
  return ok({ transaction: presentTransactionDetail(store, tx, moneyOf(store)), server_knowledge: store.knowledge });
};

export const transactionReadHandlers = {
  getTransactions,
  getTransactionsByAccount,
  getTransactionsByCategory,
  getTransactionsByPayee,
  getTransactionsByMonth,
  getTransactionById,
};
