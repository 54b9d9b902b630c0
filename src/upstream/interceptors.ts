/**
 * The upstream client's policies, each an interceptor around the dispatch of a call (`call.ts`),
 * composed in `client.ts` as undici composes its dispatchers. From the outside in:
 *
 * - `readBackoff`: a token whose reads failed lately (429, 5xx, no answer) has its reads answered
 *   with that failure at once, unsent (`read-backoff.ts`); a read's final outcome is noted.
 * - `tokenGate`: an unproven token's calls go one at a time until the upstream has answered one;
 *   a token it refused lately is refused at once (`token-gate.ts`).
 * - `retries`: a read that failed transiently is sent again after a full-jitter pause; a write
 *   never is.
 * - `fairShare`: each attempt waits for a connection slot of its token's share (`fair-share.ts`).
 *
 * The dispatch they wrap is one attempt (`attempt.ts`): the ledger's quota, the request, its
 * answer and its record.
 */
import type { HttpMethod, OperationId } from '@plans-gateway/rest-contract';
import { isUpstreamError } from '../errors/upstream-error.js';
import type { CallInterceptor, ReportAnswer, RetryPolicy } from './call.js';
import type { FairShare, Release } from './fair-share.js';
import type { ReadBackoff } from './read-backoff.js';
import { type Admission, repeatRefusal, type TokenGate } from './token-gate.js';

/** Reads of a token backing off fail at once with its last failure; writes pass. */
export function readBackoff(backoff: ReadBackoff): CallInterceptor {
  return (next) => async (call) => {
    const { outgoing } = call.request;
    if (outgoing.method !== 'GET') return next(call);
    const held = backoff.blocked(outgoing.tokenKey);
    if (held) throw held;
    try {
      const result = await next(call);
      backoff.succeeded(outgoing.tokenKey);
      return result;
    } catch (error) {
      // After the retries: only a read's final failure starts a pause.
      if (isUpstreamError(error)) backoff.failed(outgoing.tokenKey, error);
      throw error;
    }
  };
}

/**
 * Calls wait while the gate holds their token back, and fail when it refuses the token; what
 * each answer said goes back to the gate (`reportAnswer`), and a probe lets the token's next
 * call go as soon as its status is known, not after its body.
 */
export function tokenGate(gate: TokenGate): CallInterceptor {
  return (next) => async (call) => {
    const key = call.request.outgoing.tokenKey;
    const { method } = call.request.outgoing;
    const admission = await admitToken(gate, key, call.operationId, method, call.options.signal);
    const probe = admission.kind === 'probe' ? admission : undefined;
    const reportAnswer: ReportAnswer = (status, error) => {
      gate.observe(key, status, error);
      probe?.settle();
    };
    try {
      return await next({ ...call, reportAnswer });
    } finally {
      probe?.settle();
    }
  };
}

export interface RetryOptions {
  readonly random: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Whether the client was closed: a closed client sends no further attempt. */
  readonly isClosed: () => boolean;
}

/** Reads are retried on transient failures with full-jitter backoff; writes never. */
export function retries(policy: RetryPolicy, options: RetryOptions): CallInterceptor {
  return (next) => async (call) => {
    const maxAttempts = call.request.outgoing.method === 'GET' ? policy.attempts : 1;
    for (let attempt = 1; ; attempt++) {
      if (options.isClosed()) throw new Error(`${call.operationId}: the upstream client is closed`);
      call.options.signal?.throwIfAborted();
      try {
        return await next({ ...call, attempt });
      } catch (error) {
        if (!shouldRetry(error) || attempt >= maxAttempts) throw error;
      }
      await options.sleep(retryDelay(policy, attempt, options.random), call.options.signal);
    }
  };
}

/** Each attempt holds a connection slot of its token's fair share while it runs. */
export function fairShare(share: FairShare): CallInterceptor {
  return (next) => async (call) => {
    const key = call.request.outgoing.tokenKey;
    const release = await acquireSlot(share, key, call.options.signal, call.reportAnswer);
    try {
      return await next(call);
    } finally {
      release();
    }
  };
}

/**
 * The wait before retry number `attempt` (1 for the first): uniform in [0, cap) where the cap
 * doubles from `baseDelayMs` per retry up to `maxDelayMs` (full jitter). `random` is in [0, 1).
 */
export function retryDelay(policy: RetryPolicy, attempt: number, random: () => number): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(random() * cap);
}

// Private: only transient failures of reads reach here as retryable; a 429 is transient too but
// retrying it would only spend more of the quota it reports exhausted, so the caller decides.
function shouldRetry(error: unknown): boolean {
  return isUpstreamError(error) && error.retryable && error.status !== 429;
}

/** Private: waits while the gate holds the token back; throws when the gate refuses it. */
async function admitToken(
  gate: TokenGate,
  key: string,
  operationId: OperationId,
  method: HttpMethod,
  signal: AbortSignal | undefined,
): Promise<Admission> {
  for (;;) {
    const admission = gate.admit(key);
    if (admission.kind === 'refused') throw repeatRefusal(admission, operationId, method);
    if (admission.kind !== 'wait') return admission;
    await untilOrAbort(admission.until, signal);
  }
}

/** Private: a connection slot of the token's fair share; the gate hears of a wait given up. */
async function acquireSlot(
  share: FairShare,
  key: string,
  signal: AbortSignal | undefined,
  reportAnswer: ReportAnswer,
): Promise<Release> {
  try {
    return await share.acquire(key, signal);
  } catch (error) {
    reportAnswer(null);
    throw error;
  }
}

/** Private: waits for `promise` unless `signal` aborts first (then rejects with its reason). */
function untilOrAbort(promise: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
