import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
  getVariableValues,
  Kind,
  type OperationDefinitionNode,
  valueFromASTUntyped,
  visit,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import { asExecutorError } from '../../errors/compiled-errors.js';

/**
 * Repeated queries run compiled (graphql-jit, one compiled function per document) instead of
 * through the field-by-field executor: on a warm dashboard the executor was the largest part of
 * the gateway's CPU (docs/performance.md, "Warm path"). Only documents the compiler runs as the
 * executor does are compiled (`compiledQueryOf`), and never on a request's path: a document's
 * first repeat is answered by the executor and compiled after its answer has gone out (the next
 * turn of the event loop), and its later runs are compiled. A compiled query belongs to the
 * schema it was compiled against: under another schema the document is compiled again, never run
 * stale. Every other operation keeps yoga's executor. Where the compiler differs, the executor's
 * behaviour is kept, so clients see the same answers:
 * - variables graphql-js refuses go to the executor, which reports them in its words (the
 *   compiler drops a scalar's own reason from the message);
 * - the compiler refuses an omitted variable of a non-null type that has a default (graphql-js,
 *   as the spec says, takes the default): such defaults are handed to it as if the client sent
 *   them;
 * - its errors lack graphql-js's own properties (nodes; `extensions` when empty), which the
 *   masking and error plugins after this one read: they are rebuilt as graphql-js errors.
 */
export function useCompiledQueries({
  afterAnswer = (work) => setImmediate(work),
  compile = compileQuery,
}: {
  /** Runs work once the current answer has gone out. @default setImmediate */
  afterAnswer?: (work: () => void) => void;
  /** The compiler (a test hands one that throws). @default graphql-jit's `compileQuery` */
  compile?: Compiler;
} = {}): Plugin {
  const runs = new WeakMap<DocumentNode, number>();
  /** Each document's compiled query, with the schema it was compiled against (null: refused). */
  const compiled = new WeakMap<DocumentNode, Compiled>();
  /** The schema each document's compiling was scheduled for. */
  const scheduled = new WeakMap<DocumentNode, GraphQLSchema>();
  return {
    onExecute({ args, setExecuteFn }) {
      const operation = compiledQueryOf(args.document);
      if (!operation) return;
      const held = compiled.get(args.document);
      if (!held || held.schema !== args.schema) {
        // Compiling the dashboard takes 6-9 ms of CPU, executing it about 1 ms: a document sent
        // once is never compiled, and its first repeat schedules the compiler after its answer,
        // so no request waits for it (nor for a compiling under a new schema).
        const ran = (runs.get(args.document) ?? 0) + 1;
        runs.set(args.document, ran);
        if (ran < RUNS_BEFORE_COMPILING) return;
        const { schema, document, operationName } = args;
        // Once per document and schema, however many requests run it before it is compiled
        // (noted once a run got as far as its result: one that threw leaves it to the next).
        if (scheduled.get(document) === schema) return;
        return {
          onExecuteDone() {
            if (scheduled.get(document) === schema) return;
            scheduled.set(document, schema);
            afterAnswer(() => compileFor(compile, compiled, schema, document, operationName));
          },
        };
      }
      const query = held.query;
      if (!query) return;
      const definitions = operation.variableDefinitions ?? [];
      if (definitions.length > 0) {
        const inputs = args.variableValues ?? {};
        if ('errors' in getVariableValues(args.schema, definitions, inputs)) return;
        const withDefaults = omittedDefaults(definitions, inputs);
        if (withDefaults) args.variableValues = withDefaults;
      }
      setExecuteFn(runCompiled(query));
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

/** Runs of a document through the executor, the last of them followed by its compiling. */
const RUNS_BEFORE_COMPILING = 2;

interface Compiled {
  readonly schema: GraphQLSchema;
  readonly query: CompiledQuery | null;
}

// Private: compiles a document for a schema, unless done already (concurrent first repeats).
type Compiler = typeof compileQuery;

function compileFor(
  compile: Compiler,
  compiled: WeakMap<DocumentNode, Compiled>,
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
): void {
  if (compiled.get(document)?.schema === schema) return;
  let query: CompiledQuery | null = null;
  try {
    const result = compile(schema, document, operationName ?? undefined);
    query = isCompiledQuery(result) ? result : null;
  } catch {
    // Off any request's path, a throw would end the process: such a document keeps the executor.
  }
  // A document the compiler refuses stays with the executor, which reports what is wrong.
  compiled.set(document, { schema, query });
}

// Private: the execute function of a compiled query; its results carry the compiler's
// serializer, as graphql-jit's envelop plugin hands them to yoga.
function runCompiled(query: CompiledQuery) {
  return (args: ExecutionArgs) => {
    const done = (result: ExecutionResult) => Object.assign(result, { stringify: query.stringify });
    const result = query.query(args.rootValue, args.contextValue, args.variableValues);
    return result instanceof Promise ? result.then(done) : done(result);
  };
}

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
