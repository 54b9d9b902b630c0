/**
 * What an operation costs upstream, counted at the sandbox over real HTTP: nothing within
 * max-age, exactly one delta request past it or when the client asks for fresh data, one call
 * per distinct REST collection when cold, one sync for a burst of operations, and the gateway's
 * own count of a token's calls in `Query.rateLimit`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_AGE_MS } from '../../src/config/config.js';
import {
  DashboardDocument,
  PlanNameAndRateLimitDocument,
  ServerKnowledgeDocument,
  TokenRateLimitDocument,
} from '../generated/operations.js';
import { type ClockedStack, START, type StackOptions, startStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import { operationsOf, planSyncs } from './support/calls.js';
import { dataOf, upstreamOf } from './support/responses.js';

let stack: ClockedStack | undefined;

afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function started(
  options: Pick<StackOptions, 'sandbox' | 'config'> = {},
): Promise<ClockedStack> {
  stack = await startStack({ serve: 'fetch', clock: 'manual', ...options });
  return stack;
}

/** Runs `operation` and returns what the sandbox received meanwhile. */
async function counted<T>(s: ClockedStack, operation: () => Promise<T>) {
  s.resetUpstreamCalls();
  const result = await operation();
  const calls = [...s.sandbox.calls()];
  return { result, calls, operations: operationsOf(calls), syncs: planSyncs(calls) };
}

describe('freshness: calls per operation on a warm replica', () => {
  it('costs nothing within max-age and exactly one delta request past it', async () => {
    const s = await started();
    const cold = await counted(s, () => s.gql(DashboardDocument));
    expect(cold.operations).toEqual(['getPlanById']);
    expect(cold.syncs).toEqual([null]);
    const knowledge = dataOf(await s.gql(ServerKnowledgeDocument)).plan!.serverKnowledge;

    s.clock.advance(DEFAULT_MAX_AGE_MS); // exactly max-age old: still fresh
    const warm = await counted(s, () => s.gql(DashboardDocument));
    expect(warm.operations).toEqual([]);
    expect(upstreamOf(warm.result)).toMatchObject({ calls: 0, replicaAgeMs: DEFAULT_MAX_AGE_MS });
    expect(dataOf(warm.result)).toEqual(dataOf(cold.result));

    s.clock.advance(1);
    const past = await counted(s, () => s.gql(DashboardDocument));
    expect(past.operations).toEqual(['getPlanById']);
    expect(past.syncs).toEqual([knowledge]);
    expect(past.calls[0]!.path).toBe(`/v1/plans/last-used`);
    expect(upstreamOf(past.result)).toMatchObject({
      calls: 1,
      operations: { getPlanById: 1 },
      replicaAgeMs: 0,
    });
  });

  it('Cache-Control: no-cache forces exactly one delta, even right after a sync', async () => {
    const s = await started();
    await s.gql(DashboardDocument);
    const knowledge = dataOf(await s.gql(ServerKnowledgeDocument)).plan!.serverKnowledge;
    s.clock.advance(1);

    for (let round = 0; round < 2; round += 1) {
      const forced = await counted(s, () =>
        s.gql(DashboardDocument, {}, { headers: { 'cache-control': 'no-cache' } }),
      );
      expect(forced.operations).toEqual(['getPlanById']);
      expect(forced.syncs).toEqual([knowledge]);
      s.clock.advance(1);
    }
  });

  it('Cache-Control: max-age=N accepts data up to N seconds old, shorter or longer than the default', async () => {
    const s = await started();
    await s.gql(DashboardDocument);
    const maxAge = (seconds: number) => ({ headers: { 'cache-control': `max-age=${seconds}` } });

    s.clock.advance(5_000);
    expect((await counted(s, () => s.gql(DashboardDocument, {}, maxAge(10)))).operations).toEqual(
      [],
    );
    expect((await counted(s, () => s.gql(DashboardDocument, {}, maxAge(5)))).operations).toEqual(
      [],
    );
    const shorter = await counted(s, () => s.gql(DashboardDocument, {}, maxAge(4)));
    expect(shorter.operations).toEqual(['getPlanById']);
    expect(shorter.syncs[0]).toEqual(expect.any(Number));

    s.clock.advance(30_000); // twice the default max-age
    const longer = await counted(s, () => s.gql(DashboardDocument, {}, maxAge(60)));
    expect(longer.operations).toEqual([]);
    expect(upstreamOf(longer.result).replicaAgeMs).toBe(30_000);
    expect((await counted(s, () => s.gql(DashboardDocument, {}, maxAge(29)))).operations).toEqual([
      'getPlanById',
    ]);
  });

  it('the configured max-age is the default', async () => {
    const s = await started({ config: { maxAgeMs: 2_000 } });
    await s.gql(DashboardDocument);
    s.clock.advance(2_000);
    expect((await counted(s, () => s.gql(DashboardDocument))).operations).toEqual([]);
    s.clock.advance(1);
    expect((await counted(s, () => s.gql(DashboardDocument))).syncs).toEqual([expect.any(Number)]);
  });
});

describe('cold operations', () => {
  const EVERYTHING = /* GraphQL */ `
    query Cold($planId: PlanId!) {
      user {
        id
      }
      plans {
        id
        name
      }
      plan(id: $planId) {
        name
        accounts {
          id
          name
          balance
        }
        categoryGroups {
          name
          categories {
            name
            balance
          }
        }
        months {
          month
          toBeBudgeted
        }
        transactions(first: 20) {
          nodes {
            id
            payee {
              name
            }
            category {
              name
            }
            subtransactions {
              id
            }
          }
        }
        payees {
          id
          name
        }
        scheduledTransactions(first: 10) {
          nodes {
            id
            payee {
              name
            }
          }
        }
        moneyMovements {
          nodes {
            id
            amount
            fromCategory {
              name
            }
            toCategory {
              name
            }
            group {
              id
            }
          }
        }
        moneyMovementGroups {
          id
          moneyMovements {
            id
          }
        }
        current: month(month: "current") {
          moneyMovements {
            nodes {
              id
            }
          }
          moneyMovementGroups {
            id
          }
        }
      }
      rateLimit {
        used
      }
    }
  `;

  it.each(['the plan id', 'last-used'])(
    'calls each distinct REST collection at most once (plan by %s)',
    async (which) => {
      const s = await started();
      const planId = which === 'last-used' ? 'last-used' : s.sandbox.users[0]!.planIds[0]!;
      const cold = await counted(s, () =>
        s.gql<{ rateLimit: { used: number } }>(EVERYTHING, { planId }),
      );
      expect(cold.result.body.errors).toBeUndefined();
      expect([...cold.operations].sort()).toEqual(
        [
          'getMoneyMovementGroups',
          'getMoneyMovements',
          'getPlanById',
          'getPlans',
          'getUser',
        ].sort(),
      );
      expect(cold.syncs).toEqual([null]);
      expect(upstreamOf(cold.result).calls).toBe(5);
      expect(dataOf(cold.result).rateLimit.used).toBe(5);

      const warm = await counted(s, () => s.gql(EVERYTHING, { planId }));
      expect(warm.operations).toEqual([]);
    },
  );

  it('one plan named by alias and by id in one operation syncs once: cold, past max-age, no-cache', async () => {
    const s = await started();
    const planId = s.sandbox.users[0]!.planIds[0]!;
    const both = `query($planId: PlanId!) {
      byAlias: plan(id: "last-used") { id accounts { id } }
      byId: plan(id: $planId) { id accounts { id } transactions(first: 3) { nodes { id } } }
    }`;
    const cold = await counted(s, () =>
      s.gql<{ byAlias: { id: string }; byId: { id: string } }>(both, { planId }),
    );
    expect(dataOf(cold.result).byAlias.id).toBe(planId);
    expect(dataOf(cold.result).byId.id).toBe(planId);
    expect(cold.syncs).toEqual([null]);

    s.clock.advance(DEFAULT_MAX_AGE_MS + 1);
    expect((await counted(s, () => s.gql(both, { planId }))).syncs).toEqual([expect.any(Number)]);
    s.clock.advance(1);
    const forced = await counted(s, () =>
      s.gql(both, { planId }, { headers: { 'cache-control': 'no-cache' } }),
    );
    expect(forced.syncs).toEqual([expect.any(Number)]);
    expect(forced.result.body.errors).toBeUndefined();
  });

  it('an alias that resolves to another plan than the id still answers both', async () => {
    const s = await started({
      sandbox: {
        users: [
          {
            token: 'two-plans-token-00001',
            plans: [
              { seed: 1, transactions: 40 },
              { seed: 2, transactions: 40 },
            ],
          },
        ],
      },
    });
    const [first, second] = s.sandbox.users[0]!.planIds;
    const both = `{ a: plan(id: "last-used") { id } b: plan(id: "${second}") { id } }`;
    const answer = dataOf(await s.gql<{ a: { id: string }; b: { id: string } }>(both));
    expect(answer).toEqual({ a: { id: first }, b: { id: second } });
    const missing = await s.gql<{ a: { id: string }; b: null }>(
      '{ a: plan(id: "last-used") { id } b: plan(id: "00000000-0000-4000-8000-000000000000") { id } }',
    );
    expect(missing.body.data).toEqual({ a: { id: first }, b: null });
    expect(missing.body.errors?.[0]).toMatchObject({
      path: ['b'],
      extensions: { code: 'NOT_FOUND' },
    });
  });

  it('a list of plans costs one export per plan it reads into, once each', async () => {
    const s = await started({
      sandbox: {
        users: [
          {
            token: 'three-plans-token-0001',
            plans: [
              { seed: 1, transactions: 50 },
              { seed: 2, transactions: 50 },
              { seed: 3, transactions: 50 },
            ],
          },
        ],
      },
    });
    const query =
      '{ plans { id accounts { id } a: transactions(first: 5) { nodes { id } } b: categories { id } } }';
    const cold = await counted(s, () => s.gql(query));
    expect(cold.result.body.errors).toBeUndefined();
    expect(cold.operations.sort()).toEqual([
      'getPlanById',
      'getPlanById',
      'getPlanById',
      'getPlans',
    ]);
    expect(new Set(cold.calls.map((c) => c.path)).size).toBe(4);
  });
});

describe('single flight', () => {
  it('50 concurrent cold operations of one token cost one export', async () => {
    const s = await started();
    const burst = await counted(s, () =>
      Promise.all(Array.from({ length: 50 }, () => s.gql(DashboardDocument))),
    );
    expect(burst.operations).toEqual(['getPlanById']);
    expect(burst.syncs).toEqual([null]);
    const answers = burst.result.map((r) => dataOf(r));
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    expect(burst.result.reduce((sum, r) => sum + upstreamOf(r).calls, 0)).toBe(1);
  });

  it('50 concurrent operations past max-age cost one delta request', async () => {
    const s = await started();
    await s.gql(DashboardDocument);
    s.clock.advance(DEFAULT_MAX_AGE_MS + 1);
    const burst = await counted(s, () =>
      Promise.all(Array.from({ length: 50 }, () => s.gql(DashboardDocument))),
    );
    expect(burst.operations).toEqual(['getPlanById']);
    expect(burst.syncs).toEqual([expect.any(Number)]);
    expect(burst.result.every((r) => r.status === 200 && !r.body.errors)).toBe(true);
    expect(burst.result.reduce((sum, r) => sum + upstreamOf(r).calls, 0)).toBe(1);
  });

  it('no-cache operations arriving while a sync is in flight share one follow-up', async () => {
    const s = await started({ sandbox: { latency: { fixedMs: 150 } } });
    await s.gql(DashboardDocument);
    s.resetUpstreamCalls();
    const noCache = { headers: { 'cache-control': 'no-cache' } };
    s.clock.advance(1);
    const first = s.gql(DashboardDocument, {}, noCache);
    await until(
      () => s.sandbox.calls().length === 1,
      'the first delta request to reach the sandbox',
    );
    // Sent before these reads arrived, so it may predate a change they must see: they wait for
    // one more sync, which all of them share.
    s.clock.advance(1);
    const later = Array.from({ length: 49 }, () => s.gql(DashboardDocument, {}, noCache));
    const responses = await Promise.all([first, ...later]);
    expect(responses.every((r) => r.status === 200 && !r.body.errors)).toBe(true);
    expect(operationsOf(s.sandbox.calls())).toEqual(['getPlanById', 'getPlanById']);
    expect(planSyncs(s.sandbox.calls()).every((k) => typeof k === 'number')).toBe(true);
  });

  it('different tokens never share a flight', async () => {
    const s = await started({
      sandbox: { users: [{ token: 'token-of-alice-00001' }, { token: 'token-of-bob-000002' }] },
    });
    const burst = await counted(s, () =>
      Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          s.gql(
            DashboardDocument,
            {},
            { token: i % 2 === 0 ? 'token-of-alice-00001' : 'token-of-bob-000002' },
          ),
        ),
      ),
    );
    expect(operationsOf(burst.calls, 'token-of-alice-00001')).toEqual(['getPlanById']);
    expect(operationsOf(burst.calls, 'token-of-bob-000002')).toEqual(['getPlanById']);
  });
});

describe('Query.rateLimit', () => {
  it("reports this token's calls as the sandbox counted them, the limit, and when the oldest leaves the window", async () => {
    const alice = 'token-of-alice-00001';
    const bob = 'token-of-bob-000002';
    const s = await started({ sandbox: { users: [{ token: alice }, { token: bob }] } });

    expect(dataOf(await s.gql(TokenRateLimitDocument, {}, { token: alice })).rateLimit).toEqual({
      used: 0,
      limit: 200,
      remaining: 200,
      resetsAt: null,
    });

    await s.gql(DashboardDocument, {}, { token: alice }); // t0: one export
    s.clock.advance(20 * 60_000);
    await s.gql('{ user { id } plans { id } }', {}, { token: alice }); // t0 + 20 min: two calls
    await s.gql(DashboardDocument, {}, { token: bob }); // another token: not alice's quota
    s.clock.advance(DEFAULT_MAX_AGE_MS + 1);
    // The delta this operation pays for is counted in its own rateLimit answer.
    const both = dataOf(await s.gql(PlanNameAndRateLimitDocument, {}, { token: alice }));
    const sandboxCount = s.sandbox.calls().filter((c) => c.token === alice).length;
    expect(sandboxCount).toBe(4);
    expect(both.rateLimit).toEqual({
      used: sandboxCount,
      limit: 200,
      remaining: 200 - sandboxCount,
      resetsAt: new Date(START + 3_600_000).toISOString(),
    });
    expect(dataOf(await s.gql(TokenRateLimitDocument, {}, { token: bob })).rateLimit.used).toBe(1);

    // One hour after the first call it leaves the window; the next oldest says when the next one does.
    s.clock.set(START + 3_600_000);
    const later = dataOf(await s.gql(TokenRateLimitDocument, {}, { token: alice })).rateLimit;
    expect(later).toEqual({
      used: 3,
      limit: 200,
      remaining: 197,
      resetsAt: new Date(START + 20 * 60_000 + 3_600_000).toISOString(),
    });
    s.clock.set(START + 20 * 60_000 + 3_600_000 + DEFAULT_MAX_AGE_MS + 1);
    expect(dataOf(await s.gql(TokenRateLimitDocument, {}, { token: alice })).rateLimit).toEqual({
      used: 0,
      limit: 200,
      remaining: 200,
      resetsAt: null,
    });
  });

  it('takes its limit and window from the config', async () => {
    const s = await started({ config: { rateLimit: { limit: 50, windowMs: 60_000 } } });
    await s.gql(DashboardDocument);
    const rate = dataOf(await s.gql(TokenRateLimitDocument)).rateLimit;
    expect(rate).toEqual({
      used: 1,
      limit: 50,
      remaining: 49,
      resetsAt: new Date(START + 60_000).toISOString(),
    });
  });

  it('is per gateway: a second gateway on the same upstream starts from zero', async () => {
    const s = await started();
    await s.gql(DashboardDocument);
    const second = await s.addGateway({ serve: 'fetch' });
    expect(dataOf(await second.gql(TokenRateLimitDocument)).rateLimit.used).toBe(0);
  });
});
