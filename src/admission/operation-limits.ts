/**
 * Stage 4 of admission: what a document asks for. Aliases and directives per operation (counted
 * by graphql-armor's rules, through fragments), then depth, breadth and cost of the operation to
 * run (`operation-cost.ts`, which needs the variables for page sizes). The text's own bounds
 * (bytes, tokens, nesting) were checked before parsing.
 *
 * What does not depend on the variables is remembered per parsed document, so a repeated
 * operation (the cache hands out the same document) does no walk at all: its counts, and its
 * cost unless a price read an argument given by a variable.
 */
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import {
  type DocumentNode,
  type GraphQLError,
  type GraphQLSchema,
  type ValidationRule,
  validate,
} from 'graphql';
import type { Limits } from '../config/config.js';
import { gatewayError } from '../errors/codes.js';
import { priceOf } from '../schema/cost.js';
import {
  type IntrospectionSizes,
  introspectionSizes,
  type OperationCost,
  pricedOperation,
  tooComplex,
} from './operation-cost.js';

export type OperationLimitSettings = Pick<
  Limits,
  'aliases' | 'directives' | 'depth' | 'breadth' | 'complexity' | 'costMode'
>;

export interface OperationLimits {
  /**
   * The first limit the operation `operationName` of `document` passes over, if any. With
   * `costMode: 'measure'` the cost limit refuses nothing (`price` says what it would refuse).
   */
  refusal(
    document: DocumentNode,
    operationName: string | null | undefined,
    variables: Readonly<Record<string, unknown>> | null | undefined,
  ): GraphQLError | null;
  /** What the operation costs (null when it cannot be priced), remembered as `refusal` does. */
  price(
    document: DocumentNode,
    operationName: string | null | undefined,
    variables: Readonly<Record<string, unknown>> | null | undefined,
  ): OperationCost | null;
}

export function createOperationLimits(
  schema: GraphQLSchema,
  limits: OperationLimitSettings,
): OperationLimits {
  const introspection: IntrospectionSizes = introspectionSizes(schema);
  const counted = new WeakMap<DocumentNode, GraphQLError | null>();
  const fixedCosts = new WeakMap<DocumentNode, Map<string, OperationCost | null>>();
  const countRefusal = (document: DocumentNode): GraphQLError | null => {
    let refusal = counted.get(document);
    if (refusal === undefined) {
      refusal = countLimits(schema, document, limits);
      counted.set(document, refusal);
    }
    return refusal;
  };
  // The last operation priced by its variables: admission asks `refusal`, then `price`, for the
  // same request in one turn, which walks it once.
  let last: {
    document: DocumentNode;
    key: string;
    variables: unknown;
    cost: OperationCost | null;
  } | null = null;
  const price: OperationLimits['price'] = (document, operationName, variables) => {
    const key = operationName ?? '';
    if (last && last.document === document && last.key === key && last.variables === variables)
      return last.cost;
    let cost = fixedCosts.get(document)?.get(key);
    if (cost === undefined) {
      const priced = pricedOperation(
        schema,
        document,
        operationName,
        variables,
        priceOf,
        introspection,
      );
      cost = priced.cost;
      // Kept unless a variable decided it (a page size, a filter, a list of ids), even one
      // left to its default: the next request may send it.
      if (!priced.byVariables) {
        const byName = fixedCosts.get(document) ?? new Map<string, OperationCost | null>();
        byName.set(key, cost);
        fixedCosts.set(document, byName);
      } else last = { document, key, variables, cost };
    }
    return cost;
  };
  return {
    price,
    refusal(document, operationName, variables) {
      const counts = countRefusal(document);
      if (counts) return counts;
      const cost = price(document, operationName, variables);
      if (!cost) return null;
      if (cost.depth > limits.depth) return tooComplex('depth', cost.depth, limits.depth);
      if (cost.breadth > limits.breadth) return tooComplex('breadth', cost.breadth, limits.breadth);
      if (cost.complexity > limits.complexity && limits.costMode !== 'measure')
        return tooComplex('cost', cost.complexity, limits.complexity);
      return null;
    },
  };
}

/**
 * Private: aliases and directives of every operation, with graphql-armor's counting rules (aliases
 * of `__typename` count like any other: the limit bounds how often one document asks for anything).
 */
function countLimits(
  schema: GraphQLSchema,
  document: DocumentNode,
  limits: OperationLimitSettings,
): GraphQLError | null {
  let refusal: GraphQLError | null = null;
  const refuse = (limit: 'aliases' | 'directives', max: number) => (_: unknown, error: Error) => {
    refusal ??= gatewayError(
      error.message.replace(/^Syntax Error: /, ''),
      'OPERATION_TOO_COMPLEX',
      { extensions: { limit, max } },
    );
  };
  const rules: ValidationRule[] = [
    maxAliasesRule({
      n: limits.aliases,
      allowList: [],
      propagateOnRejection: false,
      onReject: [refuse('aliases', limits.aliases)],
    }),
    maxDirectivesRule({
      n: limits.directives,
      propagateOnRejection: false,
      onReject: [refuse('directives', limits.directives)],
    }),
  ];
  validate(schema, document, rules);
  return refusal;
}
