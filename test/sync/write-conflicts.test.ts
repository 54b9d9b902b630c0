/**
 * Write conflicts (issue 35), over real HTTP against the sandbox: a write sent with
 * `ifUnchangedSince` (a `changes` cursor) whose row was changed behind the gateway's back after
 * that cursor is refused with a `WriteConflict` carrying both versions, and nothing is written
 * upstream; an unchanged row is written; a row deleted elsewhere answers `current: null`; a bad
 * cursor is a clear BAD_USER_INPUT; a cursor the change log cannot answer for is a conflict
 * (refusing is safer than overwriting); a bulk update with one conflicting row writes nothing; a
 * replayed Idempotency-Key answers the original result; without the argument nothing changes.
 */
import type { TransactionDetail } from '@plans-gateway/rest-contract';
import { afterEach, describe, expect, it } from 'vitest';
import { callsOf, LIVE, type LiveStack } from '../live/support/live.js';
import { type HostileStack, startStack } from '../support/stack.js';
import { aged, memoChangedElsewhere, memoUpstream } from './support/elsewhere.js';

const TOKEN = 'conflict-token-000000001';

const CHANGES = `query($planId: PlanId!) {
  changes(planId: $planId) { ... on ChangesPage { cursor } }
}`;

const CONFLICT = `... on WriteConflict {
  message planId id attempted cursor
  current { __typename id ... on Transaction { memo amount } }
}`;

const UPDATE = `mutation($planId: PlanId!, $id: ID!, $input: UpdateTransactionInput!, $since: String) {
  updateTransaction(planId: $planId, transactionId: $id, input: $input, ifUnchangedSince: $since) {
    __typename
    ... on UpdateTransactionPayload { transaction { id memo } }
    ${CONFLICT}
  }
}`;

const BULK = `mutation($planId: PlanId!, $input: UpdateTransactionsInput!, $since: String) {
  updateTransactions(planId: $planId, input: $input, ifUnchangedSince: $since) {
    __typename
    ... on UpdateTransactionsPayload { transactionIds }
    ${CONFLICT}
  }
}`;

const DELETE = `mutation($planId: PlanId!, $id: ID!, $since: String) {
  deleteTransaction(planId: $planId, transactionId: $id, ifUnchangedSince: $since) {
    __typename
    ... on DeleteTransactionPayload { transaction { id } }
    ${CONFLICT}
  }
}`;

interface Conflict {
  __typename: 'WriteConflict';
  message: string;
  planId: string;
  id: string;
  attempted: unknown;
  cursor: string;
  current: { __typename: string; id: string; memo?: string | null; amount?: number } | null;
}
type Result = { __typename: string } & Partial<Conflict> & {
    transaction?: { id: string; memo?: string | null };
    transactionIds?: string[];
  };

let stack: LiveStack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function started(): Promise<LiveStack> {
  stack = await startStack({
    ...LIVE,
    token: TOKEN,
    sandbox: {
      rateLimit: false,
      users: [{ token: TOKEN, plans: [{ seed: 21, transactions: 30 }] }],
    },
  });
  return stack;
}

async function cursorOf(s: LiveStack): Promise<string> {
  const answer = await s.gql<{ changes: { cursor: string } }>(CHANGES, { planId: s.planId });
  expect(answer.body.errors).toBeUndefined();
  return answer.body.data!.changes.cursor;
}

/** Two plain (not split, not transfer) transactions of the plan, read straight from REST. */
async function twoTransactions(s: LiveStack): Promise<[TransactionDetail, TransactionDetail]> {
  const { transactions } = await s.writer.getTransactions({ token: s.token }, { planId: s.planId });
  const plain = transactions.filter(
    (tx) => !tx.deleted && tx.subtransactions.length === 0 && tx.transfer_account_id === null,
  );
  expect(plain.length).toBeGreaterThanOrEqual(2);
  return [plain[0]!, plain[1]!];
}

/** The sandbox calls that write (anything but a read). */
function writes(s: LiveStack): string[] {
  return callsOf(s.sandbox).filter((call) => !/^get|@\d+$/.test(call));
}

async function mutate(
  s: LiveStack,
  query: string,
  variables: Record<string, unknown>,
  field: string,
  headers?: Record<string, string>,
): Promise<Result> {
  const answer = await s.gql<Record<string, Result>>(query, variables, headers ? { headers } : {});
  expect(answer.body.errors).toBeUndefined();
  return answer.body.data![field]!;
}

describe('a write with ifUnchangedSince', () => {
  it('is refused with both versions, and nothing written, when the row changed after the cursor', async () => {
    const s = await started();
    const [row] = await twoTransactions(s);
    const since = await cursorOf(s);
    await memoChangedElsewhere(s, row.id, 'edited on the phone');
    aged(s);
    s.sandbox.resetCalls();

    const input = { memo: 'edited offline on the laptop' };
    const answer = await mutate(
      s,
      UPDATE,
      { planId: s.planId, id: row.id, input, since },
      'updateTransaction',
    );
    expect(answer.__typename).toBe('WriteConflict');
    expect(answer.planId).toBe(s.planId);
    expect(answer.id).toBe(row.id);
    expect(answer.current).toMatchObject({
      __typename: 'Transaction',
      id: row.id,
      memo: 'edited on the phone',
    });
    expect(answer.attempted).toEqual(input);
    expect(answer.message).toMatch(/changed elsewhere/);
    // One delta to be current, and no write.
    expect(callsOf(s.sandbox)).toEqual([expect.stringMatching(/@\d+$/)]);
    expect(await memoUpstream(s, row.id)).toBe('edited on the phone');

    // With the conflict's cursor (the client has seen the current row), the write goes through.
    const retried = await mutate(
      s,
      UPDATE,
      { planId: s.planId, id: row.id, input, since: answer.cursor },
      'updateTransaction',
    );
    expect(retried.__typename).toBe('UpdateTransactionPayload');
    expect(retried.transaction?.memo).toBe('edited offline on the laptop');
  });

  it('sees an edit made elsewhere while its replica is still within max-age (the guard syncs first)', async () => {
    const s = await started();
    const [row] = await twoTransactions(s);
    const since = await cursorOf(s);
    // No time passes: a read would be answered from the replica, which has not seen this edit.
    await memoChangedElsewhere(s, row.id, 'edited a second ago');
    s.sandbox.resetCalls();

    const sent = await s.gql<Record<string, Result>>(UPDATE, {
      planId: s.planId,
      id: row.id,
      input: { memo: 'mine' },
      since,
    });
    const answer = sent.body.data!.updateTransaction!;
    expect(answer.__typename).toBe('WriteConflict');
    expect(answer.current).toMatchObject({ id: row.id, memo: 'edited a second ago' });
    // The guard's delta is the operation's, and it says so.
    expect(sent.body.extensions).toMatchObject({ upstream: { calls: 1 } });
    expect(callsOf(s.sandbox)).toEqual([expect.stringMatching(/@\d+$/)]);
    expect(await memoUpstream(s, row.id)).toBe('edited a second ago');
  });

  it('goes through when only other rows changed after the cursor', async () => {
    const s = await started();
    const [mine, other] = await twoTransactions(s);
    const since = await cursorOf(s);
    // Another row's amount: its account's balance moves (the guard's delta brings it).
    await s.writer.updateTransaction(
      { token: s.token },
      {
        planId: s.planId,
        transactionId: other.id,
        body: { transaction: { amount: other.amount - 1_000 } },
      },
    );
    aged(s);
    s.sandbox.resetCalls();

    const query = `mutation($planId: PlanId!, $id: ID!, $since: String) {
      updateTransaction(planId: $planId, transactionId: $id, input: { memo: "mine" }, ifUnchangedSince: $since) {
        __typename
        ... on UpdateTransactionPayload { transaction { id memo } changes { accounts { id } } }
      }
    }`;
    const answer = (await mutate(
      s,
      query,
      { planId: s.planId, id: mine.id, since },
      'updateTransaction',
    )) as Result & { changes?: { accounts: { id: string }[] } };
    expect(answer.__typename).toBe('UpdateTransactionPayload');
    expect(answer.transaction?.memo).toBe('mine');
    expect(writes(s)).toEqual(['updateTransaction']);
    // `changes` is what this write changed: a memo moves no balance (the other edit came before).
    expect(answer.changes?.accounts).toEqual([]);
  });

  it('answers current: null for a row deleted elsewhere', async () => {
    const s = await started();
    const [row] = await twoTransactions(s);
    const since = await cursorOf(s);
    await s.writer.deleteTransaction(
      { token: s.token },
      { planId: s.planId, transactionId: row.id },
    );
    aged(s);
    s.sandbox.resetCalls();

    const answer = await mutate(
      s,
      DELETE,
      { planId: s.planId, id: row.id, since },
      'deleteTransaction',
    );
    expect(answer.__typename).toBe('WriteConflict');
    expect(answer.id).toBe(row.id);
    expect(answer.current).toBeNull();
    expect(answer.attempted).toEqual({ delete: true });
    expect(writes(s)).toEqual([]);
  });

  it('refuses a cursor that is not this gateway’s for this token and plan, naming the argument', async () => {
    const s = await started();
    const [row] = await twoTransactions(s);
    const since = await cursorOf(s);
    s.sandbox.resetCalls();
    for (const bad of ['c1.bm90IGEgY3Vyc29yIGF0IGFsbCwgbm90IGF0IGFsbA', 'nonsense', `${since}x`]) {
      const answer = await s.gql(UPDATE, {
        planId: s.planId,
        id: row.id,
        input: { memo: 'never sent' },
        since: bad,
      });
      const [error] = answer.body.errors ?? [];
      expect(error?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(error?.extensions?.argument).toBe('ifUnchangedSince');
      expect(error?.message).toMatch(/ifUnchangedSince/);
    }
    expect(writes(s)).toEqual([]);
  });

  it('refuses a bulk update whole when one of its rows conflicts', async () => {
    const s = await started();
    const [changed, untouched] = await twoTransactions(s);
    const since = await cursorOf(s);
    await memoChangedElsewhere(s, changed.id, 'edited elsewhere');
    aged(s);
    s.sandbox.resetCalls();

    const input = {
      transactions: [
        { id: untouched.id, memo: 'bulk 1' },
        { id: changed.id, memo: 'bulk 2' },
      ],
    };
    const answer = await mutate(s, BULK, { planId: s.planId, input, since }, 'updateTransactions');
    expect(answer.__typename).toBe('WriteConflict');
    expect(answer.id).toBe(changed.id);
    expect(answer.attempted).toEqual({ id: changed.id, memo: 'bulk 2' });
    expect(writes(s)).toEqual([]);
    const kept = await s.writer.getTransactionById(
      { token: s.token },
      { planId: s.planId, transactionId: untouched.id },
    );
    expect(kept.transaction.memo).toBe(untouched.memo);
  });

  it('answers a replayed Idempotency-Key with the original result, not a conflict', async () => {
    const s = await started();
    const [row] = await twoTransactions(s);
    const since = await cursorOf(s);
    const headers = { 'idempotency-key': 'conflict-replay-1' };
    const variables = { planId: s.planId, id: row.id, input: { memo: 'queued' }, since };
    const first = await mutate(s, UPDATE, variables, 'updateTransaction', headers);
    expect(first.__typename).toBe('UpdateTransactionPayload');
    // The write itself is a change after the cursor; a replay must not call it a conflict.
    aged(s);
    s.sandbox.resetCalls();
    const again = await mutate(s, UPDATE, variables, 'updateTransaction', headers);
    expect(again).toEqual(first);
    expect(writes(s)).toEqual([]);
  });

  it('is refused, with the current row, when the change log cannot tell (the replica reloaded)', async () => {
    const s = await started();
    const [row, other] = await twoTransactions(s);
    const since = await cursorOf(s);
    // Another row changes, and the copy is reloaded in full: the log restarts after the cursor.
    await memoChangedElsewhere(s, other.id, 'another row');
    s.gateway.replicas.forgetToken(s.tokenKey); // the next read reloads the plan in full
    s.sandbox.resetCalls();
    const answer = await mutate(
      s,
      UPDATE,
      { planId: s.planId, id: row.id, input: { memo: 'unsure' }, since },
      'updateTransaction',
    );
    expect(answer.__typename).toBe('WriteConflict');
    expect(answer.current).toMatchObject({ id: row.id, memo: row.memo });
    expect(writes(s)).toEqual([]);
  });

  it('compares a month category in its month', async () => {
    const s = await started();
    const month = `${new Date(s.clock.now()).toISOString().slice(0, 7)}-01`;
    const { category_groups } = await s.writer.getCategories(
      { token: s.token },
      { planId: s.planId },
    );
    const [first, second] = category_groups
      .filter((group) => !group.hidden && !group.deleted && !group.name.startsWith('Internal'))
      .flatMap((group) => group.categories.filter((c) => !c.hidden && !c.deleted))
      .filter((category) => !category.name.startsWith('Inflow'));
    const since = await cursorOf(s);
    await s.writer.updateMonthCategory(
      { token: s.token },
      { planId: s.planId, month, categoryId: first!.id, body: { category: { budgeted: 123_000 } } },
    );
    aged(s);
    s.sandbox.resetCalls();
    const query = `mutation($planId: PlanId!, $month: MonthSelector!, $id: UUID!, $since: String) {
      updateMonthCategory(planId: $planId, month: $month, categoryId: $id, input: { budgeted: 50000 }, ifUnchangedSince: $since) {
        __typename
        ... on WriteConflict { id attempted current { __typename id ... on MonthCategory { budgeted } } }
      }
    }`;
    const refused = await mutate(
      s,
      query,
      { planId: s.planId, month, id: first!.id, since },
      'updateMonthCategory',
    );
    expect(refused.__typename).toBe('WriteConflict');
    expect(refused.id).toBe(`${first!.id}:${month}`);
    expect(refused.current).toMatchObject({ __typename: 'MonthCategory', budgeted: 123_000 });
    expect(refused.attempted).toEqual({ budgeted: 50_000 });
    expect(writes(s)).toEqual([]);
    // Another category of the same month was not changed: its write goes through.
    const fine = await mutate(
      s,
      query,
      { planId: s.planId, month, id: second!.id, since },
      'updateMonthCategory',
    );
    expect(fine.__typename).toBe('UpdateMonthCategoryPayload');
  });

  it('without ifUnchangedSince overwrites as always', async () => {
    const s = await started();
    const [row] = await twoTransactions(s);
    await cursorOf(s);
    await memoChangedElsewhere(s, row.id, 'edited on the phone');
    aged(s);
    s.sandbox.resetCalls();
    const answer = await mutate(
      s,
      UPDATE,
      { planId: s.planId, id: row.id, input: { memo: 'last write wins' } },
      'updateTransaction',
    );
    expect(answer.__typename).toBe('UpdateTransactionPayload');
    expect(writes(s)).toEqual(['updateTransaction']);
  });
});

/**
 * A write's own cursor (the payload's `cursor`): the client's next guarded write of the same row
 * conflicts only with what someone else did after that write, never with the write itself.
 */
describe("a write's own cursor", () => {
  const WRITE = `mutation($planId: PlanId!, $id: ID!, $input: UpdateTransactionInput!, $since: String) {
    updateTransaction(planId: $planId, transactionId: $id, input: $input, ifUnchangedSince: $since) {
      __typename
      ... on UpdateTransactionPayload { writeCursor transaction { id memo } }
      ${CONFLICT}
    }
  }`;
  type Written = Result & { writeCursor?: string | null };
  const edit = (s: LiveStack, id: string, memo: string, since: string) =>
    mutate(
      s,
      WRITE,
      { planId: s.planId, id, input: { memo }, since },
      'updateTransaction',
    ) as Promise<Written>;

  it('lets a second guarded write of the same row through, and only that row', async () => {
    const s = await started();
    const [row, other] = await twoTransactions(s);
    const since = await cursorOf(s);
    s.sandbox.resetCalls();

    const first = await edit(s, row.id, 'first edit', since);
    expect(first.__typename).toBe('UpdateTransactionPayload');
    expect(first.writeCursor).toEqual(expect.stringMatching(/^c1\./));
    // The cache's cursor still counts the first edit as a change: the bug this cursor fixes.
    expect((await edit(s, row.id, 'second edit', since)).__typename).toBe('WriteConflict');

    const second = await edit(s, row.id, 'second edit', first.writeCursor!);
    expect(second.__typename).toBe('UpdateTransactionPayload');
    expect(second.transaction?.memo).toBe('second edit');
    expect(writes(s)).toEqual(['updateTransaction', 'updateTransaction']);
    expect(await memoUpstream(s, row.id)).toBe('second edit');
    // And a third, with the second's.
    expect((await edit(s, row.id, 'third edit', second.writeCursor!)).__typename).toBe(
      'UpdateTransactionPayload',
    );

    // It speaks for the row it wrote only: another row's write with it is refused, unwritten.
    const elsewhere = await edit(s, other.id, 'not covered', first.writeCursor!);
    expect(elsewhere.__typename).toBe('WriteConflict');
    expect(elsewhere.id).toBe(other.id);
    // Sealed like a changes cursor: altered, it opens nowhere.
    const cursor = first.writeCursor!;
    const altered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
    const forged = await s.gql(WRITE, {
      planId: s.planId,
      id: row.id,
      input: { memo: 'forged' },
      since: altered,
    });
    expect(forged.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'ifUnchangedSince',
    });
    // And it is no `changes` cursor (the rest of the copy is where it was).
    const changes = await s.gql(
      `query($planId: PlanId!, $since: String) { changes(planId: $planId, since: $since) { __typename } }`,
      { planId: s.planId, since: first.writeCursor },
    );
    expect(changes.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
  });

  it('covers a scheduled transaction write (no knowledge in its answer) once its delta shows nothing else happened', async () => {
    const s = await started();
    const { scheduled_transactions: all } = await s.writer.getScheduledTransactions(
      { token: s.token },
      { planId: s.planId },
    );
    const row = all.find((candidate) => !candidate.deleted)!;
    const date = new Date(s.clock.now() + 7 * 86_400_000).toISOString().slice(0, 10);
    const SCHEDULED = `mutation($planId: PlanId!, $id: UUID!, $input: UpdateScheduledTransactionInput!, $since: String) {
      updateScheduledTransaction(planId: $planId, scheduledTransactionId: $id, input: $input, ifUnchangedSince: $since) {
        __typename
        ... on UpdateScheduledTransactionPayload { writeCursor scheduledTransaction { id memo } }
        ${CONFLICT}
      }
    }`;
    const edit = (memo: string, since: string) =>
      mutate(
        s,
        SCHEDULED,
        { planId: s.planId, id: row.id, input: { accountId: row.account_id, date, memo }, since },
        'updateScheduledTransaction',
      ) as Promise<Result & { writeCursor?: string | null }>;
    const first = await edit('first edit', await cursorOf(s));
    expect(first.__typename).toBe('UpdateScheduledTransactionPayload');
    expect(first.writeCursor).toEqual(expect.stringMatching(/^c1\./));
    const second = await edit('second edit', first.writeCursor!);
    expect(second.__typename).toBe('UpdateScheduledTransactionPayload');

    // A change elsewhere after it: the next write with it conflicts.
    await s.writer.updateScheduledTransaction(
      { token: s.token },
      {
        planId: s.planId,
        scheduledTransactionId: row.id,
        body: { scheduled_transaction: { account_id: row.account_id, date, memo: 'on the phone' } },
      },
    );
    aged(s);
    expect((await edit('third edit', second.writeCursor!)).__typename).toBe('WriteConflict');
  });

  it('conflicts when the row changed elsewhere after the write', async () => {
    const s = await started();
    const [row] = await twoTransactions(s);
    const first = await edit(s, row.id, 'first edit', await cursorOf(s));
    await memoChangedElsewhere(s, row.id, 'edited on the phone');
    aged(s);
    s.sandbox.resetCalls();

    const second = await edit(s, row.id, 'second edit', first.writeCursor!);
    expect(second.__typename).toBe('WriteConflict');
    expect(second.current).toMatchObject({ id: row.id, memo: 'edited on the phone' });
    expect(writes(s)).toEqual([]);
    expect(await memoUpstream(s, row.id)).toBe('edited on the phone');
  });

  it("is the write's own knowledge: a delta that brought a later change elsewhere does not hide it", async () => {
    stack = await startStack({
      ...LIVE,
      hostile: true,
      token: TOKEN,
      sandbox: {
        rateLimit: false,
        users: [{ token: TOKEN, plans: [{ seed: 21, transactions: 30 }] }],
      },
    });
    const s = stack as LiveStack & HostileStack;
    const [row, other] = await twoTransactions(s);
    const since = await cursorOf(s);
    // Held in flight at the hostile upstream: another row changes before the write lands (it
    // is then no longer one step past the replica: a delta follows it), and the same row
    // changes elsewhere before that delta is sent (it brings both).
    let phase: 'write' | 'delta' | 'done' = 'write';
    let behindUs = 0;
    s.hostile.setRule((request) => {
      if (phase === 'write' && request.operationId === 'updateTransaction') {
        phase = 'delta';
        return {
          kind: 'hold',
          until: memoChangedElsewhere(s, other.id, 'other row').then(() => {}),
        };
      }
      if (phase === 'delta' && request.query.has('last_knowledge_of_server')) {
        phase = 'done';
        const later = memoChangedElsewhere(s, row.id, 'edited on the phone');
        const landed = later.then((knowledge) => {
          behindUs = knowledge;
        });
        return { kind: 'hold', until: landed };
      }
      return { kind: 'pass' };
    });

    const first = await edit(s, row.id, 'first edit', since);
    expect(first.__typename).toBe('UpdateTransactionPayload');
    // The delta after the write has landed: the replica holds the later edit.
    const read = await s.gql<{ plan: { transaction: { memo: string } } }>(
      `query($planId: PlanId!, $id: ID!) { plan(id: $planId) { transaction(id: $id) { memo } } }`,
      { planId: s.planId, id: row.id },
    );
    expect(phase).toBe('done');
    expect(behindUs).toBeGreaterThan(0);
    expect(read.body.data?.plan.transaction.memo).toBe('edited on the phone');

    const second = await edit(s, row.id, 'second edit', first.writeCursor!);
    expect(second.__typename).toBe('WriteConflict');
    expect(second.current).toMatchObject({ id: row.id, memo: 'edited on the phone' });
    expect(await memoUpstream(s, row.id)).toBe('edited on the phone');
  });
});
