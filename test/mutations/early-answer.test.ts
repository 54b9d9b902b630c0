/**
 * A mutation answers after its write alone when its selection reads only what the write's answer
 * carries; the delta sync follows without holding the answer, and what needs it (balances, links)
 * waits for it, in the same operation and in the token's next ones (read-your-writes).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gqlAt } from '../support/graphql.js';
import { type HostileStack, type Stack, startStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import {
  MUTATIONS,
  type MutationStack,
  resultOf,
  TODAY,
  viaDelta,
  withLookups,
} from './support/plan-lookups.js';

const CREATE_IDS = `mutation($p: PlanId!, $input: CreateTransactionInput!) {
  createTransaction(planId: $p, input: $input) {
    __typename
    ... on CreateTransactionPayload { transactionIds serverKnowledge transaction { id amount memo date } }
  }
}`;

const CREATE_BALANCE = `mutation($p: PlanId!, $input: CreateTransactionInput!) {
  createTransaction(planId: $p, input: $input) {
    __typename
    ... on CreateTransactionPayload { transaction { id account { balance } } }
  }
}`;

const BALANCE = `query($id: UUID!) { plan(id: "last-used") { account(id: $id) { balance } } }`;

type Created = { transaction: { id: string; amount: number; account?: { balance: number } } };

/** An operation sent without waiting for what its answer leaves running (unlike `stack.gql`). */
function send<Data = Record<string, unknown>>(stack: Stack, query: string, variables: unknown) {
  return gqlAt<Data>(stack.url, query, variables, stack.token, {}, stack.fetch);
}

const isDelta = (call: { operationId: string | null; query: URLSearchParams }) =>
  call.operationId === 'getPlanById' && call.query.has('last_knowledge_of_server');

describe('a mutation whose selection needs nothing the delta brings', () => {
  let stack: MutationStack & HostileStack;

  beforeAll(async () => {
    stack = withLookups(
      await startStack({ ...MUTATIONS, hostile: true, config: { operationDeadlineMs: 1_500 } }),
    ) as MutationStack & HostileStack;
  });
  afterEach(() => stack.hostile.setRule(() => ({ kind: 'pass' })));
  afterAll(() => stack.close());

  it('answers while its delta is still unanswered; one that reads a balance waits for it', async () => {
    const checking = await stack.accountOfType('checking');
    await stack.gql('{ plan(id: "last-used") { id } }');
    // Every delta from now on is accepted and never answered.
    stack.hostile.setRule((request) => (isDelta(request) ? { kind: 'hang' } : { kind: 'pass' }));
    stack.hostile.resetCalls();

    const early = await send(stack, CREATE_IDS, {
      p: stack.planId,
      input: { ...viaDelta(), accountId: checking.id, date: TODAY, amount: -1_234, memo: 'early' },
    });
    const created = resultOf<Created>(early, 'createTransaction', 'CreateTransactionPayload');
    expect(created.transaction).toMatchObject({ amount: -1_234 });
    expect(early.body.extensions?.stale).toBeUndefined();
    // The delta was sent after the write and is still open: the answer did not wait for it.
    await until(() => stack.hostile.calls().some(isDelta), 'the delta after the write');
    expect(stack.hostile.calls().map((c) => c.operationId)[0]).toBe('createTransaction');

    const waiting = await send(stack, CREATE_BALANCE, {
      p: stack.planId,
      input: { ...viaDelta(), accountId: checking.id, date: TODAY, amount: -1_000 },
    });
    // It waited for its delta until the operation's deadline, then answered from the write.
    resultOf<Created>(waiting, 'createTransaction', 'CreateTransactionPayload');
    expect(waiting.body.extensions?.stale).toEqual([
      expect.objectContaining({ source: stack.planId }),
    ]);
  });
});

describe('after an early answer', () => {
  let stack: MutationStack;

  beforeAll(async () => {
    stack = withLookups(await startStack(MUTATIONS));
  });
  afterAll(() => stack.close());

  it('the next read of the token shows the balance the delta brings (read-your-writes)', async () => {
    const checking = await stack.accountOfType('checking');
    const before = await stack.gql<{ plan: { account: { balance: number } } }>(BALANCE, {
      id: checking.id,
    });
    stack.resetUpstreamCalls();
    const created = await send(stack, CREATE_IDS, {
      p: stack.planId,
      input: { ...viaDelta(), accountId: checking.id, date: TODAY, amount: -4_321 },
    });
    resultOf<Created>(created, 'createTransaction', 'CreateTransactionPayload');
    // Sent at once, without waiting for anything: it must wait for the delta itself.
    const after = await send<{ plan: { account: { balance: number } } }>(stack, BALANCE, {
      id: checking.id,
    });
    expect(after.body.data?.plan.account.balance).toBe(
      before.body.data!.plan.account.balance - 4_321,
    );
    await stack.gateway.settled();
    // The write and one delta, as when the mutation waited for it.
    expect(stack.upstreamCalls()).toEqual(['createTransaction', 'getPlanById']);
    expect((await stack.account(checking.id)).balance).toBe(after.body.data?.plan.account.balance);
  });

  it('a selection of links reads them after the delta, in the same operation', async () => {
    const checking = await stack.accountOfType('checking');
    const answer = await send(stack, CREATE_BALANCE, {
      p: stack.planId,
      input: { ...viaDelta(), accountId: checking.id, date: TODAY, amount: -700 },
    });
    const created = resultOf<Created>(answer, 'createTransaction', 'CreateTransactionPayload');
    expect(created.transaction.account?.balance).toBe((await stack.account(checking.id)).balance);
  });
});
