import type { AccountRow } from '../../replica/types.js';
import { ACCOUNT_TYPES, type LoanAccountPeriodicValue } from '../../upstream/types.js';
import { amountFields } from '../amounts.js';
import { builder } from '../builder.js';
import { findPayee, inPlan } from '../links.js';
import { Node } from '../node.js';
import { orNotFound } from '../not-found.js';
import { Payee } from '../payee/payee.js';
import { Plan } from '../plan.js';

export const AccountTypeEnum = builder.enumType('AccountType', {
  description: 'The kind of account, with the REST values.',
  values: ACCOUNT_TYPES,
});

interface PeriodicValue {
  readonly date: string;
  readonly value: number;
}

const LoanPeriodicValue = builder.objectRef<PeriodicValue>('LoanPeriodicValue').implement({
  description: 'One dated value of a loan account setting, effective from `date`.',
  fields: (t) => ({
    date: t.field({ type: 'Date', resolve: (v) => v.date }),
    value: t.field({
      type: 'SafeInt',
      description: 'As the REST interface sends it.',
      resolve: (v) => v.value,
    }),
  }),
});

function periodicValues(map: LoanAccountPeriodicValue): PeriodicValue[] | null {
  if (map === null) return null;
  return Object.entries(map)
    .map(([date, value]) => ({ date, value }))
    .sort((a, b) => a.date.localeCompare(b.date));
}

export const Account = builder.objectRef<AccountRow>('Account');

Account.implement({
  interfaces: [Node],
  description: 'An account: on budget (its activity is categorized) or tracking (balance only).',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    type: t.field({ type: AccountTypeEnum, resolve: (a) => a.type }),
    onBudget: t.exposeBoolean('on_budget'),
    closed: t.exposeBoolean('closed'),
    note: t.exposeString('note', { nullable: true }),
    ...amountFields(t, 'balance', (a) => a.balance, 'The current balance.'),
    ...amountFields(
      t,
      'clearedBalance',
      (a) => a.cleared_balance,
      'The balance of cleared and reconciled transactions.',
    ),
    ...amountFields(
      t,
      'unclearedBalance',
      (a) => a.uncleared_balance,
      'The balance of uncleared transactions.',
    ),
    transferPayeeId: t.exposeID('transfer_payee_id', {
      nullable: true,
      description: 'The payee to use when transferring to this account.',
    }),
    transferPayee: t.field({
      type: Payee,
      nullable: true,
      resolve: inPlan((a) => a.transfer_payee_id, findPayee),
    }),
    directImportLinked: t.exposeBoolean('direct_import_linked'),
    directImportInError: t.exposeBoolean('direct_import_in_error'),
    lastReconciledAt: t.field({
      type: 'DateTime',
      nullable: true,
      resolve: (a) => a.last_reconciled_at,
    }),
    debtOriginalBalance: t.field({
      type: 'Milliunits',
      nullable: true,
      deprecationReason: 'Always null upstream.',
      resolve: (a) => a.debt_original_balance,
    }),
    debtInterestRates: t.field({
      type: [LoanPeriodicValue],
      nullable: true,
      resolve: (a) => periodicValues(a.debt_interest_rates),
    }),
    debtMinimumPayments: t.field({
      type: [LoanPeriodicValue],
      nullable: true,
      resolve: (a) => periodicValues(a.debt_minimum_payments),
    }),
    debtEscrowAmounts: t.field({
      type: [LoanPeriodicValue],
      nullable: true,
      resolve: (a) => periodicValues(a.debt_escrow_amounts),
    }),
    deleted: t.exposeBoolean('deleted'),
    plan: t.field({ type: Plan, resolve: (a) => ({ id: a.plan_id, summary: null }) }),
  }),
});

builder.objectFields(Plan, (t) => ({
  accounts: t.field({
    type: [Account],
    description: 'The plan accounts, open and closed (REST `GET /plans/{plan_id}/accounts`).',
    resolve: async (plan, _args, ctx) => (await ctx.loaders.plan(plan.id)).accounts(),
  }),
  account: t.field({
    type: Account,
    nullable: true,
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: async (plan, { id }, ctx) =>
      orNotFound((await ctx.loaders.plan(plan.id)).account(id), 'account', id),
  }),
}));
