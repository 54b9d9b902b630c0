/**
 * Back-off of reads after a transient failure, per token.
 *
 * Why: when the upstream is rate limiting a token (429) or is down (5xx, unreachable), every
 * further read for that token would fail the same way, each costing retries, latency and, for
 * 429, more of the quota it reports exhausted. For a while after such a failure the client does
 * not send the token's reads at all and repeats the failure at once; callers holding older data
 * (the replica) answer from it immediately. A 429 or 503 with `Retry-After` is honoured.
 * Writes are never held back: they are explicit user actions and report their own errors.
 */
import { LRUCache } from 'lru-cache';
import { UpstreamError } from '../errors/upstream-error.js';
import { type Clock, epochNow } from '../time/clock.js';

export interface ReadBackoffOptions {
  /** Pause after a failure without `Retry-After`. @default 5_000 */
  failureMs?: number;
  /** Pause after a 429 without `Retry-After`. @default 30_000 */
  rateLimitedMs?: number;
  /** Longest pause, whatever `Retry-After` says. @default 600_000 */
  maxMs?: number;
  /** Tokens remembered at once. @default 10_000 */
  maxTokens?: number;
  /** Wall clock in epoch ms. @default epochNow */
  now?: Clock;
}

export interface ReadBackoff {
  /** The failure to repeat instead of sending a read for this token, if it is backing off. */
  blocked(tokenKey: string): UpstreamError | undefined;
  /** Notes a failed read (after the client's own retries). */
  failed(tokenKey: string, error: UpstreamError): void;
  /** Notes a successful read: the token's back-off ends. */
  succeeded(tokenKey: string): void;
}

interface Pause {
  until: number;
  error: UpstreamError;
}

export function createReadBackoff(options: ReadBackoffOptions = {}): ReadBackoff {
  const {
    failureMs = 5_000,
    rateLimitedMs = 30_000,
    maxMs = 600_000,
    maxTokens = 10_000,
    now = epochNow,
  } = options;
  const pauses = new LRUCache<string, Pause>({ max: maxTokens });

  return {
    blocked(tokenKey) {
      const pause = pauses.get(tokenKey);
      if (!pause) return undefined;
      const left = pause.until - now();
      if (left <= 0) {
        pauses.delete(tokenKey);
        return undefined;
      }
      const { error } = pause;
      return new UpstreamError({
        message: `${error.message} (not sent: reads of this token pause for ${Math.ceil(left / 1000)} s more after that failure)`,
        operationId: error.operationId,
        method: error.method,
        status: error.status,
        kind: error.kind,
        upstream: error.upstream,
        retryable: true,
        outcomeUnknown: false,
        attempts: 0,
        retryAfterMs: left,
        quota: error.quota,
      });
    },
    failed(tokenKey, error) {
      if (!error.retryable) return;
      const fallback = error.status === 429 ? rateLimitedMs : failureMs;
      const pauseMs = Math.min(maxMs, Math.max(0, error.retryAfterMs ?? fallback));
      if (pauseMs > 0) pauses.set(tokenKey, { until: now() + pauseMs, error });
    },
    succeeded(tokenKey) {
      pauses.delete(tokenKey);
    },
  };
}

/** `Retry-After` as milliseconds from `now`: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(header: string | string[] | undefined, now: number): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
