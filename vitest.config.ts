import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration suites start real HTTP servers; files in parallel, tests inside a file in order.
    pool: 'forks',
  },
});
