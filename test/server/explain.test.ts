/**
 * Explain before running (issue 36, docs/federation.md#explain-before-running): with
 * `X-Plans-Explain: 1`, `/graphql` and `/subgraph` answer an admitted operation's price, the
 * upstream calls it would make now (the plan loaded cold, then none while the replica is fresh,
 * then one delta) and the token's remaining budget, and run nothing: the sandbox sees no request.
 * Admission still refuses what it refuses (no token, over a limit).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { gqlAt } from '../support/graphql.js';
import { type ClockedStack, startStack } from '../support/stack.js';

const MAX_AGE_MS = 60_000;
const EXPLAIN = { 'x-plans-explain': '1' };
const QUERY = 'query Overview($planId: PlanId! = "last-used") { plan(id: $planId) { id name } }';

interface Explained {
  cost: { estimated: number; max: number } | null;
  upstream: {
    calls: number;
    writes: number;
    plans: { planId: string; sync: string; calls: number }[];
    notCounted: string[];
  };
  budget: { limit: number; used: number; remaining: number; resetsAt: string | null } | null;
}

let stack: ClockedStack;

beforeAll(async () => {
  stack = await startStack({ clock: 'manual', config: { maxAgeMs: MAX_AGE_MS } });
});
afterAll(async () => {
  await stack.close();
});

const explain = async (url: string, query: string, variables: unknown = {}) => {
  const answer = await gqlAt(url, query, variables, stack.token, EXPLAIN);
  expect(answer.status).toBe(200);
  return answer.body as {
    data?: unknown;
    errors?: unknown[];
    extensions?: { explain?: Explained };
  };
};

it('answers the price, the calls it would make now and the budget, and runs nothing', async () => {
  stack.resetUpstreamCalls();
  const cold = await explain(stack.url, QUERY, { planId: stack.planId });
  expect(cold.errors).toBeUndefined();
  expect(cold.data).toBeNull();
  const first = cold.extensions!.explain!;
  expect(first.cost).toMatchObject({ estimated: expect.any(Number), max: expect.any(Number) });
  expect(first.upstream).toEqual({
    calls: 1,
    writes: 0,
    plans: [{ planId: stack.planId, sync: 'full', calls: 1 }],
    notCounted: [],
  });
  expect(first.budget).toMatchObject({ limit: expect.any(Number), used: expect.any(Number) });
  expect(first.budget!.remaining).toBe(first.budget!.limit - first.budget!.used);
  // Nothing ran: not a single upstream request (the token is checked by admission alone).
  expect(stack.upstreamCalls()).toEqual([]);

  // Run it for real: the plan is loaded, and the budget shows the call.
  const ran = await stack.gql(QUERY, { planId: stack.planId });
  expect(ran.body.errors).toBeUndefined();
  expect(stack.upstreamCalls()).toContain('getPlanById');
  const fresh = (await explain(stack.url, QUERY, { planId: stack.planId })).extensions!.explain!;
  expect(fresh.upstream.plans).toEqual([{ planId: stack.planId, sync: 'none', calls: 0 }]);
  expect(fresh.upstream.calls).toBe(0);
  expect(fresh.budget!.used).toBeGreaterThan(first.budget!.used);
  // When the oldest counted request leaves the window, in the graph's DateTime form.
  expect(new Date(fresh.budget!.resetsAt!).toISOString()).toBe(fresh.budget!.resetsAt);
  expect(Date.parse(fresh.budget!.resetsAt!)).toBeGreaterThan(stack.clock.now());

  // Past the max-age: one delta.
  stack.clock.advance(MAX_AGE_MS + 1_000);
  stack.resetUpstreamCalls();
  const stale = (await explain(stack.url, QUERY, { planId: stack.planId })).extensions!.explain!;
  expect(stale.upstream.plans).toEqual([{ planId: stack.planId, sync: 'delta', calls: 1 }]);
  expect(stack.upstreamCalls()).toEqual([]);
});

it('counts a mutation’s writes, and names the reads it does not count', async () => {
  const listed = (await explain(stack.url, '{ plans { id } }')).extensions!.explain!;
  expect(listed.upstream).toMatchObject({ calls: 0, plans: [], notCounted: ['plans'] });
  stack.resetUpstreamCalls();
  const write = (
    await explain(
      stack.url,
      'mutation { updatePayee(planId: "last-used", payeeId: "00000000-0000-4000-8000-000000000000", input: { name: "x" }) { __typename } }',
    )
  ).extensions!.explain!;
  expect(write.upstream.writes).toBe(1);
  expect(write.upstream.plans.map((p) => p.planId)).toEqual(['last-used']);
  expect(stack.upstreamCalls()).toEqual([]);
});

it('works on /subgraph, and still passes admission', async () => {
  const subgraph = stack.url.replace(/\/graphql$/, '/subgraph');
  const answer = await explain(subgraph, QUERY, { planId: stack.planId });
  expect(answer.errors).toBeUndefined();
  expect(answer.extensions!.explain!.upstream.plans[0]?.planId).toBe(stack.planId);
  const anonymous = await gqlAt(stack.url, QUERY, {}, null, EXPLAIN);
  expect(anonymous.status).toBe(401);
  expect(anonymous.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  const deep = `{ plan(id: "last-used") { ${'accounts { plan { '.repeat(30)}id${' } }'.repeat(30)} } }`;
  const refused = await gqlAt(stack.url, deep, {}, stack.token, EXPLAIN);
  expect(refused.body.errors?.[0]?.extensions?.code).toBe('OPERATION_TOO_COMPLEX');
});
