/**
 * Mutation failures: typed results for the refusals a client handles (409 duplicate import id,
 * 400, 403.3 read-only, 404), each with the REST error verbatim; GraphQL errors with the
 * docs/graph.md#errors codes for the rest. Writes are sent exactly once, even when the outcome is
 * unknown (503, timeout), and the error says whether resending is safe.
 */
import type { TransactionDetail } from '@plans-gateway/rest-contract';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startStack } from '../support/stack.js';
import {
  FAILURES,
  MUTATIONS,
  type MutationStack,
  onlyError,
  resultOf,
  TODAY,
  withLookups,
} from './support/plan-lookups.js';

const CREATE = `mutation($p: PlanId!, $input: CreateTransactionInput!) {
  createTransaction(planId: $p, input: $input) {
    __typename
    ${FAILURES}
    ... on DuplicateImportIdError { importId restError { status id name detail } }
    ... on CreateTransactionPayload { transaction { id } }
  }
}`;

interface RestErrorOut {
  status: number;
  id: string;
  name: string;
  detail: string;
}

async function transactionsOf(
  stack: MutationStack,
  accountId: string,
): Promise<TransactionDetail[]> {
  return (
    await stack.restData<{ transactions: TransactionDetail[] }>(
      `/plans/${stack.planId}/accounts/${accountId}/transactions?since_date=2020-01-01`,
    )
  ).transactions;
}

describe('typed refusals', () => {
  let stack: MutationStack;
  let accountId: string;

  beforeAll(async () => {
    stack = withLookups(await startStack(MUTATIONS));
    accountId = (await stack.accountOfType('checking')).id;
    await stack.gql('{ plan(id: "last-used") { id } }');
  });

  afterAll(() => stack.close());

  it('409: a second single create with an import id is a DuplicateImportIdError; nothing is created', async () => {
    const input = {
      accountId,
      date: TODAY,
      amount: -3_330,
      payeeName: 'Twice',
      importId: 'dup:single',
    };
    resultOf(
      await stack.gql(CREATE, { p: stack.planId, input }),
      'createTransaction',
      'CreateTransactionPayload',
    );
    stack.resetUpstreamCalls();
    const response = await stack.gql(CREATE, { p: stack.planId, input });
    const result = resultOf<{ message: string; importId: string; restError: RestErrorOut }>(
      response,
      'createTransaction',
      'DuplicateImportIdError',
    );
    expect(result.importId).toBe('dup:single');
    expect(result.restError).toMatchObject({ status: 409, id: '409', name: 'conflict' });
    expect(result.restError.detail).toContain('dup:single');
    expect(result.message).toContain(result.restError.detail);
    // Refused: no sync follows a failed write.
    expect(stack.upstreamCalls()).toEqual(['createTransaction']);
    const copies = (await transactionsOf(stack, accountId)).filter(
      (t) => t.import_id === 'dup:single',
    );
    expect(copies).toHaveLength(1);
  });

  it('400: a body the upstream refuses is a ValidationError with the REST detail', async () => {
    const response = await stack.gql(CREATE, {
      p: stack.planId,
      input: {
        accountId: '11111111-2222-4333-8444-555555555555',
        date: TODAY,
        amount: -1,
        payeeName: 'Nowhere',
      },
    });
    const result = resultOf<{ message: string; restError: RestErrorOut }>(
      response,
      'createTransaction',
      'ValidationError',
    );
    expect(result.restError).toMatchObject({ status: 400, id: '400', name: 'bad_request' });
    expect(result.restError.detail).toContain('account_id');
  });

  it('404: an unknown transaction, scheduled transaction or plan is a NotFoundError', async () => {
    const response = await stack.gql(
      `mutation($p: PlanId!) {
        tx: deleteTransaction(planId: $p, transactionId: "11111111-2222-4333-8444-555555555555") { __typename ${FAILURES} }
        scheduled: deleteScheduledTransaction(planId: $p, scheduledTransactionId: "11111111-2222-4333-8444-555555555555") { __typename ${FAILURES} }
        plan: createPayee(planId: "00000000-0000-4000-8000-000000000000", input: { name: "x" }) { __typename ${FAILURES} }
      }`,
      { p: stack.planId },
    );
    expect(response.body.errors).toBeUndefined();
    const data = response.body.data as Record<
      string,
      { __typename: string; restError: RestErrorOut }
    >;
    for (const key of ['tx', 'scheduled', 'plan']) {
      expect(data[key]?.__typename, key).toBe('NotFoundError');
      expect(data[key]?.restError).toMatchObject({
        status: 404,
        name: expect.stringMatching(/not_found/),
      });
      expect(data[key]?.restError.id).toMatch(/^404\.[12]$/);
    }
  });

  it('403.3: a read-only token gets ReadOnlyScopeError from every kind of write, and nothing changes', async () => {
    const before = await transactionsOf(stack, accountId);
    const payees = (await stack.payees()).length;
    const category = await stack.spendingCategory();
    stack.resetUpstreamCalls();
    const response = await stack.gql(
      `mutation($p: PlanId!, $input: CreateTransactionInput!, $category: UUID!) {
        tx: createTransaction(planId: $p, input: $input) { __typename ${FAILURES} }
        payee: createPayee(planId: $p, input: { name: "Read-only" }) { __typename ${FAILURES} }
        assign: updateMonthCategory(planId: $p, month: "current", categoryId: $category, input: { budgeted: 1 }) { __typename ${FAILURES} }
        account: createAccount(planId: $p, input: { name: "RO", type: cash, balance: 1 }) { __typename ${FAILURES} }
      }`,
      {
        p: stack.planId,
        input: { accountId, date: TODAY, amount: -1, payeeName: 'Read-only' },
        category: category.id,
      },
      { token: stack.readOnlyToken },
    );
    expect(response.body.errors).toBeUndefined();
    const data = response.body.data as Record<
      string,
      { __typename: string; message: string; restError: RestErrorOut }
    >;
    for (const key of ['tx', 'payee', 'assign', 'account']) {
      expect(data[key]?.__typename, key).toBe('ReadOnlyScopeError');
      expect(data[key]?.restError).toMatchObject({
        status: 403,
        id: '403.3',
        name: 'unauthorized_scope',
      });
    }
    expect(stack.upstreamCalls()).toEqual([
      'createTransaction',
      'createPayee',
      'updateMonthCategory',
      'createAccount',
    ]);
    expect(await transactionsOf(stack, accountId)).toEqual(before);
    expect((await stack.payees()).length).toBe(payees);
    expect((await stack.category(category.id)).budgeted).toBe(category.budgeted);
  });

  it('401: an unknown token is a GraphQL UNAUTHENTICATED error and HTTP 401', async () => {
    const response = await stack.gql(
      'mutation($p: PlanId!) { createPayee(planId: $p, input: { name: "x" }) { __typename } }',
      { p: stack.planId },
      { token: 'not-a-real-token-0123456789' },
    );
    expect(response.status).toBe(401);
    expect(onlyError(response).extensions).toMatchObject({
      code: 'UNAUTHENTICATED',
      upstream: { status: 401, id: '401', name: 'not_authorized' },
    });
    expect(JSON.stringify(response.body)).not.toContain('not-a-real-token-0123456789');
  });

  it('no token: refused before any upstream call', async () => {
    stack.resetUpstreamCalls();
    const response = await stack.gql(
      'mutation($p: PlanId!) { createPayee(planId: $p, input: { name: "x" }) { __typename } }',
      { p: stack.planId },
      { token: null },
    );
    expect(response.status).toBe(401);
    expect(onlyError(response).extensions?.code).toBe('UNAUTHENTICATED');
    expect(stack.upstreamCalls()).toEqual([]);
  });
});

describe('failures with an unknown outcome are never resent', () => {
  let stack: MutationStack;
  let accountId: string;

  beforeAll(async () => {
    stack = withLookups(
      await startStack({ ...MUTATIONS, deps: { upstreamTimeouts: { headersTimeoutMs: 1_000 } } }),
    );
    accountId = (await stack.accountOfType('checking')).id;
    await stack.gql('{ plan(id: "last-used") { id } }');
  });

  afterEach(() => stack.sandbox.setFaults([]));
  afterAll(() => stack.close());

  it('503 with an import id: sent once, outcome unknown, safe to resend with the same import id', async () => {
    stack.sandbox.setFaults([{ kind: 'status503', operationId: 'createTransaction' }]);
    stack.resetUpstreamCalls();
    const response = await stack.gql(CREATE, {
      p: stack.planId,
      input: { accountId, date: TODAY, amount: -1_000, payeeName: 'Flaky', importId: 'retry:503' },
    });
    const error = onlyError(response);
    expect(error.extensions).toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      upstream: { status: 503, id: '503', name: 'service_unavailable' },
      outcomeUnknown: true,
      safeToRetryWithSameImportId: true,
    });
    expect(error.message).toContain('may or may not have been applied');
    expect(error.message).toContain('same importId is safe');
    expect(response.body.data).toEqual({ createTransaction: null });
    expect(stack.upstreamCalls()).toEqual(['createTransaction']);

    // Resending it as advised once the upstream is back creates exactly one transaction.
    stack.sandbox.setFaults([]);
    const retry = await stack.gql(CREATE, {
      p: stack.planId,
      input: { accountId, date: TODAY, amount: -1_000, payeeName: 'Flaky', importId: 'retry:503' },
    });
    resultOf(retry, 'createTransaction', 'CreateTransactionPayload');
    expect(
      (await transactionsOf(stack, accountId)).filter((t) => t.import_id === 'retry:503'),
    ).toHaveLength(1);
  });

  it('503 on a batch where one transaction has no import id: not safe to resend blindly', async () => {
    stack.sandbox.setFaults([{ kind: 'status503', operationId: 'createTransaction' }]);
    stack.resetUpstreamCalls();
    const response = await stack.gql(
      'mutation($p: PlanId!, $input: CreateTransactionsInput!) { createTransactions(planId: $p, input: $input) { __typename } }',
      {
        p: stack.planId,
        input: {
          transactions: [
            { accountId, date: TODAY, amount: -1, payeeName: 'A', importId: 'retry:batch' },
            { accountId, date: TODAY, amount: -2, payeeName: 'B' },
          ],
        },
      },
    );
    const error = onlyError(response);
    expect(error.extensions).toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      outcomeUnknown: true,
      safeToRetryWithSameImportId: false,
    });
    expect(error.message).toContain('Do not resend it blindly');
    expect(stack.upstreamCalls()).toEqual(['createTransaction']);
  });

  it('a write that times out is sent once and its outcome is unknown', async () => {
    stack.sandbox.setFaults([{ kind: 'hang', operationId: 'createPayee' }]);
    stack.resetUpstreamCalls();
    const response = await stack.gql(
      'mutation($p: PlanId!) { createPayee(planId: $p, input: { name: "Slow" }) { __typename } }',
      { p: stack.planId },
    );
    const error = onlyError(response);
    expect(error.extensions).toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      upstream: null,
      operationId: 'createPayee',
      outcomeUnknown: true,
      safeToRetryWithSameImportId: false,
    });
    expect(error.message).toContain('did not answer createPayee in time');
    expect(stack.upstreamCalls()).toEqual(['createPayee']);
  });

  it('after a write with an unknown outcome, the next read resyncs even within max-age', async () => {
    stack.sandbox.setFaults([{ kind: 'status503', operationId: 'createPayee' }]);
    await stack.gql(
      'mutation($p: PlanId!) { createPayee(planId: $p, input: { name: "Maybe" }) { __typename } }',
      {
        p: stack.planId,
      },
    );
    stack.sandbox.setFaults([]);
    stack.resetUpstreamCalls();
    const read = await stack.gql('query($p: PlanId!) { plan(id: $p) { payees { id } } }', {
      p: stack.planId,
    });
    expect(read.body.errors).toBeUndefined();
    expect(stack.upstreamCalls()).toEqual(['getPlanById']);
    stack.resetUpstreamCalls();
    await stack.gql('query($p: PlanId!) { plan(id: $p) { payees { id } } }', { p: stack.planId });
    expect(stack.upstreamCalls()).toEqual([]);
  });

  it('a timed-out create with an import id says resending it is safe', async () => {
    stack.sandbox.setFaults([{ kind: 'hang', operationId: 'createTransaction' }]);
    stack.resetUpstreamCalls();
    const response = await stack.gql(CREATE, {
      p: stack.planId,
      input: { accountId, date: TODAY, amount: -1, payeeName: 'Slow', importId: 'retry:hang' },
    });
    expect(onlyError(response).extensions).toMatchObject({
      outcomeUnknown: true,
      safeToRetryWithSameImportId: true,
    });
    expect(stack.upstreamCalls()).toEqual(['createTransaction']);
  });
});

describe('429 on a write', () => {
  it('is a RATE_LIMITED GraphQL error; the write was not applied and is not resent', async () => {
    const stack = withLookups(
      await startStack({
        ...MUTATIONS,
        sandbox: { ...MUTATIONS.sandbox, rateLimit: { limit: 2 } },
      }),
    );
    try {
      const accountId = (await stack.accountOfType('checking')).id; // 1 of 2
      await stack.gql('{ plan(id: "last-used") { id } }'); // 2 of 2
      stack.resetUpstreamCalls();
      const response = await stack.gql(CREATE, {
        p: stack.planId,
        input: { accountId, date: TODAY, amount: -1, payeeName: 'Limited' },
      });
      const error = onlyError(response);
      expect(error.extensions).toMatchObject({
        code: 'RATE_LIMITED',
        upstream: { status: 429, id: '429', name: 'too_many_requests' },
        retryable: true,
      });
      expect(error.extensions?.outcomeUnknown).toBeUndefined();
      expect(stack.upstreamCalls()).toEqual(['createTransaction']);
    } finally {
      await stack.close();
    }
  });
});
