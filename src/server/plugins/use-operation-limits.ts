import type { DocumentNode, ExecutionArgs, GraphQLError, GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Limits } from '../../config/config.js';
import { priceOf } from '../../schema/cost.js';
import {
  type IntrospectionSizes,
  introspectionSizes,
  type OperationCost,
  operationCost,
  tooComplex,
} from './operation-cost.js';

/**
 * Depth, breadth and cost of every operation (queries, mutations, subscriptions), introspection
 * included, checked after validation and before any resolver runs (so before any upstream
 * call). An operation over a limit gets one OPERATION_TOO_COMPLEX error and no data.
 *
 * Operations without variables have a fixed cost: it is remembered per parsed document (yoga
 * reuses the document of a repeated query), so the warm path of a repeated query does no walk.
 */
export function useOperationLimits(
  limits: Pick<Limits, 'depth' | 'breadth' | 'complexity'>,
): Plugin {
  const sizes = new WeakMap<GraphQLSchema, IntrospectionSizes>();
  const fixed = new WeakMap<DocumentNode, Map<string, OperationCost | null>>();
  /** The limit the operation of `args` passes over, if any. */
  function refusal(args: ExecutionArgs): GraphQLError | null {
    let introspection = sizes.get(args.schema);
    if (!introspection) {
      introspection = introspectionSizes(args.schema);
      sizes.set(args.schema, introspection);
    }
    const variables = args.variableValues as Record<string, unknown> | null | undefined;
    const constant = !variables || Object.keys(variables).length === 0;
    const key = args.operationName ?? '';
    let cost = constant ? fixed.get(args.document)?.get(key) : undefined;
    if (cost === undefined) {
      cost = operationCost(
        args.schema,
        args.document,
        args.operationName,
        variables,
        priceOf,
        introspection,
      );
      if (constant) {
        const byName = fixed.get(args.document) ?? new Map<string, OperationCost | null>();
        byName.set(key, cost);
        fixed.set(args.document, byName);
      }
    }
    if (!cost) return null;
    if (cost.depth > limits.depth) return tooComplex('depth', cost.depth, limits.depth);
    if (cost.breadth > limits.breadth) return tooComplex('breadth', cost.breadth, limits.breadth);
    if (cost.complexity > limits.complexity)
      return tooComplex('cost', cost.complexity, limits.complexity);
    return null;
  }

  return {
    onExecute({ args, setResultAndStopExecution }) {
      const error = refusal(args);
      if (error) setResultAndStopExecution({ errors: [error] });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const error = refusal(args);
      if (error) setResultAndStopExecution({ errors: [error] });
    },
  };
}
