import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const require = createRequire(import.meta.url);

/**
 * The heaviest files (properties, and suites that build or spawn processes) start first, so the
 * two workers finish together. Vitest orders by the last run's timings when it has them, but a
 * fresh clone (CI) has none and would leave `sandbox/*.property` for last. End-to-end suites
 * build an app and start a browser.
 */
const HEAVY = [/\.property\.test\.ts$/, /\/test\/cli\//, /\/test\/cluster\//, /\.e2e\.test\.ts$/];

class HeavyFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const heavy = (file: TestSpecification) => HEAVY.some((pattern) => pattern.test(file.moduleId));
    return [...sorted.filter(heavy), ...sorted.filter((file) => !heavy(file))];
  }
}

/**
 * One worker more than the cores: much of a suite's time is spent waiting on sockets, timers and
 * child processes, and the extra worker fills that idle CPU (on two cores: 82 s against 91 s with
 * two, all passing, on an idle machine). At most 8: every worker holds a schema, and the
 * cluster and browser suites start processes of their own.
 */
const WORKERS = Math.min(8, availableParallelism() + 1);

export default defineConfig({
  resolve: {
    // The workspace packages resolve to their sources (tsconfig `paths`), as in tsx and tsc, so
    // tests never run a stale build.
    tsconfigPaths: true,
    // graphql 16 ships CJS (`main`) and ESM (`module`) builds. Node, and so Pothos and yoga,
    // load the CJS one; without this alias vite would give our sources the ESM one, and
    // `instanceof GraphQLError` would fail across the two copies.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    // Liveness limits, not speed checks: no test waits on a real timer (test/README.md, "Time in
    // tests"), but a loaded machine runs everything slower. Two full runs at once on two cores
    // take each file several times as long as alone; a test that takes more than 10 s alone says
    // so with its own limit.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // `expect.poll` waits on what moves on its own, as `until` does (test/support/wait.ts), with
    // the same liveness limit: vitest's default of 1 s is a race on a loaded machine.
    expect: { poll: { timeout: 45_000 } },
    // Integration suites start real HTTP servers; files in parallel, tests inside a file in order.
    // Files run in a worker that is not reset between them, so the schema and the rest of src are
    // loaded once per worker, not once per file; no suite keeps global state across files (each
    // builds its own gateway, registry and clock).
    pool: 'forks',
    maxWorkers: WORKERS,
    isolate: false,
    sequence: { sequencer: HeavyFirst },
  },
});
