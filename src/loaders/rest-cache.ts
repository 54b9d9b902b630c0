import { LRUCache } from 'lru-cache';
import type { StaleReason } from '../replica/types.js';

/** @default tokens × collections kept; the answers are small (user, plan list, money movements). */
export const DEFAULT_REST_CACHE_ENTRIES = 5_000;

export interface RestCacheOptions {
  /** Says whether a failed refresh may be answered from the cached copy. */
  classifyFailure: (error: unknown) => StaleReason | null;
  /** @default 5_000 */
  maxEntries?: number;
  /** @default Date.now */
  now?: () => number;
  /**
   * A tier shared with other gateway instances (src/cluster): asked on a miss before the
   * upstream, told of every load and invalidation. @default none
   */
  shared?: SharedRestEntries;
}

/** REST answers several gateway instances share; each entry keeps the time it was loaded. */
export interface SharedRestEntries {
  /** The shared answer for (tokenKey, key), if any; never rejects. */
  get(tokenKey: string, key: string): Promise<{ value: unknown; at: number } | undefined>;
  set(tokenKey: string, key: string, entry: { value: unknown; at: number }): void;
  invalidate(tokenKey: string, prefix: string): void;
  /** Calls `forget` when another instance invalidated entries, so this one drops its copies. */
  onInvalidated(forget: (tokenKey: string, prefix: string) => void): void;
}

export interface RestCacheRead<T> {
  readonly value: T;
  readonly ageMs: number;
  /** True when no upstream call was made for this read. */
  readonly hit: boolean;
  readonly stale?: { readonly reason: StaleReason; readonly error: unknown };
}

export interface RestCache {
  /**
   * The cached answer for (tokenKey, key) when younger than `maxAgeMs`, otherwise a fresh one
   * from `load`. Concurrent reads of one key share one load.
   */
  read<T>(
    tokenKey: string,
    key: string,
    maxAgeMs: number,
    load: () => Promise<T>,
  ): Promise<RestCacheRead<T>>;
  /** Forgets every entry of the token whose key starts with `prefix` (after a write). */
  invalidate(tokenKey: string, prefix: string): void;
}

interface Entry {
  value: unknown;
  at: number;
}

/**
 * The short per-token cache of REST answers the plan export does not hold (DESIGN section 4).
 * Keys start with the token key, so one token's answers are never served to another.
 */
export function createRestCache(options: RestCacheOptions): RestCache {
  const {
    classifyFailure,
    maxEntries = DEFAULT_REST_CACHE_ENTRIES,
    now = Date.now,
    shared,
  } = options;
  const entries = new LRUCache<string, Entry>({ max: maxEntries });
  const inFlight = new Map<string, Promise<Entry & { hit: boolean }>>();

  function forget(tokenKey: string, prefix: string): void {
    const start = `${tokenKey}\u0000${prefix}`;
    for (const key of [...entries.keys()]) if (key.startsWith(start)) entries.delete(key);
  }
  shared?.onInvalidated(forget);

  function load(
    tokenKey: string,
    key: string,
    maxAgeMs: number,
    loader: () => Promise<unknown>,
  ): Promise<Entry & { hit: boolean }> {
    const fullKey = `${tokenKey}\u0000${key}`;
    const pending = inFlight.get(fullKey);
    if (pending) return pending;
    const promise = (async () => {
      // Another instance may have loaded it within this read's max-age: it keeps its own time.
      const other = await shared?.get(tokenKey, key);
      if (other && now() - other.at <= maxAgeMs) {
        entries.set(fullKey, other);
        return { ...other, hit: true };
      }
      const entry = { value: await loader(), at: now() };
      entries.set(fullKey, entry);
      shared?.set(tokenKey, key, entry);
      return { ...entry, hit: false };
    })().finally(() => inFlight.delete(fullKey));
    inFlight.set(fullKey, promise);
    return promise;
  }

  return {
    async read<T>(tokenKey: string, key: string, maxAgeMs: number, loader: () => Promise<T>) {
      const fullKey = `${tokenKey}\u0000${key}`;
      const cached = entries.get(fullKey);
      if (cached && now() - cached.at <= maxAgeMs) {
        return { value: cached.value as T, ageMs: now() - cached.at, hit: true };
      }
      try {
        const entry = await load(tokenKey, key, maxAgeMs, loader);
        return { value: entry.value as T, ageMs: now() - entry.at, hit: entry.hit };
      } catch (error) {
        const reason = classifyFailure(error);
        if (reason === null || !cached) throw error;
        return {
          value: cached.value as T,
          ageMs: now() - cached.at,
          hit: false,
          stale: { reason, error },
        };
      }
    },
    invalidate(tokenKey, prefix) {
      forget(tokenKey, prefix);
      shared?.invalidate(tokenKey, prefix);
    },
  };
}
