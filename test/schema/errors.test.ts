/**
 * Upstream failures keep the REST error verbatim in `extensions.upstream` with the codes of
 * docs/graph.md#errors; no error text leaks a token or a stack trace.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack | undefined;

afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

function expectNoLeak(body: unknown, token: string): void {
  const text = JSON.stringify(body);
  expect(text).not.toContain(token);
  expect(text).not.toMatch(/\bat .+\.(ts|js):\d+/);
  expect(text).not.toContain('stack');
}

describe('upstream errors', () => {
  it('401: an unknown token gets UNAUTHENTICATED and HTTP 401 with the REST error', async () => {
    stack = await startStack({ serve: 'fetch' });
    const token = 'not-a-real-token-0123456789';
    const response = await stack.gql('{ user { id } }', {}, { token });
    expect(response.status).toBe(401);
    expect(response.body.errors?.[0]?.extensions).toMatchObject({
      code: 'UNAUTHENTICATED',
      upstream: { status: 401, id: '401', name: 'not_authorized' },
    });
    expect(
      typeof (response.body.errors?.[0]?.extensions?.upstream as { detail: unknown } | undefined)
        ?.detail,
    ).toBe('string');
    expectNoLeak(response.body, token);
  });

  it('401: no token at all is refused before any upstream call', async () => {
    stack = await startStack({ serve: 'fetch' });
    stack.resetUpstreamCalls();
    const response = await stack.gql('{ plan(id: "last-used") { name } }', {}, { token: null });
    expect(response.status).toBe(401);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(stack.upstreamCalls()).toEqual([]);
  });

  it('404: an unknown plan is null beside NOT_FOUND while its siblings resolve', async () => {
    stack = await startStack({ serve: 'fetch' });
    const response = await stack.gql<{ missing: null; user: { id: string } }>(
      '{ missing: plan(id: "00000000-0000-4000-8000-000000000000") { name } user { id } }',
    );
    expect(response.status).toBe(200);
    expect(response.body.data?.missing).toBeNull();
    expect(response.body.data?.user.id).toBe(stack.sandbox.users[0]!.userId);
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors?.[0]).toMatchObject({
      path: ['missing'],
      extensions: {
        code: 'NOT_FOUND',
        upstream: { status: 404, id: '404.2', name: 'resource_not_found' },
      },
    });
    expectNoLeak(response.body, stack.token);
  });

  it('404: an unknown entity inside a known plan is null beside NOT_FOUND', async () => {
    stack = await startStack({ serve: 'fetch' });
    const response = await stack.gql<{ plan: { name: string; account: null } }>(
      '{ plan(id: "last-used") { name account(id: "00000000-0000-4000-8000-000000000000") { name } } }',
    );
    expect(response.body.data?.plan.name).toBeTruthy();
    expect(response.body.data?.plan.account).toBeNull();
    expect(response.body.errors?.[0]).toMatchObject({
      path: ['plan', 'account'],
      extensions: { code: 'NOT_FOUND' },
    });
  });

  it('429: the upstream rate limit gives RATE_LIMITED with the REST error when nothing is cached', async () => {
    stack = await startStack({ serve: 'fetch', sandbox: { rateLimit: { limit: 1 } } });
    await stack.gql('{ user { id } }');
    const response = await stack.gql('{ plan(id: "last-used") { name } }');
    expect(response.body.errors?.[0]?.extensions).toMatchObject({
      code: 'RATE_LIMITED',
      upstream: { status: 429, id: '429', name: 'too_many_requests' },
    });
    expectNoLeak(response.body, stack.token);
  });

  it('an unexpected upstream body is masked to a stable code without internals', async () => {
    stack = await startStack({ serve: 'fetch' });
    stack.sandbox.setFaults([{ kind: 'malformed', operationId: 'getUser' }]);
    const response = await stack.gql('{ user { id } }');
    expect(response.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_ERROR');
    expectNoLeak(response.body, stack.token);
  });
});

describe('input validation before any upstream call', () => {
  it.each([
    [
      'a malformed date',
      '{ plan(id: "last-used") { transactions(sinceDate: "2024-02-30") { totalCount } } }',
      'sinceDate',
    ],
    [
      'an unknown month alias',
      '{ plan(id: "last-used") { month(month: "next") { month } } }',
      'month',
    ],
    ['a malformed plan id', '{ plan(id: "my-budget") { name } }', 'id'],
    ['a malformed account id', '{ plan(id: "last-used") { account(id: "42") { name } } }', 'id'],
  ])('rejects %s with BAD_USER_INPUT naming the field', async (_what, query, field) => {
    stack = await startStack({ serve: 'fetch' });
    stack.resetUpstreamCalls();
    const response = await stack.gql(query);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(response.body.errors?.[0]?.message).toContain(field);
    expect(stack.upstreamCalls()).toEqual([]);
  });

  it('names the variable when the bad value came in a variable', async () => {
    stack = await startStack({ serve: 'fetch' });
    stack.resetUpstreamCalls();
    const response = await stack.gql(
      'query($since: Date) { plan(id: "last-used") { transactions(sinceDate: $since) { totalCount } } }',
      { since: '17/03/2024' },
    );
    expect(response.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(response.body.errors?.[0]?.message).toContain('$since');
    expect(stack.upstreamCalls()).toEqual([]);
  });
});
