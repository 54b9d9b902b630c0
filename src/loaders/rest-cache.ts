import { LRUCache } from 'lru-cache';
import { DEFAULT_REST_CACHE_BYTES } from '../config/config.js';
import type { StaleReason } from '../replica/types.js';
import { type Clock, epochNow } from '../time/clock.js';

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
  /** @default epochNow */
  now?: Clock;
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
  readonly value: unknown;
  /** When the upstream answered (an entry from the shared tier keeps its loader's time). */
  readonly at: number;
  /** Whether it came from the shared tier, not the upstream (for the first read's `hit`). */
  readonly shared: boolean;
}

/** What a read hands the fetch it starts (concurrent reads share the first one's). */
interface LoadContext {
  readonly tokenKey: string;
  readonly key: string;
  readonly maxAgeMs: number;
  readonly load: () => Promise<unknown>;
}

/**
 * The short per-token cache of REST answers the plan export does not hold
 * (docs/architecture.md#per-token-replicas-kept-fresh-by-deltas).
 * Keys start with the token key, so one token's answers are never served to another. Bounded
 * in estimated bytes, least recently used first out; an answer larger than the whole budget is
 * answered but not kept.
 *
 * Entries carry no TTL: each read brings its own max-age, so a read judges the entry's age and
 * forces a refresh (`fetch` with `forceRefresh`) when it is too old. lru-cache shares one load
 * among concurrent reads, keeps the old entry when the load fails (for stale-on-error) and does
 * not keep an answer whose key was dropped while it loaded (a write or a forgotten token).
 */
export function createRestCache(options: RestCacheOptions): RestCache {
  const { classifyFailure, maxBytes = DEFAULT_REST_CACHE_BYTES, now = epochNow, shared } = options;
  if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) {
    throw new RangeError(`RestCacheOptions.maxBytes must be a positive integer, got ${maxBytes}`);
  }
  /** Token key → its entries' full keys, to forget a token without scanning the cache. */
  const byToken = new Map<string, Set<string>>();
  const entries = new LRUCache<string, Entry, LoadContext>({
    maxSize: maxBytes,
    sizeCalculation: (entry) =>
      Math.max(
        1,
        Math.ceil(
          Buffer.byteLength(JSON.stringify(entry.value) ?? '') * REST_HEAP_BYTES_PER_JSON_BYTE,
        ),
      ),
    dispose: (_entry, fullKey) => {
      const tokenKey = tokenKeyOf(fullKey);
      const keys = byToken.get(tokenKey);
      keys?.delete(fullKey);
      if (keys?.size === 0) byToken.delete(tokenKey);
    },
    fetchMethod: async (_fullKey, _stale, { context: { tokenKey, key, maxAgeMs, load } }) => {
      // Another instance may have loaded it within this read's max-age: it keeps its own time.
      const other = await shared?.get(tokenKey, key);
      if (other && now() - other.at <= maxAgeMs) return { ...other, shared: true };
      const value = await load();
      const at = now();
      shared?.set(tokenKey, key, { value, at });
      return { value, at, shared: false };
    },
    // A failed refresh leaves the previous answer in place, for the stale fallback in `read`.
    noDeleteOnFetchRejection: true,
    // Dropping a key while it loads must not fail its readers: they still get the answer.
    ignoreFetchAbort: true,
  });

  /** Private: indexes the entry under its token once the cache holds it (not an oversized one). */
  function indexIfKept(fullKey: string, entry: Entry): void {
    if (entries.peek(fullKey) !== entry) return;
    const tokenKey = tokenKeyOf(fullKey);
    let keys = byToken.get(tokenKey);
    if (!keys) {
      keys = new Set();
      byToken.set(tokenKey, keys);
    }
    keys.add(fullKey);
  }

  function forget(tokenKey: string, prefix: string): void {
    const start = fullKeyOf(tokenKey, prefix);
    for (const key of [...(byToken.get(tokenKey) ?? [])])
      if (key.startsWith(start)) entries.delete(key);
  }
  shared?.onInvalidated(forget);

  return {
    async read<T>(tokenKey: string, key: string, maxAgeMs: number, load: () => Promise<T>) {
      const fullKey = fullKeyOf(tokenKey, key);
      // `get` answers the held entry even while a refresh of it is under way.
      const held = entries.get(fullKey);
      if (held && now() - held.at <= maxAgeMs) {
        return { value: held.value as T, ageMs: now() - held.at, hit: true };
      }
      let entry: Entry | undefined;
      try {
        entry = await entries.fetch(fullKey, {
          forceRefresh: true,
          context: { tokenKey, key, maxAgeMs, load },
        });
      } catch (error) {
        const reason = classifyFailure(error);
        const kept = entries.peek(fullKey);
        if (reason === null || !kept) throw error;
        return {
          value: kept.value as T,
          ageMs: now() - kept.at,
          hit: false,
          stale: { reason, error },
        };
      }
      // Never: the fetch method always answers, and an abort is ignored.
      if (!entry) throw new Error(`REST cache: no answer for ${key}`);
      indexIfKept(fullKey, entry);
      return { value: entry.value as T, ageMs: now() - entry.at, hit: entry.shared };
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

// Private: the NUL cannot occur in a token key, so the token's prefix of a full key is exact.
function fullKeyOf(tokenKey: string, key: string): string {
  return `${tokenKey}\u0000${key}`;
}

function tokenKeyOf(fullKey: string): string {
  return fullKey.slice(0, fullKey.indexOf('\u0000'));
}
