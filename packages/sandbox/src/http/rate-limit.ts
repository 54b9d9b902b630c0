/**
 * The rolling-window rate limit: at most `limit` accepted requests per token in any window of
 * `windowMs`. Refused requests do not count, so a client is let in again as soon as its oldest
 * accepted request leaves the window.
 */
import type { Clock } from '../core/api.js';

export const DEFAULT_RATE_LIMIT = 200;
export const DEFAULT_RATE_WINDOW_MS = 3_600_000;

export type RateDecision =
  | { allowed: true; used: number }
  | { allowed: false; retryAfterMs: number };

export interface RateLimiter {
  take(token: string): RateDecision;
}

export function createRateLimiter(
  options: { limit?: number; windowMs?: number } | false | undefined,
  clock: Clock,
): RateLimiter {
  if (options === false) return { take: () => ({ allowed: true, used: 0 }) };
  const limit = options?.limit ?? DEFAULT_RATE_LIMIT;
  const windowMs = options?.windowMs ?? DEFAULT_RATE_WINDOW_MS;
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`createSandbox: rateLimit.limit must be a positive integer, got ${limit}`);
  if (!(windowMs > 0))
    throw new RangeError(`createSandbox: rateLimit.windowMs must be positive, got ${windowMs}`);
  const history = new Map<string, number[]>();
  return {
    take(token) {
      const now = clock.now();
      const times = history.get(token) ?? [];
      let expired = 0;
      while (expired < times.length && (times[expired] as number) <= now - windowMs) expired++;
      if (expired > 0) times.splice(0, expired);
      if (times.length >= limit) {
        return { allowed: false, retryAfterMs: Math.max(0, (times[0] as number) + windowMs - now) };
      }
      times.push(now);
      history.set(token, times);
      return { allowed: true, used: times.length };
    },
  };
}
