/**
 * The prices the admission path (`createOperationLimits`) adds up (issue 8, items 1 and 3), on the real schema: what a
 * selection costs, introspection included, and what no argument can make free.
 */
import { getIntrospectionQuery, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { introspectionSizes, pricedOperation } from '../../src/admission/operation-cost.js';
import { DEFAULT_LIMITS } from '../../src/config/config.js';
import { COUNT_COST, priceOf } from '../../src/schema/cost.js';
import { schema } from '../../src/schema/index.js';

const sizes = introspectionSizes(schema);
const cost = (query: string, variables: Record<string, unknown> = {}) =>
  pricedOperation(schema, parse(query), null, variables, priceOf, sizes).cost!;

describe('operation cost', () => {
  it("fits GraphiQL's introspection query, and prices it by the schema's real sizes", () => {
    const graphiql = cost(
      getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }),
    );
    expect(graphiql.complexity).toBeLessThan(DEFAULT_LIMITS.complexity);
    expect(graphiql.complexity).toBeGreaterThan(DEFAULT_LIMITS.complexity / 2);
    // Nine levels of ofType add no depth, and cost nothing past the schema's deepest wrapping.
    expect(graphiql.depth).toBeLessThanOrEqual(7);
    const types = cost('{ __schema { types { name } } }');
    expect(types.complexity).toBe(2 + Object.keys(schema.getTypeMap()).length);
  });

  it('never multiplies by less than 1: first: 0 still pays for what it selects', () => {
    const page = (first: number) =>
      cost(
        `{ plan(id: "last-used") { transactions(first: ${first}) { totalCount nodes { id memo } } } }`,
      ).complexity;
    expect(page(0)).toBe(page(1));
    expect(page(0)).toBeGreaterThan(COUNT_COST);
    expect(page(100)).toBe(page(1) + 99 * 3);
  });

  it('prices nodes(ids:) by the number of ids', () => {
    const ids = (n: number) =>
      cost('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', {
        ids: Array.from({ length: n }, (_, i) => `id-${i}`),
      });
    expect(ids(100).complexity - ids(1).complexity).toBe(99);
  });

  it('prices a fragment spread many times by every copy it stands for', () => {
    const fragments = Array.from(
      { length: 12 },
      (_, i) =>
        `fragment F${i} on Account { ${i === 11 ? 'id' : `transferPayee { ...F${i + 1} } a: transferPayee { ...F${i + 1} }`} }`,
    ).join(' ');
    const bomb = cost(`{ plan(id: "last-used") { accounts { ...F0 } } } ${fragments}`);
    // 2^11 copies of the innermost selection: priced as such, without walking them one by one.
    expect(bomb.complexity).toBeGreaterThan(2 ** 11);
    expect(bomb.depth).toBeGreaterThan(DEFAULT_LIMITS.depth);
  });
});
