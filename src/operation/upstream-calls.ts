/**
 * What an operation learns of its upstream calls: each HTTP attempt reported as a record
 * (`UpstreamCallRecord`) to the meters it carries (`UpstreamMeter`), and told as it leaves so a
 * trace span can follow it upstream. These are the operation's types, which the upstream client
 * fills and the operation meter, metrics and traces read; they sit here, below the client, so
 * that nothing reading them loads it.
 */
import type { HttpMethod, OperationId } from '@plans-gateway/rest-contract';
import type { UpstreamErrorKind } from '../errors/upstream-error.js';

export interface UpstreamCallRecord {
  operationId: OperationId;
  method: HttpMethod;
  /** HTTP status, `null` when no response headers arrived. */
  status: number | null;
  /** 1 for the first attempt, 2 for the first retry, ... */
  attempt: number;
  durationMs: number;
  tokenKey: string;
  /** Why the attempt failed, `null` when it succeeded (or the caller aborted it). */
  errorKind: UpstreamErrorKind | null;
  /** Bytes of the decoded response body, `null` when none was read whole (e.g. the replica's memory estimate uses it). */
  responseBytes: number | null;
}

/**
 * Sees every HTTP attempt of the calls it is passed to, e.g. to count what one GraphQL
 * operation cost upstream.
 */
export interface UpstreamMeter {
  record(call: UpstreamCallRecord): void;
  /**
   * Optional: told as each attempt leaves; the headers it returns are sent with it (a W3C
   * `traceparent`), and `end` sees the same record as `record`. Used for tracing.
   */
  trace?(call: UpstreamCallStart): UpstreamAttemptTrace;
}

/** An attempt about to be sent. */
export interface UpstreamCallStart {
  operationId: OperationId;
  method: HttpMethod;
  attempt: number;
}

export interface UpstreamAttemptTrace {
  readonly headers: Readonly<Record<string, string>>;
  end(call: UpstreamCallRecord): void;
}
