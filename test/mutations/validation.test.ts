/**
 * Every gateway-side input rule: refused with BAD_USER_INPUT naming the field, before anything
 * is sent upstream (counted at the sandbox), and nothing changes at REST.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack } from '../support/stack.js';
import {
  MUTATIONS,
  type MutationStack,
  onlyError,
  TODAY,
  withLookups,
} from './support/plan-lookups.js';

let stack: MutationStack;
let accountId: string;
let transferPayeeId: string;

beforeAll(async () => {
  stack = withLookups(await startStack(MUTATIONS));
  const checking = await stack.accountOfType('checking');
  accountId = checking.id;
  transferPayeeId = (await stack.accountOfType('savings')).transfer_payee_id!;
  await stack.gql('{ plan(id: "last-used") { id } }');
});

afterAll(() => stack.close());

const long = (n: number) => 'x'.repeat(n);
const tx = (extra: Record<string, unknown> = {}) => ({
  accountId,
  date: TODAY,
  amount: -1_000,
  payeeName: 'Rule',
  ...extra,
});
const UUID = '11111111-2222-4333-8444-555555555555';

interface Case {
  what: string;
  mutation: string;
  variables: () => Record<string, unknown>;
  field: string;
}

const CREATE =
  'mutation($p: PlanId!, $input: CreateTransactionInput!) { createTransaction(planId: $p, input: $input) { __typename } }';
const CREATE_MANY =
  'mutation($p: PlanId!, $input: CreateTransactionsInput!) { createTransactions(planId: $p, input: $input) { __typename } }';
const UPDATE_MANY =
  'mutation($p: PlanId!, $input: UpdateTransactionsInput!) { updateTransactions(planId: $p, input: $input) { __typename } }';
const UPDATE_ONE = `mutation($p: PlanId!, $input: UpdateTransactionInput!) { updateTransaction(planId: $p, transactionId: "${UUID}", input: $input) { __typename } }`;
const SCHEDULE =
  'mutation($p: PlanId!, $input: CreateScheduledTransactionInput!) { createScheduledTransaction(planId: $p, input: $input) { __typename } }';
const RESCHEDULE = `mutation($p: PlanId!, $input: UpdateScheduledTransactionInput!) { updateScheduledTransaction(planId: $p, scheduledTransactionId: "${UUID}", input: $input) { __typename } }`;
const CREATE_PAYEE =
  'mutation($p: PlanId!, $input: CreatePayeeInput!) { createPayee(planId: $p, input: $input) { __typename } }';
const UPDATE_PAYEE = `mutation($p: PlanId!, $input: UpdatePayeeInput!) { updatePayee(planId: $p, payeeId: "${UUID}", input: $input) { __typename } }`;
const CREATE_GROUP =
  'mutation($p: PlanId!, $input: CreateCategoryGroupInput!) { createCategoryGroup(planId: $p, input: $input) { __typename } }';
const UPDATE_GROUP = `mutation($p: PlanId!, $input: UpdateCategoryGroupInput!) { updateCategoryGroup(planId: $p, categoryGroupId: "${UUID}", input: $input) { __typename } }`;
const UPDATE_CATEGORY = `mutation($p: PlanId!, $input: UpdateCategoryInput!) { updateCategory(planId: $p, categoryId: "${UUID}", input: $input) { __typename } }`;
const scheduled = (extra: Record<string, unknown>) => ({
  accountId,
  date: '2025-07-01',
  amount: -1_000,
  ...extra,
});

const CASES: Case[] = [
  {
    what: 'a future date on createTransaction',
    mutation: CREATE,
    variables: () => ({ input: tx({ date: '2025-06-16' }) }),
    field: 'input.date',
  },
  {
    what: 'a future date inside createTransactions',
    mutation: CREATE_MANY,
    variables: () => ({ input: { transactions: [tx(), tx({ date: '2026-01-01' })] } }),
    field: 'input.transactions[1].date',
  },
  {
    what: 'a future date on updateTransaction',
    mutation: UPDATE_ONE,
    variables: () => ({ input: { date: '2025-06-16' } }),
    field: 'input.date',
  },
  {
    what: 'subtransactions that do not add up to the amount',
    mutation: CREATE,
    variables: () => ({
      input: tx({ amount: -10_000, subtransactions: [{ amount: -4_000 }, { amount: -5_000 }] }),
    }),
    field: 'input.subtransactions',
  },
  {
    what: 'an unbalanced split inside a batch',
    mutation: CREATE_MANY,
    variables: () => ({
      input: {
        transactions: [
          tx(),
          tx(),
          tx({ amount: -3, subtransactions: [{ amount: -1 }, { amount: -1 }] }),
        ],
      },
    }),
    field: 'input.transactions[2].subtransactions',
  },
  {
    what: 'an unbalanced split in a bulk update that sets the amount',
    mutation: UPDATE_MANY,
    variables: () => ({
      input: { transactions: [{ id: UUID, amount: -5, subtransactions: [{ amount: -4 }] }] },
    }),
    field: 'input.transactions[0].subtransactions',
  },
  {
    what: 'an empty createTransactions batch',
    mutation: CREATE_MANY,
    variables: () => ({ input: { transactions: [] } }),
    field: 'input.transactions',
  },
  {
    what: 'an empty updateTransactions batch',
    mutation: UPDATE_MANY,
    variables: () => ({ input: { transactions: [] } }),
    field: 'input.transactions',
  },
  {
    what: 'both id and importId in a bulk update',
    mutation: UPDATE_MANY,
    variables: () => ({ input: { transactions: [{ id: UUID, importId: 'imp:1', memo: 'x' }] } }),
    field: 'input.transactions[0]',
  },
  {
    what: 'neither id nor importId in a bulk update',
    mutation: UPDATE_MANY,
    variables: () => ({
      input: { transactions: [{ id: UUID, memo: 'ok' }, { memo: 'which one?' }] },
    }),
    field: 'input.transactions[1]',
  },
  {
    what: 'a memo over 500 characters',
    mutation: CREATE,
    variables: () => ({ input: tx({ memo: long(501) }) }),
    field: 'input.memo',
  },
  {
    what: 'a payee name over 200 characters',
    mutation: CREATE,
    variables: () => ({ input: tx({ payeeName: long(201) }) }),
    field: 'input.payeeName',
  },
  {
    what: 'an import id over 36 characters',
    mutation: CREATE,
    variables: () => ({ input: tx({ importId: long(37) }) }),
    field: 'input.importId',
  },
  {
    what: 'an import id over 36 characters in a bulk update',
    mutation: UPDATE_MANY,
    variables: () => ({ input: { transactions: [{ importId: long(37) }] } }),
    field: 'input.transactions[0].importId',
  },
  {
    what: 'a subtransaction memo over 500 characters',
    mutation: CREATE,
    variables: () => ({
      input: tx({ amount: -2, subtransactions: [{ amount: -1 }, { amount: -1, memo: long(501) }] }),
    }),
    field: 'input.subtransactions[1].memo',
  },
  {
    what: 'a subtransaction payee name over 200 characters',
    mutation: CREATE,
    variables: () => ({
      input: tx({ amount: -1, subtransactions: [{ amount: -1, payeeName: long(201) }] }),
    }),
    field: 'input.subtransactions[0].payeeName',
  },
  {
    what: 'a null account on updateTransaction',
    mutation: UPDATE_ONE,
    variables: () => ({ input: { accountId: null } }),
    field: 'input.accountId',
  },
  {
    what: 'a null amount on updateTransaction',
    mutation: UPDATE_ONE,
    variables: () => ({ input: { amount: null } }),
    field: 'input.amount',
  },
  {
    what: 'a scheduled date of today',
    mutation: SCHEDULE,
    variables: () => ({ input: scheduled({ date: TODAY }) }),
    field: 'input.date',
  },
  {
    what: 'a scheduled date in the past',
    mutation: SCHEDULE,
    variables: () => ({ input: scheduled({ date: '2025-01-01' }) }),
    field: 'input.date',
  },
  {
    what: 'a scheduled date more than 5 years ahead',
    mutation: SCHEDULE,
    variables: () => ({ input: scheduled({ date: '2030-06-16' }) }),
    field: 'input.date',
  },
  {
    what: 'a past date on updateScheduledTransaction',
    mutation: RESCHEDULE,
    variables: () => ({ input: scheduled({ date: '2025-06-01' }) }),
    field: 'input.date',
  },
  {
    what: 'a scheduled memo over 500 characters',
    mutation: SCHEDULE,
    variables: () => ({ input: scheduled({ memo: long(501) }) }),
    field: 'input.memo',
  },
  {
    what: 'a scheduled payee name over 200 characters',
    mutation: SCHEDULE,
    variables: () => ({ input: scheduled({ payeeName: long(201) }) }),
    field: 'input.payeeName',
  },
  {
    what: 'a null scheduled frequency',
    mutation: SCHEDULE,
    variables: () => ({ input: scheduled({ frequency: null }) }),
    field: 'input.frequency',
  },
  {
    what: 'a payee name over 500 characters',
    mutation: CREATE_PAYEE,
    variables: () => ({ input: { name: long(501) } }),
    field: 'input.name',
  },
  {
    what: 'a payee renamed to over 500 characters',
    mutation: UPDATE_PAYEE,
    variables: () => ({ input: { name: long(501) } }),
    field: 'input.name',
  },
  {
    what: 'a payee renamed to null',
    mutation: UPDATE_PAYEE,
    variables: () => ({ input: { name: null } }),
    field: 'input.name',
  },
  {
    what: 'a category group name over 50 characters',
    mutation: CREATE_GROUP,
    variables: () => ({ input: { name: long(51) } }),
    field: 'input.name',
  },
  {
    what: 'a category group renamed to over 50 characters',
    mutation: UPDATE_GROUP,
    variables: () => ({ input: { name: long(51) } }),
    field: 'input.name',
  },
  {
    what: 'a category moved to a null group',
    mutation: UPDATE_CATEGORY,
    variables: () => ({ input: { categoryGroupId: null } }),
    field: 'input.categoryGroupId',
  },
];

describe('mutation input rules', () => {
  it.each(CASES)(
    'refuses $what, naming $field, with no upstream call',
    async ({ mutation, variables, field }) => {
      const countBefore = (
        await stack.restData<{ transactions: unknown[] }>(
          `/plans/${stack.planId}/transactions?since_date=2020-01-01`,
        )
      ).transactions.length;
      stack.resetUpstreamCalls();
      const response = await stack.gql(mutation, { p: stack.planId, ...variables() });
      const error = onlyError(response);
      expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
      expect(error.message.startsWith(`${field}: `)).toBe(true);
      expect(stack.upstreamCalls()).toEqual([]);
      expect(Object.values(response.body.data ?? {})).toEqual([null]);
      const countAfter = (
        await stack.restData<{ transactions: unknown[] }>(
          `/plans/${stack.planId}/transactions?since_date=2020-01-01`,
        )
      ).transactions.length;
      expect(countAfter).toBe(countBefore);
    },
  );

  it('accepts the limits themselves (500-character payee, 50-character group, 36-character import id)', async () => {
    const response = await stack.gql(
      `mutation($p: PlanId!, $payee: CreatePayeeInput!, $group: CreateCategoryGroupInput!, $tx: CreateTransactionInput!) {
        payee: createPayee(planId: $p, input: $payee) { __typename }
        group: createCategoryGroup(planId: $p, input: $group) { __typename }
        tx: createTransaction(planId: $p, input: $tx) { __typename }
      }`,
      {
        p: stack.planId,
        payee: { name: long(500) },
        group: { name: long(50) },
        tx: tx({ importId: long(36), memo: long(500), payeeName: long(200) }),
      },
    );
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data).toEqual({
      payee: { __typename: 'CreatePayeePayload' },
      group: { __typename: 'CreateCategoryGroupPayload' },
      tx: { __typename: 'CreateTransactionPayload' },
    });
  });

  it('accepts a scheduled date exactly 5 years ahead and a split that adds up', async () => {
    const response = await stack.gql(
      `mutation($p: PlanId!, $s: CreateScheduledTransactionInput!, $tx: CreateTransactionInput!) {
        s: createScheduledTransaction(planId: $p, input: $s) { __typename ... on Error { message } }
        tx: createTransaction(planId: $p, input: $tx) { __typename ... on Error { message } }
      }`,
      {
        p: stack.planId,
        s: scheduled({ date: '2030-06-15', payeeId: transferPayeeId }),
        tx: tx({ amount: -3, subtransactions: [{ amount: -1 }, { amount: -2 }] }),
      },
    );
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data).toEqual({
      s: { __typename: 'CreateScheduledTransactionPayload' },
      tx: { __typename: 'CreateTransactionPayload' },
    });
  });
});
