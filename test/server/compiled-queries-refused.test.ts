/**
 * A compiler that throws, off any request's path (src/server/plugins/use-compiled-queries.ts
 * compiles after an answer), must not end the process: the document keeps the executor.
 */
import {
  type ExecutionArgs,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  parse,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { useCompiledQueries } from '../../src/server/plugins/use-compiled-queries.js';

// Handed in, not `vi.mock`ed: the suite's workers share modules across files (isolate: false),
// so a module mock would not reach a plugin another file has already loaded.
const throwing = () => {
  throw new Error('the compiler failed');
};

describe('a compiler that throws', () => {
  it('leaves the document with the executor', () => {
    const queued: (() => void)[] = [];
    const plugin = useCompiledQueries({
      afterAnswer: (work) => queued.push(work),
      compile: throwing,
    });
    const schema = new GraphQLSchema({
      query: new GraphQLObjectType({
        name: 'Query',
        fields: { hello: { type: GraphQLString, resolve: () => 'hello' } },
      }),
    });
    const document = parse('query Hello { hello }');
    const onExecute = plugin.onExecute as (
      payload: unknown,
    ) => { onExecuteDone?: (payload: unknown) => void } | undefined;
    const run = () => {
      let compiled = false;
      const args: ExecutionArgs = { schema, document, contextValue: {} };
      const hooks = onExecute({ args, setExecuteFn: () => (compiled = true) });
      hooks?.onExecuteDone?.({ result: { data: { hello: 'hello' } }, setResult: () => {} });
      return compiled;
    };
    expect(run()).toBe(false);
    expect(run()).toBe(false);
    expect(queued).toHaveLength(1);
    expect(() => queued[0]!()).not.toThrow();
    expect(run()).toBe(false);
    expect(queued).toHaveLength(1); // refused once: not compiled again under the same schema
  });
});
