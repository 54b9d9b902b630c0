/**
 * Writes in one trip: when a write's answer is exactly one knowledge step past the replica, the
 * gateway applies its derived effects (balances, activity, Ready to Assign) from its own
 * arithmetic and answers without a delta; the next delta checks them. Another change in between
 * (two steps) runs the delta as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack } from '../support/stack.js';
import {
  MUTATIONS,
  type MutationStack,
  resultOf,
  TODAY,
  withLookups,
} from './support/plan-lookups.js';

const CREATE_BALANCE = `mutation($p: PlanId!, $input: CreateTransactionInput!) {
  createTransaction(planId: $p, input: $input) {
    __typename
    ... on CreateTransactionPayload { transaction { id account { balance clearedBalance unclearedBalance } } }
  }
}`;

type Created = {
  transaction: {
    id: string;
    account: { balance: number; clearedBalance: number; unclearedBalance: number };
  };
};

let stack: MutationStack;

beforeAll(async () => {
  stack = withLookups(await startStack(MUTATIONS));
});
afterAll(() => stack.close());

const upstreamCalls = () => stack.upstreamCalls();

describe('a write selecting its account balance', () => {
  it('costs one upstream call when its answer is one step past the replica', async () => {
    const checking = await stack.accountOfType('checking');
    const category = (await stack.categories()).find(
      (c) => c.goal_type === null && !c.hidden && !c.internal && !c.deleted && c.budgeted > 0,
    );
    if (!category) throw new Error('the seed has no category without a target');
    await stack.gql('{ plan(id: "last-used") { id } }');
    stack.resetUpstreamCalls();

    const response = await stack.gql(CREATE_BALANCE, {
      p: stack.planId,
      input: {
        accountId: checking.id,
        date: TODAY,
        amount: -4_321,
        categoryId: category.id,
        cleared: 'uncleared',
      },
    });
    const created = resultOf<Created>(response, 'createTransaction', 'CreateTransactionPayload');
    expect(upstreamCalls()).toEqual(['createTransaction']);
    const account = await stack.account(checking.id);
    expect(created.transaction.account).toEqual({
      balance: account.balance,
      clearedBalance: account.cleared_balance,
      unclearedBalance: account.uncleared_balance,
    });
  });

  it("moves next month's Ready to Assign by what it overspends, without a delta", async () => {
    const checking = await stack.accountOfType('checking');
    const category = (await stack.categories()).find(
      (c) => c.goal_type === null && !c.hidden && !c.internal && !c.deleted && c.budgeted > 0,
    );
    if (!category) throw new Error('the seed has no category without a target');
    const lastMonth = `${new Date(Date.parse(`${TODAY.slice(0, 7)}-01T00:00:00Z`) - 86_400_000)
      .toISOString()
      .slice(0, 7)}-01`;
    const before = await stack.monthCategory(lastMonth, category.id);
    await stack.gql('{ plan(id: "last-used") { id } }');
    stack.resetUpstreamCalls();

    const response = await stack.gql(
      `mutation($p: PlanId!, $input: CreateTransactionInput!) {
        createTransaction(planId: $p, input: $input) {
          __typename
          ... on CreateTransactionPayload { plan { months { month income budgeted activity toBeBudgeted } } }
        }
      }`,
      {
        p: stack.planId,
        input: {
          accountId: checking.id,
          date: `${lastMonth.slice(0, 7)}-10`,
          amount: -(Math.max(0, before.balance) + 77_000),
          categoryId: category.id,
        },
      },
    );
    const payload = resultOf<{
      plan: {
        months: {
          month: string;
          income: number;
          budgeted: number;
          activity: number;
          toBeBudgeted: number;
        }[];
      };
    }>(response, 'createTransaction', 'CreateTransactionPayload');
    expect(upstreamCalls()).toEqual(['createTransaction']);
    const rest = await stack.restData<{
      months: {
        month: string;
        income: number;
        budgeted: number;
        activity: number;
        to_be_budgeted: number;
        deleted: boolean;
      }[];
    }>(`/plans/${stack.planId}/months`);
    const expected = rest.months
      .filter((m) => !m.deleted)
      .map((m) => ({
        month: m.month,
        income: m.income,
        budgeted: m.budgeted,
        activity: m.activity,
        toBeBudgeted: m.to_be_budgeted,
      }));
    const byMonth = (a: { month: string }, b: { month: string }) => a.month.localeCompare(b.month);
    expect([...payload.plan.months].sort(byMonth)).toEqual(expected.sort(byMonth));
    expect(await stack.monthCategory(lastMonth, category.id)).toMatchObject({ balance: -77_000 });
  });

  it('costs the write and a delta when another change happened in between', async () => {
    const checking = await stack.accountOfType('checking');
    const savings = await stack.accountOfType('savings');
    await stack.gql('{ plan(id: "last-used") { id } }');
    // A change the replica does not know of: the write's answer is two steps past it.
    const other = await fetch(`${stack.sandbox.url}/plans/${stack.planId}/transactions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${stack.token}`,
        'content-type': 'application/json',
        connection: 'close',
      },
      body: JSON.stringify({
        transaction: { account_id: savings.id, date: TODAY, amount: -1_000 },
      }),
    });
    expect(other.status).toBe(201);
    stack.resetUpstreamCalls();

    const response = await stack.gql(CREATE_BALANCE, {
      p: stack.planId,
      input: { accountId: checking.id, date: TODAY, amount: -2_000 },
    });
    const created = resultOf<Created>(response, 'createTransaction', 'CreateTransactionPayload');
    expect(upstreamCalls()).toEqual(['createTransaction', 'getPlanById']);
    const account = await stack.account(checking.id);
    expect(created.transaction.account.balance).toBe(account.balance);
  });
});
