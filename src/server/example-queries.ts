import { readFileSync } from 'node:fs';

/** The canonical dashboard operation (kept in bench/ so benchmarks and GraphiQL share it). */
export const DASHBOARD_QUERY = readFileSync(
  new URL('../../bench/dashboard.graphql', import.meta.url),
  'utf8',
);
