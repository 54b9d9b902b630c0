/**
 * What a client sends is never echoed back at length, and unusable input gets a clear code
 * before any upstream call (issue 8, items 10 and 12): an invalid JSON body, long names and
 * values in messages, unusable tokens, and transaction ids that cannot be REST path segments.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack.js';

const TOKEN = 'hygiene-token-00000001';
let stack: Stack;
let planId: string;

beforeAll(async () => {
  stack = await startStack({
    sandbox: { users: [{ token: TOKEN, plans: [{ seed: 2, transactions: 50 }] }] },
  });
  planId = stack.sandbox.users[0]!.planIds[0]!;
});

afterAll(() => stack.close());

async function post(body: string, url = stack.url, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) };
}

describe('no echo', () => {
  it('answers an invalid JSON body of 900 KB with 400 and a short message, the body not quoted', async () => {
    const secret = 'secret-token-7f3a9c1e55';
    const body = `{"query":"{ user { id } }","variables":{"x":"${secret}${'a'.repeat(900_000)}"`;
    stack.resetUpstreamCalls();
    const answer = await post(body);
    expect(answer.status).toBe(400);
    expect(answer.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(answer.text).not.toContain(secret);
    expect(answer.text.length).toBeLessThan(500);
    expect(stack.upstreamCalls()).toEqual([]);
  });

  it('cuts messages that quote a long name or value', async () => {
    const long = 'x'.repeat(100_000);
    for (const query of [`{ ${long} }`, `{ plan(id: "${long}") { name } }`]) {
      const answer = await post(JSON.stringify({ query }), stack.url, {
        authorization: `Bearer ${TOKEN}`,
      });
      expect(answer.body.errors[0].message.length).toBeLessThan(1_100);
      expect(answer.text.length).toBeLessThan(2_000);
    }
  });
});

describe('unusable tokens', () => {
  it('refuses a non-ASCII, spaced or overlong token with 401 before any upstream call', async () => {
    stack.resetUpstreamCalls();
    const query = JSON.stringify({ query: '{ user { id } }' });
    for (const token of ['tøken-ünïcode', 'tab\there', 'x'.repeat(5_000)]) {
      const answer = await post(query, `${stack.url}?access_token=${encodeURIComponent(token)}`);
      expect(answer.status).toBe(401);
      expect(answer.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      expect(answer.body.errors[0].message).toMatch(/visible ASCII/);
      expect(answer.text).not.toContain(token);
    }
    // A GET query too (HTTP caching looks at the token before anything runs).
    const get = await fetch(
      `${stack.url}?query=${encodeURIComponent('{ user { id } }')}&access_token=${encodeURIComponent('tøken')}`,
      { headers: { 'x-graphql-yoga-csrf': '1', 'if-none-match': '"x"' } },
    );
    expect(get.status).toBe(401);
    expect(
      ((await get.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions
        .code,
    ).toBe('UNAUTHENTICATED');
    const latin1 = await fetch(stack.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer t\u00f8ken' },
      body: query,
    });
    expect(latin1.status).toBe(401);
    expect(stack.upstreamCalls()).toEqual([]);
  });
});

describe('transaction ids', () => {
  const DELETE =
    'mutation($plan: PlanId!, $id: ID!) { deleteTransaction(planId: $plan, transactionId: $id) { __typename } }';
  const UPDATE =
    'mutation($plan: PlanId!, $id: ID!) { updateTransaction(planId: $plan, transactionId: $id, input: { memo: "x" }) { __typename } }';
  const READ =
    'query($plan: PlanId!, $id: ID!) { plan(id: $plan) { transaction(id: $id) { id } } }';

  it('refuses ids that cannot be a path segment with BAD_USER_INPUT naming the argument', async () => {
    await stack.gql(READ, { plan: planId, id: 'warm-up' }, { token: TOKEN });
    stack.resetUpstreamCalls();
    for (const id of ['.', '..', '\u0000', 'ab/cd', 'ünï', 'x'.repeat(500_000)]) {
      for (const [query, field] of [
        [DELETE, 'transactionId'],
        [UPDATE, 'transactionId'],
        [READ, 'id'],
      ] as const) {
        const answer = await stack.gql(query, { plan: planId, id }, { token: TOKEN });
        const error = answer.body.errors?.[0];
        expect(error?.extensions, `${field} ${JSON.stringify(id.slice(0, 10))}`).toMatchObject({
          code: 'BAD_USER_INPUT',
          field,
        });
        expect(error?.message.length).toBeLessThan(300);
      }
    }
    expect(stack.upstreamCalls()).toEqual([]);
  });

  it('still takes real ids, and scheduled occurrence ids', async () => {
    const answer = await stack.gql(
      READ,
      { plan: planId, id: '0f7c1b5e-9d7c-4c53-8f5e-1c2b3a4d5e6f_2025-06-01' },
      { token: TOKEN },
    );
    expect(answer.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});
