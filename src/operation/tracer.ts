/**
 * What the gateway needs from a tracer, without naming OpenTelemetry: the OpenTelemetry
 * implementation (`otel.ts`) is imported only when tracing is configured, so a gateway without
 * tracing loads none of its packages.
 */
import type { UpstreamAttemptTrace, UpstreamCallStart } from './upstream-calls.js';

export interface OperationTracer {
  /**
   * Starts the span of one GraphQL operation, a child of the request's W3C `traceparent` when it
   * carries a valid one.
   */
  startOperation(request: Request): OperationSpan;
}

export interface OperationSpan {
  /** The trace id (32 hex digits), for log lines. */
  readonly traceId: string;
  /** Names the span once the operation is known (`query Dashboard`). */
  describe(operation: { name: string | null; type: string | null }): void;
  /** A child span for one upstream HTTP attempt; its headers carry the trace upstream. */
  upstream(call: UpstreamCallStart): UpstreamAttemptTrace;
  end(outcome: { errorCodes: readonly string[]; stale: boolean }): void;
}
