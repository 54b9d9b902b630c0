/**
 * `npm run bench -- --summary`: issue 34's figures in one table, each beside its target, with
 * CPU per request and requests per second where a figure has them, and the load the machine ran
 * under (load average and cores before and after each part). Each part reuses a bench mode and is
 * described in its own file:
 *
 * - replays at the wire against raw node:http (`replay.ts`): CPU per request and requests/s;
 * - a warm non-repeated dashboard against bare yoga with graphql-jit, both over node:http
 *   (`probes/miss-path.ts`, in a child process of its own with `NODE_ENV=production`, the client
 *   in another): CPU per request of the gateway as served (misses on the direct path), and
 *   through yoga beside it;
 * - cold loads against the parse floor (a fresh process downloading the export and `JSON.parse`-ing
 *   it: `parse-floor-child.ts`) at
 *   `--sizes`, and against curl with one core kept busy by another process (CI-like load), and
 *   whether a gateway with default settings loads the 1,000,000-transaction plan when that size
 *   is asked for (`large-plans.ts`);
 * - a write selecting the account's balance against the REST POST at `--latency` (`writes.ts`).
 *
 * `--quick` runs every part small (a 20,000-transaction plan, one run of each, short phases): a
 * smoke run of a few minutes whose figures are not the issue's. bench/README.md says what each
 * figure means; docs/performance.md quotes a full run.
 */
import { execFile, spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { promisify } from 'node:util';
import { type LargePlanRow, runLargePlans } from './large-plans.js';
import type { BenchOptions } from './options.js';
import type { MissPathResult } from './probes/miss-path.js';
import { type ReplayResult, runReplayBench } from './replay.js';
import { type ResumeRow, resumeMet, runResumeBench } from './resume.js';
import { runWritesBench, type WritesResult } from './writes.js';

const run = promisify(execFile);

/** The machine while a part ran: 1-minute load average before and after, and its cores. */
export interface MachineLoad {
  cores: number;
  before: number;
  after: number;
}

export interface SummaryResult {
  replay: { result: ReplayResult; load: MachineLoad };
  warm: { result: MissPathResult; load: MachineLoad };
  large: { rows: LargePlanRow[]; load: MachineLoad };
  ciLoad: { rows: LargePlanRow[]; load: MachineLoad };
  writes: { result: WritesResult; load: MachineLoad };
  resume: { rows: ResumeRow[]; load: MachineLoad };
}

async function underLoad<T>(work: () => Promise<T>): Promise<{ value: T; load: MachineLoad }> {
  const before = loadavg()[0]!;
  const value = await work();
  return { value, load: { cores: cpus().length, before, after: loadavg()[0]! } };
}

/**
 * `bench/probes/miss-path.ts --json` in a process of its own, as deployed (`NODE_ENV=production`):
 * over node:http, where the direct path of misses shows (`yoga.fetch` would bypass it).
 */
async function missPath(batches: number, requests: number): Promise<MissPathResult> {
  const script = new URL('./probes/miss-path.ts', import.meta.url).pathname;
  const { stdout } = await run(
    process.execPath,
    [
      '--import',
      'tsx',
      script,
      '--json',
      '--batches',
      String(batches),
      '--requests',
      String(requests),
    ],
    { env: { ...process.env, NODE_ENV: 'production' }, maxBuffer: 1024 * 1024 },
  );
  const line = stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(line) as MissPathResult;
}

/** `work` while another process keeps one core busy (a CI runner shared with another job). */
async function withBusyCore<T>(work: () => Promise<T>): Promise<T> {
  const burner = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  try {
    return await work();
  } finally {
    burner.kill('SIGKILL');
  }
}

export async function runSummary(options: BenchOptions): Promise<SummaryResult> {
  const quick = options.quick;
  const sizes = quick ? [options.transactions] : options.largeSizes;
  const repeats = quick ? 1 : options.repeats;

  console.log('  replays at the wire against raw node:http');
  const replay = await underLoad(() =>
    runReplayBench({
      concurrency: options.concurrency,
      durationS: options.durationS,
      requests: options.requests,
      planTransactions: options.planTransactions,
      rounds: quick ? 1 : options.rounds,
    }),
  );
  console.log('  a warm non-repeated dashboard against bare yoga + graphql-jit, over node:http');
  const warm = await underLoad(() => (quick ? missPath(3, 100) : missPath(9, 300)));
  console.log(`  cold loads: ${sizes.join(', ')} transactions`);
  const large = await underLoad(() =>
    runLargePlans({ sizes, repeats, defaultSettingsAt: [1_000_000] }),
  );
  const ciSize = Math.min(...sizes);
  console.log(`  cold load of ${ciSize} transactions with one core kept busy (CI-like load)`);
  const ciLoad = await underLoad(() =>
    withBusyCore(() => runLargePlans({ sizes: [ciSize], repeats })),
  );
  console.log(`  writes at ${options.latencyMs} ms upstream latency`);
  const writes = await underLoad(() =>
    runWritesBench({
      latencyMs: options.latencyMs,
      planTransactions: options.planTransactions,
      turns: quick ? 5 : options.turns,
    }),
  );
  console.log('  resuming after a day offline against a refetch of the screens');
  const resume = await underLoad(() =>
    runResumeBench({
      latencyMs: options.latencyMs,
      sizes: [options.planTransactions, sizes[0] ?? options.transactions],
      turns: quick ? 1 : 3,
    }),
  );
  return {
    resume: { rows: resume.value, load: resume.load },
    replay: { result: replay.value, load: replay.load },
    warm: { result: warm.value, load: warm.load },
    large: { rows: large.value, load: large.load },
    ciLoad: { rows: ciLoad.value, load: ciLoad.load },
    writes: { result: writes.value, load: writes.load },
  };
}

type Row = [
  figure: string,
  measured: string,
  target: string,
  pass: boolean | null,
  cpu: string,
  rate: string,
  load: MachineLoad,
];

const x = (value: number) => `${value.toFixed(2)}x`;
const pct = (value: number) => `${(value * 100).toFixed(0)}%`;
const ms = (value: number) => `${value.toFixed(3)} ms`;
const verdict = (pass: boolean | null) => (pass === null ? 'reported' : pass ? 'pass' : 'FAIL');
const loadCell = ({ cores, before, after }: MachineLoad) =>
  `${before.toFixed(1)} → ${after.toFixed(1)} on ${cores} cores`;

export function formatSummary({
  replay,
  warm,
  large,
  ciLoad,
  writes,
  resume,
}: SummaryResult): string {
  const r = replay.result;
  const rows: Row[] = [
    [
      'replay at the wire / raw node:http, CPU per request',
      `${x(r.cpuRatio)} (with br ${x(r.cpuRatioBr)})`,
      '<= 1.5x',
      r.cpuRatio <= 1.5 && r.cpuRatioBr <= 1.5,
      `${ms(r.replay.cpuMsPerRequest)} / ${ms(r.raw.cpuMsPerRequest)}`,
      `${r.replay.throughputPerS.toFixed(0)} / ${r.raw.throughputPerS.toFixed(0)}`,
      replay.load,
    ],
    [
      `replay at the wire / raw node:http, requests/s at c=${r.concurrency}`,
      `${pct(r.throughputRatio)} (with br ${pct(r.throughputRatioBr)})`,
      '>= 80%',
      r.throughputRatio >= 0.8 && r.throughputRatioBr >= 0.8,
      `br: ${ms(r.replayBr.cpuMsPerRequest)} / ${ms(r.rawBr.cpuMsPerRequest)}`,
      `br: ${r.replayBr.throughputPerS.toFixed(0)} / ${r.rawBr.throughputPerS.toFixed(0)}`,
      replay.load,
    ],
    [
      'warm non-repeated dashboard / bare yoga + graphql-jit over node:http, CPU per request',
      x(warm.result.ratio),
      '<= 1.3x',
      warm.result.ratio <= 1.3,
      `${ms(warm.result.directMs)} / ${ms(warm.result.floorMs)} (through yoga ${ms(warm.result.yogaMs)}, ${x(warm.result.yogaRatio)})`,
      '–',
      warm.load,
    ],
    ...large.rows.flatMap((row): Row[] => {
      const size = row.transactions.toLocaleString('en-US');
      const cpu = `${row.coldCpuSeconds.toFixed(2)} s / ${row.floorCpuSeconds.toFixed(2)} s CPU`;
      const parsed: Row = [
        `cold load / parse floor, ${size} transactions`,
        `${x(row.floorRatio)} wall (${row.coldSeconds.toFixed(2)} s / ${row.floorSeconds.toFixed(2)} s), ${x(row.floorCpuRatio)} CPU`,
        '<= 1.2x',
        row.floorRatio <= 1.2,
        cpu,
        '–',
        large.load,
      ];
      const defaults: Row[] = row.defaultSettings
        ? [
            [
              `${size} transactions with default settings`,
              row.defaultSettings.loaded
                ? `loads (${row.defaultSettings.seconds.toFixed(2)} s)`
                : `refused: ${row.defaultSettings.error ?? ''}`,
              'loads',
              row.defaultSettings.loaded,
              '–',
              '–',
              large.load,
            ],
          ]
        : [];
      return [parsed, ...defaults];
    }),
    ...ciLoad.rows.map(
      (row): Row => [
        `cold load / curl under CI-like load (one core busy), ${row.transactions.toLocaleString('en-US')} transactions`,
        `${x(row.coldRatio)} (${row.coldSeconds.toFixed(2)} s / ${row.curlSeconds.toFixed(2)} s)`,
        '<= 1.5x',
        row.coldRatio <= 1.5,
        `${row.coldCpuSeconds.toFixed(2)} s CPU`,
        '–',
        ciLoad.load,
      ],
    ),
    [
      `write selecting the balance / REST POST at ${writes.result.latencyMs} ms`,
      `${x(writes.result.withBalanceRatio)} (${writes.result.withBalanceMs.toFixed(0)} ms / ${writes.result.restPostMs.toFixed(0)} ms)`,
      '<= 1.3x',
      writes.result.withBalanceRatio <= 1.3,
      '–',
      '–',
      writes.load,
    ],
    [
      `write, new id and fields / REST POST at ${writes.result.latencyMs} ms`,
      `${x(writes.result.idsOnlyRatio)} (${writes.result.idsOnlyMs.toFixed(0)} ms)`,
      '(reported)',
      null,
      '–',
      '–',
      writes.load,
    ],
    ...resume.rows.map(
      (row): Row => [
        `resume after a day offline (20 changes) / refetch of the example app's screens (Home, Budget, each on-budget register's first 50), bytes on the wire with gzip, ${row.transactions.toLocaleString('en-US')} transactions`,
        `${(row.gzipRatio * 100).toFixed(1)}% (${row.resume.gzipBytes} B / ${row.refetch.gzipBytes} B; uncompressed ${(row.bytesRatio * 100).toFixed(1)}%; with the lists read again ${(row.withListsGzipRatio * 100).toFixed(1)}%), ${row.resume.upstreamCalls} upstream call(s), ${row.resume.ms.toFixed(0)} ms / ${row.refetch.ms.toFixed(0)} ms`,
        '< 5%, <= 1 call',
        resumeMet(row),
        '–',
        '–',
        resume.load,
      ],
    ),
  ];
  return [
    '| figure | measured | target | result | CPU per request (gateway / floor) | requests/s (gateway / floor) | load average (1 min) |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      ([figure, measured, target, pass, cpu, rate, load]) =>
        `| ${figure} | ${measured} | ${target} | ${verdict(pass)} | ${cpu} | ${rate} | ${loadCell(load)} |`,
    ),
  ].join('\n');
}
