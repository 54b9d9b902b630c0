/**
 * One HTTP attempt, the dispatch the client's policies wrap (`interceptors.ts`): recorded in the
 * ledger before it leaves (it costs quota whatever happens next) and in the meters once it is
 * over. An attempt the ledger has no room for is not sent: checked once the attempt holds its
 * connection slot (the fair share comes before), right before it would leave, so attempts
 * queued behind others of the token see what those spent.
 */

import type { OperationId } from '@plans-gateway/rest-contract';
import type { Dispatcher } from 'undici';
import {
  errorFromTransport,
  type FailedCall,
  isUpstreamError,
  quotaSpent,
  type UpstreamError,
  type UpstreamErrorKind,
} from '../errors/upstream-error.js';
import type {
  UpstreamAttemptTrace,
  UpstreamCallRecord,
  UpstreamMeter,
} from '../operation/upstream-calls.js';
import type { Clock } from '../time/clock.js';
import type { CallDispatch, ReportAnswer } from './call.js';
import { decodeResponse, type Received } from './decode-response.js';
import type { OutgoingRequest } from './outgoing-request.js';
import type { RequestLedger } from './request-ledger.js';
import type { ByteBudget } from './response-limits.js';

/** What every attempt of one client shares: the connections, budgets and observers. */
export interface Transport {
  readonly dispatcher: Dispatcher;
  readonly origin: string;
  readonly ledger: RequestLedger | undefined;
  readonly observer: UpstreamMeter | undefined;
  readonly now: Clock;
  readonly wallClock: Clock;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly buffered: ByteBudget;
  readonly limitOf: (operationId: OperationId) => number;
}

/** The dispatch of one attempt over `transport`. */
export function sendAttempt(transport: Transport): CallDispatch {
  return async ({ operationId, request, options, stream, attempt, reportAnswer }) => {
    const { outgoing, redact } = request;
    const failed: FailedCall = { operationId, method: outgoing.method, attempt, redact };
    const spent = spentQuota(transport, failed, outgoing.tokenKey);
    if (spent) {
      reportAnswer(null);
      throw spent;
    }
    const started = transport.now();
    let status: number | null = null;
    let errorKind: UpstreamErrorKind | null = null;
    const received: Received = { bytes: null };
    transport.ledger?.record(outgoing.tokenKey);
    const { method } = failed;
    const trace = safely(() => options.meter?.trace?.({ operationId, method, attempt }));
    try {
      const response = await dispatch(transport, outgoing, options.signal, trace);
      status = response.statusCode;
      if (status === 429) transport.ledger?.release(outgoing.tokenKey);
      if (status !== 401) reportAnswer(status);
      return await decodeResponse(failed, response, received, {
        limit: transport.limitOf(operationId),
        buffered: transport.buffered,
        wallClock: transport.wallClock,
        ...(stream ? { stream } : {}),
      });
    } catch (error) {
      const upstreamError = attemptFailure(failed, error, status, options.signal, reportAnswer);
      errorKind = upstreamError.kind;
      throw upstreamError;
    } finally {
      reportAttempt([options.meter, transport.observer], trace, {
        operationId,
        method,
        status,
        attempt,
        durationMs: transport.now() - started,
        tokenKey: outgoing.tokenKey,
        errorKind,
        responseBytes: received.bytes,
      });
    }
  };
}

/**
 * Private: the refusal of an attempt the token's ledger has no room for (every request the
 * upstream allows it in the window already counted), answered from the ledger instead of the
 * upstream's 429; undefined while it has room, or without a ledger.
 */
function spentQuota(
  transport: Transport,
  failed: FailedCall,
  tokenKey: string,
): UpstreamError | undefined {
  const { ledger } = transport;
  const usage = ledger?.usage(tokenKey);
  if (!ledger || !usage || usage.remaining > 0) return undefined;
  const retryAfterMs = Math.max(0, (usage.resetsAt ?? 0) - transport.wallClock());
  return quotaSpent(failed, { limit: usage.limit, windowMs: ledger.windowMs }, retryAfterMs);
}

/** Private: tells the meters and the tracer how an attempt went. */
function reportAttempt(
  meters: readonly (UpstreamMeter | undefined)[],
  trace: UpstreamAttemptTrace | undefined,
  record: UpstreamCallRecord,
): void {
  // A metrics sink must never turn a completed (possibly written) call into a failure.
  for (const meter of meters) safely(() => meter?.record(record));
  safely(() => trace?.end(record));
}

function dispatch(
  transport: Transport,
  outgoing: OutgoingRequest,
  signal: AbortSignal | undefined,
  trace: UpstreamAttemptTrace | undefined,
): Promise<Dispatcher.ResponseData> {
  return transport.dispatcher.request({
    origin: transport.origin,
    path: outgoing.path,
    method: outgoing.method,
    headers: trace ? { ...trace.headers, ...outgoing.headers } : outgoing.headers,
    body: outgoing.body ?? null,
    signal: signal ?? null,
    headersTimeout: transport.headersTimeoutMs,
    bodyTimeout: transport.bodyTimeoutMs,
  });
}

/**
 * Private: error mapping of a failed attempt. Returns the UpstreamError to throw, after telling
 * the gate; throws instead the caller's abort reason, or an error that is no upstream failure
 * (a bug, surfaced as is).
 */
function attemptFailure(
  failed: FailedCall,
  error: unknown,
  status: number | null,
  signal: AbortSignal | undefined,
  reportAnswer: ReportAnswer,
): UpstreamError {
  if (signal?.aborted) {
    reportAnswer(null);
    throw signal.reason;
  }
  const upstreamError = isUpstreamError(error) ? error : errorFromTransport(failed, error, status);
  reportAnswer(upstreamError?.status === 401 ? 401 : null, upstreamError);
  if (upstreamError === undefined) throw error;
  return upstreamError;
}

// Private: meters and tracers are observers; their failures are theirs, never the call's.
function safely<T>(run: () => T): T | undefined {
  try {
    return run();
  } catch {
    return undefined;
  }
}
