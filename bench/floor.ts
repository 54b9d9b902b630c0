/**
 * `npm run bench -- --floor`: the warm dashboard against its floors, in one run.
 *
 * The sandbox (this process, no added latency, rate limit off) holds one everyday plan. Two
 * gateway processes answer `bench/dashboard.graphql` from a warm replica: one with the answer
 * cache off (every request executed: the warm path), one with it on (a repeated operation is
 * answered from the body held under its ETag). A floor process (`floor-child.ts`) serves the
 * same answer twice: a bare graphql-yoga server over the printed schema whose default resolvers
 * read the precomputed answer, and raw `node:http` sending its bytes. The load generator (this
 * process, `--concurrency` closed-loop clients over keep-alive connections, every body parsed)
 * runs the four in turn, `--rounds` times; the figures are medians of the rounds.
 *
 * - floor ratio: bare yoga's requests per second over the warm gateway's (1.0 = as fast);
 * - answer-cache ratio: the cached gateway's requests per second over raw `node:http`'s.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { createSandbox } from '@plans-gateway/sandbox';
import { createGraphQLClient, type GraphQLClient, isGoodAnswer } from './clients.js';
import { type FloorProcess, median, startFloorProcess } from './floor-process.js';
import { type GatewayProcess, startGatewayProcess } from './gateway-process.js';
import { type LatencySummary, runLoad } from './load.js';

const TOKEN = 'bench-floor-token';
/**
 * Both sides run as deployed (the Dockerfile sets it): graphql-js's development-only checks
 * (`instanceOf` on every type test, about 5 % of a warm dashboard) are off in the gateway and in
 * the floor alike, so the comparison stays fair.
 */
const CHILD_ENV = { NODE_ENV: 'production' } as const;
const DASHBOARD = readFileSync(new URL('./dashboard.graphql', import.meta.url), 'utf8');

export interface FloorOptions {
  concurrency: number;
  durationS: number;
  requests: number;
  /** Transactions of the plan. */
  planTransactions: number;
  /** Turns of the four servers; medians reported. @default 3 */
  rounds: number;
  /** Node flags for the warm gateway (`--cpu-prof` to profile it). @default none */
  gatewayExecArgv?: readonly string[];
}

export interface FloorResult {
  /** Median figures of each server at `concurrency`. */
  gateway: Phase;
  yoga: Phase;
  cached: Phase;
  raw: Phase;
  /** Bare yoga's requests per second over the warm gateway's. */
  floorRatio: number;
  /** The warm gateway's CPU per request over bare yoga's (less sensitive to a busy machine). */
  floorCpuRatio: number;
  /** The answer-cached gateway's requests per second over raw node:http's. */
  answerCacheRatio: number;
  answerBytes: number;
  /** Whether bare yoga answered exactly the gateway's data. */
  sameAnswer: boolean;
  rounds: Phase[][];
}

/** A server's figures in one phase: the load's, and the CPU its process spent per request. */
export interface Phase extends LatencySummary {
  cpuMsPerRequest: number;
}

/** The round whose throughput is the median one, as that server's figures. */
function medianOf(runs: Phase[]): Phase {
  const mid = median(runs.map((run) => run.throughputPerS));
  return runs.find((run) => run.throughputPerS === mid)!;
}

export async function runFloorBench(options: FloorOptions): Promise<FloorResult> {
  const sandbox = await createSandbox({
    port: 0,
    rateLimit: false,
    users: [{ token: TOKEN, plans: [{ seed: 1, transactions: options.planTransactions }] }],
  });
  const dir = mkdtempSync(join(tmpdir(), 'bench-floor-'));
  const gateways: GatewayProcess[] = [];
  const clients: GraphQLClient[] = [];
  let floors: FloorProcess | undefined;
  try {
    const start = (answerCacheMaxBytes?: number, execArgv?: readonly string[]) =>
      startGatewayProcess({
        upstreamUrl: sandbox.url,
        maxAgeMs: 3_600_000,
        ...(answerCacheMaxBytes === undefined ? {} : { answerCacheMaxBytes }),
        ...(execArgv ? { execArgv } : {}),
        env: CHILD_ENV,
      }).then((gateway) => {
        gateways.push(gateway);
        return gateway;
      });
    const warm = await start(0, options.gatewayExecArgv);
    const cached = await start();
    const client = (url: string) => {
      const made = createGraphQLClient(url, options.concurrency);
      clients.push(made);
      return made;
    };
    const warmClient = client(warm.url);
    const cachedClient = client(cached.url);
    const first = await warmClient.request(DASHBOARD, {}, TOKEN);
    if (!isGoodAnswer(first)) throw new Error(`dashboard: HTTP ${first.status}`);
    await cachedClient.request(DASHBOARD, {}, TOKEN);
    const answer = { data: first.body.data };
    const answerFile = join(dir, 'answer.json');
    writeFileSync(answerFile, JSON.stringify(answer));
    floors = await startFloorProcess(answerFile, CHILD_ENV);
    const yogaClient = client(floors.yoga);
    const rawClient = client(floors.raw);
    const fromYoga = await yogaClient.request(DASHBOARD, {}, TOKEN);

    const load = {
      concurrency: options.concurrency,
      requests: options.requests,
      durationMs: options.durationS * 1000,
    };
    const phase = async (target: GraphQLClient, cpu: () => Promise<number>): Promise<Phase> => {
      const before = await cpu();
      const summary = await runLoad(
        async () => isGoodAnswer(await target.request(DASHBOARD, {}, TOKEN)),
        load,
      );
      const micros = (await cpu()) - before;
      // The warm-up's requests are in the CPU time too.
      const requests = summary.count + Math.min(50, load.requests);
      return { ...summary, cpuMsPerRequest: micros / 1000 / requests };
    };
    const gatewayCpu = (gateway: GatewayProcess) => async () =>
      (await gateway.figures({ gc: false })).cpuMicros;
    const floorCpu = async () => {
      const { user, system } = await floors!.cpu();
      return user + system;
    };
    const rounds: Phase[][] = [];
    for (let round = 0; round < options.rounds; round += 1) {
      process.stdout.write(`  round ${round + 1}/${options.rounds}\n`);
      rounds.push([
        await phase(warmClient, gatewayCpu(warm)),
        await phase(yogaClient, floorCpu),
        await phase(cachedClient, gatewayCpu(cached)),
        await phase(rawClient, floorCpu),
      ]);
    }
    const [gateway, yoga, cachedRun, raw] = [0, 1, 2, 3].map((i) =>
      medianOf(rounds.map((r) => r[i]!)),
    ) as [Phase, Phase, Phase, Phase];
    return {
      gateway,
      yoga,
      cached: cachedRun,
      raw,
      floorRatio: yoga.throughputPerS / gateway.throughputPerS,
      floorCpuRatio: median(rounds.map((r) => r[0]!.cpuMsPerRequest / r[1]!.cpuMsPerRequest)),
      answerCacheRatio: cachedRun.throughputPerS / raw.throughputPerS,
      answerBytes: Buffer.byteLength(JSON.stringify(answer)),
      sameAnswer: isDeepStrictEqual(fromYoga.body.data, first.body.data),
      rounds,
    };
  } finally {
    for (const made of clients) await made.close();
    floors?.close();
    for (const gateway of gateways) await gateway.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatFloor(result: FloorResult): string {
  const row = (name: string, s: Phase) =>
    `| ${name} | ${s.throughputPerS.toFixed(0)} | ${s.p50Ms.toFixed(2)} | ${s.p99Ms.toFixed(2)} | ${s.cpuMsPerRequest.toFixed(2)} | ${s.errors} |`;
  return [
    `Warm dashboard (${result.answerBytes} bytes of JSON) against its floors, medians of ${result.rounds.length} rounds:`,
    '',
    '| server | requests/s | p50 ms | p99 ms | server CPU ms / request | errors |',
    '| --- | --- | --- | --- | --- | --- |',
    row('gateway, warm replica (answer cache off)', result.gateway),
    row('bare graphql-yoga, precomputed answer', result.yoga),
    row('gateway, answer cache', result.cached),
    row('raw node:http, the answer bytes', result.raw),
    '',
    `floor ratio (bare yoga / gateway, requests/s): ${result.floorRatio.toFixed(2)}x; CPU per request: ${result.floorCpuRatio.toFixed(2)}x (target <= 1.2)`,
    `answer-cache ratio (gateway / raw node:http): ${(result.answerCacheRatio * 100).toFixed(0)}% (target >= 50%)`,
    ...(result.sameAnswer ? [] : ['WARNING: bare yoga did not answer the same data']),
  ].join('\n');
}
