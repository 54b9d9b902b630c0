/**
 * `transactions(search:)`: text within the memo, payee name or category name of a transaction or
 * of its split lines, ignoring case, against a reference computed from the REST interface; its
 * refusals (before any upstream call) and its price.
 */
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { introspectionSizes, pricedOperation } from '../../src/admission/operation-cost.js';
import { COUNT_COST, priceOf } from '../../src/schema/cost.js';
import { schema } from '../../src/schema/index.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ serve: 'fetch', sandbox: { rateLimit: false } });
});
afterAll(() => stack.close());

const SEARCH = `query($p: PlanId!, $s: String) {
  plan(id: $p) { transactions(search: $s, first: 500) { totalCount nodes { id } } }
}`;

/** The ids REST lists whose memo, payee or category names (or a split line's) contain `text`. */
async function reference(text: string): Promise<string[]> {
  const auth = { token: stack.token };
  // REST lists recent transactions unless asked from a date: from the start of the plan.
  const { transactions } = await stack.writer.getTransactions(auth, {
    planId: stack.planId,
    sinceDate: '2000-01-01',
  });
  const needle = text.toLowerCase();
  const has = (value: string | null | undefined) => (value ?? '').toLowerCase().includes(needle);
  return transactions
    .filter((t) => !t.deleted)
    .filter(
      (t) =>
        has(t.memo) ||
        has(t.payee_name) ||
        (t.category_name !== 'Split' && has(t.category_name)) ||
        t.subtransactions.some(
          (s) => !s.deleted && (has(s.memo) || has(s.payee_name) || has(s.category_name)),
        ),
    )
    .map((t) => t.id)
    .sort();
}

describe('transactions(search:)', () => {
  it.each(['Groc', 'cafe', 'RENT', 'zzz-nothing'])('finds what REST holds for %j', async (text) => {
    const response = await stack.gql<{
      plan: { transactions: { totalCount: number; nodes: { id: string }[] } };
    }>(SEARCH, { p: stack.planId, s: text });
    expect(response.body.errors).toBeUndefined();
    const found = response.body.data!.plan.transactions;
    const expected = await reference(text);
    expect(found.nodes.map((n) => n.id).sort()).toEqual(expected);
    expect(found.totalCount).toBe(expected.length);
  });

  it('refuses an empty or overlong text, naming the argument, before any upstream call', async () => {
    stack.resetUpstreamCalls();
    for (const [text, message] of [
      ['  ', 'search: must hold some text to look for'],
      ['x'.repeat(201), 'search: must be at most 200 characters (got 201)'],
    ] as const) {
      const response = await stack.gql(SEARCH, { p: stack.planId, s: text });
      expect(response.body.errors?.[0]).toMatchObject({
        message,
        extensions: { code: 'BAD_USER_INPUT', field: 'search' },
      });
    }
    expect(stack.upstreamCalls()).toEqual([]);
  });

  it('costs a walk more than the same page without it', () => {
    const sizes = introspectionSizes(schema);
    const cost = (args: string) =>
      pricedOperation(
        schema,
        parse(`{ plan(id: "last-used") { transactions(first: 10${args}) { nodes { id } } } }`),
        null,
        {},
        priceOf,
        sizes,
      ).cost!.complexity;
    expect(cost(', search: "rent"') - cost('')).toBe(COUNT_COST);
  });
});
