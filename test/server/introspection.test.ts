/**
 * Introspection is priced and bounded like any field (issue 8, item 1): without a token, a
 * document of aliased nested `__schema` selections is refused before execution with a small
 * answer, aliases of `__typename` count, and operators can turn introspection off. GraphiQL's
 * own introspection query still fits the default limits.
 */
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/config/config.js';
import { type Stack, startStack } from '../support/stack.js';

const NESTED =
  '__schema { types { kind name description fields { name description args { name description defaultValue type { kind name ofType { kind name ofType { kind name } } } } type { kind name ofType { kind name ofType { kind name } } } } inputFields { name type { kind name } } enumValues { name description } possibleTypes { name } } }';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ sandbox: { users: [{ token: 'introspection-token-01' }] } });
});

afterAll(() => stack.close());

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, bytes: Buffer.byteLength(text), body: JSON.parse(text) };
}

describe('introspection within the limits', () => {
  it('refuses 30 aliases of a nested __schema selection without a token, before execution', async () => {
    stack.resetUpstreamCalls();
    const query = `{ ${Array.from({ length: 30 }, (_, i) => `a${i}: ${NESTED}`).join(' ')} }`;
    const one = await post(stack.url, { query: `{ ${NESTED} }` });
    const batch = await post(
      stack.url,
      Array.from({ length: 5 }, () => ({ query })),
    );
    // One alias is an ordinary answer of the schema's size; 150 of them would be 150 times it.
    expect(one.body.errors).toBeUndefined();
    expect(one.bytes).toBeGreaterThan(50_000);
    expect(batch.body).toHaveLength(5);
    for (const result of batch.body as { data?: unknown; errors: { extensions: unknown }[] }[]) {
      expect(result.data).toBeUndefined();
      expect(result.errors[0]!.extensions).toMatchObject({ code: 'OPERATION_TOO_COMPLEX' });
    }
    expect(batch.bytes).toBeLessThan(5_000);
    expect(stack.upstreamCalls()).toEqual([]);
  });

  it('counts introspection toward the depth, breadth and cost limits', async () => {
    const strict = await stack.addGateway({
      config: { limits: { ...DEFAULT_LIMITS, depth: 4, breadth: 40, complexity: 1_000 } },
    });
    try {
      const limitOf = async (query: string) =>
        (await post(strict.url, { query })).body.errors?.[0]?.extensions?.limit;
      expect(await limitOf('{ __schema { types { fields { args { name } } } } }')).toBe('depth');
      expect(await limitOf(`{ __schema { types { ${'name '.repeat(40)} } } }`)).toBe('breadth');
      // 120 types with 9 fields each on average: over 1,000.
      expect(await limitOf('{ __schema { types { fields { name } } } }')).toBe('cost');
      expect(await limitOf('{ __schema { types { name } } }')).toBeUndefined();
    } finally {
      await strict.close();
    }
  });

  it('counts aliases of __typename and of introspection fields toward the alias limit', async () => {
    const typenames = `{ ${Array.from({ length: 31 }, (_, i) => `t${i}: __typename`).join(' ')} }`;
    const refused = await post(stack.url, { query: typenames });
    expect(refused.body.errors[0].message).toMatch(/aliases limit of 30/i);
    const types = `{ ${Array.from({ length: 31 }, (_, i) => `t${i}: __type(name: "Plan") { name }`).join(' ')} }`;
    expect((await post(stack.url, { query: types })).body.errors[0].message).toMatch(
      /aliases limit of 30/i,
    );
    const thirty = `{ ${Array.from({ length: 30 }, (_, i) => `t${i}: __typename`).join(' ')} }`;
    expect((await post(stack.url, { query: thirty })).body.data.t29).toBe('Query');
  });

  it("answers GraphiQL's full introspection query under the default limits", async () => {
    const response = await post(stack.url, {
      query: getIntrospectionQuery({
        descriptions: true,
        specifiedByUrl: true,
        directiveIsRepeatable: true,
        schemaDescription: true,
        inputValueDeprecation: true,
      }),
    });
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.__schema.queryType.name).toBe('Query');
  });
});

describe('introspection turned off', () => {
  it('refuses __schema and __type before execution and keeps __typename', async () => {
    const off = await stack.addGateway({ config: { introspection: false } });
    try {
      stack.resetUpstreamCalls();
      for (const query of [
        '{ __schema { queryType { name } } }',
        '{ __type(name: "Plan") { name } }',
      ]) {
        const refused = await post(off.url, { query });
        expect(refused.body.data).toBeUndefined();
        expect(refused.body.errors[0].extensions.code).toBe('INTROSPECTION_DISABLED');
        expect(refused.body.errors[0].message).toMatch(/introspection is turned off/i);
      }
      const mixed = await post(
        off.url,
        { query: '{ user { id } __schema { queryType { name } } }' },
        { authorization: 'Bearer introspection-token-01' },
      );
      expect(mixed.body.data).toBeUndefined();
      expect(stack.upstreamCalls()).toEqual([]);
      const allowed = await post(
        off.url,
        { query: '{ __typename user { __typename id } }' },
        { authorization: 'Bearer introspection-token-01' },
      );
      expect(allowed.body.errors).toBeUndefined();
      expect(allowed.body.data.user.__typename).toBe('User');
    } finally {
      await off.close();
    }
  });
});
