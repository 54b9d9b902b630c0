/**
 * The price of `_entities` on the admission path (issue 21): each representation is a lookup,
 * with the selections of its own type, counted from the variables as from literals.
 */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { introspectionSizes, pricedOperation } from '../../src/admission/operation-cost.js';
import { ENTITY_LOOKUP_COST, priceOf } from '../../src/schema/cost.js';
import { subgraphSchema } from '../../src/schema/index.js';

const sizes = introspectionSizes(subgraphSchema());
const cost = (query: string, variables: Record<string, unknown> = {}) =>
  pricedOperation(subgraphSchema(), parse(query), null, variables, priceOf, sizes).cost!;

const ENTITIES = /* GraphQL */ `
  query ($representations: [_Any!]!) {
    _entities(representations: $representations) {
      __typename
      ... on Transaction { id amount memo }
      ... on Account { id }
    }
  }
`;
const transaction = { __typename: 'Transaction', planId: 'p', id: 't' };
const account = { __typename: 'Account', planId: 'p', id: 'a' };

describe('the price of _entities', () => {
  // What the selection set costs as written (every fragment), walked once as validation walks it.
  const WRITTEN = 1 + 3 + 1;

  it("counts each representation's lookup and its own type's selections", () => {
    const price = (representations: unknown[]) => cost(ENTITIES, { representations }).complexity;
    // The field, the selections as written, then per item: the lookup, __typename and its
    // own type's fragment.
    expect(price([])).toBe(1 + WRITTEN);
    expect(price([transaction])).toBe(1 + WRITTEN + ENTITY_LOOKUP_COST + 1 + 3);
    expect(price([account])).toBe(1 + WRITTEN + ENTITY_LOOKUP_COST + 1 + 1);
    expect(price([transaction, transaction, account])).toBe(
      1 + WRITTEN + 3 * ENTITY_LOOKUP_COST + 2 * (1 + 3) + (1 + 1),
    );
  });

  it('counts a representation naming no type with every fragment', () => {
    const unknown = { __typename: 'Budget', id: 'b' };
    expect(cost(ENTITIES, { representations: [unknown] }).complexity).toBe(
      1 + WRITTEN + ENTITY_LOOKUP_COST + WRITTEN,
    );
    expect(cost(ENTITIES, { representations: [42] }).complexity).toBe(
      1 + WRITTEN + ENTITY_LOOKUP_COST + WRITTEN,
    );
  });

  it('prices what is written even when no item is of its type, as validation walks it', () => {
    const fragments = Array.from(
      { length: 12 },
      (_, i) =>
        `fragment F${i} on Account { ${i === 11 ? 'id' : `transferPayee { transferAccount { ...F${i + 1} } } a: transferPayee { transferAccount { ...F${i + 1} } }`} }`,
    ).join(' ');
    const bomb = cost(
      `query ($r: [_Any!]!) { _entities(representations: $r) { ... on Account { ...F0 } } } ${fragments}`,
      { r: [transaction] },
    );
    expect(bomb.complexity).toBeGreaterThan(2 ** 11);
    expect(bomb.depth).toBeGreaterThan(12);
  });

  it('prices a list written in the document like one sent as a variable', () => {
    const inline = cost(`{
      _entities(representations: [
        { __typename: "Transaction", planId: "p", id: "t" },
        { __typename: "Account", planId: "p", id: "a" }
      ]) { __typename ... on Transaction { id amount memo } ... on Account { id } }
    }`);
    expect(inline.complexity).toBe(
      cost(ENTITIES, { representations: [transaction, account] }).complexity,
    );
  });

  it('puts 10,000 representations over the limit whatever they select', () => {
    const many = Array.from({ length: 10_000 }, () => ({ __typename: 'Plan', id: 'p' }));
    expect(
      cost('query ($r: [_Any!]!) { _entities(representations: $r) { __typename } }', {
        r: many,
      }).complexity,
    ).toBeGreaterThan(100_000);
  });
});
