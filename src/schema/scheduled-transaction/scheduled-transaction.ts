import { FREQUENCIES } from '@plans-gateway/rest-contract';
import type { ScheduledSubTransactionRow, ScheduledTransactionRow } from '../../replica/types.js';
import { amountFields } from '../amounts.js';
import { builder } from '../builder.js';
import { arrayConnection } from '../connections.js';
import { describedValues } from '../enum-values.js';
import { Node, PLAN_ID_DESCRIPTION, REST_ID_DESCRIPTION } from '../node.js';
import { orNotFound } from '../not-found.js';
import { Plan } from '../plan.js';
import { accountFields, categoryFields, payeeFields, transferAccountFields } from '../row-links.js';
import { splitLineFields } from '../split-line.js';
import { FlagColorEnum } from '../transaction/enums.js';
import { flagColor } from '../transaction/transaction.js';

export const FrequencyEnum = builder.enumType('Frequency', {
  description: 'How often a scheduled transaction repeats.',
  values: describedValues(FREQUENCIES, {
    never: 'Once, on its date.',
    daily: 'Every day.',
    weekly: 'Every week.',
    everyOtherWeek: 'Every two weeks.',
    twiceAMonth: 'Twice a month.',
    every4Weeks: 'Every four weeks.',
    monthly: 'Every month.',
    everyOtherMonth: 'Every two months.',
    every3Months: 'Every three months.',
    every4Months: 'Every four months.',
    twiceAYear: 'Twice a year.',
    yearly: 'Every year.',
    everyOtherYear: 'Every two years.',
  }),
});

export const ScheduledTransaction =
  builder.objectRef<ScheduledTransactionRow>('ScheduledTransaction');
export const ScheduledSubTransaction =
  builder.objectRef<ScheduledSubTransactionRow>('ScheduledSubTransaction');

ScheduledTransaction.implement({
  interfaces: [Node],
  description: 'An upcoming or recurring transaction not yet entered in its account.',
  fields: (t) => ({
    id: t.exposeID('id', {
      description: REST_ID_DESCRIPTION,
    }),
    planId: t.exposeID('plan_id', { description: PLAN_ID_DESCRIPTION }),
    dateFirst: t.field({
      type: 'Date',
      description: 'The first occurrence.',
      resolve: (s) => s.date_first,
    }),
    dateNext: t.field({
      type: 'Date',
      description: 'The next occurrence.',
      resolve: (s) => s.date_next,
    }),
    frequency: t.field({
      type: FrequencyEnum,
      description: 'How often it repeats.',
      resolve: (s) => s.frequency,
    }),
    ...amountFields(t, 'amount', (s) => s.amount, 'Negative for outflows.'),
    memo: t.exposeString('memo', { nullable: true, description: 'The memo; null when none.' }),
    flagColor: t.field({
      type: FlagColorEnum,
      nullable: true,
      description: 'Its flag; null when none.',
      resolve: (s) => flagColor(s.flag_color),
    }),
    flagName: t.exposeString('flag_name', {
      nullable: true,
      description: 'The name the user gave the flag; null when none.',
    }),
    ...accountFields(t, (s) => s.account_id),
    ...payeeFields(t, (s) => s.payee_id),
    ...categoryFields(t, (s) => s.category_id),
    categoryName: t.string({
      nullable: true,
      description: '`Split` for a split scheduled transaction.',
      resolve: async (s, _args, ctx) => {
        const plan = await ctx.loaders.plan(s.plan_id);
        if (plan.scheduledSubtransactionsOf(s.id).length > 0) return 'Split';
        return s.category_id ? (plan.category(s.category_id)?.name ?? null) : null;
      },
    }),
    ...transferAccountFields(t, (s) => s.transfer_account_id),
    deleted: t.exposeBoolean('deleted', {
      description: 'Whether it was deleted upstream (lists leave deleted objects out).',
    }),
    subtransactions: t.field({
      type: [ScheduledSubTransaction],
      description: 'The lines of a split; empty when it is not a split.',
      resolve: async (s, _args, ctx) =>
        (await ctx.loaders.plan(s.plan_id)).scheduledSubtransactionsOf(s.id),
    }),
  }),
});

ScheduledSubTransaction.implement({
  interfaces: [Node],
  description: 'One part of a split scheduled transaction.',
  fields: (t) => ({
    ...splitLineFields(t),
    scheduledTransactionId: t.exposeID('scheduled_transaction_id', {
      description: 'The REST id of the scheduled transaction.',
    }),
  }),
});

builder.objectFields(Plan, (t) => ({
  scheduledTransactions: t.connection(
    {
      type: ScheduledTransaction,
      description: 'Scheduled transactions, soonest `dateNext` first.',
      resolve: async (plan, args, ctx) => {
        const rows = [...(await ctx.loaders.plan(plan.id)).scheduledTransactions()].sort(
          (a, b) => a.date_next.localeCompare(b.date_next) || a.id.localeCompare(b.id),
        );
        return arrayConnection(args, rows);
      },
    },
    {
      name: 'ScheduledTransactionConnection',
      description: 'A page of `ScheduledTransaction` items with its cursors (Relay connection).',
      fields: (tc) => ({
        totalCount: tc.int({
          description: 'Items matching the filters, on every page.',
          resolve: (connection) => connection.totalCount,
        }),
      }),
    },
    { description: 'One item of a `ScheduledTransaction` page, with its cursor.' },
  ),
  scheduledTransaction: t.field({
    type: ScheduledTransaction,
    nullable: true,
    description: 'One scheduled transaction by REST id.',
    args: { id: t.arg({ type: 'UUID', required: true, description: 'The REST id.' }) },
    resolve: async (plan, { id }, ctx) =>
      orNotFound(
        (await ctx.loaders.plan(plan.id)).scheduledTransaction(id),
        'scheduled transaction',
        id,
      ),
  }),
}));
