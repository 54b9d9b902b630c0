import { useGraphQlJit } from '@envelop/graphql-jit';
import {
  type DocumentNode,
  type ExecutionResult,
  getVariableValues,
  Kind,
  type OperationDefinitionNode,
  valueFromASTUntyped,
  visit,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { asExecutorError } from '../../errors/compiled-errors.js';

/**
 * Repeated queries run compiled (graphql-jit, one compiled function per document) instead of
 * through the field-by-field executor: on a warm dashboard the executor was the largest part of
 * the gateway's CPU (docs/performance.md, "Warm path"). Only documents the compiler runs as the
 * executor does are compiled (`compiledQueryOf`), from their second run; every other operation
 * keeps yoga's executor. Where the compiler differs, the executor's behaviour is kept, so
 * clients see the same answers:
 * - variables graphql-js refuses go to the executor, which reports them in its words (the
 *   compiler drops a scalar's own reason from the message);
 * - the compiler refuses an omitted variable of a non-null type that has a default (graphql-js,
 *   as the spec says, takes the default): such defaults are handed to it as if the client sent
 *   them;
 * - its errors lack graphql-js's own properties (nodes; `extensions` when empty), which the
 *   masking and error plugins after this one read: they are rebuilt as graphql-js errors.
 */
export function useCompiledQueries(): Plugin {
  // An envelop plugin of no particular context; yoga's type asks for its initial context.
  const jit = useGraphQlJit() as Plugin;
  const runs = new WeakMap<DocumentNode, number>();
  return {
    onExecute(payload) {
      const { args } = payload;
      const operation = compiledQueryOf(args.document);
      if (!operation) return;
      // Compiling the dashboard takes about 9 ms of CPU, executing it about 2 ms: a document is
      // compiled from its second run on, so one sent once (a client that writes its values
      // into the text) costs what it did, and a repeated one pays the compiler once.
      const ran = runs.get(args.document) ?? 0;
      if (ran < RUNS_BEFORE_COMPILING) {
        runs.set(args.document, ran + 1);
        return;
      }
      const definitions = operation.variableDefinitions ?? [];
      if (definitions.length > 0) {
        const inputs = args.variableValues ?? {};
        if ('errors' in getVariableValues(args.schema, definitions, inputs)) return;
        const withDefaults = omittedDefaults(definitions, inputs);
        if (withDefaults) args.variableValues = withDefaults;
      }
      void jit.onExecute?.(payload);
      return {
        onExecuteDone({ result, setResult }) {
          if (isSingleResult(result) && result.errors?.length) {
            const errors = result.errors.map((error) => asExecutorError(error, args.document));
            setResult({ ...result, errors });
          }
        },
      };
    },
  };
}

/** Runs of a document through the executor before it is compiled. */
const RUNS_BEFORE_COMPILING = 1;

const verdicts = new WeakMap<DocumentNode, OperationDefinitionNode | null>();

/**
 * The operation of a document that may run compiled, or undefined:
 * - one operation only: the compiled query is kept per document whatever `operationName` asks
 *   for, so a second operation of the same document would run the first;
 * - a query: mutations stay on the executor (their serial order and the writes' pipeline are
 *   not where the warm path's time goes); subscriptions are not compiled at all;
 * - no `@defer` or `@stream`: the compiler does not answer in parts.
 * Remembered per document (the admission path keeps each document's node while it is cached).
 */
export function compiledQueryOf(document: DocumentNode): OperationDefinitionNode | undefined {
  let verdict = verdicts.get(document);
  if (verdict === undefined) {
    verdict = judge(document);
    verdicts.set(document, verdict);
  }
  return verdict ?? undefined;
}

// Private: the verdict, walking the document once.
function judge(document: DocumentNode): OperationDefinitionNode | null {
  const operations = document.definitions.filter(
    (definition): definition is OperationDefinitionNode =>
      definition.kind === Kind.OPERATION_DEFINITION,
  );
  const [operation] = operations;
  if (operations.length !== 1 || operation?.operation !== 'query') return null;
  let incremental = false;
  visit(document, {
    Directive(node) {
      if (node.name.value === 'defer' || node.name.value === 'stream') incremental = true;
    },
  });
  return incremental ? null : operation;
}

// Private: the variables with the defaults of those omitted, or undefined when none is missing.
function omittedDefaults(
  definitions: OperationDefinitionNode['variableDefinitions'] & object,
  variables: Readonly<Record<string, unknown>>,
): Record<string, unknown> | undefined {
  let filled: Record<string, unknown> | undefined;
  for (const definition of definitions) {
    const name = definition.variable.name.value;
    if (!definition.defaultValue || Object.hasOwn(variables, name)) continue;
    filled ??= { ...variables };
    // As JSON a client could have sent: the compiled coercion reads it as it reads theirs.
    filled[name] = valueFromASTUntyped(definition.defaultValue);
  }
  return filled;
}

// Private: one result, not an answer in parts (which compiled queries never give).
function isSingleResult(value: unknown): value is ExecutionResult {
  return typeof value === 'object' && value !== null && !(Symbol.asyncIterator in value);
}
