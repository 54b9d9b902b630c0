/**
 * docs/security.md's threat model holds no claim without a test: every row of its table names
 * at least one test file (`(tests: ...)`), each of which exists and is run by the suite. A row
 * added without its test fails here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../cli/support/process.js';

const doc = readFileSync(join(ROOT, 'docs/security.md'), 'utf8');
const threatModel = /^## Threat model\n([\s\S]*?)^## /m.exec(doc)?.[1] ?? '';
const rows = threatModel
  .split('\n')
  .filter((line) => line.startsWith('| ') && !line.startsWith('| Who') && !line.startsWith('| -'));

/** The test files a row cites: backticked paths of `*.test.ts` files. */
function citedTests(row: string): string[] {
  return [...row.matchAll(/`((?:test|packages\/[\w-]+\/test)\/[\w./-]+\.test\.ts)`/g)].map(
    ([, path]) => path ?? '',
  );
}

describe("docs/security.md's threat model", () => {
  it('has its table', () => {
    expect(rows.length).toBeGreaterThan(20);
  });

  it.each(rows.map((row) => [row.split('|')[1]?.trim() ?? '', row]))(
    '%s: names the tests that prove it, and they exist',
    (_who, row) => {
      const cited = citedTests(row);
      expect(cited, 'cite its tests: (tests: `test/...test.ts`)').not.toEqual([]);
      expect(cited.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
    },
  );
});
