/**
 * What one call to the upstream is, as it passes the client's policies: the options a caller
 * gives (`CallOptions`; each HTTP attempt is reported to its `UpstreamMeter`, a type of
 * `src/operation`, which the client only fills), and the shape the policies share, after undici's dispatchers: a dispatch
 * takes a call and resolves with its answer, and an interceptor wraps a dispatch into another
 * (`composeCall`). The client composes them in `client.ts`; each lives in `interceptors.ts`, and
 * the dispatch they wrap, one HTTP attempt, in `attempt.ts`.
 */
import type { OperationId } from '@plans-gateway/rest-contract';
import type { UpstreamError } from '../errors/upstream-error.js';
import type { UpstreamMeter } from '../operation/upstream-calls.js';
import type { StreamReading } from './decode-response.js';
import type { BuiltRequest } from './outgoing-request.js';

export interface RetryPolicy {
  /** Total attempts for a read, the first included. 1 disables retries. */
  attempts: number;
  /** Backoff cap of the first retry; doubles for each later retry. */
  baseDelayMs: number;
  /** Largest backoff cap. The actual delay is uniform in [0, cap) (full jitter). */
  maxDelayMs: number;
}

export interface CallOptions {
  /** The caller's access token, sent as `Authorization: Bearer`. */
  token: string;
  /**
   * The token's key (`tokenKey(token)`), when the caller holds it already: an operation's
   * `Credentials` carry it, made once by admission, so the client does not digest the token
   * again for its gate, ledger and fair share. @default the token's digest
   */
  tokenKey?: string;
  /** Aborts the call (including a pending retry); the call then rejects with `signal.reason`. */
  signal?: AbortSignal;
  meter?: UpstreamMeter;
}

/**
 * Reports what one answer told about the token: its status (null when none came) to the token
 * gate (see `token-gate.ts`), and that the token's probe may let the next request go.
 */
export type ReportAnswer = (status: number | null, error?: UpstreamError) => void;

/** One call on its way through the policies to the upstream. */
export interface UpstreamCall {
  readonly operationId: OperationId;
  /** What every attempt sends, built once (the token checked, its key beside it). */
  readonly request: BuiltRequest;
  readonly options: CallOptions;
  /** How a streamed read takes the answer's rows (`client.stream`). @default read whole */
  readonly stream: StreamReading | undefined;
  /** 1 for the first attempt, 2 for the first retry (the retry policy counts). */
  readonly attempt: number;
  /** What an answer tells the token gate; nothing without a gate. */
  readonly reportAnswer: ReportAnswer;
}

/** Sends a call; resolves with its decoded answer, rejects with its failure. */
export type CallDispatch = (call: UpstreamCall) => Promise<unknown>;

/** A policy around a dispatch: it may hold, refuse, repeat or observe the calls it passes on. */
export type CallInterceptor = (next: CallDispatch) => CallDispatch;

/**
 * `dispatch` wrapped by each interceptor in turn, as undici's `Dispatcher.compose` does: the
 * first wraps `dispatch`, each next one wraps the result, so the last sees a call first.
 */
export function composeCall(
  dispatch: CallDispatch,
  ...interceptors: readonly CallInterceptor[]
): CallDispatch {
  return interceptors.reduce((next, interceptor) => interceptor(next), dispatch);
}
