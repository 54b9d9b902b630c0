/**
 * A write's payload carries what it changed (`changes`), so a normalized cache shows the new
 * amounts without a refetch: Apollo Client's InMemoryCache, configured by the client kit, holds
 * this month's MonthCategory, the account and the month; a createTransaction that selects
 * `changes` updates all three in the cache, and they agree with what the gateway answers next.
 */
import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { cacheConfig } from '@plans-gateway/client-kit/apollo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack.js';
import { recordingFetch } from './support/recorders.js';

interface MonthCategoryView {
  id: string;
  name: string;
  hidden: boolean;
  categoryGroupName: string;
  activity: number;
  balance: number;
}
interface Screen {
  plan: {
    id: string;
    accounts: { id: string; type: string; closed: boolean; balance: number }[];
    month: { id: string; activity: number; toBeBudgeted: number; categories: MonthCategoryView[] };
  };
}

const SCREEN = gql`
  query Screen {
    plan(id: "last-used") {
      id
      accounts { id type closed balance }
      month(month: "current") {
        id
        activity
        toBeBudgeted
        categories { id name hidden categoryGroupName activity balance }
      }
    }
  }
`;

const CHANGES = `
  changes {
    accounts { id balance }
    categories { id activity balance }
    monthCategories { id activity balance }
    months { id activity toBeBudgeted }
  }`;

const addTransaction = (withChanges: boolean) => gql`
  mutation AddTransaction($planId: PlanId!, $input: CreateTransactionInput!) {
    createTransaction(planId: $planId, input: $input) {
      __typename
      ... on CreateTransactionPayload {
        transaction { id amount }
        ${withChanges ? CHANGES : ''}
      }
      ... on Error { message }
    }
  }
`;

describe('mutation payloads carry what the write changed', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ sandbox: { rateLimit: false } });
  });
  afterAll(() => stack.close());

  const apollo = () => {
    const wire = recordingFetch();
    const client = new ApolloClient({
      link: new HttpLink({
        uri: stack.url,
        headers: { authorization: `Bearer ${stack.token}` },
        fetch: wire.fetch,
      }),
      cache: new InMemoryCache(cacheConfig()),
    });
    return { client, wire };
  };

  /** Reads the screen from the cache alone. */
  const cached = (client: ApolloClient) => client.readQuery<Screen>({ query: SCREEN })!.plan;

  /** A spending category of this month and an open budget account to spend from. */
  const targets = (screen: Screen['plan']) => {
    const category = screen.month.categories.find(
      (c) => !c.hidden && !/internal|credit card/i.test(c.categoryGroupName),
    )!;
    const account = screen.accounts.find((a) => a.type === 'checking' && !a.closed)!;
    return { category, account };
  };

  const spend = (client: ApolloClient, screen: Screen['plan'], withChanges: boolean) => {
    const { category, account } = targets(screen);
    return client.mutate({
      mutation: addTransaction(withChanges),
      variables: {
        planId: screen.id,
        input: {
          accountId: account.id,
          categoryId: category.id.split(':')[0],
          amount: -12_340,
          date: new Date().toISOString().slice(0, 10),
          memo: 'changes test',
        },
      },
    });
  };

  it("updates this month's category activity, the account balance and the month in the cache, without a refetch", async () => {
    const { client, wire } = apollo();
    const before = (await client.query<Screen>({ query: SCREEN })).data!.plan;
    const { category, account } = targets(before);

    const result = await spend(client, before, true);
    expect(result.data).toMatchObject({
      createTransaction: { __typename: 'CreateTransactionPayload' },
    });
    expect(wire.requests).toHaveLength(2); // the query and the mutation: no refetch

    const after = cached(client);
    const { category: categoryAfter, account: accountAfter } = targets(after);
    expect(categoryAfter.id).toBe(category.id);
    expect(categoryAfter.activity).toBe(category.activity - 12_340);
    expect(categoryAfter.balance).toBe(category.balance - 12_340);
    expect(accountAfter.balance).toBe(account.balance - 12_340);
    expect(after.month.activity).toBe(before.month.activity - 12_340);

    // What the cache now holds is what the gateway answers (read-your-writes, no upstream call).
    stack.resetUpstreamCalls();
    const fresh = await client.query<Screen>({ query: SCREEN, fetchPolicy: 'network-only' });
    expect(fresh.data!.plan).toEqual(after);
    expect(stack.upstreamCalls()).toEqual([]);
  });

  it('without `changes` selected, the cache keeps the old activity (what `changes` is for)', async () => {
    const { client } = apollo();
    const before = (await client.query<Screen>({ query: SCREEN })).data!.plan;
    await spend(client, before, false);
    const { category } = targets(before);
    expect(targets(cached(client)).category.activity).toBe(category.activity);
  });

  it('lists only what the write changed: the one account, category and month touched', async () => {
    const { client } = apollo();
    const before = (await client.query<Screen>({ query: SCREEN })).data!.plan;
    const result = await spend(client, before, true);
    const { changes } = (
      result.data as {
        createTransaction: {
          changes: Record<
            'accounts' | 'categories' | 'monthCategories' | 'months',
            { id: string }[]
          >;
        };
      }
    ).createTransaction;
    const { category, account } = targets(before);
    expect(changes.accounts.map((a) => a.id)).toEqual([account.id]);
    expect(changes.monthCategories.map((c) => c.id)).toContain(category.id);
    expect(changes.months.map((m) => m.id)).toContain(before.month.id);
    // The months after it carry the category's balance forward; nothing unrelated is listed.
    const categoryIds = new Set(changes.monthCategories.map((c) => c.id.split(':')[0]));
    expect(categoryIds.size).toBeLessThanOrEqual(2);
  });

  it('answers `changes: null` when the gateway held no replica of the plan before the write', async () => {
    const { client } = apollo();
    const before = (await client.query<Screen>({ query: SCREEN })).data!.plan;
    stack.gateway.replicas.clear();
    const result = await spend(client, before, true);
    expect(result.data).toMatchObject({
      createTransaction: { __typename: 'CreateTransactionPayload', changes: null },
    });
  });

  it('an assignment brings the category and Ready to Assign of its month into the cache', async () => {
    const { client, wire } = apollo();
    const before = (await client.query<Screen>({ query: SCREEN })).data!.plan;
    const { category } = targets(before);
    const month = before.month.id.split(':')[1];
    const budgeted = await client.query<{
      plan: { month: { categories: { id: string; budgeted: number }[] } };
    }>({
      query: gql`
        query Assigned {
          plan(id: "last-used") { id month(month: "current") { id categories { id budgeted } } }
        }
      `,
    });
    const assigned = budgeted.data!.plan.month.categories.find(
      (c) => c.id === category.id,
    )!.budgeted;
    const requests = wire.requests.length;
    await client.mutate({
      mutation: gql`
        mutation Assign($planId: PlanId!, $categoryId: UUID!, $month: MonthSelector!, $budgeted: Milliunits!) {
          updateMonthCategory(planId: $planId, categoryId: $categoryId, month: $month, input: { budgeted: $budgeted }) {
            __typename
            ... on UpdateMonthCategoryPayload {
              changes {
                monthCategories { id budgeted activity balance }
                months { id activity toBeBudgeted }
              }
            }
          }
        }
      `,
      variables: {
        planId: before.id,
        categoryId: category.id.split(':')[0],
        month,
        budgeted: assigned + 10_000,
      },
    });
    expect(wire.requests.length).toBe(requests + 1);
    const after = cached(client);
    expect(targets(after).category.balance).toBe(category.balance + 10_000);
    expect(after.month.toBeBudgeted).toBe(before.month.toBeBudgeted - 10_000);
  });
});
