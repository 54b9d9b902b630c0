/**
 * The suite's rule on time (test/README.md, "Time in tests"): no test waits on a real timer or
 * reads the real clock to decide what happens, because a loaded machine moves it differently.
 * Time runs on the manual clock and scheduler; what moves on its own (a socket, a process) is
 * awaited as an event or with `until`. The few real timers left are liveness limits (they only
 * turn "never" into a failure that names what did not happen) or the real date a peer checks;
 * each is listed here with its reason.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * A real timer or clock: the global `setTimeout`/`setInterval` (not a scheduler's method, not a
 * method of that name being defined), `node:timers/promises`, `Date.now()`, `performance.now()`.
 */
const REAL_TIME = [
  /(?<![.\w])set(?:Timeout|Interval)\((?![^)]*\)\s*\{)/,
  /timers\/promises/,
  /\bDate\.now\(\)/,
  /\bperformance\.now\(\)/,
];

/** Files that may use one, and why. Nothing else may. */
const ALLOWED = new Map<string, string>([
  ['test/support/wait.ts', '`until` polls a side that moves on its own; its limit is liveness'],
  ['test/support/run-command.ts', 'kills a command that outlives its liveness limit'],
  ['test/support/redis-server.ts', 'a redis-server that never says it is ready fails, named'],
  ['test/cluster/support/within.ts', 'a liveness limit on an event of another process'],
  [
    'test/cluster/support/gateway-process.ts',
    'liveness limit on a gateway process start; SIGKILL after a SIGTERM grace',
  ],
  [
    'test/federation/support/router.ts',
    "a router's response cache expires entries on the router's own (real) clock",
  ],
  ['test/clients/relay.test.ts', 'kills relay-compiler if it outlives its liveness limit'],
  ['test/webhooks/parts.test.ts', 'Standard Webhooks checks a timestamp against the real clock'],
  ['packages/sandbox/test/sdk-dates.test.ts', "the SDK's date helper reads the real clock"],
  ['packages/sandbox/test/cli.test.ts', 'polls until a process group is gone (liveness)'],
]);

function testFiles(): string[] {
  const roots = [
    join(ROOT, 'test'),
    ...readdirSync(join(ROOT, 'packages')).map((name) => join(ROOT, 'packages', name, 'test')),
  ];
  const files: string[] = [];
  for (const root of roots) {
    let entries: string[];
    try {
      entries = readdirSync(root, { recursive: true, encoding: 'utf8' });
    } catch {
      continue; // a package without tests
    }
    for (const entry of entries) {
      const path = relative(ROOT, join(root, entry)).split('\\').join('/');
      if (path.endsWith('.ts') && !path.startsWith('test/generated/')) files.push(path);
    }
  }
  return files;
}

/** `path:line: text` of each line that uses real time, comments left out. */
function realTimeIn(path: string): string[] {
  const lines = readFileSync(join(ROOT, path), 'utf8').split('\n');
  return lines.flatMap((line, index) => {
    const code = line.trim();
    if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return [];
    return REAL_TIME.some((pattern) => pattern.test(code)) ? [`${path}:${index + 1}: ${code}`] : [];
  });
}

describe('time in tests', () => {
  const files = testFiles();
  const self = relative(ROOT, fileURLToPath(import.meta.url));

  it('waits on no real timer and reads no real clock outside the listed files', () => {
    expect(files.length).toBeGreaterThan(100);
    const found = files.filter((path) => path !== self && !ALLOWED.has(path)).flatMap(realTimeIn);
    expect(found, 'use the manual clock and scheduler, or wait for an event').toEqual([]);
  });

  it('lists only files that still need it', () => {
    const unused = [...ALLOWED.keys()].filter((path) => realTimeIn(path).length === 0);
    expect(unused).toEqual([]);
  });

  it('catches a sleep', () => {
    const sleep = 'await new Promise((resolve) => setTimeout(resolve, 1_000));';
    expect(REAL_TIME.some((pattern) => pattern.test(sleep))).toBe(true);
    expect(REAL_TIME.some((pattern) => pattern.test('scheduler.setTimeout(task, 5);'))).toBe(false);
  });
});
