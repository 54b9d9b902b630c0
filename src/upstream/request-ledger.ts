import { LRUCache } from 'lru-cache';
import { type Clock, epochNow } from '../time/clock.js';

/** The upstream's quota: 200 requests per token in any rolling hour. */
export const DEFAULT_REQUEST_LIMIT = 200;
export const DEFAULT_WINDOW_MS = 3_600_000;
export const DEFAULT_MAX_TOKENS = 10_000;

export interface RequestLedgerOptions {
  /** Requests per token the upstream accepts within one window. @default 200 */
  limit?: number;
  /** Length of the rolling window in milliseconds. @default 3_600_000 (one hour) */
  windowMs?: number;
  /** Wall clock in epoch milliseconds; injected so tests can move time. @default epochNow */
  now?: Clock;
  /**
   * How many tokens are tracked at once; the least recently used token is forgotten beyond
   * that (its next requests start a fresh count, which can only under-report).
   * @default 10_000
   */
  maxTokens?: number;
  /**
   * Timestamps kept per token. Beyond it the oldest are dropped, so `used` saturates at this
   * number and `resetsAt` errs late (safe side). Only reachable when far more requests are sent
   * than the upstream accepts.
   * @default 2 * limit
   */
  maxEntriesPerToken?: number;
}

export interface RequestUsage {
  /** Requests counted in the window ending now. */
  used: number;
  limit: number;
  /** `max(0, limit - used)`. */
  remaining: number;
  /** Epoch ms of the oldest request still in the window, `null` when none. */
  oldestAt: number | null;
  /** Epoch ms at which the oldest counted request leaves the window, `null` when none. */
  resetsAt: number | null;
}

export interface RequestLedger {
  readonly limit: number;
  readonly windowMs: number;
  /** Counts one request sent to the upstream for this token key, at `now()`. */
  record(tokenKey: string): void;
  /**
   * Uncounts the latest request of this token: the upstream refused it with 429, and refused
   * requests do not count against its window (that is how a limited client recovers).
   */
  release(tokenKey: string): void;
  usage(tokenKey: string): RequestUsage;
  /** The usage of every token tracked, without their keys (for metrics). */
  usages(): RequestUsage[];
}

/**
 * A per-token rolling count of upstream requests, keyed by `tokenKey(token)` (never the raw
 * token). The upstream no longer reports its own count, so this is the gateway's view of the
 * quota: every HTTP attempt the client sends is recorded, retries included, because each one
 * counts against the quota upstream; an attempt refused with 429 is released again.
 */
export function createRequestLedger(options: RequestLedgerOptions = {}): RequestLedger {
  const {
    limit = DEFAULT_REQUEST_LIMIT,
    windowMs = DEFAULT_WINDOW_MS,
    now = epochNow,
    maxTokens = DEFAULT_MAX_TOKENS,
    maxEntriesPerToken = 2 * limit,
  } = options;
  requirePositiveInteger('limit', limit);
  requirePositiveInteger('windowMs', windowMs);
  requirePositiveInteger('maxTokens', maxTokens);
  requirePositiveInteger('maxEntriesPerToken', maxEntriesPerToken);

  // Oldest first. Timestamps come from one clock in call order, so the array stays sorted
  // unless the clock steps back, which at worst keeps an entry a little longer.
  const timestamps = new LRUCache<string, number[]>({ max: maxTokens });

  function prune(key: string, at: number): number[] | undefined {
    const entries = timestamps.get(key);
    if (entries === undefined) return undefined;
    let expired = 0;
    while (expired < entries.length && (entries[expired] as number) + windowMs <= at) expired++;
    if (expired > 0) entries.splice(0, expired);
    if (entries.length === 0) {
      timestamps.delete(key);
      return undefined;
    }
    return entries;
  }

  return {
    limit,
    windowMs,
    record(key) {
      const at = now();
      const entries = prune(key, at);
      if (entries === undefined) {
        timestamps.set(key, [at]);
        return;
      }
      entries.push(at);
      if (entries.length > maxEntriesPerToken)
        entries.splice(0, entries.length - maxEntriesPerToken);
    },
    release(key) {
      const entries = timestamps.get(key);
      entries?.pop();
      if (entries?.length === 0) timestamps.delete(key);
    },
    usage(key) {
      const entries = prune(key, now());
      const used = entries?.length ?? 0;
      const oldestAt = entries?.[0] ?? null;
      return {
        used,
        limit,
        remaining: Math.max(0, limit - used),
        oldestAt,
        resetsAt: oldestAt === null ? null : oldestAt + windowMs,
      };
    },
    usages() {
      return [...timestamps.keys()].map((key) => this.usage(key));
    },
  };
}

// Private: options are checked once, with the option's name in the message.
function requirePositiveInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(`createRequestLedger: ${name} must be a positive integer, got ${value}`);
  }
}
