import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (`main`) and ESM (`module`) builds. Node, and so Pothos and yoga,
    // load the CJS one; without this alias vite would give our sources the ESM one, and
    // `instanceof GraphQLError` would fail across the two copies.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration suites start real HTTP servers; files in parallel, tests inside a file in order.
    // Two workers for the two cores CI has: more only queue on the CPU and stretch the
    // time-sensitive tests. Files run in a worker that is not reset between them, so the schema
    // and the rest of src are loaded once per worker, not once per file; no suite keeps global
    // state across files (each builds its own gateway, registry and clock).
    pool: 'forks',
    maxWorkers: 2,
    isolate: false,
  },
});
