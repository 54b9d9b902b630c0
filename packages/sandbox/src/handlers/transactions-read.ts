/**
 * The five transaction lists and the single read.
 *
 * Lists are ordered by date, then id. `since_date` defaults to one year before today on every
 * list except by-month. `type=uncategorized` means: in an on-budget account, not a split, not a
 * transfer between two on-budget accounts, and without a category.
 *
 * Delta requests apply the same filters, to the transaction as it is now or as it was before any
 * change made after the client's knowledge (see store/scopes.ts). A transaction that left the list
 * (moved to another month, account, category or payee, approved, ...) is therefore still sent,
 * as it is now, so a client that filters its copy again sees it leave.
 */
import type { HybridTransaction, IsoDate, TransactionListType } from '@plans-gateway/rest-contract';
import { addDays, addMonths, addYears, monthOf } from '../core/dates.js';
import { resourceNotFound } from '../core/errors.js';
import { LazyList } from '../present/lazy-list.js';
import type { MoneyPresenter } from '../present/money.js';
import {
  presentHybridSubTransaction,
  presentHybridTransaction,
  presentTransactionDetail,
} from '../present/transactions.js';
import type { PlanStore } from '../store/plan-store.js';
import type {
  SubTransactionRecord,
  TransactionRecord,
  TransactionScope,
} from '../store/records.js';
import { isUncategorized, scopesSince } from '../store/scopes.js';
import { readDateParam, readKnowledgeParam, readTypeParam } from '../validate/query.js';
import {
  type Handler,
  type HandlerContext,
  idParam,
  moneyOf,
  ok,
  useMonth,
  usePlan,
} from './context.js';

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

/**
 * Private: a snapshot of the candidate transactions, in order (the lists present them lazily, see
 * present/lazy-list.ts). A full list only takes its date range; a delta may need transactions
 * whose earlier date was in range, so it takes everything changed since.
 */
function candidates(store: PlanStore, filter: ListFilter): TransactionRecord[] {
  const order = store.transactionOrder;
  const { knowledge } = filter;
  if (knowledge !== null) return order.filter((tx) => tx.knowledge > knowledge);
  const start = filter.since === null ? 0 : store.orderIndex(filter.since, '');
  const end = filter.until === null ? order.length : store.orderIndex(addDays(filter.until, 1), '');
  return order.slice(start, end);
}

/** Private: the date and type filters against one scope of a transaction. */
function inFilter(filter: ListFilter, scope: TransactionScope): boolean {
  if (filter.since !== null && scope.date < filter.since) return false;
  if (filter.until !== null && scope.date > filter.until) return false;
  if (filter.type === 'unapproved') return !scope.approved;
  if (filter.type === 'uncategorized') return scope.uncategorized;
  return true;
}

/** Private: a TransactionDetail list of the transactions whose (current or former) scope matches. */
function detailList(
  store: PlanStore,
  filter: ListFilter,
  inScope: (scope: TransactionScope) => boolean,
) {
  const money = moneyOf(store);
  const listed = candidates(store, filter);
  const transactions = new LazyList(function* () {
    for (const tx of listed) {
      if (filter.knowledge === null && tx.deleted) continue;
      if (
        scopesSince(store, tx, filter.knowledge).some(
          (scope) => inFilter(filter, scope) && inScope(scope),
        )
      ) {
        yield presentTransactionDetail(store, tx, money);
      }
    }
  });
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
  return ok(detailList(store, filter, (scope) => scope.accountId === accountId));
};

const getTransactionsByMonth: Handler<'getTransactionsByMonth'> = (ctx) => {
  const filter = readListFilter(ctx, false);
  const { store } = usePlan(ctx);
  const month = useMonth(ctx, store).month;
  const monthEnd = addDays(addMonths(month, 1), -1);
  const since = filter.since === null || filter.since < month ? month : filter.since;
  const until = filter.until === null || filter.until > monthEnd ? monthEnd : filter.until;
  return ok(
    detailList(store, { ...filter, since, until }, (scope) => monthOf(scope.date) === month),
  );
};

interface HybridTarget {
  /** The whole transaction is a row of the list. */
  matchTx(tx: TransactionRecord): boolean;
  /** One line of a split is a row of the list. */
  matchSub(sub: SubTransactionRecord): boolean;
  /** The scope mentions the list's category or payee. */
  inScope(scope: TransactionScope): boolean;
}

/** Private: the rows a transaction shows in a hybrid list now. */
function currentRows(
  store: PlanStore,
  tx: TransactionRecord,
  filter: ListFilter,
  target: HybridTarget,
  money: MoneyPresenter,
): HybridTransaction[] {
  const scope = scopesSince(store, tx, null)[0] as TransactionScope;
  if (filter.since !== null && scope.date < filter.since) return [];
  if (filter.until !== null && scope.date > filter.until) return [];
  const typeOk = (uncategorized: boolean) =>
    filter.type === 'unapproved'
      ? !tx.approved
      : filter.type === 'uncategorized'
        ? uncategorized
        : true;
  const rows: HybridTransaction[] = [];
  if (target.matchTx(tx) && typeOk(isUncategorized(store, tx)))
    rows.push(presentHybridTransaction(store, tx, money));
  for (const sub of tx.subtransactions) {
    if (
      (filter.knowledge !== null || !sub.deleted) &&
      target.matchSub(sub) &&
      typeOk(sub.category_id === null)
    ) {
      rows.push(presentHybridSubTransaction(store, tx, sub, money));
    }
  }
  return rows;
}

/**
 * Private: hybrid rows. Each row stands on its own: a transaction row when the transaction's own
 * category (never a split's) or payee is the list's, and a subtransaction row for each line of a
 * split whose own category or payee is. On a delta, a transaction that was in the list before a
 * change is sent with all its rows as they are now.
 */
function hybridList(store: PlanStore, filter: ListFilter, target: HybridTarget) {
  const money = moneyOf(store);
  const listed = candidates(store, filter);
  const rows = new LazyList(function* () {
    for (const tx of listed) {
      if (filter.knowledge === null && tx.deleted) continue;
      const left =
        filter.knowledge !== null &&
        scopesSince(store, tx, filter.knowledge)
          .slice(1)
          .some((scope) => inFilter(filter, scope) && target.inScope(scope));
      if (left) {
        yield presentHybridTransaction(store, tx, money);
        for (const sub of tx.subtransactions)
          yield presentHybridSubTransaction(store, tx, sub, money);
      } else {
        yield* currentRows(store, tx, filter, target, money);
      }
    }
  });
  return { transactions: rows, server_knowledge: store.knowledge };
}

const getTransactionsByCategory: Handler<'getTransactionsByCategory'> = (ctx) => {
  const filter = readListFilter(ctx, true);
  const { store } = usePlan(ctx);
  const categoryId = idParam(ctx, 'category_id');
  if (!store.liveCategory(categoryId))
    throw resourceNotFound(`Category '${categoryId}' was not found`);
  return ok(
    hybridList(store, filter, {
      matchTx: (tx) => tx.subtransactions.length === 0 && tx.category_id === categoryId,
      matchSub: (sub) => sub.category_id === categoryId,
      inScope: (scope) => scope.categoryIds.includes(categoryId),
    }),
  );
};

const getTransactionsByPayee: Handler<'getTransactionsByPayee'> = (ctx) => {
  const filter = readListFilter(ctx, true);
  const { store } = usePlan(ctx);
  const payeeId = idParam(ctx, 'payee_id');
  if (!store.livePayee(payeeId)) throw resourceNotFound(`Payee '${payeeId}' was not found`);
  return ok(
    hybridList(store, filter, {
      matchTx: (tx) => tx.payee_id === payeeId,
      matchSub: (sub) => sub.payee_id === payeeId,
      inScope: (scope) => scope.payeeIds.includes(payeeId),
    }),
  );
};

const getTransactionById: Handler<'getTransactionById'> = (ctx) => {
  const { store } = usePlan(ctx);
  const id = idParam(ctx, 'transaction_id');
  const tx = store.liveTransaction(id);
  if (!tx) throw resourceNotFound(`Transaction '${id}' was not found`);
  return ok({
    transaction: presentTransactionDetail(store, tx, moneyOf(store)),
    server_knowledge: store.knowledge,
  });
};

export const transactionReadHandlers = {
  getTransactions,
  getTransactionsByAccount,
  getTransactionsByCategory,
  getTransactionsByPayee,
  getTransactionsByMonth,
  getTransactionById,
};
