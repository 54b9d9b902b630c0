import type { HybridMatch, SubTransactionRow, TransactionRow } from '../../replica/types.js';
import { amountFields, type FieldBuilder } from '../amounts.js';
import { builder } from '../builder.js';
import { Category } from '../category/category.js';
import { encodeCursor, type PageArgs, pageWindow } from '../connections.js';
import type { GatewayContext } from '../context.js';
import { hybridListCost } from '../cost.js';
import { describedValues } from '../enum-values.js';
import { HYBRID_SUFFIX, Node } from '../node.js';
import { Payee } from '../payee/payee.js';
import { accountFields, categoryFields, payeeFields } from '../row-links.js';
import { MonthSelectorScalar } from '../scalars.js';
import { filterQuery, type TransactionFilterArgs } from './connection.js';
import {
  ClearedStatusEnum,
  DebtTransactionTypeEnum,
  FlagColorEnum,
  TransactionOrderEnum,
  TransactionTypeFilterEnum,
} from './enums.js';
import { type HybridRow, hybridPage } from './hybrid-page.js';
import { categoryNameOf, flagColor, Transaction } from './transaction.js';

export const HybridTransactionKind = builder.enumType('HybridTransactionType', {
  description: 'Whether a hybrid row is a whole transaction or one line of a split.',
  values: describedValues(['transaction', 'subtransaction'], {
    transaction: 'A whole transaction.',
    subtransaction: 'One line of a split transaction.',
  }),
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
      description: 'A whole transaction, or one line of a split.',
      resolve: (h) => (h.sub ? 'subtransaction' : 'transaction'),
    }),
    parentTransactionId: t.id({
      nullable: true,
      description: 'For a split line, the REST id of the split; null for a whole transaction.',
      resolve: (h) => (h.sub ? h.parent.id : null),
    }),
    parentTransaction: t.field({
      type: Transaction,
      nullable: true,
      description: 'For a split line, the split; null for a whole transaction.',
      resolve: (h) => (h.sub ? h.parent : null),
    }),
    date: t.field({
      type: 'Date',
      description: 'The date it happened.',
      resolve: (h) => h.parent.date,
    }),
    ...amountFields(t, 'amount', (h) => own(h, 'amount'), 'Negative for outflows.'),
    memo: t.string({
      nullable: true,
      description: 'The memo; null when none.',
      resolve: (h) => own(h, 'memo'),
    }),
    cleared: t.field({
      type: ClearedStatusEnum,
      description: 'Whether the bank has confirmed it.',
      resolve: (h) => h.parent.cleared,
    }),
    approved: t.boolean({
      description: 'Approved by the user (imported transactions wait for approval).',
      resolve: (h) => h.parent.approved,
    }),
    flagColor: t.field({
      type: FlagColorEnum,
      nullable: true,
      description: 'Its flag; null when none.',
      resolve: (h) => flagColor(h.parent.flag_color),
    }),
    flagName: t.string({
      nullable: true,
      description: 'The name the user gave the flag; null when none.',
      resolve: (h) => h.parent.flag_name,
    }),
    ...accountFields(t, (h) => h.parent.account_id),
    ...payeeFields(t, (h) => own(h, 'payee_id')),
    ...categoryFields(t, (h) => own(h, 'category_id')),
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
    transferAccountId: t.id({
      nullable: true,
      description: 'For a transfer, the REST id of the other account; null otherwise.',
      resolve: (h) => own(h, 'transfer_account_id'),
    }),
    transferTransactionId: t.id({
      nullable: true,
      description: 'For a transfer, the REST id of the transaction on the other side.',
      resolve: (h) => own(h, 'transfer_transaction_id'),
    }),
    matchedTransactionId: t.id({
      nullable: true,
      description: 'The transaction an import was matched with; null when none.',
      resolve: (h) => (h.sub ? null : h.parent.matched_transaction_id),
    }),
    importId: t.string({
      nullable: true,
      description:
        'The import id that identifies an imported transaction; null when entered by hand.',
      resolve: (h) => h.parent.import_id,
    }),
    importPayeeName: t.string({
      nullable: true,
      description: 'The payee name an import brought, after the payee rules ran.',
      resolve: (h) => h.parent.import_payee_name,
    }),
    importPayeeNameOriginal: t.string({
      nullable: true,
      description: 'The payee name an import brought, as the bank sent it.',
      resolve: (h) => h.parent.import_payee_name_original,
    }),
    debtTransactionType: t.field({
      type: DebtTransactionTypeEnum,
      nullable: true,
      description: 'For a debt account: what the transaction does to the debt.',
      resolve: (h) => h.parent.debt_transaction_type,
    }),
    deleted: t.boolean({
      description: 'Whether it was deleted upstream (lists leave deleted objects out).',
      resolve: (h) => own(h, 'deleted'),
    }),
  }),
});

export const HybridTransactionConnection = builder.connectionObject(
  {
    type: HybridTransaction,
    name: 'HybridTransactionConnection',
    description: 'A page of `HybridTransaction` items with its cursors (Relay connection).',
    fields: (t) => ({
      totalCount: t.int({
        // Kept per index; a `type` filter's walk is priced on the list (`hybridListCost`).
        description: 'Rows matching the filters, on every page.',
        resolve: (connection) => connection.totalCount,
      }),
    }),
  },
  {
    name: 'HybridTransactionEdge',
    description: 'One item of a `HybridTransaction` page, with its cursor.',
  },
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
    month: t.arg({
      type: MonthSelectorScalar,
      description: 'A month: `current` or any day in it.',
    }),
    sinceDate: t.arg({ type: 'Date', description: 'On or after this date.' }),
    untilDate: t.arg({ type: 'Date', description: 'On or before this date.' }),
    type: t.arg({
      type: TransactionTypeFilterEnum,
      description: 'Only `uncategorized` or `unapproved` transactions.',
    }),
    order: t.arg({
      type: TransactionOrderEnum,
      defaultValue: 'DATE_DESC',
      description: 'Newest first (the default) or oldest first.',
    }),
  };
}

builder.objectFields(Category, (t) => ({
  transactions: t.connection(
    {
      type: HybridTransaction,
      description: DESCRIPTION,
      args: hybridArgs(t),
      complexity: hybridListCost,
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
      complexity: hybridListCost,
      resolve: (payee, args, ctx) => resolveHybrid(ctx, payee.plan_id, { payeeId: payee.id }, args),
    },
    HybridTransactionConnection,
  ),
}));
