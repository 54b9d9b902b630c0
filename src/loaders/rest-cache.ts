import { LRUCache } from 'lru-cache';
import { DEFAULT_REST_CACHE_BYTES } from '../config/config.js';
import type { StaleReason } from '../replica/types.js';

/** Heap bytes per byte of an answer's JSON, for the budget (parsed objects weigh about twice). */
export const REST_HEAP_BYTES_PER_JSON_BYTE = 2;

export interface RestCacheOptions {
  /** Says whether a failed refresh may be answered from the cached copy. */
  classifyFailure: (error: unknown) => StaleReason | null;
  /**
   * Estimated heap bytes of every cached answer together: a byte budget, unlike a count of
   * entries, holds however large each answer is. @default DEFAULT_REST_CACHE_BYTES (16 MiB)
   */
  maxBytes?: number;
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
  /** Forgets every entry of the token (the upstream refused it). */
  forgetToken(tokenKey: string): void;
  stats(): { entries: number; bytes: number };
}

interface Entry {
  readonly tokenKey: string;
  readonly value: unknown;
  readonly at: number;
}

/**
 * The short per-token cache of REST answers the plan export does not hold (DESIGN section 4).
 * Keys start with the token key, so one token's answers are never served to another. Bounded
 * in estimated bytes, least recently used first out; an answer larger than the whole budget is
 * answered but not kept.
 */
export function createRestCache(options: RestCacheOptions): RestCache {
  const { classifyFailure, maxBytes = DEFAULT_REST_CACHE_BYTES, now = Date.now, shared } = options;
  if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) {
    throw new RangeError(`RestCacheOptions.maxBytes must be a positive integer, got ${maxBytes}`);
  }
  /** Token key → its entries' full keys, to forget a token without scanning the cache. */
  const byToken = new Map<string, Set<string>>();
  const entries = new LRUCache<string, Entry>({
    maxSize: maxBytes,
    sizeCalculation: (entry) =>
      Math.max(
        1,
        Math.ceil(
          Buffer.byteLength(JSON.stringify(entry.value) ?? '') * REST_HEAP_BYTES_PER_JSON_BYTE,
        ),
      ),
    dispose: (entry, key) => {
      const keys = byToken.get(entry.tokenKey);
      keys?.delete(key);
      if (keys?.size === 0) byToken.delete(entry.tokenKey);
    },
  });
  const inFlight = new Map<string, Promise<Entry & { hit: boolean }>>();

  function keep(fullKey: string, entry: Entry): void {
    entries.set(fullKey, entry);
    if (entries.peek(fullKey) !== entry) return;
    let keys = byToken.get(entry.tokenKey);
    if (!keys) {
      keys = new Set();
      byToken.set(entry.tokenKey, keys);
    }
    keys.add(fullKey);
  }

  function forget(tokenKey: string, prefix: string): void {
    const start = `${tokenKey}\u0000${prefix}`;
    for (const key of [...(byToken.get(tokenKey) ?? [])])
      if (key.startsWith(start)) entries.delete(key);
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
        const entry: Entry = { tokenKey, value: other.value, at: other.at };
        keep(fullKey, entry);
        return { ...entry, hit: true };
      }
      const entry: Entry = { tokenKey, value: await loader(), at: now() };
      keep(fullKey, entry);
      shared?.set(tokenKey, key, { value: entry.value, at: entry.at });
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
        const held = entries.peek(fullKey);
        if (reason === null || !held) throw error;
        return {
          value: held.value as T,
          ageMs: now() - held.at,
          hit: false,
          stale: { reason, error },
        };
      }
    },
    invalidate(tokenKey, prefix) {
      forget(tokenKey, prefix);
      shared?.invalidate(tokenKey, prefix);
    },
    forgetToken(tokenKey) {
      for (const key of [...(byToken.get(tokenKey) ?? [])]) entries.delete(key);
    },
    stats: () => ({ entries: entries.size, bytes: entries.calculatedSize }),
  };
}
