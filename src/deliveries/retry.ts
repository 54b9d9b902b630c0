/**
 * When a failed delivery is tried again: exponential backoff with jitter, `base × 2^(n−1)` capped
 * at `maxDelay`, each delay drawn within ±20 % so endpoints that failed together do not retry
 * together; after `window` of failures of one event its endpoint is disabled. With the defaults
 * (30 s, 1 h, 24 h): 30 s, 1 min, 2 min, 4 min, 8 min, 16 min, 32 min, then hourly, about 29
 * attempts in the day (docs/webhooks.md has the table).
 */
export interface RetryPolicy {
  readonly baseMs: number;
  readonly maxDelayMs: number;
  readonly windowMs: number;
}

/** How far apart jittered delays may land from the nominal one. */
const JITTER = 0.2;

/** The delay before attempt `failures + 1`, after `failures` failed ones. */
export function retryDelay(policy: RetryPolicy, failures: number, random = Math.random): number {
  const nominal = Math.min(policy.maxDelayMs, policy.baseMs * 2 ** Math.max(0, failures - 1));
  return Math.round(nominal * (1 - JITTER + 2 * JITTER * random()));
}

/** Whether an event first tried at `firstAttemptAt` has failed for longer than the window. */
export function retriesExhausted(
  policy: RetryPolicy,
  firstAttemptAt: number,
  now: number,
): boolean {
  return now - firstAttemptAt >= policy.windowMs;
}
