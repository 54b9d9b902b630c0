import {
  ACCOUNT_TYPES,
  type AccountType,
  type LoanAccountPeriodicValue,
} from '@plans-gateway/rest-contract';
import type { AccountRow } from '../../replica/types.js';
import { amountFields } from '../amounts.js';
import { builder } from '../builder.js';
import { describedValues } from '../enum-values.js';
import { findAccount, findPayee, inPlan } from '../in-plan.js';
import { Node, PLAN_ID_DESCRIPTION, REST_ID_DESCRIPTION } from '../node.js';
import { orNotFound } from '../not-found.js';
import { Payee } from '../payee/payee.js';
import { Plan } from '../plan.js';

/** Shared with `SaveAccountType`, whose values are a subset. */
export const ACCOUNT_TYPE_DESCRIPTIONS: Readonly<Record<AccountType, string>> = {
  checking: 'A checking account.',
  savings: 'A savings account.',
  cash: 'Cash.',
  creditCard: 'A credit card.',
  lineOfCredit: 'A line of credit.',
  otherAsset: 'A tracking account for another asset.',
  otherLiability: 'A tracking account for another liability.',
  mortgage: 'A mortgage.',
  autoLoan: 'A car loan.',
  studentLoan: 'A student loan.',
  personalLoan: 'A personal loan.',
  medicalDebt: 'Medical debt.',
  otherDebt: 'Another debt.',
};

export const AccountTypeEnum = builder.enumType('AccountType', {
  description: 'The kind of account, with the REST values.',
  values: describedValues(ACCOUNT_TYPES, ACCOUNT_TYPE_DESCRIPTIONS),
});

interface PeriodicValue {
  readonly date: string;
  readonly value: number;
}

const LoanPeriodicValue = builder.objectRef<PeriodicValue>('LoanPeriodicValue').implement({
  description: 'One dated value of a loan account setting, effective from `date`.',
  fields: (t) => ({
    date: t.field({ type: 'Date', description: 'The date it happened.', resolve: (v) => v.date }),
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
    id: t.exposeID('id', {
      description: REST_ID_DESCRIPTION,
    }),
    planId: t.exposeID('plan_id', { description: PLAN_ID_DESCRIPTION }),
    name: t.exposeString('name', { description: 'The name, as the user wrote it.' }),
    type: t.field({
      type: AccountTypeEnum,
      description: 'The kind of account.',
      resolve: (a) => a.type,
    }),
    onBudget: t.exposeBoolean('on_budget', {
      description: 'On budget: its transactions are categorized and count in the budget.',
    }),
    closed: t.exposeBoolean('closed', {
      description: 'Closed accounts keep their history but take no new transactions.',
    }),
    note: t.exposeString('note', {
      nullable: true,
      description: 'The note the user wrote; null when none.',
    }),
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
      description: 'The payee that stands for this account in transfers to it.',
      resolve: inPlan((a) => a.transfer_payee_id, findPayee),
    }),
    directImportLinked: t.exposeBoolean('direct_import_linked', {
      description: 'Linked to a bank for direct import.',
    }),
    directImportInError: t.exposeBoolean('direct_import_in_error', {
      description: 'Its direct import link needs attention.',
    }),
    lastReconciledAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it was last reconciled; null when never.',
      resolve: (a) => a.last_reconciled_at,
    }),
    debtOriginalBalance: t.field({
      type: 'Milliunits',
      nullable: true,
      deprecationReason: 'Always null upstream.',
      description: 'The balance the debt started with.',
      resolve: (a) => a.debt_original_balance,
    }),
    debtInterestRates: t.field({
      type: [LoanPeriodicValue],
      nullable: true,
      description: 'Interest rates by date, in thousandths of a percent.',
      resolve: (a) => periodicValues(a.debt_interest_rates),
    }),
    debtMinimumPayments: t.field({
      type: [LoanPeriodicValue],
      nullable: true,
      description: 'Minimum payments by date, in milliunits.',
      resolve: (a) => periodicValues(a.debt_minimum_payments),
    }),
    debtEscrowAmounts: t.field({
      type: [LoanPeriodicValue],
      nullable: true,
      description: 'Escrow amounts by date, in milliunits.',
      resolve: (a) => periodicValues(a.debt_escrow_amounts),
    }),
    deleted: t.exposeBoolean('deleted', {
      description: 'Whether it was deleted upstream (lists leave deleted objects out).',
    }),
    plan: t.field({
      type: Plan,
      description: 'The plan it belongs to.',
      resolve: (a) => ({ id: a.plan_id, summary: null }),
    }),
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
    description: 'One account by REST id; null beside a NOT_FOUND error when unknown.',
    args: { id: t.arg({ type: 'UUID', required: true, description: 'The REST id.' }) },
    resolve: async (plan, { id }, ctx) =>
      orNotFound((await ctx.loaders.plan(plan.id)).account(id), 'account', id),
  }),
}));

// Declared here, not in payee.ts: a transfer payee's account is the account domain's link, and
// payee.ts importing Account back would make the two files a cycle.
builder.objectFields(Payee, (t) => ({
  transferAccount: t.field({
    type: Account,
    nullable: true,
    description: 'For a transfer, the other account; null otherwise.',
    resolve: inPlan((p) => p.transfer_account_id, findAccount),
  }),
}));
