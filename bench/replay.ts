/**
 * `npm run bench -- --replay`: the answer cache's replays against raw `node:http` serving the
 * same bytes, with a client that only reads bytes (it never parses a body, so the load generator
 * takes as little of the shared cores as it can), with and without `Accept-Encoding: br`.
 *
 * The sandbox (this process) holds one everyday plan; one gateway process (answer cache on, as
 * deployed: `NODE_ENV=production`, metrics only when asked) has answered the dashboard once, so
 * each request after is a replay. The floor process (`floor-child.ts`) serves the same answer's
 * bytes from raw `node:http` (its brotli compressed once, at quality 4 as the gateway keeps it), with
 * the headers a replay sends (`floor-process.ts`, shared with `floor.ts`).
 * Each round runs the four phases in turn (replay, raw, replay br, raw br), so both sides of each
 * ratio see the same machine; figures are medians of the rounds. CPU per request is each
 * server process's own CPU time (user and system, from the kernel) over the requests it served:
 * what a shared machine disturbs least; each process's CPU with no request (sampled for a second
 * before each phase) is taken off, so a loaded machine's slow phase does not count a server's
 * housekeeping as its requests'.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandbox } from '@plans-gateway/sandbox';
import { Pool } from 'undici';
import { startBusy, stopBusy } from './busy.js';
import { createGraphQLClient, isGoodAnswer } from './clients.js';
import { type CpuTime, type FloorProcess, median, startFloorProcess } from './floor-process.js';
import { type GatewayProcess, startGatewayProcess } from './gateway-process.js';
import { type LatencySummary, runLoad } from './load.js';

const TOKEN = 'bench-replay-token';
const CHILD_ENV = { NODE_ENV: 'production', BENCH_METRICS: 'on-request' } as const;
/** How long each process's idle CPU is sampled before each phase. */
const IDLE_SAMPLE_MS = 1_000;
const DASHBOARD = readFileSync(new URL('./dashboard.graphql', import.meta.url), 'utf8');

export interface ReplayOptions {
  concurrency: number;
  durationS: number;
  requests: number;
  planTransactions: number;
  rounds: number;
  /** A second process keeps one core busy through every phase (`busy.ts`). @default false */
  loaded?: boolean;
}

export interface ReplayPhase extends LatencySummary {
  cpuMsPerRequest: number;
  /** Of `cpuMsPerRequest`, the kernel's (system calls: mostly the socket's reads and writes). */
  systemMsPerRequest: number;
}

export interface ReplayResult {
  replay: ReplayPhase;
  raw: ReplayPhase;
  replayBr: ReplayPhase;
  rawBr: ReplayPhase;
  /** Replay CPU per request over raw's, median of the rounds' ratios (target <= 1.5). */
  cpuRatio: number;
  cpuRatioBr: number;
  /** Replay requests/s over raw's, median of the rounds' ratios (target >= 0.8). */
  throughputRatio: number;
  throughputRatioBr: number;
  answerBytes: number;
  brotliBytes: number;
  concurrency: number;
  rounds: number;
  /** Whether a second process kept one core busy through every phase. */
  loaded: boolean;
}

/** A client that sends the dashboard and only counts the bytes it gets back. */
function bytesClient(url: string, connections: number, encoding: string | null) {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections, keepAliveTimeout: 60_000 });
  const body = JSON.stringify({ query: DASHBOARD });
  return {
    async send(): Promise<{ ok: boolean; bytes: number; encoding: string | undefined }> {
      const response = await pool.request({
        method: 'POST',
        path: target.pathname,
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json, application/json',
          authorization: `Bearer ${TOKEN}`,
          ...(encoding ? { 'accept-encoding': encoding } : {}),
        },
        body,
      });
      let bytes = 0;
      for await (const chunk of response.body) bytes += (chunk as Buffer).length;
      const sent = response.headers['content-encoding'];
      return {
        ok: response.statusCode === 200,
        bytes,
        encoding: typeof sent === 'string' ? sent : undefined,
      };
    },
    close: () => pool.close(),
  };
}

export async function runReplayBench(options: ReplayOptions): Promise<ReplayResult> {
  const sandbox = await createSandbox({
    port: 0,
    rateLimit: false,
    users: [{ token: TOKEN, plans: [{ seed: 1, transactions: options.planTransactions }] }],
  });
  const dir = mkdtempSync(join(tmpdir(), 'bench-replay-'));
  let gateway: GatewayProcess | undefined;
  let floor: FloorProcess | undefined;
  const clients: { close(): Promise<void> }[] = [];
  let busy: Awaited<ReturnType<typeof startBusy>> | undefined;
  try {
    gateway = await startGatewayProcess({
      upstreamUrl: sandbox.url,
      maxAgeMs: 3_600_000,
      env: CHILD_ENV,
      ...(process.env.BENCH_CPU_PROF_DIR
        ? { execArgv: ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`] }
        : {}),
    });
    const warm = createGraphQLClient(gateway.url, 1);
    clients.push(warm);
    const first = await warm.request(DASHBOARD, {}, TOKEN);
    if (!isGoodAnswer(first)) throw new Error(`dashboard: HTTP ${first.status}`);
    // The second sight keeps the answer; from the third on, every request is a replay.
    await warm.request(DASHBOARD, {}, TOKEN);
    const answer = { data: first.body.data };
    const answerFile = join(dir, 'answer.json');
    writeFileSync(answerFile, JSON.stringify(answer));
    floor = await startFloorProcess(answerFile, CHILD_ENV);
    const made = (url: string, encoding: string | null) => {
      const client = bytesClient(url, options.concurrency, encoding);
      clients.push(client);
      return client;
    };
    const sides = {
      replay: made(gateway.url, null),
      raw: made(floor.raw, null),
      replayBr: made(gateway.url, 'gzip, deflate, br'),
      rawBr: made(floor.raw, 'gzip, deflate, br'),
    };
    const brotliBytes = (await sides.replayBr.send()).bytes;
    const check = await sides.rawBr.send();
    if (check.encoding !== 'br') throw new Error('the raw floor did not send brotli');
    const load = {
      concurrency: options.concurrency,
      requests: options.requests,
      durationMs: options.durationS * 1000,
    };
    const gatewayCpu = async (): Promise<CpuTime> => {
      const { cpuMicros, cpuSystemMicros } = await gateway!.figures({ gc: false });
      return { user: cpuMicros - cpuSystemMicros, system: cpuSystemMicros };
    };
    const floorCpu = () => floor!.cpu();
    /**
     * What a process spends with no request (its timers, the gateway's housekeeping), in CPU
     * microseconds per wall millisecond: taken off its phases, so on a machine so loaded that a
     * phase serves few requests, its idle work is not counted as theirs.
     */
    const idleRate = async (cpu: () => Promise<CpuTime>): Promise<number> => {
      const before = total(await cpu());
      const started = performance.now();
      await new Promise((resolve) => setTimeout(resolve, IDLE_SAMPLE_MS));
      return (total(await cpu()) - before) / (performance.now() - started);
    };
    const phase = async (
      client: ReturnType<typeof bytesClient>,
      cpu: () => Promise<CpuTime>,
      encoding: string | undefined,
    ): Promise<ReplayPhase> => {
      const idle = await idleRate(cpu);
      const before = await cpu();
      const started = performance.now();
      const summary = await runLoad(async () => {
        const sent = await client.send();
        return sent.ok && sent.encoding === encoding;
      }, load);
      const after = await cpu();
      const busy = total(after) - total(before) - idle * (performance.now() - started);
      const requests = summary.count + Math.min(50, load.requests);
      return {
        ...summary,
        cpuMsPerRequest: Math.max(0, busy) / 1000 / requests,
        systemMsPerRequest: (after.system - before.system) / 1000 / requests,
      };
    };
    if (options.loaded) busy = await startBusy();
    const rounds: ReplayPhase[][] = [];
    for (let round = 0; round < options.rounds; round += 1) {
      process.stdout.write(`  round ${round + 1}/${options.rounds}\n`);
      rounds.push([
        await phase(sides.replay, gatewayCpu, undefined),
        await phase(sides.raw, floorCpu, undefined),
        await phase(sides.replayBr, gatewayCpu, 'br'),
        await phase(sides.rawBr, floorCpu, 'br'),
      ]);
    }
    const medianPhase = (i: number): ReplayPhase => {
      const runs = rounds.map((r) => r[i]!);
      const mid = median(runs.map((run) => run.throughputPerS));
      return runs.find((run) => run.throughputPerS === mid)!;
    };
    const ratio = (i: number, j: number, of: (p: ReplayPhase) => number) =>
      median(rounds.map((r) => of(r[i]!) / of(r[j]!)));
    return {
      replay: medianPhase(0),
      raw: medianPhase(1),
      replayBr: medianPhase(2),
      rawBr: medianPhase(3),
      cpuRatio: ratio(0, 1, (p) => p.cpuMsPerRequest),
      cpuRatioBr: ratio(2, 3, (p) => p.cpuMsPerRequest),
      throughputRatio: ratio(0, 1, (p) => p.throughputPerS),
      throughputRatioBr: ratio(2, 3, (p) => p.throughputPerS),
      answerBytes: Buffer.byteLength(JSON.stringify(answer)),
      brotliBytes,
      concurrency: options.concurrency,
      rounds: options.rounds,
      loaded: options.loaded === true,
    };
  } finally {
    if (busy) await stopBusy(busy);
    for (const client of clients) await client.close();
    floor?.close();
    await gateway?.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function total({ user, system }: CpuTime): number {
  return user + system;
}

export function formatReplay(result: ReplayResult): string {
  const row = (name: string, s: ReplayPhase) =>
    `| ${name} | ${s.throughputPerS.toFixed(0)} | ${s.p50Ms.toFixed(2)} | ${(s.cpuMsPerRequest * 1000).toFixed(0)} | ${(s.systemMsPerRequest * 1000).toFixed(0)} | ${s.errors} |`;
  return [
    `Replays of the dashboard (${result.answerBytes} bytes of JSON, ${result.brotliBytes} as brotli) against raw node:http serving the same bytes, c=${result.concurrency}, a client that only reads bytes, medians of ${result.rounds} rounds (phases alternated)${result.loaded ? ', machine loaded: a second process (bench/busy-child.ts) kept one core busy through every phase' : ''}:`,
    '',
    '| server | requests/s | p50 ms | server CPU µs / request | of which system | errors |',
    '| --- | --- | --- | --- | --- | --- |',
    row('gateway, replay', result.replay),
    row('raw node:http', result.raw),
    row('gateway, replay, Accept-Encoding: gzip, deflate, br', result.replayBr),
    row('raw node:http, brotli bytes', result.rawBr),
    '',
    `replay / raw, CPU per request: ${result.cpuRatio.toFixed(2)}x, with br ${result.cpuRatioBr.toFixed(2)}x (target <= 1.5x)`,
    `replay / raw, requests/s: ${(result.throughputRatio * 100).toFixed(0)}%, with br ${(result.throughputRatioBr * 100).toFixed(0)}% (target >= 80%)`,
  ].join('\n');
}
