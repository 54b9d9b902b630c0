import type { OperationId } from '@plans-gateway/rest-contract';
import type { StaleReason } from '../replica/types.js';
import { nextTurn } from '../time/next-turn.js';
import type { OperationSpan } from './tracer.js';
import type { UpstreamCallRecord, UpstreamMeter } from './upstream-calls.js';

export interface StaleNotice {
  /** What answered from an older copy: a plan id, or a REST collection such as `getUser`. */
  readonly source: string;
  readonly reason: StaleReason;
  readonly ageMs: number;
}

/** What one GraphQL operation cost upstream; returned in `extensions.upstream`. */
export interface OperationCost {
  /** HTTP requests sent upstream for this operation, retries included. */
  calls: number;
  /** The same calls by operationId. */
  operations: Partial<Record<OperationId, number>>;
  /** Reads answered from a replica or the REST cache without a call. */
  cacheHits: number;
  /** Age of the oldest replica that answered, in ms; null when no replica was read. */
  replicaAgeMs: number | null;
  stale: StaleNotice[];
}

export interface OperationMeter extends UpstreamMeter {
  /** Marks upstream-backed work of this operation as in flight until `work` settles. */
  track<T>(work: Promise<T>): Promise<T>;
  /**
   * Resolves once no tracked work is in flight across a macrotask turn. Sibling fields start
   * their loads in the same tick and nested fields right after their parent settles, so this is
   * after every upstream call the operation makes.
   */
  idle(): Promise<void>;
  cacheHit(): void;
  replicaRead(ageMs: number): void;
  stale(notice: StaleNotice): void;
  cost(): OperationCost;
}

export interface OperationMeterOptions {
  /** The operation's trace span: each upstream attempt becomes a child span. @default none */
  span?: OperationSpan;
}

/** Per-operation accounting; the upstream client calls `record` once per HTTP attempt. */
export function createOperationMeter({ span }: OperationMeterOptions = {}): OperationMeter {
  const cost: OperationCost = {
    calls: 0,
    operations: {},
    cacheHits: 0,
    replicaAgeMs: null,
    stale: [],
  };
  let inFlight = 0;
  return {
    track(work) {
      inFlight += 1;
      return work.finally(() => {
        inFlight -= 1;
      });
    },
    async idle() {
      do await nextTurn();
      while (inFlight > 0);
    },
    record(call: UpstreamCallRecord) {
      cost.calls += 1;
      cost.operations[call.operationId] = (cost.operations[call.operationId] ?? 0) + 1;
    },
    cacheHit() {
      cost.cacheHits += 1;
    },
    replicaRead(ageMs) {
      cost.replicaAgeMs = cost.replicaAgeMs === null ? ageMs : Math.max(cost.replicaAgeMs, ageMs);
    },
    stale(notice) {
      if (!cost.stale.some((s) => s.source === notice.source)) cost.stale.push(notice);
    },
    cost: () => cost,
    ...(span ? { trace: (call) => span.upstream(call) } : {}),
  };
}
