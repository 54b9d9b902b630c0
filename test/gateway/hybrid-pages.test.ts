/**
 * `category.transactions` and `payee.transactions` (REST hybrid rows) cost in proportion to
 * the page (issue 8, item 3): a page reads a chunk of the index from its cursor instead of
 * building every row and cursor of the category, pages walked forward and backward list the
 * same rows as one big page and as REST, and `first: 0` does not make what is below it free.
 */
import type { PlanDetail } from '@plans-gateway/rest-contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueryMeter } from '../../src/replica/transaction-query.js';
import type { GraphQLResponse } from '../support/graphql.js';
import type { ClockedStack, ServedGateway } from '../support/stack.js';
import { dataOf } from './support/responses.js';
import { startMeteredStack } from './support/row-meter.js';

const TOKEN = 'hybrid-pages-token-0001';
const TRANSACTIONS = 5_000;
let stack: ClockedStack;
/** A second gateway on the stack's sandbox whose replicas count the rows they visit. */
let metered: ServedGateway;
let meter: QueryMeter;
let planId: string;
let busiest: { id: string; rows: number };
let splitCategory: string;
let busiestPayee: string;

interface HybridPage {
  totalCount: number;
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
  edges: {
    cursor: string;
    node: { transactionId: string; subtransactionId: string | null; type: string };
  }[];
}

beforeAll(async () => {
  ({ stack, metered, meter } = await startMeteredStack(TOKEN, {
    seed: 4,
    transactions: TRANSACTIONS,
  }));
  planId = stack.planId;
  const { body } = await stack.rest<{ data: { plan: PlanDetail } }>(`/plans/${planId}`, TOKEN);
  const { plan } = body.data;
  const byCategory = new Map<string, number>();
  const byPayee = new Map<string, number>();
  const count = (map: Map<string, number>, key: string | null) => {
    if (key) map.set(key, (map.get(key) ?? 0) + 1);
  };
  for (const t of plan.transactions) {
    if (t.deleted) continue;
    count(byCategory, t.category_id);
    count(byPayee, t.payee_id);
  }
  for (const s of plan.subtransactions) {
    if (s.deleted) continue;
    count(byCategory, s.category_id);
    count(byPayee, s.payee_id);
  }
  const [id, rows] = [...byCategory].sort((a, b) => b[1] - a[1])[0]!;
  busiest = { id, rows };
  // Lists that fit one page of 500, with split lines among their rows.
  const fits = (map: Map<string, number>, key: string | null) =>
    key !== null && (map.get(key) ?? 0) >= 20 && (map.get(key) ?? 0) <= 300;
  splitCategory = plan.subtransactions.find((s) => !s.deleted && fits(byCategory, s.category_id))!
    .category_id!;
  busiestPayee = [...byPayee]
    .filter(([key]) => fits(byPayee, key))
    .sort((a, b) => b[1] - a[1])[0]![0];
  expect(busiest.rows).toBeGreaterThan(300);
}, 60_000);

afterAll(() => stack?.close());

const PAGE = /* GraphQL */ `
  query (
    $planId: PlanId!
    $category: UUID!
    $payee: UUID!
    $byPayee: Boolean!
    $type: TransactionTypeFilter
    $order: TransactionOrder
    $first: Int
    $last: Int
    $after: String
    $before: String
  ) {
    plan(id: $planId) {
      category(id: $category) @skip(if: $byPayee) {
        transactions(
          type: $type
          order: $order
          first: $first
          last: $last
          after: $after
          before: $before
        ) {
          ...page
        }
      }
      payee(id: $payee) @include(if: $byPayee) {
        transactions(
          type: $type
          order: $order
          first: $first
          last: $last
          after: $after
          before: $before
        ) {
          ...page
        }
      }
    }
  }
  fragment page on HybridTransactionConnection {
    totalCount
    pageInfo {
      hasNextPage
      hasPreviousPage
      startCursor
      endCursor
    }
    edges {
      cursor
      node {
        transactionId
        subtransactionId
        type
      }
    }
  }
`;

interface Case {
  byPayee: boolean;
  type: 'unapproved' | 'uncategorized' | null;
  order: 'DATE_DESC' | 'DATE_ASC';
}

async function page(c: Case, window: Record<string, unknown>): Promise<HybridPage> {
  const response: GraphQLResponse<{
    plan: { category?: { transactions: HybridPage }; payee?: { transactions: HybridPage } };
  }> = await stack.gql(
    PAGE,
    { planId, category: splitCategory, payee: busiestPayee, ...c, ...window },
    { token: TOKEN },
  );
  const plan = dataOf(response).plan;
  return (c.byPayee ? plan.payee : plan.category)!.transactions;
}

/** The REST id of each row: its split line's, else its transaction's. */
const ids = (p: HybridPage) => p.edges.map((e) => e.node.subtransactionId ?? e.node.transactionId);

describe('hybrid pages', () => {
  const cases: Case[] = [];
  for (const byPayee of [false, true])
    for (const type of [null, 'unapproved', 'uncategorized'] as const)
      for (const order of ['DATE_DESC', 'DATE_ASC'] as const) cases.push({ byPayee, type, order });

  it('walks forward and backward through the same rows as one page, with REST totals', async () => {
    for (const c of cases) {
      const what = JSON.stringify(c);
      const all = await page(c, { first: 500 });
      expect(all.pageInfo.hasNextPage, what).toBe(false);
      expect(all.totalCount, what).toBe(all.edges.length);
      const list = c.byPayee ? `payees/${busiestPayee}` : `categories/${splitCategory}`;
      const rest = await stack.rest<{ data: { transactions: { id: string }[] } }>(
        `/plans/${planId}/${list}/transactions?since_date=2000-01-01${c.type ? `&type=${c.type}` : ''}`,
        TOKEN,
      );
      expect(new Set(ids(all)), what).toEqual(
        new Set(rest.body.data.transactions.map((t) => t.id)),
      );

      const forward: string[] = [];
      let after: string | null = null;
      for (let guard = 0; guard < 200; guard++) {
        const p: HybridPage = await page(c, { first: 7, after });
        forward.push(...ids(p));
        expect(p.pageInfo.hasPreviousPage, what).toBe(after !== null && p.totalCount > 0);
        if (!p.pageInfo.hasNextPage) break;
        after = p.pageInfo.endCursor;
      }
      expect(forward, what).toEqual(ids(all));

      const backward: string[][] = [];
      let before: string | null = null;
      for (let guard = 0; guard < 200; guard++) {
        const p: HybridPage = await page(c, { last: 7, before });
        backward.unshift(ids(p));
        if (!p.pageInfo.hasPreviousPage) break;
        before = p.pageInfo.startCursor;
      }
      expect(backward.flat(), what).toEqual(ids(all));
    }
  });

  it('has a split category whose lines are rows of their own', async () => {
    const all = await page({ byPayee: false, type: null, order: 'DATE_DESC' }, { first: 500 });
    expect(all.edges.some((e) => e.node.type === 'subtransaction')).toBe(true);
  });

  it('answers 30 aliases of a page of the busiest category from a chunk of its index each', async () => {
    const query = `query($planId: PlanId!) { plan(id: $planId) { ${Array.from(
      { length: 30 },
      (_, i) =>
        `a${i}: category(id: "${busiest.id}") { transactions(first: 1) { edges { cursor node { id } } } }`,
    ).join(' ')} } }`;
    await metered.gql(
      `query($planId: PlanId!) { plan(id: $planId) { id } }`,
      { planId },
      { token: TOKEN },
    );
    meter.rowsVisited = 0;
    const answer = await metered.gql(query, { planId }, { token: TOKEN });
    expect(answer.body.errors).toBeUndefined();
    // Each alias reads the first chunk of 16 parents; it used to build all of the category's rows.
    expect(meter.rowsVisited).toBeLessThanOrEqual(30 * 16);
    expect(busiest.rows * 30).toBeGreaterThan(10 * meter.rowsVisited);
  });

  it('prices what is below first: 0 and counts only when asked', async () => {
    // A `type` filter walks (counts without one are kept by the index: hybrid-counts.test.ts).
    const counted = 'categories { transactions(first: 0, type: unapproved) { totalCount } }';
    const many = await stack.gql(
      `query($planId: PlanId!) { plan(id: $planId) { ${Array.from({ length: 30 }, (_, i) => `a${i}: ${counted}`).join(' ')} } }`,
      { planId },
      { token: TOKEN },
    );
    expect(many.body.data ?? null).toBeNull();
    expect(many.body.errors?.[0]?.extensions).toMatchObject({
      code: 'OPERATION_TOO_COMPLEX',
      limit: 'cost',
    });

    const one = await stack.gql<{ plan: { category: { transactions: { totalCount: number } } } }>(
      `query($planId: PlanId!, $id: UUID!) { plan(id: $planId) { category(id: $id) { transactions(first: 0) { totalCount edges { cursor } } } } }`,
      { planId, id: busiest.id },
      { token: TOKEN },
    );
    expect(dataOf(one).plan.category.transactions.totalCount).toBeGreaterThanOrEqual(busiest.rows);

    meter.rowsVisited = 0;
    await metered.gql(
      `query($planId: PlanId!, $id: UUID!) { plan(id: $planId) { category(id: $id) { transactions(first: 0) { edges { cursor } } } } }`,
      { planId, id: busiest.id },
      { token: TOKEN },
    );
    expect(meter.rowsVisited).toBe(0);
  });
});
