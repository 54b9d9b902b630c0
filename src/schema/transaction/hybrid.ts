import type { SubTransactionRow, TransactionRow } from '../../replica/types.js';
import type { GatewayContext } from '../../server/context.js';
import { Account } from '../account/account.js';
import { amountFields, type FieldBuilder } from '../amounts.js';
import { builder } from '../builder.js';
import { Category } from '../category/category.js';
import { encodeCursor, type PageArgs, pageWindow } from '../connections.js';
import { COUNT_COST } from '../cost.js';
import { findAccount, findCategory, findPayee, inPlan, payeeName } from '../links.js';
import { HYBRID_SUFFIX, Node } from '../node.js';
import { Payee } from '../payee/payee.js';
import { MonthSelectorScalar } from '../scalars.js';
import { filterQuery, type TransactionFilterArgs } from './connection.js';
import {
  ClearedStatusEnum,
  DebtTransactionTypeEnum,
  FlagColorEnum,
  TransactionOrderEnum,
  TransactionTypeFilterEnum,
} from './enums.js';
import { type HybridMatch, type HybridRow, hybridPage } from './hybrid-page.js';
import { categoryNameOf, flagColor, Transaction } from './transaction.js';

export const HybridTransactionKind = builder.enumType('HybridTransactionType', {
  values: ['transaction', 'subtransaction'] as const,
});

export const HybridTransaction = builder.objectRef<HybridRow>('HybridTransaction');

function own<K extends keyof SubTransactionRow & keyof TransactionRow>(row: HybridRow, key: K) {
  return row.sub ? row.sub[key] : row.parent[key];
}

HybridTransaction.implement({
  interfaces: [Node],
  description:
    'A transaction or one subtransaction of a split, as the REST category and payee ' +
    'transaction lists return them.',
  fields: (t) => ({
    id: t.id({
      description:
        "This row's own id, `<transaction or subtransaction id>:hybrid`: the row is not the " +
        'Transaction or SubTransaction itself (their ids are `transactionId` and `subtransactionId`).',
      resolve: (h) => `${own(h, 'id')}${HYBRID_SUFFIX}`,
    }),
    transactionId: t.id({
      description:
        'The REST id of the transaction: the whole transaction, or the split it is a line of.',
      resolve: (h) => h.parent.id,
    }),
    subtransactionId: t.id({
      nullable: true,
      description: 'The REST id of the split line this row shows; null for a whole transaction.',
      resolve: (h) => h.sub?.id ?? null,
    }),
    type: t.field({
      type: HybridTransactionKind,
      resolve: (h) => (h.sub ? 'subtransaction' : 'transaction'),
    }),
    parentTransactionId: t.id({ nullable: true, resolve: (h) => (h.sub ? h.parent.id : null) }),
    parentTransaction: t.field({
      type: Transaction,
      nullable: true,
      resolve: (h) => (h.sub ? h.parent : null),
    }),
    date: t.field({ type: 'Date', resolve: (h) => h.parent.date }),
    ...amountFields(t, 'amount', (h) => own(h, 'amount'), 'Negative for outflows.'),
    memo: t.string({ nullable: true, resolve: (h) => own(h, 'memo') }),
    cleared: t.field({ type: ClearedStatusEnum, resolve: (h) => h.parent.cleared }),
    approved: t.boolean({ resolve: (h) => h.parent.approved }),
    flagColor: t.field({
      type: FlagColorEnum,
      nullable: true,
      resolve: (h) => flagColor(h.parent.flag_color),
    }),
    flagName: t.string({ nullable: true, resolve: (h) => h.parent.flag_name }),
    accountId: t.id({ resolve: (h) => h.parent.account_id }),
    account: t.field({
      type: Account,
      nullable: true,
      resolve: inPlan((h) => h.parent.account_id, findAccount),
    }),
    accountName: t.string({
      resolve: async (h, _args, ctx) =>
        (await ctx.loaders.plan(h.plan_id)).account(h.parent.account_id)?.name ?? '',
    }),
    payeeId: t.id({ nullable: true, resolve: (h) => own(h, 'payee_id') }),
    payee: t.field({
      type: Payee,
      nullable: true,
      resolve: inPlan((h) => own(h, 'payee_id'), findPayee),
    }),
    payeeName: t.string({ nullable: true, resolve: inPlan((h) => own(h, 'payee_id'), payeeName) }),
    categoryId: t.id({ nullable: true, resolve: (h) => own(h, 'category_id') }),
    category: t.field({
      type: Category,
      nullable: true,
      resolve: inPlan((h) => own(h, 'category_id'), findCategory),
    }),
    categoryName: t.string({
      description:
        '`Split` for a whole split transaction, `Uncategorized` when there is no category.',
      resolve: async (h, _args, ctx) => {
        const plan = await ctx.loaders.plan(h.plan_id);
        const name = h.sub
          ? h.sub.category_id
            ? (plan.category(h.sub.category_id)?.name ?? null)
            : null
          : categoryNameOf(plan, h.parent);
        return name ?? UNCATEGORIZED_NAME;
      },
    }),
    transferAccountId: t.id({ nullable: true, resolve: (h) => own(h, 'transfer_account_id') }),
    transferTransactionId: t.id({
      nullable: true,
      resolve: (h) => own(h, 'transfer_transaction_id'),
    }),
    matchedTransactionId: t.id({
      nullable: true,
      resolve: (h) => (h.sub ? null : h.parent.matched_transaction_id),
    }),
    importId: t.string({ nullable: true, resolve: (h) => h.parent.import_id }),
    importPayeeName: t.string({ nullable: true, resolve: (h) => h.parent.import_payee_name }),
    importPayeeNameOriginal: t.string({
      nullable: true,
      resolve: (h) => h.parent.import_payee_name_original,
    }),
    debtTransactionType: t.field({
      type: DebtTransactionTypeEnum,
      nullable: true,
      resolve: (h) => h.parent.debt_transaction_type,
    }),
    deleted: t.boolean({ resolve: (h) => own(h, 'deleted') }),
  }),
});

export const HybridTransactionConnection = builder.connectionObject(
  {
    type: HybridTransaction,
    name: 'HybridTransactionConnection',
    fields: (t) => ({
      totalCount: t.int({
        // May walk the whole filtered window, one row at a time.
        complexity: COUNT_COST,
        description: 'Rows matching the filters, on every page.',
        resolve: (connection) => connection.totalCount,
      }),
    }),
  },
  { name: 'HybridTransactionEdge' },
);

/** REST gives uncategorized hybrid rows this category name (the field is never null there). */
const UNCATEGORIZED_NAME = 'Uncategorized';

/** A page of hybrid rows from the replica's category or payee index (see `hybrid-page.ts`). */
async function resolveHybrid(
  ctx: GatewayContext,
  planId: string,
  match: HybridMatch,
  args: TransactionFilterArgs & PageArgs,
) {
  const window = pageWindow(args);
  const plan = await ctx.loaders.plan(planId);
  const filters = filterQuery({ ...args, ...match }, () => plan.currentMonth());
  return hybridPage(plan, match, filters, window, encodeCursor);
}

const DESCRIPTION =
  'Transactions and split parts in this list, newest first unless `order` says otherwise ' +
  '(REST `HybridTransaction` rows).';

function hybridArgs<Shape>(t: FieldBuilder<Shape>) {
  return {
    month: t.arg({ type: MonthSelectorScalar }),
    sinceDate: t.arg({ type: 'Date' }),
    untilDate: t.arg({ type: 'Date' }),
    type: t.arg({ type: TransactionTypeFilterEnum }),
    order: t.arg({ type: TransactionOrderEnum, defaultValue: 'DATE_DESC' }),
  };
}

builder.objectFields(Category, (t) => ({
  transactions: t.connection(
    {
      type: HybridTransaction,
      description: DESCRIPTION,
      args: hybridArgs(t),
      resolve: (category, args, ctx) =>
        resolveHybrid(ctx, category.plan_id, { categoryId: category.id }, args),
    },
    HybridTransactionConnection,
  ),
}));

builder.objectFields(Payee, (t) => ({
  transactions: t.connection(
    {
      type: HybridTransaction,
      description: DESCRIPTION,
      args: hybridArgs(t),
      resolve: (payee, args, ctx) => resolveHybrid(ctx, payee.plan_id, { payeeId: payee.id }, args),
    },
    HybridTransactionConnection,
  ),
}));
