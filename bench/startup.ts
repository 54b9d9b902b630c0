/**
 * `npm run bench:startup`: how long each way of starting the gateway takes to log `listening`,
 * the resident memory of its whole process tree then, and the bytes of a 500-transaction page
 * plain, gzip and br. Each start runs against the same upstream (a sandbox in this process), so
 * no run pays for seeding. Figures for the report, not assertions: the machine is shared.
 *
 *   npm run build && npm run bench:startup [-- --runs 5]
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createSandbox } from '@plans-gateway/sandbox';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 5;

const STARTS: { name: string; command: string; args: string[] }[] = [
  { name: 'node dist/cli.js', command: 'node', args: ['dist/cli.js'] },
  { name: 'npm start (node --import tsx)', command: 'npm', args: ['start'] },
  {
    name: 'tsx src/cli.ts (the former npm start)',
    command: 'node_modules/.bin/tsx',
    args: ['src/cli.ts'],
  },
];

interface Sample {
  ms: number;
  rssKb: number;
  processes: number;
}

function groupRss(pgid: number): { rssKb: number; processes: number } {
  const rows = execFileSync('ps', ['-eo', 'pgid=,rss='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter(([group]) => group === pgid);
  return { rssKb: rows.reduce((sum, [, rss]) => sum + (rss ?? 0), 0), processes: rows.length };
}

async function startOnce(start: (typeof STARTS)[number], upstreamUrl: string): Promise<Sample> {
  const began = performance.now();
  const child: ChildProcess = spawn(start.command, start.args, {
    cwd: ROOT,
    env: {
      ...process.env,
      UPSTREAM_URL: upstreamUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_FORMAT: 'json',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  const pgid = child.pid ?? -1;
  try {
    const ms = await new Promise<number>((resolve, reject) => {
      let text = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        if (text.includes('"msg":"listening"')) resolve(performance.now() - began);
      });
      child.once('exit', (code) => reject(new Error(`${start.name} exited with ${code}`)));
    });
    // Let the loader threads and lazy imports settle before reading memory.
    await new Promise((resolve) => setTimeout(resolve, 500));
    return { ms, ...groupRss(pgid) };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-pgid, 'SIGTERM');
    await exited;
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Starts the compiled gateway once more and reads a 500-transaction page in each encoding. */
async function pageSizes(upstreamUrl: string, token: string): Promise<Record<string, number>> {
  const child = spawn('node', ['dist/cli.js'], {
    cwd: ROOT,
    env: {
      ...process.env,
      UPSTREAM_URL: upstreamUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_FORMAT: 'json',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  try {
    const url = await new Promise<string>((resolve) => {
      let text = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        const match = /"url":"([^"]+)","upstream"/.exec(text);
        if (match?.[1]) resolve(match[1]);
      });
    });
    const body = JSON.stringify({
      query: `{ plan(id: "last-used") { transactions(first: 500) { nodes {
        id date amount amountFormatted memo cleared approved flagColor
        account { name } payee { name } category { name } subtransactions { amount } } } } }`,
    });
    const sizes: Record<string, number> = {};
    for (const encoding of ['identity', 'gzip', 'br']) {
      sizes[encoding] = await new Promise<number>((resolve, reject) => {
        const req = request(
          url,
          {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              authorization: `Bearer ${token}`,
              'accept-encoding': encoding,
            },
          },
          (res) => {
            let bytes = 0;
            res.on('data', (chunk: Buffer) => {
              bytes += chunk.length;
            });
            res.on('end', () => resolve(bytes));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    }
    return sizes;
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-(child.pid ?? 0), 'SIGTERM');
    await exited;
  }
}

async function main(): Promise<void> {
  if (!existsSync(`${ROOT}dist/cli.js`)) throw new Error('run `npm run build` first');
  const sandbox = await createSandbox({ port: 0, rateLimit: false });
  try {
    console.log(
      `start-up to the "listening" log line, and RSS of the whole process tree (median of ${RUNS})`,
    );
    for (const start of STARTS) {
      await startOnce(start, sandbox.url); // warm the file cache
      const samples: Sample[] = [];
      for (let i = 0; i < RUNS; i++) samples.push(await startOnce(start, sandbox.url));
      console.log(
        `  ${start.name.padEnd(40)} ${median(samples.map((s) => s.ms))
          .toFixed(0)
          .padStart(6)} ms` +
          `  ${(median(samples.map((s) => s.rssKb)) / 1024).toFixed(1).padStart(6)} MiB` +
          `  ${samples[0]?.processes} process(es)`,
      );
    }
    const sizes = await pageSizes(sandbox.url, sandbox.users[0]?.token ?? '');
    console.log('a 500-transaction page (bytes on the wire)');
    for (const [encoding, bytes] of Object.entries(sizes))
      console.log(`  ${encoding.padEnd(10)} ${String(bytes).padStart(8)}`);
  } finally {
    await sandbox.close();
  }
}

await main();
