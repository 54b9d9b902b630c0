/**
 * The import graph's rules, checked by `npm test` (`npm run deps`). Module cycles make load order
 * matter; folder cycles mean two folders cannot be read, tested or replaced one without the other.
 * Shared contracts live in src/contracts, which depends on nothing but types from below it.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-module-cycles',
      severity: 'error',
      comment: 'A module imports itself back through its own imports.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment: 'A folder imports from a folder that imports it back.',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'src-stays-out-of-tests',
      severity: 'error',
      comment: 'Shipped code must not load test or benchmark code.',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
