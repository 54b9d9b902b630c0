/**
 * `npm run bench:layout`: the shape of the tree it runs in, as issue 30 counts it. Prints, for
 * `src/`: the folders each concern lives in (`layout-concerns.ts`), the files over 400 lines and
 * the 10 longest functions (`layout-sizes.ts`), and the modules a cold GraphQL read passes
 * through from the HTTP server to the upstream client (`layout-cold-read.ts`, which starts the
 * gateway's CLI over a loopback sandbox). Every figure but the cold read comes from the sources
 * alone; all of them come out the same on every run of one tree, so two trees' outputs can be
 * compared line by line. `--no-cold-read` leaves out the part that starts processes; `--files`
 * lists the files behind each concern's count.
 *
 * The files it needs from the rest of the tree are the sources, the CLI and the sandbox's
 * `createSandbox`, so it also runs in a checkout of an older commit (copy `bench/layout*.ts` in).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { coldRead, formatColdRead } from './layout-cold-read.js';
import { concernHomes } from './layout-concerns.js';
import { longestFunctions, longFiles } from './layout-sizes.js';
import { readSources } from './layout-sources.js';

const LONG_FILE_LINES = 400;
const LONGEST_FUNCTIONS = 10;

const { values: args } = parseArgs({
  options: {
    'no-cold-read': { type: 'boolean', default: false },
    files: { type: 'boolean', default: false },
  },
});
const root = fileURLToPath(new URL('..', import.meta.url));

const table = (head: string[], rows: string[][]): string =>
  [head, head.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');

const files = readSources(root);
const concerns = concernHomes(files);
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
  cwd: root,
  encoding: 'utf8',
});
const out: string[] = [
  `# Layout of ${commit.trim()}: ${files.length} files under src/, ${files.reduce((sum, file) => sum + file.lines, 0)} lines`,
  '',
  '## Concerns and the folders they live in',
  '',
  table(
    ['concern', 'folders', 'homes', 'files'],
    concerns.map((concern) => [
      concern.name,
      String(concern.folders.length),
      concern.folders.join(', ') || '-',
      String(concern.files.length),
    ]),
  ),
];

const long = longFiles(files, LONG_FILE_LINES);
out.push(
  '',
  `## Files over ${LONG_FILE_LINES} lines: ${long.length}`,
  '',
  table(
    ['lines', 'file'],
    long.map((file) => [String(file.lines), file.path]),
  ),
  '',
  `## The ${LONGEST_FUNCTIONS} longest functions`,
  '',
  table(
    ['lines', 'function', 'at'],
    longestFunctions(files, LONGEST_FUNCTIONS).map((fn) => [String(fn.lines), fn.name, fn.at]),
  ),
);

if (!args['no-cold-read']) out.push('', formatColdRead(await coldRead(root, files)));

out.push('', '## Markers', '');
for (const concern of concerns) {
  out.push(`- ${concern.name}: ${concern.marker}`);
  if (args.files) for (const path of concern.files) out.push(`  - ${path}`);
}
console.log(out.join('\n'));
