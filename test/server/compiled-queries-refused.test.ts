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
import { describe, expect, it, vi } from 'vitest';
import { useCompiledQueries } from '../../src/server/plugins/use-compiled-queries.js';

vi.mock('graphql-jit', async (original) => ({
  ...(await original<typeof import('graphql-jit')>()),
  compileQuery: () => {
    throw new Error('the compiler failed');
  },
}));

describe('a compiler that throws', () => {
  it('leaves the document with the executor', () => {
    const queued: (() => void)[] = [];
    const plugin = useCompiledQueries({ afterAnswer: (work) => queued.push(work) });
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
