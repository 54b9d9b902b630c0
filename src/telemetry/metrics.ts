/**
 * The gateway's Prometheus metrics, in a registry of its own (never prom-client's global one),
 * so several gateways in one process keep separate counts. Labels never carry a token, its
 * digest, a plan id or anything else a client can multiply without bound: operation names are
 * those of verified callers only, and capped (see `boundedNames`); rate-limit headroom is a count
 * of tokens per range.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { UpstreamCallRecord, UpstreamMeter } from '../operation/upstream-calls.js';
import { createOperationTallies } from './operation-tallies.js';

/** Distinct operation names kept as label values; later ones count as `other`. */
export const MAX_OPERATION_NAMES = 200;
/** The operation label of operations refused at admission or sent without a proven token. */
export const UNVERIFIED = 'unverified';
const MAX_OPERATION_NAME_LENGTH = 64;

export type OperationOutcome = 'ok' | 'partial' | 'error' | 'refused';

export interface OperationSample {
  name: string | null;
  /**
   * Passed admission with a token the upstream accepted. Others count under `unverified`, never
   * under their own name: made-up names from anyone cannot fill the name slots.
   */
  verified: boolean;
  type: string | null;
  outcome: OperationOutcome;
  /** Undefined for operations refused before they ran. */
  durationMs?: number;
  errorCodes: readonly string[];
  staleReasons: readonly string[];
}

export interface GatewayMetrics {
  readonly registry: Registry;
  readonly contentType: string;
  /** Sees every upstream attempt (passed to the upstream client as its observer). */
  readonly upstream: UpstreamMeter;
  operation(sample: OperationSample): void;
  replicaSync(kind: 'export' | 'delta', result: 'ok' | 'error'): void;
  /**
   * A reconciliation ran: its outcome (`clean`, `repaired`, `skipped`, `error`), and for a repair
   * how many ids of each kind of entity had drifted.
   */
  reconciled(outcome: string, drift?: Readonly<Record<string, number>>): void;
  /**
   * A delta checked the derived rows a write computed locally (one-trip writes): how many rows
   * of each kind differed (none: they agreed). Differences count as drift too.
   */
  localEffectsChecked(drift: Readonly<Record<string, number>>): void;
  /** The Redis link went down (counted as an outage) or came back. */
  clusterChange(available: boolean): void;
  /** The text exposition format, for `/metrics`. */
  text(): Promise<string>;
}

/*
 * The figures /metrics reads of the parts that keep them, declared here rather than imported:
 * telemetry sits low and reads what it is handed (`telemetry-reads-declared-stats` in
 * `.dependency-cruiser.cjs`). The replica store, the request ledger and the cluster each have
 * these among their own, wider, stats.
 */

/** The replicas held in memory (`ReplicaStore.stats()`). */
export interface ReplicaFigures {
  readonly replicas: number;
  /** Estimated heap bytes. */
  readonly bytes: number;
}

/** The request ledger's window: its limit, and what each token it saw has left. */
export interface LedgerFigures {
  readonly limit: number;
  usages(): Iterable<{ readonly remaining: number }>;
}

/** What the Redis tier did (`Cluster.stats()`): counts only grow. */
export interface ClusterFigures {
  /** Redis unavailable: this instance is working alone. */
  readonly degraded: boolean;
  readonly roundTrips: number;
  readonly fallbacks: number;
  readonly timeouts: number;
  readonly rejected: number;
  readonly relaysApplied: number;
  readonly writesApplied: number;
  readonly warmed: number;
}

export interface GatewayMetricsOptions {
  replicas: { stats(): ReplicaFigures };
  /** With Redis: whether this instance works alone, and what the tier did (src/cluster). */
  cluster?: { stats(): ClusterFigures };
  ledger: LedgerFigures;
  /** Also collect prom-client's process metrics (CPU, memory, event loop). @default false */
  processMetrics?: boolean;
}

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createGatewayMetrics({
  replicas,
  ledger,
  cluster,
  processMetrics = false,
}: GatewayMetricsOptions): GatewayMetrics {
  const registry = new Registry();
  const registers = [registry];
  const names = boundedNames(MAX_OPERATION_NAMES);

  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter({ name, help, labelNames, registers });
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Histogram({ name, help, labelNames, buckets: SECONDS_BUCKETS, registers });

  // Every operation (each replay too) is counted here in plain numbers, handed to these two
  // when /metrics is scraped (operation-tallies.ts).
  const tallies = createOperationTallies(SECONDS_BUCKETS);
  new Counter({
    name: 'gateway_operations_total',
    help: 'GraphQL operations by name, type and outcome (ok, partial, error, refused before running).',
    labelNames: ['operation', 'type', 'outcome'] as const,
    registers,
    collect() {
      tallies.flushCounts(this);
    },
  });
  new Histogram({
    name: 'gateway_operation_duration_seconds',
    help: 'Execution time of GraphQL operations that ran.',
    labelNames: ['operation', 'type', 'outcome'] as const,
    buckets: SECONDS_BUCKETS,
    registers,
    collect() {
      tallies.writeDurations(this);
    },
  });
  const errors = counter(
    'gateway_operation_errors_total',
    'Errors in GraphQL answers by extensions.code.',
    ['code'],
  );
  const stale = counter(
    'gateway_stale_answers_total',
    'Parts of answers served from an older copy because the upstream failed, by reason.',
    ['reason'],
  );
  const upstreamSeconds = histogram(
    'gateway_upstream_request_duration_seconds',
    'Upstream HTTP attempts by operationId and status (or failure kind when no status came).',
    ['operation_id', 'status'],
  );
  const syncs = counter(
    'gateway_replica_syncs_total',
    'Replica syncs by kind (a full export or a delta) and result.',
    ['kind', 'result'],
  );
  const reconciliations = counter(
    'gateway_replica_reconciliations_total',
    'Comparisons of a replica with a full export, by outcome (clean, repaired, skipped, error).',
    ['outcome'],
  );
  const localChecks = counter(
    'gateway_write_local_effects_checks_total',
    'Deltas that checked the derived figures a write computed without a delta, by outcome (agreed, drift).',
    ['outcome'],
  );
  const drift = counter(
    'gateway_replica_drift_total',
    'Rows a reconciliation found different from the export (changed, missing or extra), or a delta found different from the derived figures a write computed locally, by kind of entity.',
    ['kind'],
  );
  readAtScrape(
    registers,
    'gateway_replicas',
    'Plan replicas held in memory.',
    () => replicas.stats().replicas,
  );
  readAtScrape(
    registers,
    'gateway_replica_bytes',
    'Estimated heap bytes of the replicas held (what REPLICA_MAX_MB bounds).',
    () => replicas.stats().bytes,
  );
  new Gauge({
    name: 'gateway_upstream_quota_tokens',
    help: 'Tokens seen in the rolling window, by the upstream requests they have left.',
    labelNames: ['remaining'] as const,
    registers,
    collect() {
      this.reset();
      const ranges = quotaRanges(ledger.limit);
      for (const range of ranges) this.set({ remaining: range.label }, 0);
      for (const usage of ledger.usages()) {
        const range = ranges.find((r) => usage.remaining <= r.max);
        if (range) this.inc({ remaining: range.label });
      }
    },
  });

  const outages = new Counter({
    name: 'gateway_cluster_outages_total',
    help: 'Times Redis became unavailable and this instance went on alone.',
    registers: cluster ? registers : [],
  });
  if (cluster) registerClusterMetrics(registers, cluster);

  // Off by default: the process collectors start an event-loop monitor (one per process is enough).
  if (processMetrics) collectDefaultMetrics({ register: registry });

  return {
    registry,
    contentType: registry.contentType,
    upstream: {
      record(call: UpstreamCallRecord) {
        upstreamSeconds.observe(
          {
            operation_id: call.operationId,
            status: call.status === null ? (call.errorKind ?? 'none') : String(call.status),
          },
          call.durationMs / 1000,
        );
      },
    },
    operation(sample) {
      const labels = {
        operation: sample.verified ? names(sample.name) : UNVERIFIED,
        type: sample.type ?? 'unknown',
        outcome: sample.outcome,
      };
      tallies.record(
        labels,
        sample.durationMs === undefined ? undefined : sample.durationMs / 1000,
      );
      for (const code of sample.errorCodes) errors.inc({ code: boundedCode(code) });
      for (const reason of sample.staleReasons) stale.inc({ reason });
    },
    localEffectsChecked(counts) {
      const total = Object.values(counts).reduce((a, b) => a + b, 0);
      localChecks.inc({ outcome: total > 0 ? 'drift' : 'agreed' });
      for (const [kind, count] of Object.entries(counts)) drift.inc({ kind }, count);
    },
    reconciled(outcome, counts = {}) {
      reconciliations.inc({ outcome });
      for (const [kind, count] of Object.entries(counts)) drift.inc({ kind }, count);
    },
    replicaSync(kind, result) {
      syncs.inc({ kind, result });
    },
    clusterChange(available) {
      if (!available) outages.inc();
    },
    text: () => registry.metrics(),
  };
}

// Private: a gauge without labels whose value is read when /metrics is scraped.
function readAtScrape(registers: Registry[], name: string, help: string, read: () => number): void {
  new Gauge({
    name,
    help,
    registers,
    collect() {
      this.set(read());
    },
  });
}

/** Private: the cluster's counts /metrics follows, each as a counter: name, help, figure. */
const CLUSTER_COUNTERS: readonly (readonly [
  string,
  string,
  Exclude<keyof ClusterFigures, 'degraded'>,
])[] = [
  [
    'gateway_cluster_redis_round_trips_total',
    'Round trips to Redis (a command, pipeline or script is one).',
    'roundTrips',
  ],
  [
    'gateway_cluster_fallbacks_total',
    'Redis operations that found it unavailable or failed; the instance went on alone.',
    'fallbacks',
  ],
  [
    'gateway_cluster_timeouts_total',
    'Redis round trips that ran out of the command timeout; the first took the link down.',
    'timeouts',
  ],
  [
    'gateway_cluster_rejected_entries_total',
    'Entries found in Redis (leases, pauses, ledger entries, alias pointers, end messages) that were forged or sent again, ignored.',
    'rejected',
  ],
  [
    'gateway_cluster_relays_applied_total',
    'Deltas fetched by other instances merged into replicas here, without an upstream call.',
    'relaysApplied',
  ],
  [
    'gateway_cluster_writes_applied_total',
    'Writes through other instances applied to replicas here, without an upstream call.',
    'writesApplied',
  ],
  [
    'gateway_cluster_snapshot_warmups_total',
    'Replicas installed from the snapshot tier instead of a plan export.',
    'warmed',
  ],
];

// Private: the cluster's figures, read at scrape time; counters follow the tier's own counts.
function registerClusterMetrics(registers: Registry[], cluster: { stats(): ClusterFigures }): void {
  readAtScrape(
    registers,
    'gateway_cluster_degraded',
    '1 while Redis is unavailable and this instance works alone (local ledger, own syncs), else 0.',
    () => (cluster.stats().degraded ? 1 : 0),
  );
  for (const [name, help, figure] of CLUSTER_COUNTERS) {
    let seen = 0;
    new Counter({
      name,
      help,
      registers,
      collect() {
        const now = cluster.stats()[figure];
        if (now > seen) this.inc(now - seen);
        seen = Math.max(seen, now);
      },
    });
  }
}

// Private: the first `max` distinct names keep their own series; clients cannot grow the
// registry beyond that by inventing names.
function boundedNames(max: number): (name: string | null) => string {
  const seen = new Set<string>();
  return (name) => {
    if (name === null) return 'anonymous';
    const short = name.slice(0, MAX_OPERATION_NAME_LENGTH);
    if (seen.has(short)) return short;
    if (seen.size >= max) return 'other';
    seen.add(short);
    return short;
  };
}

// Private: error codes are the gateway's own upper-case constants; anything else is bucketed.
function boundedCode(code: string): string {
  return /^[A-Z][A-Z0-9_]{0,39}$/.test(code) ? code : 'OTHER';
}

// Private: ranges of requests left, as fractions of the quota (0, up to 10%, 25%, 50%, 75%, all).
function quotaRanges(limit: number): { label: string; max: number }[] {
  const edges = [0, 0.1, 0.25, 0.5, 0.75, 1].map((f) => Math.floor(limit * f));
  const ranges: { label: string; max: number }[] = [{ label: '0', max: 0 }];
  for (let i = 1; i < edges.length; i++) {
    const low = (edges[i - 1] as number) + 1;
    const high = edges[i] as number;
    if (high >= low) ranges.push({ label: low === high ? `${low}` : `${low}-${high}`, max: high });
  }
  return ranges;
}
