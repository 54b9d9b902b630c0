import type { FlagColor } from '@plans-gateway/rest-contract';
import type { PlanSnapshot, SubTransactionRow, TransactionRow } from '../../replica/types.js';
import { amountFields } from '../amounts.js';
import { builder } from '../builder.js';
import { inPlan } from '../in-plan.js';
import { checkId } from '../input-checks.js';
import { Node, PLAN_ID_DESCRIPTION, REST_ID_DESCRIPTION } from '../node.js';
import { orNotFound } from '../not-found.js';
import { Plan } from '../plan.js';
import { accountFields, categoryFields, payeeFields, transferAccountFields } from '../row-links.js';
import { splitLineFields } from '../split-line.js';
import { ClearedStatusEnum, DebtTransactionTypeEnum, FlagColorEnum } from './enums.js';

export const Transaction = builder.objectRef<TransactionRow>('Transaction');
export const SubTransaction = builder.objectRef<SubTransactionRow>('SubTransaction');

export function flagColor(value: FlagColor | null): Exclude<FlagColor, ''> | null {
  return value === '' ? null : value;
}

/** REST names a split's category 'Split'; otherwise the category's own name. */
export function categoryNameOf(plan: PlanSnapshot, row: TransactionRow): string | null {
  if (plan.subtransactionsOf(row.id).length > 0) return 'Split';
  return row.category_id ? (plan.category(row.category_id)?.name ?? null) : null;
}

Transaction.implement({
  interfaces: [Node],
  description: 'A transaction in an account; a split carries its parts in `subtransactions`.',
  fields: (t) => ({
    id: t.exposeID('id', {
      description: REST_ID_DESCRIPTION,
    }),
    planId: t.exposeID('plan_id', { description: PLAN_ID_DESCRIPTION }),
    date: t.field({ type: 'Date', description: 'The date it happened.', resolve: (tx) => tx.date }),
    ...amountFields(t, 'amount', (tx) => tx.amount, 'Negative for outflows.'),
    memo: t.exposeString('memo', { nullable: true, description: 'The memo; null when none.' }),
    cleared: t.field({
      type: ClearedStatusEnum,
      description: 'Whether the bank has confirmed it.',
      resolve: (tx) => tx.cleared,
    }),
    approved: t.exposeBoolean('approved', {
      description: 'Approved by the user (imported transactions wait for approval).',
    }),
    flagColor: t.field({
      type: FlagColorEnum,
      nullable: true,
      description: 'Its flag; null when none.',
      resolve: (tx) => flagColor(tx.flag_color),
    }),
    flagName: t.exposeString('flag_name', {
      nullable: true,
      description: 'The name the user gave the flag; null when none.',
    }),
    ...accountFields(t, (tx) => tx.account_id),
    ...payeeFields(t, (tx) => tx.payee_id),
    ...categoryFields(t, (tx) => tx.category_id),
    categoryName: t.string({
      nullable: true,
      description: '`Split` for a split transaction.',
      resolve: async (tx, _args, ctx) => categoryNameOf(await ctx.loaders.plan(tx.plan_id), tx),
    }),
    ...transferAccountFields(t, (tx) => tx.transfer_account_id),
    transferTransactionId: t.exposeID('transfer_transaction_id', {
      nullable: true,
      description: 'For a transfer, the REST id of the transaction on the other side.',
    }),
    transferTransaction: t.field({
      type: Transaction,
      nullable: true,
      description: 'The other side of a transfer.',
      resolve: inPlan(
        (tx) => tx.transfer_transaction_id,
        (plan, id) => plan.transaction(id),
      ),
    }),
    matchedTransactionId: t.exposeID('matched_transaction_id', {
      nullable: true,
      description: 'The transaction an import was matched with; null when none.',
    }),
    importId: t.exposeString('import_id', {
      nullable: true,
      description:
        'The import id that identifies an imported transaction; null when entered by hand.',
    }),
    importPayeeName: t.exposeString('import_payee_name', {
      nullable: true,
      description: 'The payee name an import brought, after the payee rules ran.',
    }),
    importPayeeNameOriginal: t.exposeString('import_payee_name_original', {
      nullable: true,
      description: 'The payee name an import brought, as the bank sent it.',
    }),
    debtTransactionType: t.field({
      type: DebtTransactionTypeEnum,
      nullable: true,
      description: 'For a debt account: what the transaction does to the debt.',
      resolve: (tx) => tx.debt_transaction_type,
    }),
    deleted: t.exposeBoolean('deleted', {
      description: 'Whether it was deleted upstream (lists leave deleted objects out).',
    }),
    subtransactions: t.field({
      type: [SubTransaction],
      description: 'The lines of a split; empty when it is not a split.',
      resolve: async (tx, _args, ctx) =>
        (await ctx.loaders.plan(tx.plan_id)).subtransactionsOf(tx.id),
    }),
    plan: t.field({
      type: Plan,
      description: 'The plan it belongs to.',
      resolve: (tx) => ({ id: tx.plan_id, summary: null }),
    }),
  }),
});

SubTransaction.implement({
  interfaces: [Node],
  description: 'One part of a split transaction.',
  fields: (t) => ({
    ...splitLineFields(t),
    transactionId: t.exposeID('transaction_id', { description: 'The REST id of the transaction.' }),
    transaction: t.field({
      type: Transaction,
      nullable: true,
      description: 'The transaction.',
      resolve: inPlan(
        (s) => s.transaction_id,
        (plan, id) => plan.transaction(id),
      ),
    }),
    transferTransactionId: t.exposeID('transfer_transaction_id', {
      nullable: true,
      description: 'For a transfer, the REST id of the transaction on the other side.',
    }),
  }),
});

builder.objectFields(Plan, (t) => ({
  transaction: t.field({
    type: Transaction,
    nullable: true,
    description: 'One transaction by REST id; null beside a NOT_FOUND error when unknown.',
    args: { id: t.arg.id({ required: true, description: 'The REST id.' }) },
    resolve: async (plan, { id }, ctx) =>
      orNotFound(
        (await ctx.loaders.plan(plan.id)).transaction(checkId('id', id)),
        'transaction',
        id,
      ),
  }),
}));
