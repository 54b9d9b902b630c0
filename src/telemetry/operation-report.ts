import type { OperationId } from '@plans-gateway/rest-contract';
import type { StaleNotice } from '../contracts/operation-meter.js';
import type { OperationOutcome } from './metrics.js';

/** What one operation did, handed to the log, the metrics and the trace. Never what it carried. */
export interface OperationReport {
  requestId: string | null;
  traceId: string | null;
  operationName: string | null;
  operationType: string | null;
  outcome: OperationOutcome;
  /** Execution time; absent for operations refused before they ran. */
  durationMs?: number;
  upstreamCalls: number;
  upstreamOperations: Partial<Record<OperationId, number>>;
  cacheHits: number;
  stale: readonly StaleNotice[];
  errorCodes: string[];
}

export type OperationReportSink = (report: OperationReport) => void;
