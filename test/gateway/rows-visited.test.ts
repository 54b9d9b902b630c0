/**
 * A filtered page of a large plan is read from the replica's indexes: the rows visited (counted
 * by the meter plumbed through `GatewayDeps.replicaMeter`) stay near the page size, not the plan
 * size, and the page is the one the REST interface lists.
 */

import type { PlanDetail } from '@plans-gateway/rest-contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_HTTP_CACHING } from '../../src/config/config.js';
import type { QueryMeter } from '../../src/replica/transaction-query.js';
import { type ClockedStack, startStack } from '../support/stack.js';
import { dataOf } from './support/responses.js';

const TRANSACTIONS = 20_000;
const meter: QueryMeter = { rowsVisited: 0 };
let stack: ClockedStack;
let planId: string;
let accountId: string;

const PAGE = /* GraphQL */ `
  query ($planId: PlanId!, $accountId: UUID!, $after: String) {
    plan(id: $planId) {
      transactions(
        accountId: $accountId
        sinceDate: "2025-05-01"
        untilDate: "2025-05-31"
        first: 50
        after: $after
      ) {
        totalCount
        pageInfo {
          hasNextPage
          endCursor
        }
        nodes {
          id
          date
        }
      }
    }
  }
`;

interface Page {
  plan: {
    transactions: {
      totalCount: number;
      pageInfo: { hasNextPage: boolean; endCursor: string };
      nodes: { id: string; date: string }[];
    };
  };
}

beforeAll(async () => {
  stack = await startStack({
    serve: 'fetch',
    clock: 'manual',
    sandbox: {
      users: [
        { token: 'large-plan-token-00001', plans: [{ seed: 9, transactions: TRANSACTIONS }] },
      ],
    },
  });
  planId = stack.sandbox.users[0]!.planIds[0]!;
  const exported = await stack.rest<{ data: { plan: PlanDetail } }>(
    `/plans/${planId}`,
    'large-plan-token-00001',
  );
  const counts = new Map<string, number>();
  for (const t of exported.body.data.plan.transactions) {
    if (!t.deleted && t.date.startsWith('2025-05'))
      counts.set(t.account_id, (counts.get(t.account_id) ?? 0) + 1);
  }
  accountId = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
  expect(counts.get(accountId)).toBeGreaterThan(100);
}, 60_000);

afterAll(() => stack.close());

describe('rows visited for a filtered page', () => {
  it(`visits about a page of rows out of ${TRANSACTIONS}, and lists what REST lists`, async () => {
    const token = 'large-plan-token-00001';
    // A gateway with the meter, on the same sandbox as the stack's own; every read executes (an
    // answer repeated from the answer cache visits no row).
    const front = await stack.addGateway({
      serve: 'fetch',
      config: { httpCaching: { ...DEFAULT_HTTP_CACHING, answerMaxBytes: 0 } },
      deps: { replicaMeter: meter },
    });
    try {
      const variables = { planId, accountId };
      dataOf(await front.gql<Page>(PAGE, variables, { token })); // load the replica
      meter.rowsVisited = 0;
      const first = dataOf(await front.gql<Page>(PAGE, variables, { token })).plan.transactions;
      const firstRows = meter.rowsVisited;
      meter.rowsVisited = 0;
      const second = dataOf(
        await front.gql<Page>(PAGE, { ...variables, after: first.pageInfo.endCursor }, { token }),
      ).plan.transactions;
      const secondRows = meter.rowsVisited;

      expect(first.nodes).toHaveLength(50);
      expect(first.pageInfo.hasNextPage).toBe(true);
      expect(firstRows).toBeGreaterThanOrEqual(50);
      expect(firstRows).toBeLessThanOrEqual(51);
      expect(secondRows).toBeLessThanOrEqual(51);

      const listed = await stack.rest<{
        data: { transactions: { id: string; date: string; deleted: boolean }[] };
      }>(`/plans/${planId}/accounts/${accountId}/transactions?since_date=2025-05-01`, token);
      const may = listed.body.data.transactions
        .filter((t) => !t.deleted && t.date <= '2025-05-31')
        .sort((a, b) =>
          a.date === b.date ? b.id.localeCompare(a.id) : b.date.localeCompare(a.date),
        );
      expect(first.totalCount).toBe(may.length);
      expect([...first.nodes, ...second.nodes].map((t) => t.id)).toEqual(
        may.slice(0, 100).map((t) => t.id),
      );
    } finally {
      await front.close();
    }
  });
});
