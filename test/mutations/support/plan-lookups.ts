/**
 * Shared by the mutation suites: the stack they run on (`MUTATIONS`: sandbox and gateway share one
 * ticking clock, so "today", max-age and replica ages never depend on the wall clock; no socket),
 * REST look-ups at the sandbox (`withLookups`), and readers of typed mutation results.
 */

import type {
  Account,
  Category,
  CategoryGroupWithCategories,
  Payee,
  ScheduledTransactionDetail,
  TransactionDetail,
} from '@plans-gateway/rest-contract';
import { expect } from 'vitest';
import type { GraphQLResponse } from '../../support/graphql.js';
import type { ClockedStack, StackOptions } from '../../support/stack.js';

/**
 * The day the stack's clock starts on (`START`): mid-month, so "today", the current month and
 * last month are all distinct.
 */
export const TODAY = '2025-06-15';

/** `startStack(MUTATIONS)`: a ticking clock, a rate-limit-free sandbox with one plan of 300. */
export const MUTATIONS = {
  clock: 'ticking' as const,
  serve: 'fetch' as const,
  sandbox: {
    rateLimit: false,
    users: [
      {
        token: 'mutations-token-0123456789',
        readOnlyToken: 'mutations-read-only-0123456789',
        plans: [{ transactions: 300 }],
      },
    ],
  },
} satisfies StackOptions;

export interface PlanLookups {
  readOnlyToken: string;
  /** GET at the sandbox, asserting 200, returning `data`. */
  restData<T>(path: string): Promise<T>;
  accounts(): Promise<Account[]>;
  account(id: string): Promise<Account>;
  categories(): Promise<Category[]>;
  category(id: string): Promise<Category>;
  monthCategory(month: string, id: string): Promise<Category>;
  payees(): Promise<Payee[]>;
  transaction(id: string): Promise<TransactionDetail>;
  scheduledTransaction(id: string): Promise<ScheduledTransactionDetail>;
  /** An open on-budget account of this type from the seed. */
  accountOfType(type: string): Promise<Account>;
  /** A visible, user-facing category (not internal, not credit card payment). */
  spendingCategory(index?: number): Promise<Category>;
  /** A visible category with a target (the first the plan lists). */
  categoryWithTarget(): Promise<Category>;
}

export type MutationStack = ClockedStack & PlanLookups;

let viaDeltaCount = 0;

/**
 * What makes a created transaction take its delta: the gateway's one-trip arithmetic leaves an
 * imported transaction to it (src/replica/local-effects.ts). A new import id on each call.
 */
export function viaDelta(): { importId: string } {
  viaDeltaCount += 1;
  return { importId: `via-delta:${viaDeltaCount}` };
}

/** The stack with look-ups of its first user's first plan at the sandbox (the same object). */
export function withLookups(stack: ClockedStack): MutationStack {
  const user = stack.sandbox.users[0]!;
  const planId = user.planIds[0]!;
  const base = `/plans/${planId}`;

  async function restData<T>(path: string): Promise<T> {
    const response = await stack.rest<{ data: T }>(path);
    expect(response.status, `GET ${path}`).toBe(200);
    return response.body.data;
  }

  const accounts = async () =>
    (await restData<{ accounts: Account[] }>(`${base}/accounts`)).accounts;
  const categoryGroups = async () =>
    (await restData<{ category_groups: CategoryGroupWithCategories[] }>(`${base}/categories`))
      .category_groups;

  const lookups: PlanLookups = {
    readOnlyToken: user.readOnlyToken!,
    restData,
    accounts,
    account: async (id) => (await restData<{ account: Account }>(`${base}/accounts/${id}`)).account,
    categories: async () => (await categoryGroups()).flatMap((group) => group.categories),
    category: async (id) =>
      (await restData<{ category: Category }>(`${base}/categories/${id}`)).category,
    monthCategory: async (month, id) =>
      (await restData<{ category: Category }>(`${base}/months/${month}/categories/${id}`)).category,
    payees: async () => (await restData<{ payees: Payee[] }>(`${base}/payees`)).payees,
    transaction: async (id) =>
      (await restData<{ transaction: TransactionDetail }>(`${base}/transactions/${id}`))
        .transaction,
    scheduledTransaction: async (id) =>
      (
        await restData<{ scheduled_transaction: ScheduledTransactionDetail }>(
          `${base}/scheduled_transactions/${id}`,
        )
      ).scheduled_transaction,
    async accountOfType(type) {
      const account = (await accounts()).find((a) => a.type === type && !a.closed && !a.deleted);
      if (!account) throw new Error(`the seed has no open ${type} account`);
      return account;
    },
    async spendingCategory(index = 0) {
      const usable = (await categoryGroups())
        .filter((g) => !g.internal && !g.hidden && g.name !== 'Credit Card Payments')
        .flatMap((g) => g.categories)
        .filter((c) => !c.hidden && !c.internal);
      const category = usable[index];
      if (!category) throw new Error(`no spending category #${index}`);
      return category;
    },
    async categoryWithTarget() {
      const category = (await categoryGroups())
        .filter((g) => !g.internal && !g.hidden)
        .flatMap((g) => g.categories)
        .find((c) => c.goal_type !== null && !c.hidden && !c.deleted);
      if (!category) throw new Error('the seed has no category with a target');
      return category;
    },
  };
  return Object.assign(stack, lookups);
}

/** The typed result of mutation `field`: asserts no GraphQL errors and the expected typename. */
export function resultOf<T = Record<string, unknown>>(
  response: GraphQLResponse,
  field: string,
  typename: string,
): T & { __typename: string } {
  expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
  const result = response.body.data?.[field] as (T & { __typename: string }) | null | undefined;
  expect(result?.__typename, JSON.stringify(result)).toBe(typename);
  return result!;
}

/**
 * The result of a typed mutation document (one that selects `__typename`), narrowed to the member
 * `typename`: the test fails on any other.
 */
export function memberOf<Result extends { __typename: string }, Name extends Result['__typename']>(
  result: Result | null | undefined,
  typename: Name,
): Extract<Result, { __typename: Name }> {
  expect(result?.__typename, JSON.stringify(result)).toBe(typename);
  return result as Extract<Result, { __typename: Name }>;
}

/** The single GraphQL error of a response. */
export function onlyError(response: GraphQLResponse) {
  expect(response.body.errors, JSON.stringify(response.body)).toHaveLength(1);
  return response.body.errors![0]!;
}

/** Selection for every typed failure. */
export const FAILURES = `
  ... on Error { __typename message }
  ... on ValidationError { restError { status id name detail } }
  ... on ReadOnlyScopeError { restError { status id name detail } }
  ... on NotFoundError { restError { status id name detail } }
`;
