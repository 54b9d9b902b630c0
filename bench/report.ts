/** The benchmark's results (also written as JSON) and their printed tables. */
import type { GatewayFigures } from './gateway-process.js';
import type { LatencySummary } from './load.js';
import type { BenchOptions } from './options.js';

export interface Shot {
  /** Upstream reads this one operation caused, counted at the sandbox. */
  calls: number;
  /** Which reads, by operationId. */
  operations: string[];
  ms: number;
  /** For the write scenario: whether the read showed the write. */
  showsWrite?: boolean;
}

export interface LoadResult {
  latency: LatencySummary;
  /** Operations run in the phase, warm-up included. */
  operations: number;
  /** Upstream reads during the phase, counted at the sandbox. */
  upstreamCalls: number;
}

export interface ScenarioResult {
  key: string;
  title: string;
  file: string;
  gateway: {
    cold: Shot;
    warmWithinMaxAge: Shot;
    warmPastMaxAge: Shot;
    load: LoadResult;
    /** Gateway process memory after this scenario (after a full GC). */
    memory: GatewayFigures;
  };
  rest: {
    calls: string[];
    callsPerOperation: number;
    load: LoadResult;
  };
}

export interface LargePlanResult {
  transactions: number;
  /** `GET /plans/{id}` of the large plan, straight at the sandbox (upstream latency included). */
  exportBytes: number;
  exportMs: number;
  /** The gateway's cold filtered page: export + parse + build + answer. */
  gatewayColdMs: number;
  /** The replica store's estimate for this replica (what its byte budget counts). */
  replicaEstimateBytes: number;
  /** Gateway heap growth from loading this replica, measured after full GCs. */
  replicaHeapBytes: number;
  /** Gateway RSS growth from loading it. */
  replicaRssBytes: number;
  heapPerJsonByte: number;
  estimatePerJsonByte: number;
  page: {
    size: number;
    totalCount: number;
    rowsVisitedFirstPage: number;
    rowsVisitedSecondPage: number;
  };
}

export interface BenchResults {
  startedAt: string;
  environment: { node: string; platform: string; cpus: number; loadAverage: number[] };
  options: BenchOptions;
  setup: { seedMs: number; gatewayPid: number };
  gatewayMemoryAtStart: GatewayFigures;
  scenarios: ScenarioResult[];
  dashboardZeroLatency: { concurrency1: LoadResult; concurrencyN: LoadResult };
  largePlan: LargePlanResult;
  totalMs: number;
}

const MB = 1024 * 1024;
const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
const ms = (value: number) =>
  Number.isFinite(value) ? (value < 10 ? value.toFixed(2) : value.toFixed(1)) : '-';

function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((row) => row.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ');
  return [
    line(cells[0]!),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...cells.slice(1).map(line),
  ].join('\n');
}

export function formatResults(results: BenchResults): string {
  const { options } = results;
  const out: string[] = [];
  out.push(
    `Plans GraphQL gateway benchmark  ${results.startedAt}`,
    `node ${results.environment.node}, ${results.environment.cpus} CPUs, load ${results.environment.loadAverage.map((l) => l.toFixed(2)).join(' ')}`,
    `upstream latency ${options.latencyMs} ms, everyday plans ${options.planTransactions} transactions, large plan ${options.transactions}, ` +
      `concurrency ${options.concurrency}, phases up to ${options.durationS} s / ${options.requests} operations, max-age ${options.maxAgeMs} ms`,
    `gateway in its own process (pid ${results.setup.gatewayPid}); sandbox and load generator in this one; loopback only`,
    '',
    'Upstream calls per operation, counted at the sandbox (single operations; "REST" = the calls an app sends without the gateway)',
    table(
      [
        'operation',
        'cold',
        'warm <= max-age',
        'warm > max-age',
        'REST',
        'cold ms',
        'warm ms',
        'past ms',
      ],
      results.scenarios.map((s) => [
        s.key,
        s.gateway.cold.calls,
        s.gateway.warmWithinMaxAge.calls,
        s.gateway.warmPastMaxAge.calls,
        s.rest.callsPerOperation,
        ms(s.gateway.cold.ms),
        ms(s.gateway.warmWithinMaxAge.ms),
        ms(s.gateway.warmPastMaxAge.ms),
      ]),
    ),
    '(cold = first operation of a token; warm/past ms = median of 5 / 3 single operations)',
    ...results.scenarios
      .filter((s) => s.gateway.cold.showsWrite !== undefined)
      .map(
        (s) =>
          `(${s.key}: each read follows an outside write and sends Cache-Control: no-cache, so it costs a delta even ` +
          `within max-age; every read showed its write: ${
            [s.gateway.cold, s.gateway.warmWithinMaxAge, s.gateway.warmPastMaxAge].every(
              (shot) => shot.showsWrite,
            )
              ? 'yes'
              : 'NO'
          })`,
      ),
    `With 200 upstream requests per token per hour, a REST client affords ${results.scenarios
      .map((s) => `${Math.floor(200 / s.rest.callsPerOperation)} ${s.key}`)
      .join(', ')} operations per hour;`,
    'through the gateway a read within max-age costs nothing, so steady polling spends at most one delta per plan per max-age window (no-cache reads excepted).',
    '',
    `Latency under load (concurrency ${options.concurrency}); gateway warm at its default max-age, REST = the same screen from the sandbox`,
    table(
      ['operation', 'via', 'ops', 'err', 'p50 ms', 'p95 ms', 'p99 ms', 'ops/s', 'upstream/op'],
      results.scenarios.flatMap((s) => [
        loadRow(s.key, 'gateway', s.gateway.load),
        loadRow('', 'REST', s.rest.load),
      ]),
    ),
    '',
    "Gateway process memory after each scenario (full GC first); replica = the store's estimate",
    table(
      ['after', 'rss', 'heap used', 'replicas', 'replica bytes'],
      [
        [
          'start',
          mb(results.gatewayMemoryAtStart.rssBytes),
          mb(results.gatewayMemoryAtStart.heapUsedBytes),
          0,
          mb(0),
        ],
        ...results.scenarios.map((s) => [
          s.key,
          mb(s.gateway.memory.rssBytes),
          mb(s.gateway.memory.heapUsedBytes),
          s.gateway.memory.replicas.replicas,
          mb(s.gateway.memory.replicas.bytes),
        ]),
      ],
    ),
    '',
    'Dashboard, warm, over a zero-latency upstream (gateway overhead)',
    table(
      ['concurrency', 'ops', 'err', 'p50 ms', 'p95 ms', 'p99 ms', 'ops/s', 'upstream/op'],
      [
        loadRow('1', '', results.dashboardZeroLatency.concurrency1).filter((_, i) => i !== 1),
        loadRow(String(options.concurrency), '', results.dashboardZeroLatency.concurrencyN).filter(
          (_, i) => i !== 1,
        ),
      ],
    ),
    '',
  );
  const large = results.largePlan;
  out.push(
    `Large plan (${large.transactions} transactions)`,
    `  export (GET /plans/{id}, REST):         ${mb(large.exportBytes)} JSON in ${ms(large.exportMs)} ms`,
    `  gateway cold page (export+build):      ${ms(large.gatewayColdMs)} ms`,
    `  replica heap, measured:                ${mb(large.replicaHeapBytes)} = ${large.heapPerJsonByte.toFixed(2)} x the export JSON (rss +${mb(large.replicaRssBytes)})`,
    `  replica size, store estimate:          ${mb(large.replicaEstimateBytes)} = ${large.estimatePerJsonByte.toFixed(2)} x the export JSON`,
    `  filtered page of ${large.page.size} (of ${large.page.totalCount} matching): rows visited ${large.page.rowsVisitedFirstPage} (first page), ` +
      `${large.page.rowsVisitedSecondPage} (second page), of ${large.transactions} in the plan`,
    '',
    `REST calls of the baseline:`,
    ...results.scenarios.map((s) => `  ${s.key}: ${s.rest.calls.join(', ')}`),
    '',
    `total ${(results.totalMs / 1000).toFixed(1)} s`,
  );
  return out.join('\n');
}

function loadRow(name: string, via: string, load: LoadResult): string[] {
  const l = load.latency;
  return [
    name,
    via,
    String(l.count),
    String(l.errors),
    ms(l.p50Ms),
    ms(l.p95Ms),
    ms(l.p99Ms),
    l.throughputPerS.toFixed(0),
    (load.upstreamCalls / Math.max(1, load.operations)).toFixed(3),
  ];
}
