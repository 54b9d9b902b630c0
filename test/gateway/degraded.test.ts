/**
 * Degraded service: when the upstream refuses with 429, fails with 5xx or cannot be reached,
 * a token that holds a replica gets the data of its last good sync, marked in
 * `extensions.stale` with the reason and the age; a token without one gets the error.
 */
import type { FaultKind } from '@plans-gateway/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { DegradedReadDocument, type DegradedReadQuery } from '../generated/operations.js';
import type { GraphQLResponse } from '../support/graphql.js';
import { type ClockedStack, startStack } from '../support/stack.js';
import { operationsOf } from './support/calls.js';
import { dataOf, staleOf, upstreamOf } from './support/responses.js';

const ALICE = 'alice-token-0000000001';
const BOB = 'bob-token-00000000002';
const INTRUDER = 'intruder-token-0000003';

let stack: ClockedStack | undefined;
let sandboxClosed = false;

afterEach(async () => {
  if (stack && sandboxClosed) {
    await stack.writer.close();
    const { gateway } = stack;
    await gateway.close();
  } else {
    await stack?.close();
  }
  stack = undefined;
  sandboxClosed = false;
});

async function started(rateLimit: { limit: number } | false = false): Promise<ClockedStack> {
  stack = await startStack({
    serve: 'fetch',
    clock: 'manual',
    sandbox: {
      rateLimit,
      users: [
        {
          token: ALICE,
          plans: [
            { seed: 5, transactions: 150 },
            { seed: 6, transactions: 150 },
          ],
        },
        { token: BOB, plans: [{ seed: 7, transactions: 150 }] },
      ],
    },
  });
  return stack;
}

/** A write made by another client, straight at the REST interface. */
async function writeBehindTheGateway(s: ClockedStack, accountId: string): Promise<string> {
  const planId = s.sandbox.users[0]!.planIds[0]!;
  const memo = `written elsewhere at ${s.clock.now()}`;
  await s.writer.createTransaction(
    { token: ALICE },
    {
      planId,
      body: {
        transaction: {
          account_id: accountId,
          date: '2025-06-15',
          amount: -12_340,
          memo,
          payee_name: 'Elsewhere',
        },
      },
    },
  );
  return memo;
}

function expectStale(
  response: GraphQLResponse<DegradedReadQuery>,
  reason: string,
  ageMs: number,
  planId: string,
): void {
  expect(response.status).toBe(200);
  expect(response.body.errors).toBeUndefined();
  expect(staleOf(response)).toEqual(
    expect.arrayContaining([
      { source: planId, reason, ageMs },
      { source: 'getUser', reason, ageMs },
    ]),
  );
  expect(staleOf(response)).toHaveLength(2);
  expect(upstreamOf(response).replicaAgeMs).toBe(ageMs);
}

function expectError(response: GraphQLResponse<DegradedReadQuery>, code: string): void {
  expect(response.body.data?.plan ?? null).toBeNull();
  expect(response.body.data?.user ?? null).toBeNull();
  expect(staleOf(response)).toBeUndefined();
  expect(response.body.errors?.length).toBeGreaterThan(0);
  for (const error of response.body.errors ?? []) expect(error.extensions?.code).toBe(code);
}

describe('stale answers when the upstream is rate limited', () => {
  it('429: the last good sync answers, with reason and age; a token without a replica gets RATE_LIMITED', async () => {
    // Alice: export + user (2 calls), then a write by another client (3): the limit is reached.
    const s = await started({ limit: 3 });
    const planId = s.sandbox.users[0]!.planIds[0]!;
    const good = dataOf(await s.gql(DegradedReadDocument, {}, { token: ALICE }));
    await writeBehindTheGateway(s, good.plan!.accounts[0]!.id);

    s.clock.advance(40_000); // past the default max-age
    const stale = await s.gql(DegradedReadDocument, {}, { token: ALICE });
    expectStale(stale, 'RATE_LIMITED', 40_000, planId);
    expect(stale.body.data).toEqual(good);
    expect(
      s.sandbox
        .calls()
        .filter((c) => c.status === 429)
        .map((c) => c.operationId)
        .sort(),
    ).toEqual(['getPlanById', 'getUser']);

    // Bob used up his quota with another client; the gateway holds nothing of his.
    for (let i = 0; i < 3; i += 1) await s.writer.getUser({ token: BOB });
    const refused = await s.gql(DegradedReadDocument, {}, { token: BOB });
    expectError(refused, 'RATE_LIMITED');
    expect(refused.body.errors?.[0]?.extensions?.upstream).toMatchObject({ status: 429 });

    // Once the window moves on, the next read syncs and sees the write.
    s.clock.advance(3_600_000);
    const fresh = await s.gql(DegradedReadDocument, {}, { token: ALICE });
    expect(staleOf(fresh)).toBeUndefined();
    expect(dataOf(fresh).plan!.serverKnowledge).toBeGreaterThan(good.plan!.serverKnowledge);
  });
});

describe('stale answers when the upstream fails', () => {
  it.each<[FaultKind, string]>([
    ['status503', 'UPSTREAM_UNAVAILABLE'],
    ['status500', 'UPSTREAM_ERROR'],
    ['drop', 'UPSTREAM_UNAVAILABLE'],
    ['malformed', 'UPSTREAM_ERROR'],
  ])(
    '%s: the last good sync answers, with reason and age; no replica means the error',
    async (kind, reason) => {
      const s = await started();
      const planId = s.sandbox.users[0]!.planIds[0]!;
      const good = dataOf(await s.gql(DegradedReadDocument, {}, { token: ALICE }));
      const memo = await writeBehindTheGateway(s, good.plan!.accounts[0]!.id);
      s.sandbox.setFaults([{ kind }]);

      s.clock.advance(60_000);
      const stale = await s.gql(DegradedReadDocument, {}, { token: ALICE });
      expectStale(stale, reason, 60_000, planId);
      expect(stale.body.data).toEqual(good);
      const noCache = await s.gql(
        DegradedReadDocument,
        {},
        { token: ALICE, headers: { 'cache-control': 'no-cache' } },
      );
      expectStale(noCache, reason, 60_000, planId);

      // Alice's other plan was never synced, Bob was never seen, the intruder never will be.
      const otherPlan = s.sandbox.users[0]!.planIds[1]!;
      const unsynced = await s.gql(DegradedReadDocument, { planId: otherPlan }, { token: ALICE });
      expect(unsynced.body.data?.plan ?? null).toBeNull();
      expect(unsynced.body.errors?.find((e) => e.path?.[0] === 'plan')?.extensions?.code).toBe(
        reason,
      );
      expectError(await s.gql(DegradedReadDocument, {}, { token: BOB }), reason);
      expectError(await s.gql(DegradedReadDocument, {}, { token: INTRUDER }), reason);

      s.sandbox.setFaults([]);
      // Within the read back-off after the failure, reads answer stale without asking again.
      s.sandbox.resetCalls();
      s.clock.advance(2_000);
      expectStale(await s.gql(DegradedReadDocument, {}, { token: ALICE }), reason, 62_000, planId);
      expect(operationsOf(s.sandbox.calls(), ALICE)).toEqual([]);

      s.clock.advance(5_000);
      const recovered = await s.gql(DegradedReadDocument, {}, { token: ALICE });
      expect(staleOf(recovered)).toBeUndefined();
      expect(dataOf(recovered).plan!.transactions.nodes.map((t) => t.memo)).toContain(memo);
      expect(upstreamOf(recovered).operations).toEqual({ getPlanById: 1, getUser: 1 });
    },
  );

  it('connection refused: the last good sync answers as UPSTREAM_UNAVAILABLE; no replica means the error', async () => {
    const s = await started();
    const planId = s.sandbox.users[0]!.planIds[0]!;
    const good = dataOf(await s.gql(DegradedReadDocument, {}, { token: ALICE }));
    await writeBehindTheGateway(s, good.plan!.accounts[0]!.id);
    await s.sandbox.close();
    sandboxClosed = true;

    s.clock.advance(45_000);
    const stale = await s.gql(DegradedReadDocument, {}, { token: ALICE });
    expectStale(stale, 'UPSTREAM_UNAVAILABLE', 45_000, planId);
    expect(stale.body.data).toEqual(good);

    expectError(await s.gql(DegradedReadDocument, {}, { token: BOB }), 'UPSTREAM_UNAVAILABLE');
    expectError(await s.gql(DegradedReadDocument, {}, { token: INTRUDER }), 'UPSTREAM_UNAVAILABLE');
  });
});
