/**
 * Upstream answers with wrongly typed fields are refused at the boundary and leave the replica
 * and the REST cache as they were (issue 8, item 12): reads answer from the older copy, marked
 * stale, or fail with UPSTREAM_ERROR naming the field, never with a masked error; once the
 * upstream answers properly again, the next sync brings everything.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SyncedPlanDocument } from '../generated/operations.js';
import { type HostileStack, startStack } from '../support/stack.js';
import { dataOf } from './support/responses.js';

const TOKEN = 'hostile-answers-token-01';
let stack: HostileStack | undefined;

afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function started(): Promise<HostileStack> {
  stack = await startStack({
    serve: 'fetch',
    hostile: true,
    sandbox: {
      rateLimit: false,
      users: [{ token: TOKEN, plans: [{ seed: 3, transactions: 60 }] }],
    },
  });
  return stack;
}

/** Writes straight at the sandbox, behind the gateway. */
async function writeBehind(s: HostileStack, planId: string, memo: string): Promise<void> {
  const accounts = (await (
    await fetch(`${s.sandbox.url}/plans/${planId}/accounts`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    })
  ).json()) as { data: { accounts: { id: string; closed: boolean }[] } };
  const response = await fetch(`${s.sandbox.url}/plans/${planId}/transactions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      transaction: {
        account_id: accounts.data.accounts.find((a) => !a.closed)!.id,
        date: new Date().toISOString().slice(0, 10),
        amount: -2_500,
        memo,
      },
    }),
  });
  expect(response.status).toBe(201);
}

type Body = { data: { plan: { transactions: { amount: unknown }[] } } };

describe('wrongly typed upstream answers', () => {
  it('keeps the replica when a delta carries a string amount, then recovers', async () => {
    const s = await started();
    const planId = s.sandbox.users[0]!.planIds[0]!;
    const before = dataOf(await s.gql(SyncedPlanDocument, { planId }));
    await writeBehind(s, planId, 'written behind');
    s.hostile.setRule((r) =>
      r.operationId === 'getPlanById'
        ? {
            kind: 'rewrite',
            rewrite: (body) => {
              for (const t of (body as Body).data.plan.transactions) t.amount = '-2.5';
              return body;
            },
          }
        : { kind: 'pass' },
    );
    const during = await s.gql(
      SyncedPlanDocument,
      { planId },
      { headers: { 'cache-control': 'no-cache' } },
    );
    expect(during.body.errors).toBeUndefined();
    expect(during.body.data).toEqual(before);
    expect(during.body.extensions?.stale).toEqual([
      expect.objectContaining({ source: planId, reason: 'UPSTREAM_ERROR' }),
    ]);

    s.hostile.setRule(() => ({ kind: 'pass' }));
    const after = dataOf(
      await s.gql(SyncedPlanDocument, { planId }, { headers: { 'cache-control': 'no-cache' } }),
    );
    expect(after.plan!.transactions.nodes.some((t) => t.memo === 'written behind')).toBe(true);
    expect(after.plan!.serverKnowledge).toBeGreaterThan(before.plan!.serverKnowledge);
  });

  it('fails a cold read with UPSTREAM_ERROR naming the field, not a masked error', async () => {
    const s = await started();
    const planId = s.sandbox.users[0]!.planIds[0]!;
    s.hostile.setRule((r) =>
      r.operationId === 'getPlanById'
        ? {
            kind: 'rewrite',
            rewrite: (body) => {
              const plan = (body as { data: { plan: { accounts: { balance: unknown }[] } } }).data
                .plan;
              plan.accounts[0]!.balance = { amount: 1 };
              return body;
            },
          }
        : { kind: 'pass' },
    );
    const answer = await s.gql(SyncedPlanDocument, { planId });
    expect(answer.body.data?.plan ?? null).toBeNull();
    expect(answer.body.errors?.[0]?.extensions).toMatchObject({
      code: 'UPSTREAM_ERROR',
      field: 'data.plan.accounts[0].balance',
    });
    expect(answer.body.errors?.[0]?.message).toMatch(/integer amount in milliunits/);
  });

  it('keeps the cached user when its answer has a wrongly typed id', async () => {
    const s = await started();
    const first = dataOf(await s.gql<{ user: { id: string } }>('{ user { id } }'));
    s.hostile.setRule((r) =>
      r.operationId === 'getUser'
        ? { kind: 'reply', status: 200, body: { data: { user: { id: 42 } } } }
        : { kind: 'pass' },
    );
    const stale = await s.gql<{ user: { id: string } }>(
      '{ user { id } }',
      {},
      {
        headers: { 'cache-control': 'no-cache' },
      },
    );
    expect(stale.body.data).toEqual(first);
    expect(stale.body.extensions?.stale).toEqual([
      expect.objectContaining({ source: 'getUser', reason: 'UPSTREAM_ERROR' }),
    ]);
  });
});
