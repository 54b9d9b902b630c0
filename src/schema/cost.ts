import { ComplexityErrorKind } from '@pothos/plugin-complexity';
import { GraphQLError, type GraphQLField, getNullableType, isListType } from 'graphql';
import { DEFAULT_PAGE_SIZE } from './connections.js';

/** What a list of unknown length is assumed to hold when pricing an operation. */
export const LIST_COST_MULTIPLIER = 10;

/**
 * The cost of a field, before execution: 1, with its selections multiplied by the page size a
 * connection asks for (`first` / `last`, or the default page) or by 10 for a plain list. A
 * page of 500 transactions with 20 fields each therefore costs about 10,000.
 */
export function fieldCost(
  args: Record<string, unknown>,
  _ctx: unknown,
  field: GraphQLField<unknown, never>,
): { field: number; multiplier: number } {
  // A connection already multiplied its selections by the page size; its `edges` and `nodes` lists
  // are that page, not another multiplier.
  if (field.name === 'edges' || field.name === 'nodes') return { field: 1, multiplier: 1 };
  const hasPaging = field.args.some((arg) => arg.name === 'first');
  if (hasPaging) {
    const size = [args.first, args.last].find((v): v is number => typeof v === 'number');
    return { field: 1, multiplier: size ?? DEFAULT_PAGE_SIZE };
  }
  return {
    field: 1,
    multiplier: isListType(getNullableType(field.type)) ? LIST_COST_MULTIPLIER : 1,
  };
}

interface ComplexityResult {
  depth: number;
  breadth: number;
  complexity: number;
  maxDepth?: number;
  maxBreadth?: number;
  maxComplexity?: number;
}

/** Refusal of an operation over the depth, breadth or cost budget, before any field resolves. */
export function limitError(kind: ComplexityErrorKind, result: ComplexityResult): GraphQLError {
  const [what, value, max] =
    kind === ComplexityErrorKind.Depth
      ? ['depth', result.depth, result.maxDepth]
      : kind === ComplexityErrorKind.Breadth
        ? ['breadth', result.breadth, result.maxBreadth]
        : ['cost', result.complexity, result.maxComplexity];
  return new GraphQLError(
    `The operation's ${what} is ${value}, over the limit of ${max}. Ask for fewer fields, smaller pages or less nesting.`,
    { extensions: { code: 'OPERATION_TOO_COMPLEX', limit: what, value, max } },
  );
}
