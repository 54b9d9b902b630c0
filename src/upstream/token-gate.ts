/**
 * The token gate: what the client knows about each token (by digest) before it sends anything.
 *
 * Why: a made-up token fans out. One request of 5 operations with 30 aliases of random plan ids
 * would send 150 requests that all come back 401, and the upstream blocks the gateway's address
 * (every tenant's), not the attacker's. So:
 *
 * - A token the upstream refused (401) is remembered for a while (`rejectedMs`): its requests
 *   fail at once with the same 401, without being sent.
 * - A token not yet known good sends one request at a time until an answer says whether the
 *   upstream accepts it: the first request goes, the others wait for its status (not its body),
 *   then go (accepted) or fail with the 401 (refused). One junk token therefore costs one
 *   upstream call, however many operations and aliases it sends at once.
 * - A token with an accepted answer in the last `acceptedMs` sends freely: the warm path of a
 *   known token costs one map lookup.
 *
 * Any status but 401 from the upstream's auth layer (2xx, 4xx, 429) proves the token; a 5xx or
 * no answer proves nothing, and the next waiting request goes next. Both memories are bounded
 * (least recently used tokens are forgotten first).
 */
import { LRUCache } from 'lru-cache';
import { UpstreamError } from '../errors/upstream-error.js';
import { type Clock, epochNow } from '../time/clock.js';

export interface TokenGateOptions {
  /** How long a refused token is refused without asking again. @default 60_000 */
  rejectedMs?: number;
  /** How long an accepted token sends without waiting for a first answer. @default 600_000 */
  acceptedMs?: number;
  /** Tokens remembered in each state. @default 10_000 */
  maxTokens?: number;
  /** Called once each time a token is found refused (to drop what is held for it). */
  onRejected?: (tokenKey: string) => void;
}

/** What a request of a token may do now. */
export type Admission =
  | { readonly kind: 'send' }
  /** This request is the token's first: `settle` once its status is known (or none came). */
  | { readonly kind: 'probe'; settle(): void }
  /** Another request of the token is out: wait, then ask again. */
  | { readonly kind: 'wait'; readonly until: Promise<void> }
  | { readonly kind: 'refused'; readonly error: UpstreamError; readonly ageMs: number };

/** What the gate knows of a token now: proven by an answer, refused by a 401, or neither yet. */
export type TokenStatus = 'accepted' | 'refused' | 'unknown';

export interface TokenGate {
  admit(tokenKey: string): Admission;
  /** What is known of the token, without sending or waiting for anything. */
  status(tokenKey: string): TokenStatus;
  /** The remembered 401 of a refused token, as a request would be refused with it. */
  refusal(tokenKey: string): UpstreamError | undefined;
  /**
   * Forgets that the upstream refused the token: the caller knows the key stands for a new token
   * now (a sign-in grant refreshed its upstream token under the same key).
   */
  forgive(tokenKey: string): void;
  /** Any answer's status for the token (`null`: none arrived), from probes and others alike. */
  observe(tokenKey: string, status: number | null, error?: UpstreamError): void;
}

interface Refusal {
  readonly error: UpstreamError;
  readonly at: number;
}

export function createTokenGate(options: TokenGateOptions = {}, now: Clock = epochNow): TokenGate {
  const { rejectedMs = 60_000, acceptedMs = 600_000, maxTokens = 10_000, onRejected } = options;
  // `ttlResolution: 0` reads the injected clock on every check (no cached "now").
  const timing = { perf: { now }, ttlResolution: 0 };
  const refused = new LRUCache<string, Refusal>({ max: maxTokens, ttl: rejectedMs, ...timing });
  const accepted = new LRUCache<string, true>({ max: maxTokens, ttl: acceptedMs, ...timing });
  const probing = new Map<string, Promise<void>>();

  function observe(tokenKey: string, status: number | null, error?: UpstreamError): void {
    if (status === 401 && error) {
      accepted.delete(tokenKey);
      const first = !refused.has(tokenKey);
      refused.set(tokenKey, { error, at: now() });
      if (first) onRejected?.(tokenKey);
    } else if (status !== null && status < 500) {
      accepted.set(tokenKey, true);
      refused.delete(tokenKey);
    }
  }

  return {
    admit(tokenKey) {
      if (accepted.get(tokenKey)) return SEND;
      const refusal = refused.get(tokenKey);
      if (refusal) return { kind: 'refused', error: refusal.error, ageMs: now() - refusal.at };
      const pending = probing.get(tokenKey);
      if (pending) return { kind: 'wait', until: pending };
      let release = () => {};
      probing.set(
        tokenKey,
        new Promise<void>((resolve) => {
          release = resolve;
        }),
      );
      let settled = false;
      return {
        kind: 'probe',
        settle() {
          if (settled) return;
          settled = true;
          probing.delete(tokenKey);
          release();
        },
      };
    },
    observe,
    forgive(tokenKey) {
      refused.delete(tokenKey);
    },
    status(tokenKey) {
      if (accepted.has(tokenKey)) return 'accepted';
      return refused.has(tokenKey) ? 'refused' : 'unknown';
    },
    refusal(tokenKey) {
      const refusal = refused.get(tokenKey);
      if (!refusal) return undefined;
      const { operationId, method } = refusal.error;
      return repeatRefusal(
        { kind: 'refused', error: refusal.error, ageMs: now() - refusal.at },
        operationId,
        method,
      );
    },
  };
}

const SEND: Admission = { kind: 'send' };

/** The remembered 401, repeated for a request that was not sent. */
export function repeatRefusal(
  refusal: Extract<Admission, { kind: 'refused' }>,
  operationId: UpstreamError['operationId'],
  method: UpstreamError['method'],
): UpstreamError {
  const { error } = refusal;
  return new UpstreamError({
    message: `${operationId} (${method}): not sent, the upstream refused this token ${Math.round(refusal.ageMs / 1000)} s ago (${error.upstream?.id ?? '401'} ${error.upstream?.name ?? 'not_authorized'})`,
    operationId,
    method,
    status: 401,
    kind: 'http',
    upstream: error.upstream,
    retryable: false,
    outcomeUnknown: false,
    attempts: 0,
  });
}
