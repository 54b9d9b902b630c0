/**
 * A compiled query belongs to the schema it was compiled against
 * (src/server/plugins/use-compiled-queries.ts): the plugin's hooks are driven here by hand, with
 * two schemas answering one document differently, and the compiler's work run when the test says
 * (`afterAnswer`), so what runs on each request is exact.
 */
import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  parse,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { useCompiledQueries } from '../../src/server/plugins/use-compiled-queries.js';

function schemaAnswering(hello: string): GraphQLSchema {
  return new GraphQLSchema({
    query: new GraphQLObjectType({
      name: 'Query',
      fields: { hello: { type: GraphQLString, resolve: () => hello } },
    }),
  });
}

interface Hooks {
  onExecuteDone?: (payload: { result: ExecutionResult; setResult: () => void }) => void;
}

/** One request through the plugin: the compiled answer, or null when the executor would run. */
async function run(plugin: Plugin, schema: GraphQLSchema, document: DocumentNode) {
  let executeFn: ((args: ExecutionArgs) => unknown) | undefined;
  const args: ExecutionArgs = { schema, document, contextValue: {}, variableValues: {} };
  const onExecute = plugin.onExecute as (payload: unknown) => Hooks | undefined;
  const hooks = onExecute({ args, setExecuteFn: (fn: typeof executeFn) => (executeFn = fn) });
  const result = (executeFn ? await executeFn(args) : { data: null }) as ExecutionResult;
  hooks?.onExecuteDone?.({ result, setResult: () => {} });
  return executeFn ? result.data : null;
}

describe('compiled queries and the schema', () => {
  it('compile after the first repeat is answered, and never run under another schema', async () => {
    const queued: (() => void)[] = [];
    const plugin = useCompiledQueries({ afterAnswer: (work) => queued.push(work) });
    const document = parse('query Hello { hello }');
    const a = schemaAnswering('from A');
    const b = schemaAnswering('from B');

    expect(await run(plugin, a, document)).toBeNull();
    expect(queued).toHaveLength(0); // sent once: nothing to compile
    expect(await run(plugin, a, document)).toBeNull();
    expect(queued).toHaveLength(1); // the first repeat: compiled after its answer, not before
    for (const work of queued.splice(0)) work();
    expect(await run(plugin, a, document)).toEqual({ hello: 'from A' });

    // The same document under another schema: the executor answers until it is compiled for it.
    expect(await run(plugin, b, document)).toBeNull();
    expect(queued).toHaveLength(1);
    for (const work of queued.splice(0)) work();
    expect(await run(plugin, b, document)).toEqual({ hello: 'from B' });
    // And back: the query compiled for B is not A's.
    expect(await run(plugin, a, document)).toBeNull();
  });
});
