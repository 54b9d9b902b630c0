/**
 * `npm run bench -- --large`: cold loads of large plans against downloading their export.
 *
 * For each size, the sandbox (in this process, rate limit off, no added latency) holds one plan
 * of that many transactions. The baseline is `curl` downloading the plan export to /dev/null;
 * the gateway's figure is a fresh gateway process (`gateway-child.ts`, replica budget large
 * enough), warmed up on a small plan of another token, answering `bench/dashboard.graphql` cold
 * for the large one: the export streamed, the replica built, the dashboard answered. Each is the median of `--repeats` runs in the same
 * run on the same machine. Peak RSS growth is the gateway's `VmHWM` after the load less its RSS
 * before it (after full GCs), against the export's bytes; the replica's heap is the heap growth
 * after full GCs.
 *
 * Figures depend on the machine; nothing here is a test (the bounds in bytes are proven by
 * test/replica/streamed-load.property.test.ts and test/upstream/json-array-stream.test.ts).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { createSandbox, type Sandbox } from '@plans-gateway/sandbox';
import { createGraphQLClient, isGoodAnswer } from './clients.js';
import { startGatewayProcess } from './gateway-process.js';

const TOKEN = 'bench-large-plan-token';
const WARM_UP_TOKEN = 'bench-warm-up-token';
const DASHBOARD = readFileSync(new URL('./dashboard.graphql', import.meta.url), 'utf8');
/** Room for a 1,000,000-transaction replica and another plan beside it. */
const REPLICA_MAX_BYTES = 4 * 1024 * 1024 * 1024;
const run = promisify(execFile);

export interface LargePlanOptions {
  /** Plan sizes in transactions. @default [100_000, 300_000] (`--huge` adds 1,000,000) */
  sizes: number[];
  /** Runs of each measurement; the figures are medians. @default 3 */
  repeats: number;
  /** Node flags for each gateway child (`--cpu-prof` to profile the loads). @default none */
  gatewayExecArgv?: readonly string[];
  /**
   * Sizes at which a gateway with default settings (replica budget, max-age) loads the plan
   * once more after the runs: whether it loads, or what refuses it. @default none
   */
  defaultSettingsAt?: readonly number[];
}

/** The parse floor: the export downloaded as fast as curl does, then parsed by `JSON.parse`. */
export interface ParseFloor {
  /** Median seconds of `JSON.parse` over the export's text, in the bench process. */
  parseSeconds: number;
  /** `curlSeconds + parseSeconds`. */
  floorSeconds: number;
  /** The cold load over the floor. */
  coldRatio: number;
}

/** One cold load by a gateway with default settings. */
export interface DefaultSettingsLoad {
  loaded: boolean;
  seconds: number;
  /** The first error's message when the dashboard failed. */
  error?: string;
}

export interface LargePlanRow {
  transactions: number;
  exportBytes: number;
  /** Median seconds of curl downloading the export. */
  curlSeconds: number;
  /** Median seconds of a cold dashboard (export streamed, replica built, answered). */
  coldSeconds: number;
  coldRatio: number;
  /**
   * Median CPU seconds (user and system) the gateway process spent on the cold dashboard: less
   * disturbed than wall clock when the machine is shared.
   */
  coldCpuSeconds: number;
  /** Median CPU seconds of the gateway's main thread alone on the cold dashboard. */
  coldMainThreadCpuSeconds: number;
  /**
   * Null when the export's text is longer than V8's longest string (about 512 MB: the
   * 1,000,000-transaction plan), which `JSON.parse` cannot take in one piece.
   */
  parseFloor: ParseFloor | null;
  /** With `defaultSettingsAt` naming this size. */
  defaultSettings?: DefaultSettingsLoad;
  /** Median of VmHWM after the load less RSS before it. */
  peakRssGrowthBytes: number;
  peakRssPerExportByte: number;
  /** Median heap growth after full GCs: the replica. */
  replicaHeapBytes: number;
  replicaHeapPerExportByte: number;
  /** Every run, for the JSON file. */
  runs: {
    curl: number[];
    cold: number[];
    cpu: number[];
    mainCpu: number[];
    peak: number[];
    heap: number[];
  };
}

/** The plan measured, and a small one of another token that warms a fresh gateway up first. */
async function startSandbox(transactions: number): Promise<Sandbox> {
  return createSandbox({
    port: 0,
    rateLimit: false,
    users: [
      { token: TOKEN, plans: [{ seed: 7, transactions }] },
      { token: WARM_UP_TOKEN, plans: [{ seed: 1, transactions: 2_000 }] },
    ],
  });
}

/** Seconds and bytes of `curl` downloading `url` to /dev/null. */
async function curl(url: string): Promise<{ seconds: number; bytes: number }> {
  const { stdout } = await run('curl', [
    '-sS',
    '-o',
    '/dev/null',
    '-w',
    '%{time_total} %{size_download} %{http_code}',
    '-H',
    `authorization: Bearer ${TOKEN}`,
    url,
  ]);
  const [seconds, bytes, status] = stdout.trim().split(' ').map(Number);
  if (status !== 200) throw new Error(`curl ${url}: HTTP ${status}`);
  return { seconds: seconds!, bytes: bytes! };
}

function peakRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) * 1024;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Seconds of `JSON.parse` over the export's text, medians of `repeats`; null past V8's string limit. */
async function parseSeconds(url: string, repeats: number): Promise<number | null> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
  const bytes = Buffer.from(await response.arrayBuffer());
  if (bytes.length >= MAX_STRING_BYTES) return null;
  const text = bytes.toString('utf8');
  const seconds: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const started = performance.now();
    JSON.parse(text);
    seconds.push((performance.now() - started) / 1000);
  }
  return median(seconds);
}

/** Below V8's longest string (2^29 - 24 characters on 64-bit), with a margin for multi-byte text. */
const MAX_STRING_BYTES = 500_000_000;

/** One cold dashboard by a gateway with default settings: whether it loads. */
async function defaultSettingsLoad(upstreamUrl: string): Promise<DefaultSettingsLoad> {
  const gateway = await startGatewayProcess({ upstreamUrl, maxAgeMs: 30_000 });
  const client = createGraphQLClient(gateway.url, 1);
  try {
    const started = performance.now();
    const answer = await client.request(DASHBOARD, {}, TOKEN);
    const seconds = (performance.now() - started) / 1000;
    if (isGoodAnswer(answer)) return { loaded: true, seconds };
    const error = answer.body.errors?.[0];
    return { loaded: false, seconds, error: JSON.stringify(error ?? answer.body).slice(0, 300) };
  } finally {
    await client.close();
    await gateway.close();
  }
}

/** One cold dashboard through a fresh gateway: seconds, peak RSS growth, replica heap. */
async function coldLoad(
  upstreamUrl: string,
  execArgv: readonly string[],
): Promise<{ seconds: number; cpu: number; mainCpu: number; peak: number; heap: number }> {
  const gateway = await startGatewayProcess({
    upstreamUrl,
    maxAgeMs: 60_000,
    replicaMaxBytes: REPLICA_MAX_BYTES,
    execArgv,
  });
  const client = createGraphQLClient(gateway.url, 1);
  try {
    // A fresh process compiles every code path on its first operation: not what is measured.
    const warm = await client.request(DASHBOARD, {}, WARM_UP_TOKEN);
    if (!isGoodAnswer(warm)) throw new Error('the warm-up dashboard failed');
    const before = await gateway.figures({ gc: true });
    const started = performance.now();
    const answer = await client.request(DASHBOARD, {}, TOKEN);
    const seconds = (performance.now() - started) / 1000;
    if (!isGoodAnswer(answer)) {
      throw new Error(`cold dashboard: ${JSON.stringify(answer.body.errors).slice(0, 300)}`);
    }
    const peak = peakRss(gateway.pid) - before.rssBytes;
    const loaded = await gateway.figures({ gc: false });
    const cpu = (loaded.cpuMicros - before.cpuMicros) / 1e6;
    const mainCpu = (loaded.mainThreadCpuMicros - before.mainThreadCpuMicros) / 1e6;
    const after = await gateway.figures({ gc: true });
    return { seconds, cpu, mainCpu, peak, heap: after.heapUsedBytes - before.heapUsedBytes };
  } finally {
    await client.close();
    await gateway.close();
  }
}

export async function runLargePlans(
  options: LargePlanOptions,
  log: (line: string) => void = console.log,
): Promise<LargePlanRow[]> {
  const rows: LargePlanRow[] = [];
  for (const transactions of options.sizes) {
    log(`  ${transactions.toLocaleString('en-US')} transactions: seeding the sandbox...`);
    const sandbox = await startSandbox(transactions);
    try {
      const exportUrl = `${sandbox.url}/plans/${sandbox.users[0]!.planIds[0]!}`;
      const runs = {
        curl: [] as number[],
        cold: [] as number[],
        cpu: [] as number[],
        mainCpu: [] as number[],
        peak: [] as number[],
        heap: [] as number[],
      };
      let exportBytes = 0;
      await curl(exportUrl); // warm-up: the sandbox's first export compiles its code paths
      for (let i = 0; i < options.repeats; i++) {
        const download = await curl(exportUrl);
        exportBytes = download.bytes;
        runs.curl.push(download.seconds);
        const load = await coldLoad(sandbox.url, options.gatewayExecArgv ?? []);
        runs.cold.push(load.seconds);
        runs.cpu.push(load.cpu);
        runs.mainCpu.push(load.mainCpu);
        runs.peak.push(load.peak);
        runs.heap.push(load.heap);
        log(
          `    run ${i + 1}: curl ${download.seconds.toFixed(2)} s, gateway ${load.seconds.toFixed(2)} s (CPU ${load.cpu.toFixed(2)} s, main thread ${load.mainCpu.toFixed(2)} s), peak RSS +${(load.peak / 1e6).toFixed(0)} MB`,
        );
      }
      const curlSeconds = median(runs.curl);
      const coldSeconds = median(runs.cold);
      const parsed = await parseSeconds(exportUrl, options.repeats);
      const parseFloor =
        parsed === null
          ? null
          : {
              parseSeconds: parsed,
              floorSeconds: curlSeconds + parsed,
              coldRatio: coldSeconds / (curlSeconds + parsed),
            };
      let defaultSettings: DefaultSettingsLoad | undefined;
      if (options.defaultSettingsAt?.includes(transactions)) {
        defaultSettings = await defaultSettingsLoad(sandbox.url);
        log(
          `    default settings: ${defaultSettings.loaded ? 'loaded' : `refused (${defaultSettings.error})`} in ${defaultSettings.seconds.toFixed(2)} s`,
        );
      }
      const peak = median(runs.peak);
      const heap = median(runs.heap);
      rows.push({
        transactions,
        exportBytes,
        curlSeconds,
        coldSeconds,
        coldRatio: coldSeconds / curlSeconds,
        parseFloor,
        ...(defaultSettings ? { defaultSettings } : {}),
        coldCpuSeconds: median(runs.cpu),
        coldMainThreadCpuSeconds: median(runs.mainCpu),
        peakRssGrowthBytes: peak,
        peakRssPerExportByte: peak / exportBytes,
        replicaHeapBytes: heap,
        replicaHeapPerExportByte: heap / exportBytes,
        runs,
      });
    } finally {
      await sandbox.close();
    }
  }
  return rows;
}

const mb = (bytes: number) => (bytes / 1e6).toFixed(0);

/** The rows as a table (goal 5's "cold-load ratio and RSS at each size"). */
export function formatLargePlans(rows: readonly LargePlanRow[]): string {
  const header =
    '| transactions | export MB | curl s | cold load s | cold / curl | cold CPU s | main thread s | CPU MB/s | peak RSS growth MB | RSS / export | replica heap MB | heap / export |';
  const line = '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |';
  const body = rows.map(
    (row) =>
      `| ${row.transactions.toLocaleString('en-US')} | ${mb(row.exportBytes)} | ${row.curlSeconds.toFixed(2)} | ${row.coldSeconds.toFixed(2)} | ${row.coldRatio.toFixed(2)}x | ${row.coldCpuSeconds.toFixed(2)} | ${row.coldMainThreadCpuSeconds.toFixed(2)} | ${mb(row.exportBytes / row.coldCpuSeconds)} | ${mb(row.peakRssGrowthBytes)} | ${row.peakRssPerExportByte.toFixed(2)}x | ${mb(row.replicaHeapBytes)} | ${row.replicaHeapPerExportByte.toFixed(2)}x |`,
  );
  return [header, line, ...body].join('\n');
}
