/**
 * Knowledge going backwards (issue 8, item 7): an answer with an inflated `server_knowledge`,
 * or an upstream restored from a backup, must not freeze the replica. The next sync sees the
 * knowledge go back, reloads the plan in full at once and answers what the upstream holds;
 * while that full load fails, the replica answers only as stale.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  SyncedTransactionsDocument,
  type SyncedTransactionsQuery,
} from '../generated/operations.js';
import { type HostileStack, startStack } from '../support/stack.js';
import { dataOf, upstreamOf } from './support/responses.js';

const TOKEN = 'regression-token-000001';
let stack: HostileStack | undefined;
let now = Date.parse('2025-06-15T12:00:00Z');

afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function started(): Promise<{ s: HostileStack; planId: string }> {
  stack = await startStack({
    serve: 'fetch',
    hostile: true,
    sandbox: {
      rateLimit: false,
      clock: { now: () => now },
      users: [{ token: TOKEN, plans: [{ seed: 6, transactions: 60 }] }],
    },
    deps: { now: () => now },
  });
  return { s: stack, planId: stack.sandbox.users[0]!.planIds[0]! };
}

type Knowing = { data: { server_knowledge: number } };

const inflate = (by: number) => (body: unknown) => {
  (body as Knowing).data.server_knowledge += by;
  return body;
};

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
        date: '2025-06-14',
        amount: -1_000,
        memo,
      },
    }),
  });
  expect(response.status).toBe(201);
}

const memos = (read: SyncedTransactionsQuery) => read.plan!.transactions.nodes.map((t) => t.memo);
/** `no-cache` asks for a sync sent after the read arrives: the clock moves first. */
function noCache() {
  now += 1;
  return { headers: { 'cache-control': 'no-cache' } };
}

describe('knowledge going backwards', () => {
  it('recovers from one inflated answer with a full load on the next sync', async () => {
    const { s, planId } = await started();
    let once = true;
    s.hostile.setRule((r) => {
      if (r.operationId !== 'getPlanById' || !once) return { kind: 'pass' };
      once = false;
      return { kind: 'rewrite', rewrite: inflate(1000) };
    });
    const inflated = dataOf(await s.gql(SyncedTransactionsDocument, { planId }));
    expect(inflated.plan!.serverKnowledge).toBeGreaterThan(1000);
    await writeBehind(s, planId, 'after the inflated answer');

    const recovered = await s.gql(SyncedTransactionsDocument, { planId }, noCache());
    expect(memos(dataOf(recovered))).toContain('after the inflated answer');
    expect(dataOf(recovered).plan!.serverKnowledge).toBeLessThan(1000);
    expect(recovered.body.extensions?.stale).toBeUndefined();
    // The delta answered below what it was asked from; the full load followed in the same read.
    expect(upstreamOf(recovered).operations).toEqual({ getPlanById: 2 });

    await writeBehind(s, planId, 'later');
    const next = await s.gql(SyncedTransactionsDocument, { planId }, noCache());
    expect(memos(dataOf(next))).toContain('later');
    expect(upstreamOf(next).operations).toEqual({ getPlanById: 1 });
  });

  it('recovers from an upstream restored to a lower knowledge', async () => {
    const { s, planId } = await started();
    // Before the "restore", the upstream counted 5,000 higher than the sandbox does.
    let restored = false;
    s.hostile.setRule((r) =>
      r.operationId === 'getPlanById' && !restored
        ? {
            kind: 'rewrite',
            rewrite: inflate(5_000),
            query: (query) => {
              const known = query.get('last_knowledge_of_server');
              if (known !== null)
                query.set('last_knowledge_of_server', String(Number(known) - 5_000));
              return query;
            },
          }
        : { kind: 'pass' },
    );
    dataOf(await s.gql(SyncedTransactionsDocument, { planId }));
    await writeBehind(s, planId, 'before the restore');
    expect(memos(dataOf(await s.gql(SyncedTransactionsDocument, { planId }, noCache())))).toContain(
      'before the restore',
    );
    restored = true;
    await writeBehind(s, planId, 'after the restore');
    const read = dataOf(await s.gql(SyncedTransactionsDocument, { planId }, noCache()));
    expect(memos(read)).toEqual(
      expect.arrayContaining(['before the restore', 'after the restore']),
    );
    expect(read.plan!.serverKnowledge).toBeLessThan(5_000);
  });

  it('answers only as stale while the full load fails, then recovers', async () => {
    const { s, planId } = await started();
    let phase: 'inflate' | 'fail-full' | 'pass' = 'inflate';
    s.hostile.setRule((r) => {
      if (r.operationId !== 'getPlanById') return { kind: 'pass' };
      if (phase === 'inflate') {
        phase = 'pass';
        return { kind: 'rewrite', rewrite: inflate(1000) };
      }
      if (phase === 'fail-full' && !r.query.has('last_knowledge_of_server'))
        return {
          kind: 'reply',
          status: 503,
          body: { error: { id: '503', name: 'service_unavailable', detail: 'down' } },
        };
      return { kind: 'pass' };
    });
    const before = dataOf(await s.gql(SyncedTransactionsDocument, { planId }));
    await writeBehind(s, planId, 'while frozen');
    phase = 'fail-full';
    const during = await s.gql(SyncedTransactionsDocument, { planId }, noCache());
    expect(during.body.data).toEqual(before);
    expect(during.body.extensions?.stale).toEqual([
      expect.objectContaining({ source: planId, reason: 'UPSTREAM_UNAVAILABLE' }),
    ]);
    // Within max-age, and without no-cache, the suspect replica is still not taken as fresh.
    now += 6_000;
    const again = await s.gql(SyncedTransactionsDocument, { planId });
    expect(upstreamOf(again).calls).toBeGreaterThan(0);
    expect(again.body.extensions?.stale).toBeDefined();

    phase = 'pass';
    now += 6_000;
    const recovered = dataOf(await s.gql(SyncedTransactionsDocument, { planId }));
    expect(memos(recovered)).toContain('while frozen');
  });
});
