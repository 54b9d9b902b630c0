/**
 * One tenant whose requests hang upstream (issue 8, item 5): it holds at most its share of the
 * upstream connections, so another tenant's cold read and write are answered while the hung
 * ones still wait; and each operation has a deadline, past which a read answers from what is
 * held (marked stale) or with UPSTREAM_UNAVAILABLE, instead of 3 attempts of 30 s. A write is
 * never cut by it: it answers what the upstream did, however late.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONNECTIONS_PER_TOKEN } from '../../src/upstream/client.js';
import { type HostileStack, startStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import { dataOf } from './support/responses.js';

const HUNG = 'hung-tenant-token-00001';
const OTHER = 'other-tenant-token-0002';
let stack: HostileStack | undefined;

afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function started(operationDeadlineMs: number): Promise<HostileStack> {
  stack = await startStack({
    serve: 'fetch',
    hostile: true,
    sandbox: {
      rateLimit: false,
      users: [
        { token: HUNG, plans: [{ seed: 8, transactions: 40 }] },
        { token: OTHER, plans: [{ seed: 9, transactions: 40 }] },
      ],
    },
    config: { operationDeadlineMs },
  });
  return stack;
}

const hangPlansOf = (s: HostileStack, token: string) =>
  s.hostile.setRule((r) =>
    r.token === token && r.operationId === 'getPlanById' ? { kind: 'hang' } : { kind: 'pass' },
  );

const openOf = (s: HostileStack, token: string) =>
  s.hostile.calls().filter((c) => c.token === token && c.action === 'hang').length;

describe('a tenant hung upstream', () => {
  it('holds its share of the connections only; another tenant reads and writes meanwhile', async () => {
    const s = await started(60_000);
    dataOf(await s.gql('{ user { id } }', {}, { token: HUNG }));
    hangPlansOf(s, HUNG);
    let settled = 0;
    const hung = Array.from({ length: 20 }, () =>
      s.gql(`{ plan(id: "${randomUUID()}") { name } }`, {}, { token: HUNG }).finally(() => {
        settled += 1;
      }),
    );
    await until(() => openOf(s, HUNG) === DEFAULT_CONNECTIONS_PER_TOKEN, 'the hung share');

    const read = await s.gql<{ plan: { name: string } }>(
      '{ plan(id: "last-used") { name accounts { balance } } }',
      {},
      { token: OTHER },
    );
    expect(dataOf(read).plan.name).toBeTruthy();
    const write = await s.gql<{ createPayee: { __typename: string } }>(
      'mutation { createPayee(planId: "last-used", input: { name: "Meanwhile" }) { __typename } }',
      {},
      { token: OTHER },
    );
    expect(dataOf(write).createPayee.__typename).toBe('CreatePayeePayload');
    // The hung tenant never got more than its share, and none of its reads has been answered.
    expect(openOf(s, HUNG)).toBe(DEFAULT_CONNECTIONS_PER_TOKEN);
    expect(settled).toBe(0);

    await s.hostile.close();
    for (const answer of await Promise.all(hung))
      expect(answer.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
  });
});

describe('the operation deadline', () => {
  it('answers a cold read with UPSTREAM_UNAVAILABLE and a warm one stale once it passes', async () => {
    // The deadline runs on the stack's timers: it passes when the test moves them, once the
    // reads hang, so no answer that does come has to beat it on a loaded machine.
    const s = await startStack({
      serve: 'fetch',
      hostile: true,
      clock: 'manual',
      timers: 'manual',
      sandbox: {
        rateLimit: false,
        users: [{ token: HUNG, plans: [{ seed: 8, transactions: 40 }] }],
      },
      config: { operationDeadlineMs: 1_000 },
    });
    stack = s;
    const planId = s.sandbox.users[0]!.planIds[0]!;
    const warm = dataOf(
      await s.gql<{ plan: { name: string } }>(
        `{ plan(id: "${planId}") { name } }`,
        {},
        { token: HUNG },
      ),
    );
    hangPlansOf(s, HUNG);
    await s.scheduler.advance(1); // `no-cache` wants data sent after the warm read

    const stalePending = s.gql<{ plan: { name: string } }>(
      `{ plan(id: "${planId}") { name } }`,
      {},
      { token: HUNG, headers: { 'cache-control': 'no-cache' } },
    );
    await until(() => openOf(s, HUNG) === 1, 'the sync hung');
    await s.scheduler.advance(1_000);
    const stale = await stalePending;
    expect(stale.body.data).toEqual(warm);
    expect(stale.body.extensions?.stale).toEqual([
      expect.objectContaining({ source: planId, reason: 'UPSTREAM_UNAVAILABLE' }),
    ]);

    const coldPending = s.gql(`{ plan(id: "${randomUUID()}") { name } }`, {}, { token: HUNG });
    await until(() => openOf(s, HUNG) === 2, 'the cold read hung');
    await s.scheduler.advance(1_000);
    const cold = await coldPending;
    expect(cold.body.data?.plan ?? null).toBeNull();
    expect(cold.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(cold.body.errors?.[0]?.message).toMatch(/deadline/);
    // Both answers came while their requests still hang upstream (no attempt was repeated).
    expect(openOf(s, HUNG)).toBe(2);
  });
});

describe('a write past the deadline', () => {
  it('is not cut: it answers what the upstream did once it answers', async () => {
    const s = await started(200);
    const { accounts } = await s.writer.getAccounts(
      { token: HUNG },
      { planId: s.sandbox.users[0]!.planIds[0]! },
    );
    const account = accounts.find((a) => !a.closed && !a.deleted && a.on_budget)!;
    // Nothing here that gets an answer has to beat the 200 ms deadline (a loaded machine may take
    // longer): the write is held, and the read below is meant to meet it.
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    s.hostile.setRule((r) => {
      if (r.token === HUNG && r.operationId === 'createTransaction') {
        return { kind: 'hold', until: released };
      }
      if (r.token === OTHER && r.operationId === 'getPlanById') return { kind: 'hang' };
      return { kind: 'pass' };
    });
    let answered = false;
    const write = s
      .gql<{ createTransaction: { __typename: string; transaction?: { memo: string } } }>(
        `mutation($account: UUID!) {
          createTransaction(planId: "last-used", input: { accountId: $account, date: "2025-06-15", amount: -4200, memo: "held past the deadline" }) {
            __typename ... on CreateTransactionPayload { transaction { memo } }
          }
        }`,
        { account: account.id },
        { token: HUNG },
      )
      .finally(() => {
        answered = true;
      });
    await until(
      () => s.hostile.calls().some((c) => c.operationId === 'createTransaction'),
      'the write to reach the upstream',
    );
    // A read sent after the write began, whose upstream call never answers, ends at its own
    // deadline: the write's has passed by then, and the write still waits.
    const late = await s.gql('{ plan(id: "last-used") { name } }', {}, { token: OTHER });
    expect(late.body.errors?.map((e) => e.extensions?.code)).toEqual(['UPSTREAM_UNAVAILABLE']);
    expect(answered).toBe(false);
    release();
    const done = await write;
    expect(done.body.errors).toBeUndefined();
    expect(done.body.data?.createTransaction).toEqual({
      __typename: 'CreateTransactionPayload',
      transaction: { memo: 'held past the deadline' },
    });
    const { transactions } = await s.writer.getTransactions(
      { token: HUNG },
      { planId: s.sandbox.users[0]!.planIds[0]!, sinceDate: '2025-06-01' },
    );
    expect(transactions.filter((t) => t.memo === 'held past the deadline')).toHaveLength(1);
  });
});
