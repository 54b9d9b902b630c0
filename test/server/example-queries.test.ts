import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_QUERY } from '../../src/server/example-queries.js';

describe('DASHBOARD_QUERY', () => {
  it('is the text of bench/dashboard.graphql (benchmarks and typed documents use that file)', () => {
    const file = readFileSync(new URL('../../bench/dashboard.graphql', import.meta.url), 'utf8');
    expect(DASHBOARD_QUERY).toBe(file);
  });
});
