/**
 * `npm run bench -- --summary`: issue 20's figures in one table, from one run: the warm path
 * against bare yoga (`floor.ts`), the answer cache against raw node:http (`floor.ts`), cold loads
 * of large plans against curl with their peak RSS (`large-plans.ts`, at `--sizes`), and a write
 * against the REST POST (`writes.ts`), replays at the wire against raw node:http (`replay.ts`),
 * and a resume after a day offline against a refetch of the example app's screens (`resume.ts`). Each part is described in its own file; bench/README.md
 * compares the figures with the issue's.
 */
import { type FloorResult, runFloorBench } from './floor.js';
import { type LargePlanRow, runLargePlans } from './large-plans.js';
import type { BenchOptions } from './options.js';
import { type ReplayResult, runReplayBench } from './replay.js';
import { type ResumeRow, runResumeBench } from './resume.js';
import { runWritesBench, type WritesResult } from './writes.js';

export interface SummaryResult {
  floor: FloorResult;
  large: LargePlanRow[];
  writes: WritesResult;
  replay: ReplayResult;
  resume: ResumeRow[];
}

export async function runSummary(options: BenchOptions): Promise<SummaryResult> {
  console.log('  warm path and answer cache');
  const floor = await runFloorBench({
    concurrency: options.concurrency,
    durationS: options.durationS,
    requests: options.requests,
    planTransactions: options.planTransactions,
    rounds: options.rounds,
  });
  console.log(`  large plans: ${options.largeSizes.join(', ')} transactions`);
  const large = await runLargePlans({ sizes: options.largeSizes, repeats: options.repeats });
  console.log(`  writes at ${options.latencyMs} ms upstream latency`);
  const writes = await runWritesBench({
    latencyMs: options.latencyMs,
    planTransactions: options.planTransactions,
    turns: options.turns,
  });
  console.log('  replays at the wire against raw node:http');
  const replay = await runReplayBench({
    concurrency: options.concurrency,
    durationS: options.durationS,
    requests: options.requests,
    planTransactions: options.planTransactions,
    rounds: options.rounds,
  });
  console.log('  resuming after a day offline against a refetch');
  const resume = await runResumeBench({
    latencyMs: options.latencyMs,
    sizes: [options.planTransactions, options.largeSizes[0] ?? options.transactions],
    turns: 3,
  });
  return { floor, large, writes, replay, resume };
}

export function formatSummary(
  { floor, large, writes, replay, resume }: SummaryResult,
  concurrency: number,
): string {
  const x = (value: number) => `${value.toFixed(2)}x`;
  const pct = (value: number) => `${(value * 100).toFixed(0)}%`;
  const rows: string[][] = [
    [
      'floor: bare graphql-yoga / warm gateway, same answer',
      `${x(floor.floorRatio)} requests/s, ${x(floor.floorCpuRatio)} CPU per request`,
      '<= 1.2x',
    ],
    [
      `answer cache / raw node:http, requests/s at c=${concurrency}`,
      `${(floor.answerCacheRatio * 100).toFixed(0)}% (${floor.cached.throughputPerS.toFixed(0)} / ${floor.raw.throughputPerS.toFixed(0)})`,
      '>= 50%',
    ],
    ...large.flatMap((row) => {
      const size = row.transactions.toLocaleString('en-US');
      return [
        [
          `cold load / curl, ${size} transactions`,
          `${x(row.coldRatio)} (${row.coldSeconds.toFixed(2)} s / ${row.curlSeconds.toFixed(2)} s)`,
          '<= 1.5x',
        ],
        [
          `peak RSS growth / export, ${size} transactions`,
          `${x(row.peakRssPerExportByte)} (${(row.peakRssGrowthBytes / 1e6).toFixed(0)} MB / ${(row.exportBytes / 1e6).toFixed(0)} MB)`,
          '<= 2x',
        ],
      ];
    }),
    [
      `write / REST POST at ${writes.latencyMs} ms: new id and fields`,
      `${x(writes.idsOnlyRatio)} (${writes.idsOnlyMs.toFixed(0)} ms / ${writes.restPostMs.toFixed(0)} ms)`,
      '<= 1.2x',
    ],
    [
      `write / REST POST at ${writes.latencyMs} ms: with the account's balance`,
      `${x(writes.withBalanceRatio)} (${writes.withBalanceMs.toFixed(0)} ms)`,
      'reported',
    ],
    [
      'replay at the wire / raw node:http, CPU per request',
      `${x(replay.cpuRatio)}, with br ${x(replay.cpuRatioBr)}`,
      '<= 1.5x',
    ],
    [
      `replay at the wire / raw node:http, requests/s at c=${replay.concurrency}`,
      `${pct(replay.throughputRatio)}, with br ${pct(replay.throughputRatioBr)}`,
      '>= 80%',
    ],
    ...resume.map((row) => [
      `resume after a day offline (20 changes) / refetch of the screens, bytes, ${row.transactions.toLocaleString('en-US')} transactions`,
      `${(row.bytesRatio * 100).toFixed(1)}% (${row.resume.bytes} B / ${row.refetch.bytes} B), ${row.resume.upstreamCalls} upstream call(s), ${row.resume.ms.toFixed(0)} ms / ${row.refetch.ms.toFixed(0)} ms`,
      '< 5%, <= 1 call',
    ]),
  ];
  return [
    '| figure | measured | target |',
    '| --- | --- | --- |',
    ...rows.map((cells) => `| ${cells.join(' | ')} |`),
  ].join('\n');
}
