/**
 * Read-your-writes and the cost model: a mutation costs its write plus at most one delta
 * request; the next query within max-age costs nothing and shows the write; a later delta sync
 * neither duplicates nor reverts it; a failed sync after a write is answered from the applied
 * entities and said to be stale.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_AGE_MS } from '../../src/config/config.js';
import { AccountViewDocument, type AccountViewQuery } from '../generated/operations.js';
import { startStack } from '../support/stack.js';
import {
  MUTATIONS,
  type MutationStack,
  resultOf,
  TODAY,
  viaDelta,
  withLookups,
} from './support/plan-lookups.js';

let stack: MutationStack;

beforeAll(async () => {
  stack = withLookups(await startStack(MUTATIONS));
});

afterEach(() => stack.sandbox.setFaults([]));
afterAll(() => stack.close());

const CREATE = `mutation($p: PlanId!, $input: CreateTransactionInput!) {
  createTransaction(planId: $p, input: $input) {
    __typename
    ... on CreateTransactionPayload { transactionIds transaction { id amount payee { name } account { balance } } }
  }
}`;

async function expectAccountMatchesRest(view: AccountViewQuery, accountId: string): Promise<void> {
  const account = await stack.account(accountId);
  const rest = await stack.restData<{ transactions: { id: string }[] }>(
    `/plans/${stack.planId}/accounts/${accountId}/transactions?since_date=2000-01-01`,
  );
  expect(view.plan?.account).toMatchObject({
    balance: account.balance,
    clearedBalance: account.cleared_balance,
    unclearedBalance: account.uncleared_balance,
  });
  const ids = view.plan!.account!.transactions.nodes.map((n) => n.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect([...ids].sort()).toEqual(rest.transactions.map((t) => t.id).sort());
}

function deltaCalls(): string[] {
  return stack.sandbox
    .calls()
    .filter((c) => c.operationId === 'getPlanById')
    .map((c) => (c.query.last_knowledge_of_server === undefined ? 'full' : 'delta'));
}

describe('after a mutation', () => {
  it('the next query within max-age shows it at no cost; a later delta neither duplicates nor reverts it', async () => {
    const checking = await stack.accountOfType('checking');
    await stack.gql('{ plan(id: "last-used") { id } }');
    stack.resetUpstreamCalls();
    const created = resultOf<{ transaction: { id: string; account: { balance: number } } }>(
      await stack.gql(CREATE, {
        p: stack.planId,
        input: {
          accountId: checking.id,
          date: TODAY,
          amount: -64_000,
          payeeName: 'Read back',
          ...viaDelta(),
          memo: 'ryw',
        },
      }),
      'createTransaction',
      'CreateTransactionPayload',
    );
    expect(stack.upstreamCalls()).toEqual(['createTransaction', 'getPlanById']);
    expect(deltaCalls()).toEqual(['delta']);

    stack.resetUpstreamCalls();
    const within = await stack.gql(AccountViewDocument, { id: checking.id });
    expect(stack.upstreamCalls()).toEqual([]);
    expect(within.body.extensions?.upstream).toMatchObject({ calls: 0 });
    expect(
      within.body.data?.plan?.account?.transactions.nodes.find(
        (n) => n.id === created.transaction.id,
      ),
    ).toMatchObject({ amount: -64_000, memo: 'ryw' });
    expect(within.body.data?.plan?.account?.balance).toBe(created.transaction.account.balance);
    await expectAccountMatchesRest(within.body.data!, checking.id);

    // Past max-age: one delta request, same answer.
    stack.clock.advance(DEFAULT_MAX_AGE_MS + 1);
    stack.resetUpstreamCalls();
    const later = await stack.gql(AccountViewDocument, { id: checking.id });
    expect(deltaCalls()).toEqual(['delta']);
    expect(later.body.data).toEqual(within.body.data);

    // Forced by the client: the same again.
    stack.resetUpstreamCalls();
    const forced = await stack.gql(
      AccountViewDocument,
      { id: checking.id },
      { headers: { 'cache-control': 'no-cache' } },
    );
    expect(deltaCalls()).toEqual(['delta']);
    expect(forced.body.data).toEqual(within.body.data);
  });

  it('a payee write costs the write alone; the next query shows it once, before and after a delta', async () => {
    await stack.gql('{ plan(id: "last-used") { id } }');
    stack.resetUpstreamCalls();
    const created = resultOf<{ payee: { id: string } }>(
      await stack.gql(
        'mutation($p: PlanId!) { createPayee(planId: $p, input: { name: "Only once" }) { __typename ... on CreatePayeePayload { payee { id } } } }',
        {
          p: stack.planId,
        },
      ),
      'createPayee',
      'CreatePayeePayload',
    );
    expect(stack.upstreamCalls()).toEqual(['createPayee']);

    const query = '{ plan(id: "last-used") { payees { id name } } }';
    stack.resetUpstreamCalls();
    const within = await stack.gql<{ plan: { payees: { id: string; name: string }[] } }>(query);
    expect(stack.upstreamCalls()).toEqual([]);
    expect(within.body.data!.plan.payees.filter((p) => p.name === 'Only once')).toEqual([
      { id: created.payee.id, name: 'Only once' },
    ]);

    const later = await stack.gql<{ plan: { payees: { id: string; name: string }[] } }>(
      query,
      {},
      { headers: { 'cache-control': 'no-cache' } },
    );
    expect(later.body.data!.plan.payees.filter((p) => p.name === 'Only once')).toHaveLength(1);
    expect(later.body.data!.plan.payees.map((p) => p.id).sort()).toEqual(
      (await stack.payees()).map((p) => p.id).sort(),
    );
  });

  it('two mutations in one operation: the second sees the first (no pre-write snapshot is reused)', async () => {
    const cash = await stack.accountOfType('cash');
    const response = await stack.gql<
      Record<'a' | 'b', { transaction: { account: { balance: number } } }>
    >(
      `mutation($p: PlanId!, $a: CreateTransactionInput!, $b: CreateTransactionInput!) {
        a: createTransaction(planId: $p, input: $a) { ... on CreateTransactionPayload { transaction { account { balance } } } }
        b: createTransaction(planId: $p, input: $b) { ... on CreateTransactionPayload { transaction { account { balance } } } }
      }`,
      {
        p: stack.planId,
        a: { accountId: cash.id, date: TODAY, amount: -1_000, payeeName: 'First' },
        b: { accountId: cash.id, date: TODAY, amount: -2_000, payeeName: 'Second' },
      },
    );
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data!.a.transaction.account.balance).toBe(cash.balance - 1_000);
    expect(response.body.data!.b.transaction.account.balance).toBe(cash.balance - 3_000);
  });

  it('a write without a sync still makes the operation forget the plan it had read', async () => {
    const response = await stack.gql<{
      a: { plan: { payees: { name: string }[] } };
      b: { plan: { payees: { name: string }[] } };
    }>(
      `mutation($p: PlanId!) {
        a: createPayee(planId: $p, input: { name: "First of two" }) { ... on CreatePayeePayload { plan { payees { name } } } }
        b: createPayee(planId: $p, input: { name: "Second of two" }) { ... on CreatePayeePayload { plan { payees { name } } } }
      }`,
      { p: stack.planId },
    );
    expect(response.body.errors).toBeUndefined();
    const names = (side: 'a' | 'b') => response.body.data![side].plan.payees.map((p) => p.name);
    expect(names('a')).toContain('First of two');
    expect(names('a')).not.toContain('Second of two');
    expect(names('b')).toEqual(expect.arrayContaining(['First of two', 'Second of two']));
  });

  it('a mutation on `last-used` updates the same replica as the plan id', async () => {
    const cash = await stack.accountOfType('cash');
    await stack.gql('{ plan(id: "last-used") { id } }');
    stack.resetUpstreamCalls();
    const created = resultOf<{ transaction: { id: string } }>(
      await stack.gql(CREATE, {
        p: 'last-used',
        input: { accountId: cash.id, date: TODAY, amount: -500, payeeName: 'Alias' },
      }),
      'createTransaction',
      'CreateTransactionPayload',
    );
    expect(deltaCalls()).toEqual(['delta']);
    stack.resetUpstreamCalls();
    const read = await stack.gql<{ plan: { transaction: { amount: number } } }>(
      `query($id: ID!, $p: PlanId!) { plan(id: $p) { transaction(id: $id) { amount } } }`,
      { id: created.transaction.id, p: stack.planId },
    );
    expect(read.body.data?.plan.transaction.amount).toBe(-500);
    expect(stack.upstreamCalls()).toEqual([]);
  });

  it('when the delta sync after a write fails, the payload answers from the write and says it is stale', async () => {
    const checking = await stack.accountOfType('checking');
    await stack.gql('{ plan(id: "last-used") { id } }');
    stack.sandbox.setFaults([{ kind: 'status503', operationId: 'getPlanById' }]);
    stack.resetUpstreamCalls();
    const response = await stack.gql(CREATE, {
      p: stack.planId,
      input: {
        accountId: checking.id,
        date: TODAY,
        amount: -8_800,
        payeeName: 'Stale but saved',
        ...viaDelta(),
      },
    });
    const payload = resultOf<{
      transaction: { id: string; amount: number; payee: { name: string } };
    }>(response, 'createTransaction', 'CreateTransactionPayload');
    expect(payload.transaction).toMatchObject({
      amount: -8_800,
      payee: { name: 'Stale but saved' },
    });
    expect(response.body.extensions?.stale).toEqual([
      { source: stack.planId, reason: 'UPSTREAM_UNAVAILABLE', ageMs: expect.any(Number) },
    ]);
    // The write once; the sync is a read, which the client retries like any read.
    expect(stack.upstreamCalls()[0]).toBe('createTransaction');
    expect(stack.upstreamCalls().filter((c) => c === 'createTransaction')).toHaveLength(1);
    expect(
      stack
        .upstreamCalls()
        .slice(1)
        .every((c) => c === 'getPlanById'),
    ).toBe(true);

    stack.sandbox.setFaults([]);
    // The failed sync paused this token's reads for a few seconds (the client's read back-off).
    stack.clock.advance(10_000);
    const view = await stack.gql(
      AccountViewDocument,
      { id: checking.id },
      { headers: { 'cache-control': 'no-cache' } },
    );
    expect(view.body.extensions?.stale).toBeUndefined();
    expect(
      view.body.data!.plan!.account!.transactions.nodes.filter(
        (n) => n.id === payload.transaction.id,
      ),
    ).toHaveLength(1);
    await expectAccountMatchesRest(view.body.data!, checking.id);
  });

  it('updateScheduledTransaction keeps its date; once the date passes, the occurrence is entered', async () => {
    const checking = await stack.accountOfType('checking');
    const created = resultOf<{ scheduledTransaction: { id: string } }>(
      await stack.gql(
        `mutation($p: PlanId!, $input: CreateScheduledTransactionInput!) { createScheduledTransaction(planId: $p, input: $input) {
          __typename ... on CreateScheduledTransactionPayload { scheduledTransaction { id } } } }`,
        {
          p: stack.planId,
          input: {
            accountId: checking.id,
            date: '2025-06-16',
            amount: -1_000,
            frequency: 'weekly',
            memo: 'gym',
          },
        },
      ),
      'createScheduledTransaction',
      'CreateScheduledTransactionPayload',
    );
    const update = `mutation($p: PlanId!, $id: UUID!, $input: UpdateScheduledTransactionInput!) {
      updateScheduledTransaction(planId: $p, scheduledTransactionId: $id, input: $input) {
        __typename ... on Error { message } ... on UpdateScheduledTransactionPayload { scheduledTransaction { dateNext memo } }
      }
    }`;
    const kept = await stack.gql(update, {
      p: stack.planId,
      id: created.scheduledTransaction.id,
      input: { accountId: checking.id, date: '2025-06-16', memo: 'same day' },
    });
    expect(
      resultOf(kept, 'updateScheduledTransaction', 'UpdateScheduledTransactionPayload'),
    ).toMatchObject({
      scheduledTransaction: { dateNext: '2025-06-16', memo: 'same day' },
    });
    // A new date of today is refused before any upstream call.
    stack.resetUpstreamCalls();
    const moved = await stack.gql(update, {
      p: stack.planId,
      id: created.scheduledTransaction.id,
      input: { accountId: checking.id, date: '2025-06-15' },
    });
    expect(moved.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.date',
    });
    expect(stack.upstreamCalls()).toEqual([]);

    // The day after, the upstream has entered the occurrence and moved dateNext a week on.
    stack.clock.advance(24 * 3_600_000);
    const after = await stack.gql<{
      plan: {
        scheduledTransaction: { dateNext: string };
        account: { transactions: { nodes: { memo: string | null; amount: number }[] } };
      };
    }>(
      `query($p: PlanId!, $id: UUID!, $account: UUID!) { plan(id: $p) {
        scheduledTransaction(id: $id) { dateNext }
        account(id: $account) { transactions(sinceDate: "2025-06-16", untilDate: "2025-06-16") { nodes { memo amount } } } } }`,
      { p: stack.planId, id: created.scheduledTransaction.id, account: checking.id },
      { headers: { 'cache-control': 'no-cache' } },
    );
    expect(after.body.data?.plan.scheduledTransaction.dateNext).toBe('2025-06-23');
    expect(after.body.data?.plan.account.transactions.nodes).toContainEqual({
      memo: 'same day',
      amount: -1_000,
    });
  });
});

describe('with no replica held yet', () => {
  it('the mutation costs the write alone; the first read loads the plan with the write in it', async () => {
    const cold = withLookups(await startStack(MUTATIONS));
    try {
      const savings = await cold.accountOfType('savings');
      cold.resetUpstreamCalls();
      const response = await cold.gql(
        'mutation($p: PlanId!, $input: CreateTransactionInput!) { createTransaction(planId: $p, input: $input) { ... on CreateTransactionPayload { transactionIds } } }',
        {
          p: cold.planId,
          input: { accountId: savings.id, date: TODAY, amount: 123_000, payeeName: 'Cold' },
        },
      );
      expect(response.body.errors).toBeUndefined();
      expect(cold.upstreamCalls()).toEqual(['createTransaction']);
      const [id] = (response.body.data as { createTransaction: { transactionIds: string[] } })
        .createTransaction.transactionIds;

      cold.resetUpstreamCalls();
      const read = await cold.gql<{
        plan: { transaction: { amount: number; account: { balance: number } } };
      }>(
        `query($id: ID!) { plan(id: "last-used") { transaction(id: $id) { amount account { balance } } } }`,
        { id },
      );
      expect(cold.upstreamCalls()).toEqual(['getPlanById']);
      expect(read.body.data?.plan.transaction).toEqual({
        amount: 123_000,
        account: { balance: savings.balance + 123_000 },
      });
    } finally {
      await cold.close();
    }
  });
});
