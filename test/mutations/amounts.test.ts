/**
 * Milliunits through mutations: amounts beyond 32 bits and up to 2^53 - 1 round-trip exactly
 * (mutation, payload, later query, REST); fractions and unsafe integers are refused before any
 * upstream call, as literals and as variables.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack } from '../support/stack.js';
import {
  MUTATIONS,
  type MutationStack,
  onlyError,
  resultOf,
  TODAY,
  withLookups,
} from './support/plan-lookups.js';

let stack: MutationStack;

beforeAll(async () => {
  stack = withLookups(await startStack(MUTATIONS));
  await stack.gql('{ plan(id: "last-used") { id } }');
});

afterAll(() => stack.close());

/**
 * The largest amount the sandbox accepts is Number.MAX_SAFE_INTEGER (2^53 - 1 milliunits, about
 * 9 trillion currency units): it takes any safe integer. A tracking account keeps it out of the
 * plan's month totals, which would otherwise pass 2^53 when added to the seed's amounts.
 */
const LARGEST = Number.MAX_SAFE_INTEGER;
const ABOVE_INT32 = 3_000_000_123;

describe('large amounts round-trip exactly', () => {
  it('an account balance of 2^53 - 1 milliunits, and a transaction that brings it to 1', async () => {
    const created = resultOf<{ account: { id: string; balance: number } }>(
      await stack.gql(
        `mutation($p: PlanId!, $input: CreateAccountInput!) { createAccount(planId: $p, input: $input) {
          __typename ... on CreateAccountPayload { account { id balance } } } }`,
        {
          p: stack.planId,
          input: { name: 'Very large asset', type: 'otherAsset', balance: LARGEST },
        },
      ),
      'createAccount',
      'CreateAccountPayload',
    );
    expect(created.account.balance).toBe(LARGEST);
    expect((await stack.account(created.account.id)).balance).toBe(LARGEST);

    // As a literal in the document this time (the variable path is above).
    const spent = resultOf<{ transaction: { amount: number; account: { balance: number } } }>(
      await stack.gql(
        `mutation($p: PlanId!, $account: UUID!) { createTransaction(planId: $p, input: {
          accountId: $account, date: "${TODAY}", amount: -9007199254740990, payeeName: "Almost all of it"
        }) { __typename ... on CreateTransactionPayload { transaction { amount account { balance } } } } }`,
        { p: stack.planId, account: created.account.id },
      ),
      'createTransaction',
      'CreateTransactionPayload',
    );
    expect(spent.transaction).toEqual({ amount: -9_007_199_254_740_990, account: { balance: 1 } });

    const read = await stack.gql<{
      plan: { account: { balance: number; transactions: { nodes: { amount: number }[] } } };
    }>(
      `query($id: UUID!) { plan(id: "last-used") { account(id: $id) { balance transactions(first: 5) { nodes { amount } } } } }`,
      { id: created.account.id },
    );
    expect(read.body.data?.plan.account.balance).toBe(1);
    expect(
      read.body.data?.plan.account.transactions.nodes.map((n) => n.amount).sort((a, b) => a - b),
    ).toEqual([-9_007_199_254_740_990, LARGEST]);
  });

  it('a transaction above 2^31 milliunits on an on-budget account', async () => {
    const checking = await stack.accountOfType('checking');
    const payload = resultOf<{
      transaction: { id: string; amount: number; account: { balance: number } };
    }>(
      await stack.gql(
        `mutation($p: PlanId!, $input: CreateTransactionInput!) { createTransaction(planId: $p, input: $input) {
          __typename ... on CreateTransactionPayload { transaction { id amount account { balance } } } } }`,
        {
          p: stack.planId,
          input: { accountId: checking.id, date: TODAY, amount: ABOVE_INT32, payeeName: 'Lottery' },
        },
      ),
      'createTransaction',
      'CreateTransactionPayload',
    );
    expect(payload.transaction.amount).toBe(ABOVE_INT32);
    expect(payload.transaction.account.balance).toBe(checking.balance + ABOVE_INT32);
    expect((await stack.transaction(payload.transaction.id)).amount).toBe(ABOVE_INT32);
    const read = await stack.gql<{ plan: { transaction: { amount: number } } }>(
      `query($id: ID!) { plan(id: "last-used") { transaction(id: $id) { amount } } }`,
      { id: payload.transaction.id },
    );
    expect(read.body.data?.plan.transaction.amount).toBe(ABOVE_INT32);
  });
});

describe('amounts refused before any upstream call', () => {
  async function refused(query: string, variables: Record<string, unknown>) {
    stack.resetUpstreamCalls();
    const response = await stack.gql(query, { p: stack.planId, ...variables });
    const error = onlyError(response);
    expect(error.extensions?.code).toBe('BAD_USER_INPUT');
    expect(stack.upstreamCalls()).toEqual([]);
    return error;
  }

  it('a fractional literal, naming the input field', async () => {
    const checking = await stack.accountOfType('checking');
    const error = await refused(
      `mutation($p: PlanId!) { createTransaction(planId: $p, input: {
        accountId: "${checking.id}", date: "${TODAY}", amount: 12.5, payeeName: "Half"
      }) { __typename } }`,
      {},
    );
    expect(error.message).toContain('input.amount');
    expect(error.message).toContain('whole number');
  });

  it('a fractional variable, naming the variable', async () => {
    const error = await refused(
      'mutation($p: PlanId!, $amount: Milliunits!) { updateMonthCategory(planId: $p, month: "current", categoryId: "11111111-2222-4333-8444-555555555555", input: { budgeted: $amount }) { __typename } }',
      { amount: 1500.25 },
    );
    expect(error.message).toContain('$amount');
    expect(error.message).toContain('whole number');
  });

  it('a fractional amount deep inside an input variable, naming its path', async () => {
    const checking = await stack.accountOfType('checking');
    const error = await refused(
      'mutation($p: PlanId!, $input: CreateTransactionInput!) { createTransaction(planId: $p, input: $input) { __typename } }',
      {
        input: {
          accountId: checking.id,
          date: TODAY,
          amount: -2,
          subtransactions: [{ amount: -1 }, { amount: -0.999 }],
        },
      },
    );
    expect(error.message).toContain('$input');
    expect(error.message).toContain('subtransactions[1].amount');
  });

  it('an integer beyond 2^53 - 1, as a literal and as a variable', async () => {
    const literal = await refused(
      'mutation($p: PlanId!) { createAccount(planId: $p, input: { name: "Too big", type: cash, balance: 9007199254740993 }) { __typename } }',
      {},
    );
    expect(literal.message).toContain('input.balance');
    const variable = await refused(
      'mutation($p: PlanId!, $input: CreateAccountInput!) { createAccount(planId: $p, input: $input) { __typename } }',
      { input: { name: 'Too big', type: 'cash', balance: 2 ** 60 } },
    );
    expect(variable.message).toContain('balance');
  });
});
