/**
 * Milliunits beyond the 32-bit range, and near 2^53, read back exactly through the graph.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;
let planId: string;

async function post<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(`${stack.sandbox.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status, `POST ${path}`).toBe(201);
  return ((await response.json()) as { data: T }).data;
}

beforeAll(async () => {
  stack = await startStack({ serve: 'fetch' });
  planId = stack.sandbox.users[0]!.planIds[0]!;
});

afterAll(() => stack.close());

describe('Milliunits', () => {
  it.each([
    ['above 2^31', 3_000_000_000],
    ['near 2^53', 9_007_199_254_740_000],
  ])('an amount %s round-trips exactly from REST through the graph', async (_what, amount) => {
    // A tracking account of its own, so this amount alone makes its balance.
    const { account } = await post<{ account: { id: string } }>(`/plans/${planId}/accounts`, {
      account: { name: `Vault ${amount}`, type: 'otherAsset', balance: 0 },
    });
    const { transaction } = await post<{ transaction: { id: string } }>(
      `/plans/${planId}/transactions`,
      {
        transaction: {
          account_id: account.id,
          date: new Date().toISOString().slice(0, 10),
          amount,
          cleared: 'cleared',
        },
      },
    );
    const response = await stack.gql<{
      plan: {
        transaction: { amount: number; amountCurrency: number };
        account: { balance: number };
      };
    }>(
      `query($planId: PlanId!, $tx: ID!, $account: UUID!) { plan(id: $planId) {
        transaction(id: $tx) { amount amountCurrency } account(id: $account) { balance } } }`,
      { planId, tx: transaction.id, account: account.id },
      { headers: { 'cache-control': 'no-cache' } },
    );
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data?.plan.transaction.amount).toBe(amount);
    expect(Number.isSafeInteger(response.body.data?.plan.transaction.amount)).toBe(true);
    expect(response.body.data?.plan.account.balance).toBe(amount);
    expect(response.body.data?.plan.transaction.amountCurrency).toBeCloseTo(amount / 1000, 0);
  });
});
