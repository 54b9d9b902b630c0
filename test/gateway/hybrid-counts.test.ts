/**
 * `totalCount` of `category.transactions` and `payee.transactions` (REST hybrid rows) comes from
 * row counts the replica's indexes keep per transaction (issue 18, item 5): it visits no row,
 * whatever the size of the category or payee, equals what REST lists, stays right through delta
 * merges (a new split, a recategorised and a deleted transaction), and only a `type` filter,
 * which is still checked row by row, is priced as a walk.
 */

import type { PlanDetail } from '@plans-gateway/rest-contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueryMeter } from '../../src/replica/transaction-query.js';
import type { ClockedStack, ServedGateway } from '../support/stack.js';
import { dataOf } from './support/responses.js';
import { startMeteredStack } from './support/row-meter.js';

const TOKEN = 'hybrid-counts-token-001';
const TRANSACTIONS = 5_000;
let stack: ClockedStack;
/** A second gateway on the stack's sandbox whose replicas count the rows they visit. */
let metered: ServedGateway;
let meter: QueryMeter;
let planId: string;

const COUNTS = /* GraphQL */ `
  query ($planId: PlanId!, $month: MonthSelector, $sinceDate: Date, $untilDate: Date) {
    plan(id: $planId) {
      categories {
        id
        transactions(first: 0, month: $month, sinceDate: $sinceDate, untilDate: $untilDate) {
          totalCount
        }
      }
      payees {
        id
        transactions(first: 0, month: $month, sinceDate: $sinceDate, untilDate: $untilDate) {
          totalCount
        }
      }
    }
  }
`;
interface Counts {
  plan: {
    categories: { id: string; transactions: { totalCount: number } }[];
    payees: { id: string; transactions: { totalCount: number } }[];
  };
}

/** Each list's count by `category:<id>` / `payee:<id>`, through the metered gateway. */
async function countsOf(variables: Record<string, unknown> = {}): Promise<Map<string, number>> {
  const plan = dataOf(
    await metered.gql<Counts>(COUNTS, { planId, ...variables }, { token: TOKEN }),
  ).plan;
  return new Map([
    ...plan.categories.map((c) => [`category:${c.id}`, c.transactions.totalCount] as const),
    ...plan.payees.map((p) => [`payee:${p.id}`, p.transactions.totalCount] as const),
  ]);
}

/** What REST lists for each category and payee that has rows (hybrid rows, deleted left out). */
async function restCounts(
  keep: (row: { date: string }) => boolean = () => true,
): Promise<Map<string, number>> {
  const { body } = await stack.rest<{ data: { plan: PlanDetail } }>(`/plans/${planId}`, TOKEN);
  const { plan } = body.data;
  const counts = new Map<string, number>();
  const add = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  const dates = new Map(plan.transactions.map((t) => [t.id, t.date] as const));
  const live = plan.subtransactions.filter((s) => !s.deleted);
  const splits = new Set(live.map((s) => s.transaction_id));
  for (const t of plan.transactions) {
    if (t.deleted || !keep(t)) continue;
    if (t.category_id && !splits.has(t.id)) add(`category:${t.category_id}`);
    if (t.payee_id) add(`payee:${t.payee_id}`);
  }
  for (const s of live) {
    if (!keep({ date: dates.get(s.transaction_id)! })) continue;
    if (s.category_id) add(`category:${s.category_id}`);
    if (s.payee_id) add(`payee:${s.payee_id}`);
  }
  return counts;
}

/** The gateway's counts of the lists REST has rows for, and zero for every other list. */
function expectSameCounts(ours: Map<string, number>, rest: Map<string, number>): void {
  const listed = [...ours].filter(([key]) => rest.has(key));
  expect(new Map(listed)).toEqual(rest);
  for (const [key, count] of ours) if (!rest.has(key)) expect(count, key).toBe(0);
}

beforeAll(async () => {
  ({ stack, metered, meter } = await startMeteredStack(TOKEN, {
    seed: 4,
    transactions: TRANSACTIONS,
  }));
  planId = stack.planId;
}, 60_000);

afterAll(() => stack?.close());

describe('hybrid totalCount', () => {
  it('counts every category and payee as REST lists them, without visiting a row', async () => {
    await countsOf(); // loads the replica
    meter.rowsVisited = 0;
    const ours = await countsOf();
    expect(meter.rowsVisited).toBe(0);
    const rest = await restCounts();
    expect([...rest.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(TRANSACTIONS);
    expectSameCounts(ours, rest);

    meter.rowsVisited = 0;
    const may = await countsOf({ month: '2025-05-01' });
    const window = await countsOf({ sinceDate: '2025-03-10', untilDate: '2025-04-20' });
    expect(meter.rowsVisited).toBe(0);
    expectSameCounts(may, await restCounts((t) => t.date.startsWith('2025-05')));
    expectSameCounts(
      window,
      await restCounts((t) => t.date >= '2025-03-10' && t.date <= '2025-04-20'),
    );
  });

  it('answers 4 aliases of every count x a batch of 5 without visiting a row', async () => {
    const counted = [
      'categories { transactions(first: 0) { totalCount } }',
      'payees { transactions(first: 0) { totalCount } }',
    ];
    const query = `{ plan(id: "${planId}") { ${Array.from({ length: 4 }, (_, i) => `a${i}: ${counted[i % 2]}`).join(' ')} } }`;
    meter.rowsVisited = 0;
    const response = await metered.fetch(metered.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(Array.from({ length: 5 }, () => ({ query }))),
    });
    const answers = (await response.json()) as { data?: unknown; errors?: unknown }[];
    expect(answers).toHaveLength(5);
    for (const answer of answers) {
      expect(answer.errors).toBeUndefined();
      expect(answer.data).toBeTruthy();
    }
    // Before the counts were kept, each alias walked every transaction of the plan.
    expect(meter.rowsVisited).toBe(0);
  });

  it('keeps the counts right through deltas: a new split, a recategorised and a deleted transaction', async () => {
    const { body } = await stack.rest<{ data: { plan: PlanDetail } }>(`/plans/${planId}`, TOKEN);
    const { plan } = body.data;
    const account = plan.accounts.find((a) => !a.closed && !a.deleted && a.on_budget)!;
    const [first, second] = plan.categories.filter(
      (c) =>
        !c.deleted && !c.hidden && c.category_group_id !== plan.categories[0]?.category_group_id,
    );
    const splits = new Set(plan.subtransactions.map((s) => s.transaction_id));
    const plain = plan.transactions.filter(
      (t) => !t.deleted && !splits.has(t.id) && t.category_id !== null && !t.transfer_account_id,
    );
    await countsOf(); // the replica as it is now

    const token = { token: TOKEN };
    await stack.writer.createTransaction(token, {
      planId,
      body: {
        transaction: {
          account_id: account.id,
          date: '2025-06-10',
          amount: -30_000,
          subtransactions: [
            { amount: -10_000, category_id: first!.id },
            { amount: -15_000, category_id: first!.id },
            { amount: -5_000, category_id: second!.id },
          ],
        },
      },
    });
    await stack.writer.updateTransaction(token, {
      planId,
      transactionId: plain[0]!.id,
      body: { transaction: { category_id: second!.id } },
    });
    await stack.writer.deleteTransaction(token, { planId, transactionId: plain[1]!.id });

    stack.clock.advance(31_000); // past max-age: the next read merges one delta
    stack.sandbox.resetCalls();
    meter.rowsVisited = 0;
    const ours = await countsOf();
    expect(stack.sandbox.calls().map((call) => call.operationId)).toEqual(['getPlanById']);
    expect(meter.rowsVisited).toBe(0);
    expectSameCounts(ours, await restCounts());
  });

  it('walks with a type filter, priced as a walk', async () => {
    const counted = 'categories { transactions(first: 0, type: unapproved) { totalCount } }';
    const refused = await metered.gql(
      `{ plan(id: "${planId}") { ${Array.from({ length: 10 }, (_, i) => `a${i}: ${counted}`).join(' ')} } }`,
      {},
      { token: TOKEN },
    );
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({
      code: 'OPERATION_TOO_COMPLEX',
      limit: 'cost',
    });

    meter.rowsVisited = 0;
    const one = await metered.gql<{
      plan: { categories: { transactions: { totalCount: number } }[] };
    }>(`{ plan(id: "${planId}") { ${counted} } }`, {}, { token: TOKEN });
    expect(dataOf(one).plan.categories.length).toBeGreaterThan(0);
    expect(meter.rowsVisited).toBeGreaterThan(0);
  });
});
