import { type GraphQLField, getNullableType, isListType } from 'graphql';
import { DEFAULT_PAGE_SIZE } from './connections.js';

/** What a list of unknown length is assumed to hold when pricing an operation. */
export const LIST_COST_MULTIPLIER = 10;

/**
 * The price of a walk over a whole index window (a `totalCount` of a transaction list with a
 * filter its index does not answer, checked row by row; a hybrid list with a `type` filter): as
 * much as a page of 500 rows of 2 fields.
 */
export const COUNT_COST = 1_000;

export interface FieldPrice {
  /** The field's own price. */
  readonly field: number;
  /** How many times its selections count (list length); ignored when `page` is set. */
  readonly multiplier: number;
  /**
   * A connection: only its `fields` (the page's rows) count `size` times; its other
   * selections (`totalCount`, `pageInfo`) count once.
   */
  readonly page?: { readonly fields: readonly string[]; readonly size: number };
  /**
   * A list of an abstract type whose items' types are known before it runs (`_entities`: one
   * item per representation, of the type its `__typename` names): its selections count once per
   * item, for that item's type (an unknown name counts every type's). `multiplier` is ignored.
   */
  readonly items?: ReadonlyMap<string, number>;
}

/** The fields of a connection that hold its rows. */
const PAGE_FIELDS = ['edges', 'nodes'] as const;

/**
 * The default price of a field (Pothos `fieldComplexity`): 1, with the rows of a connection
 * (`edges`, `nodes`) multiplied by the page size it asks for (`first` / `last`, or the default
 * page) and the selections of a plain list by 10. A page of 500 transactions with 20 fields
 * each therefore costs about 10,000. `src/admission/operation-cost.ts` adds it up over an
 * operation, and never multiplies by less than 1 (`first: 0` still answers `totalCount`).
 */
export function fieldCost(
  args: Record<string, unknown>,
  _ctx: unknown,
  field: GraphQLField<unknown, never>,
): FieldPrice {
  // A connection multiplies its `edges` and `nodes` by the page size; those lists are that page,
  // not another multiplier. (`Query.nodes(ids:)` is no such list: it has arguments.)
  if ((PAGE_FIELDS as readonly string[]).includes(field.name) && field.args.length === 0)
    return { field: 1, multiplier: 1 };
  // A list of objects asked for by id holds at most one per id.
  if (Array.isArray(args.ids)) return { field: 1, multiplier: Math.max(1, args.ids.length) };
  const hasPaging = field.args.some((arg) => arg.name === 'first');
  if (hasPaging) {
    const size = [args.first, args.last].find((v): v is number => typeof v === 'number');
    return {
      field: 1,
      multiplier: 1,
      page: { fields: PAGE_FIELDS, size: size ?? DEFAULT_PAGE_SIZE },
    };
  }
  return { field: 1, multiplier: listMultiplier(field) };
}

/**
 * The price of a hybrid list (`category.transactions`, `payee.transactions`): a page like any
 * connection, plus a walk (`COUNT_COST`) when a `type` filter is checked row by row (its page,
 * page flags and `totalCount` may then walk the whole window). Without one, its `totalCount`
 * comes from the counts its index keeps and costs 1.
 */
export const hybridListCost = walkedWith('type');

/**
 * The price of a transaction list (`plan`, `account` and `month` `transactions`): a page like any
 * connection, plus a walk (`COUNT_COST`) with a text `search`, which no index answers: its page
 * may walk the whole date window before it is full.
 */
export const transactionListCost = walkedWith('search');

/** Private: a list's price, plus a walk (`COUNT_COST`) when the argument `filter` is given. */
function walkedWith(filter: string) {
  return (
    args: Record<string, unknown>,
    ctx: unknown,
    field: GraphQLField<unknown, never>,
  ): FieldPrice => {
    const price = fieldCost(args, ctx, field);
    return args[filter] == null ? price : { ...price, field: price.field + COUNT_COST };
  };
}

/**
 * What one representation of `_entities` costs besides its selections: finding its plan and its
 * row by key, priced like the rows a list of unknown length is assumed to hold
 * (`LIST_COST_MULTIPLIER`). A router asks for the entities of one fetch in one list; at this
 * price a request holds fewer than 10,000 of them whatever it selects (the cost limit is
 * 100,000), while 500 of them with ten fields each cost about 10,000, what a page of 500
 * transactions of 20 fields does.
 */
export const ENTITY_LOOKUP_COST = 10;

/**
 * The price of `_entities(representations:)`: each representation is a lookup
 * (`ENTITY_LOOKUP_COST`) plus the selections of its own type. Counted from the coerced
 * variables, so a list sent as `$representations` is priced like one written inline.
 */
export function entitiesCost(args: Record<string, unknown>): FieldPrice {
  const representations = Array.isArray(args.representations) ? args.representations : [];
  const items = new Map<string, number>();
  for (const representation of representations) {
    const typename =
      typeof representation === 'object' && representation !== null
        ? (representation as { __typename?: unknown }).__typename
        : undefined;
    const name = typeof typename === 'string' ? typename : '';
    items.set(name, (items.get(name) ?? 0) + 1);
  }
  return { field: 1 + ENTITY_LOOKUP_COST * representations.length, multiplier: 1, items };
}

type ComplexityOption =
  | number
  | { field?: number; multiplier?: number }
  | ((args: Record<string, unknown>, ctx: unknown, field: GraphQLField<unknown, never>) => unknown);

/**
 * The price the schema declares for `field` (the Pothos complexity plugin stores each field's
 * `complexity` option, or `fieldCost`, in its extensions), with `args` already coerced.
 */
export function priceOf(
  args: Record<string, unknown>,
  field: GraphQLField<unknown, unknown>,
): FieldPrice {
  const option = field.extensions?.complexity as ComplexityOption | undefined;
  const value =
    typeof option === 'function'
      ? option(args, undefined, field as GraphQLField<unknown, never>)
      : option;
  if (typeof value === 'number') return { field: value, multiplier: listMultiplier(field) };
  if (typeof value === 'object' && value !== null) {
    const { field: own, multiplier, page, items } = value as FieldPrice;
    return {
      field: typeof own === 'number' ? own : 1,
      multiplier: typeof multiplier === 'number' ? multiplier : listMultiplier(field),
      ...(page ? { page } : {}),
      ...(items ? { items } : {}),
    };
  }
  return { field: 1, multiplier: listMultiplier(field) };
}

function listMultiplier(
  field: GraphQLField<unknown, never> | GraphQLField<unknown, unknown>,
): number {
  return isListType(getNullableType(field.type)) ? LIST_COST_MULTIPLIER : 1;
}
