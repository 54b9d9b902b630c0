/**
 * An operation's cost is kept per document when no price read an argument given by a variable
 * (a mutation's `$input`, a plan id), so a repeated operation with variables is not walked
 * again; a cost that a variable decides (a page size, a text search, a list of ids) is priced
 * for each request's variables, and its limit still holds whatever was priced before.
 */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { introspectionSizes, pricedOperation } from '../../src/admission/operation-cost.js';
import { createOperationLimits } from '../../src/admission/operation-limits.js';
import { DEFAULT_LIMITS } from '../../src/config/config.js';
import { priceOf } from '../../src/schema/cost.js';
import { schema } from '../../src/schema/index.js';

const sizes = introspectionSizes(schema);
const byVariables = (query: string, variables: Record<string, unknown>) =>
  pricedOperation(schema, parse(query), null, variables, priceOf, sizes).byVariables;

const CREATE = `mutation($p: PlanId!, $input: CreateTransactionInput!) {
  createTransaction(planId: $p, input: $input) {
    __typename
    ... on CreateTransactionPayload { transactionIds transaction { id amount } }
  }
}`;
const PAGE = `query($n: Int) {
  plan(id: "last-used") { transactions(first: $n) { nodes { id memo } } }
}`;

describe('a cost the variables do not decide', () => {
  it('is one for any variables: a write input, a plan id', () => {
    const input = {
      accountId: '11111111-1111-4111-8111-111111111111',
      date: '2026-01-01',
      amount: -1,
    };
    expect(byVariables(CREATE, { p: 'last-used', input })).toBe(false);
    expect(
      byVariables('query($id: PlanId!) { plan(id: $id) { accounts { id balance } } }', {
        id: 'last-used',
      }),
    ).toBe(false);
  });

  it('is not one when a price reads a variable: page size, search, ids, or refused variables', () => {
    expect(byVariables(PAGE, { n: 10 })).toBe(true);
    expect(
      byVariables(
        'query($s: String) { plan(id: "last-used") { transactions(search: $s) { nodes { id } } } }',
        { s: 'rent' },
      ),
    ).toBe(true);
    expect(
      byVariables('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: ['a', 'b'] }),
    ).toBe(true);
    expect(byVariables(PAGE, { n: 'ten' })).toBe(true);
  });

  it('a page size sent as a variable is priced for each request, after a cheaper one passed', () => {
    const limits = createOperationLimits(schema, DEFAULT_LIMITS);
    const document = parse(PAGE);
    expect(limits.refusal(document, null, { n: 10 })).toBeNull();
    const refusal = limits.refusal(document, null, { n: DEFAULT_LIMITS.complexity });
    expect(refusal?.extensions).toMatchObject({ code: 'OPERATION_TOO_COMPLEX', limit: 'cost' });
    expect(limits.refusal(document, null, { n: 10 })).toBeNull();
  });

  it('a page size left to its default is not kept for the next request, which sends one', () => {
    const limits = createOperationLimits(schema, DEFAULT_LIMITS);
    const document = parse(`query($n: Int = 10) {
      plan(id: "last-used") { transactions(first: $n) { nodes { id memo } } }
    }`);
    expect(limits.refusal(document, null, {})).toBeNull();
    const refusal = limits.refusal(document, null, { n: DEFAULT_LIMITS.complexity });
    expect(refusal?.extensions).toMatchObject({ code: 'OPERATION_TOO_COMPLEX', limit: 'cost' });
  });
});
