/**
 * `npm run bench:layout`'s static counts (bench/layout-*.ts) on a small tree of its own: a
 * concern is found by its markers in code, never in comments; a module that only uses a
 * concern's shared type does not hold it; files and functions are measured in lines.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { concernHomes } from '../../bench/layout-concerns.js';
import { longestFunctions, longFiles } from '../../bench/layout-sizes.js';
import { readSources } from '../../bench/layout-sources.js';

const root = mkdtempSync(join(tmpdir(), 'layout-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

write(
  'src/alpha/own-clock.ts',
  [
    '// Not the Redis link, though it names ioredis here.',
    'export interface Options {',
    '  now?: () => number;',
    '}',
    '',
  ].join('\n'),
);
write(
  'src/beta/link.ts',
  ["import Redis from 'ioredis';", '', 'export const link = new Redis();', ''].join('\n'),
);
write('src/time/clock.ts', 'export type Clock = () => number;\n');
write(
  'src/gamma/uses-clock.ts',
  [
    "import type { Clock } from '../time/clock.js';",
    '',
    'export interface Options {',
    '  now?: Clock;',
    '}',
    '',
    'export function long(): number {',
    '  const a = 1;',
    '  const inner = () => {',
    '    return a;',
    '  };',
    '  return inner();',
    '}',
    '',
  ].join('\n'),
);
write('src/cli.ts', 'export {};\n');
const files = readSources(root);

describe('bench:layout', () => {
  it('finds a concern by its markers in code, and its homes one level below src', () => {
    const homes = Object.fromEntries(
      concernHomes(files).map((concern) => [concern.name, concern.folders]),
    );
    // src/gamma takes the shared Clock: it uses the clock, it holds none of its own.
    expect(homes.clock).toEqual(['src/alpha', 'src/time']);
    // The comment in src/alpha names ioredis: only the import counts.
    expect(homes['Redis link']).toEqual(['src/beta']);
    expect(homes['sealing (AES-GCM)']).toEqual([]);
  });

  it('counts the lines of files and functions, nested functions inside their parent', () => {
    expect(longFiles(files, 5)).toEqual([{ path: 'src/gamma/uses-clock.ts', lines: 13 }]);
    expect(longestFunctions(files, 2)).toEqual([
      { at: 'src/gamma/uses-clock.ts:7', name: 'long', lines: 7 },
      { at: 'src/gamma/uses-clock.ts:9', name: 'inner', lines: 3 },
    ]);
  });
});
