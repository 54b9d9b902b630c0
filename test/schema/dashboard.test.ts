/**
 * The dashboard in one round-trip: plan, accounts, categories with this month's amounts and
 * the newest 50 transactions with their names and splits. Upstream calls are counted at the
 * sandbox: none repeated, none per item.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardDocument } from '../generated/operations.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ serve: 'fetch' });
});

afterAll(() => stack.close());

describe('dashboard operation', () => {
  it('answers a whole screen with one upstream call when cold', async () => {
    stack.resetUpstreamCalls();
    const response = await stack.gql(DashboardDocument);
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    const plan = response.body.data!.plan!;
    expect(plan.accounts.length).toBeGreaterThanOrEqual(6);
    expect(plan.categoryGroups.flatMap((g) => g.categories).length).toBeGreaterThan(10);
    expect(plan.transactions.nodes).toHaveLength(50);
    expect(plan.transactions.totalCount).toBeGreaterThanOrEqual(1000);
    const dates = plan.transactions.nodes.map((t) => t.date);
    expect(dates).toEqual([...dates].sort().reverse());
    expect(plan.transactions.nodes.every((t) => t.account !== null)).toBe(true);
    expect(plan.transactions.nodes.some((t) => t.subtransactions.length > 1)).toBe(true);

    const calls = stack.upstreamCalls();
    expect(new Set(calls).size, `repeated calls: ${calls.join(', ')}`).toBe(calls.length);
    expect(calls).toEqual(['getPlanById']);
    expect(response.body.extensions?.upstream).toMatchObject({
      calls: 1,
      operations: { getPlanById: 1 },
    });
  });

  it('costs no upstream call within max-age', async () => {
    stack.resetUpstreamCalls();
    const response = await stack.gql(DashboardDocument);
    expect(response.body.errors).toBeUndefined();
    expect(stack.upstreamCalls()).toEqual([]);
    expect(response.body.extensions?.upstream).toMatchObject({ calls: 0 });
  });

  it('agrees with the REST answers it replaces', async () => {
    const response = await stack.gql(DashboardDocument);
    const plan = response.body.data!.plan!;
    const accounts = await stack.rest<{ data: { accounts: { id: string; balance: number }[] } }>(
      `/plans/${plan.id}/accounts`,
    );
    expect(Object.fromEntries(plan.accounts.map((a) => [a.id, a.balance]))).toEqual(
      Object.fromEntries(accounts.body.data.accounts.map((a) => [a.id, a.balance])),
    );
    const categories = await stack.rest<{
      data: {
        category_groups: {
          categories: { id: string; budgeted: number; activity: number; balance: number }[];
        }[];
      };
    }>(`/plans/${plan.id}/categories`);
    const amounts = (c: { id: string; budgeted: number; activity: number; balance: number }) => [
      c.id,
      [c.budgeted, c.activity, c.balance],
    ];
    expect(
      Object.fromEntries(plan.categoryGroups.flatMap((g) => g.categories).map(amounts)),
    ).toEqual(
      Object.fromEntries(
        categories.body.data.category_groups.flatMap((g) => g.categories).map(amounts),
      ),
    );
  });
});
