import type { OperationId } from '@plans-gateway/rest-contract';
import { type DocumentNode, getOperationAST } from 'graphql';
import type { StaleNotice } from '../operation/meter.js';
import type { OperationOutcome } from './metrics.js';

/** What one operation did, handed to the log, the metrics and the trace. Never what it carried. */
export interface OperationReport {
  requestId: string | null;
  traceId: string | null;
  operationName: string | null;
  operationType: string | null;
  outcome: OperationOutcome;
  /**
   * Passed admission with a token the upstream has accepted: only such operations may name a
   * metrics series, so callers without a good token cannot fill the name slots.
   */
  verified: boolean;
  /** Execution time; absent for operations refused before they ran. */
  durationMs?: number;
  upstreamCalls: number;
  upstreamOperations: Partial<Record<OperationId, number>>;
  cacheHits: number;
  stale: readonly StaleNotice[];
  errorCodes: string[];
  /**
   * The cost limit in `measure` mode let this operation run: what enforcing it would have
   * answered (`OPERATION_TOO_COMPLEX`, the estimate and the limit).
   */
  wouldRefuse?: { limit: 'cost'; value: number; max: number };
}

export type OperationReportSink = (report: OperationReport) => void;

/**
 * The report of an operation refused before it ran (by admission or validation): named after
 * the operation `document` would have run, if it was parsed; never verified.
 */
export function refusalReport(
  requestId: string | null,
  document: DocumentNode | undefined,
  operationName: string | null | undefined,
  errorCodes: string[],
): OperationReport {
  const operation = document ? getOperationAST(document, operationName) : null;
  return {
    requestId,
    traceId: null,
    operationName: operation?.name?.value ?? null,
    operationType: operation?.operation ?? null,
    outcome: 'refused',
    verified: false,
    upstreamCalls: 0,
    upstreamOperations: {},
    cacheHits: 0,
    stale: [],
    errorCodes,
  };
}
