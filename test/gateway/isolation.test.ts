/**
 * One gateway, several tokens: replicas, aliases and the REST cache are keyed by token, so no
 * interleaving of operations lets one token read another's data, and a token the upstream
 * rejects never gets an answer from a cache another token warmed.
 */
import fc from 'fast-check';
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OwnedPlanDocument, type OwnedPlanQuery } from '../generated/operations.js';
import type { GraphQLResponse } from '../support/graphql.js';
import { type ClockedStack, startStack } from '../support/stack.js';
import { dataOf } from './support/responses.js';

const ALICE = 'alice-token-0000000001';
const BOB = 'bob-token-00000000002';
const INTRUDER = 'intruder-token-0000003';

/** What each user owns, read straight from the REST interface with their own token. */
interface Owned {
  userId: string;
  planIds: Set<string>;
  accountIds: Set<string>;
  payeeIds: Set<string>;
  transactionIds: Set<string>;
}

let stack: ClockedStack;
const owned = new Map<string, Owned>();

beforeAll(async () => {
  stack = await startStack({
    serve: 'fetch',
    clock: 'manual',
    sandbox: {
      rateLimit: false,
      users: [
        { token: ALICE, plans: [{ seed: 11, transactions: 120 }] },
        {
          token: BOB,
          plans: [
            { seed: 22, transactions: 120 },
            { seed: 33, transactions: 120 },
          ],
        },
      ],
    },
  });
  for (const [index, token] of [ALICE, BOB].entries()) {
    const user = stack.sandbox.users[index]!;
    const mine: Owned = {
      userId: user.userId,
      planIds: new Set(user.planIds),
      accountIds: new Set(),
      payeeIds: new Set(),
      transactionIds: new Set(),
    };
    for (const planId of user.planIds) {
      const exported = await stack.rest<{
        data: {
          plan: {
            accounts: { id: string }[];
            payees: { id: string }[];
            transactions: { id: string }[];
          };
        };
      }>(`/plans/${planId}`, token);
      for (const a of exported.body.data.plan.accounts) mine.accountIds.add(a.id);
      for (const p of exported.body.data.plan.payees) mine.payeeIds.add(p.id);
      for (const t of exported.body.data.plan.transactions) mine.transactionIds.add(t.id);
    }
    owned.set(token, mine);
  }
});

afterAll(() => stack.close());

/** Every id in a plan answer belongs to `token`'s user. */
function expectOwnedBy(token: string, answer: OwnedPlanQuery['plan']): void {
  const mine = owned.get(token)!;
  expect(answer).not.toBeNull();
  expect(mine.planIds.has(answer!.id), `plan ${answer!.id}`).toBe(true);
  for (const a of answer!.accounts) expect(mine.accountIds.has(a.id), `account ${a.id}`).toBe(true);
  for (const p of answer!.payees) expect(mine.payeeIds.has(p.id), `payee ${p.id}`).toBe(true);
  for (const t of answer!.transactions.nodes) {
    expect(mine.transactionIds.has(t.id), `transaction ${t.id}`).toBe(true);
    expect(mine.accountIds.has(t.account!.id)).toBe(true);
  }
}

function expectRefused(
  response: GraphQLResponse<OwnedPlanQuery>,
  code: string,
  status: number,
): void {
  expect(response.body.data?.plan ?? null).toBeNull();
  expect(response.body.errors?.[0]?.extensions).toMatchObject({ code, upstream: { status } });
}

function otherOf(token: string): string {
  return token === ALICE ? BOB : ALICE;
}

type Step =
  | { kind: 'last-used'; who: string; headers: Record<string, string> }
  | { kind: 'own'; who: string; plan: number; headers: Record<string, string> }
  | { kind: 'foreign'; who: string; plan: number }
  | { kind: 'user'; who: string }
  | { kind: 'intruder'; plan: 'last-used' | number };

async function run(step: Step): Promise<void> {
  switch (step.kind) {
    case 'last-used':
    case 'own': {
      const mine = [...owned.get(step.who)!.planIds];
      const planId = step.kind === 'own' ? mine[step.plan % mine.length]! : 'last-used';
      const response = await stack.gql(
        OwnedPlanDocument,
        { planId },
        { token: step.who, headers: step.headers },
      );
      expectOwnedBy(step.who, dataOf(response).plan);
      if (step.kind === 'own') expect(response.body.data!.plan!.id).toBe(planId);
      return;
    }
    case 'foreign': {
      const theirs = [...owned.get(otherOf(step.who))!.planIds];
      const planId = theirs[step.plan % theirs.length]!;
      const response = await stack.gql(OwnedPlanDocument, { planId }, { token: step.who });
      expect(response.status).toBe(200);
      expectRefused(response, 'NOT_FOUND', 404);
      return;
    }
    case 'user': {
      const response = await stack.gql<{ user: { id: string }; plans: { id: string }[] }>(
        '{ user { id } plans { id } }',
        {},
        { token: step.who },
      );
      const data = dataOf(response);
      expect(data.user.id).toBe(owned.get(step.who)!.userId);
      expect(new Set(data.plans.map((p) => p.id))).toEqual(owned.get(step.who)!.planIds);
      return;
    }
    case 'intruder': {
      const every = [...owned.get(ALICE)!.planIds, ...owned.get(BOB)!.planIds];
      const planId = step.plan === 'last-used' ? 'last-used' : every[step.plan % every.length]!;
      const response = await stack.gql(OwnedPlanDocument, { planId }, { token: INTRUDER });
      expect(response.status).toBe(401);
      expectRefused(response, 'UNAUTHENTICATED', 401);
    }
  }
}

const who = fc.constantFrom(ALICE, BOB);
const headers = fc.constantFrom<Record<string, string>>(
  {},
  { 'cache-control': 'no-cache' },
  { 'cache-control': 'max-age=3600' },
);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('last-used' as const), who, headers }),
  fc.record({ kind: fc.constant('own' as const), who, plan: fc.nat(3), headers }),
  fc.record({ kind: fc.constant('foreign' as const), who, plan: fc.nat(3) }),
  fc.record({ kind: fc.constant('user' as const), who }),
  fc.record({
    kind: fc.constantFrom('intruder' as const),
    plan: fc.oneof(fc.constant('last-used' as const), fc.nat(3)),
  }),
);

describe('isolation between tokens on one gateway', () => {
  it('another user’s plan id is the upstream’s 404, even while that plan is warm for its owner', async () => {
    const bobPlan = [...owned.get(BOB)!.planIds][0]!;
    expectOwnedBy(
      BOB,
      dataOf(await stack.gql(OwnedPlanDocument, { planId: bobPlan }, { token: BOB })).plan,
    );
    stack.resetUpstreamCalls();
    const response = await stack.gql(OwnedPlanDocument, { planId: bobPlan }, { token: ALICE });
    expectRefused(response, 'NOT_FOUND', 404);
    expect(response.body.errors?.[0]?.extensions?.upstream).toMatchObject({ id: '404.2' });
    // The refusal came from the upstream, asked with Alice's token.
    expect(stack.sandbox.calls().map((c) => [c.operationId, c.token])).toEqual([
      ['getPlanById', ALICE],
    ]);
  });

  it('last-used resolves per token: each user gets their own plan from a warm gateway', async () => {
    const alice = dataOf(
      await stack.gql(OwnedPlanDocument, { planId: 'last-used' }, { token: ALICE }),
    ).plan;
    const bob = dataOf(
      await stack.gql(OwnedPlanDocument, { planId: 'last-used' }, { token: BOB }),
    ).plan;
    expectOwnedBy(ALICE, alice);
    expectOwnedBy(BOB, bob);
  });

  it('a token the upstream rejects gets 401 UNAUTHENTICATED, never a warm replica (last-used and ids)', async () => {
    for (const token of [ALICE, BOB])
      await stack.gql(OwnedPlanDocument, { planId: 'last-used' }, { token });
    for (const planId of ['last-used', ...owned.get(ALICE)!.planIds, ...owned.get(BOB)!.planIds]) {
      const response = await stack.gql(OwnedPlanDocument, { planId }, { token: INTRUDER });
      expect(response.status).toBe(401);
      expectRefused(response, 'UNAUTHENTICATED', 401);
    }
    // The REST cache too: user and plan list are per token.
    const listing = await stack.gql<{ user: unknown; plans: unknown }>(
      '{ user { id } plans { id } }',
      {},
      { token: INTRUDER },
    );
    expect(listing.status).toBe(401);
    expect(listing.body.data?.user ?? null).toBeNull();
    expect(listing.body.data?.plans ?? null).toBeNull();
    // Same for the access_token query parameter.
    const viaQuery = await stack.fetch(`${stack.url}?access_token=${INTRUDER}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: print(OwnedPlanDocument), variables: { planId: 'last-used' } }),
    });
    expect(viaQuery.status).toBe(401);
    expect(((await viaQuery.json()) as { data?: { plan: unknown } }).data?.plan ?? null).toBeNull();
  });

  it('holds for any interleaving of sequential and concurrent operations (seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(step, { minLength: 1, maxLength: 6 }), { minLength: 3, maxLength: 8 }),
        async (batches) => {
          for (const batch of batches) {
            stack.clock.advance(7_000);
            await Promise.all(batch.map(run));
          }
        },
      ),
      { seed: 4242, numRuns: 25 },
    );
  });
});
