/**
 * The replicas a store holds: an lru-cache bounded in estimated heap bytes across all replicas
 * of all tokens. Least recently read replicas are evicted first; an evicted replica is reloaded
 * with a full export on its next read. A replica whose estimate exceeds the whole budget is not
 * kept at all (lru-cache refuses it), but the read that loaded it is still answered.
 *
 * Size estimate: heap bytes = HEAP_BYTES_PER_JSON_BYTE × the JSON bytes the replica stands for.
 * Those start at the full export's body size; every later delta or applied write adds (or
 * removes) rows at the export's average bytes per row. Delta body sizes are not summed: a delta
 * mostly replaces rows the replica already holds, so summing them would grow the estimate of a
 * busy but stable plan without bound. Measured once (Node 20, 100,000 transactions, 55 MB of
 * JSON): the replica with all its indexes used 1.0 byte of heap per JSON byte (1.1 at 10,000
 * transactions), hence the factor below with some headroom for snapshots held by readers.
 */
import { LRUCache } from 'lru-cache';
import { countRows, type PlanState } from './plan-state.js';
import type { PlanSnapshot, SavedEntities } from './types.js';

/** Heap bytes per JSON byte of the export (measured 1.0–1.1, see above). */
export const HEAP_BYTES_PER_JSON_BYTE = 1.25;
/** Floor of any estimate: the fixed cost of an (almost) empty replica. */
const MIN_ENTRY_BYTES = 16 * 1024;

/** A write applied to a replica that the upstream may not have reflected yet in a sync. */
export interface PendingWrite {
  readonly saved: SavedEntities;
  /** Store-wide order of applied writes, compared with the order of sync requests. */
  readonly epoch: number;
  /** The write response's server_knowledge, when it had one. */
  readonly knowledge: number | undefined;
}

/** One cached replica version. Immutable: every change stores a new entry. */
export interface ReplicaEntry {
  readonly planId: string;
  readonly state: PlanState;
  readonly snapshot: PlanSnapshot;
  /** Clock time the request that produced this data was sent; ages count from here. */
  readonly syncedAt: number;
  /** Knowledge to send with the next delta request (it may trail the state's, see sync.ts). */
  readonly nextKnowledge: number;
  readonly pending: readonly PendingWrite[];
  /** JSON bytes this replica stands for, and the export's average per row (the estimate). */
  readonly jsonBytes: number;
  readonly bytesPerRow: number;
  /**
   * Set by `expire` to the write epoch it happened at: until a sync sent after that epoch lands,
   * every read syncs whatever its max-age.
   */
  readonly expiredAtEpoch?: number;
  /** The store's sync sequence when this data was stored: flights sent later must see it. */
  readonly committedSequence: number;
  /** The upstream's knowledge went back since: a full load must replace this (store rule 5). */
  readonly suspect?: true;
}

export interface ReplicaCacheOptions {
  maxBytes: number;
  /** Called when an entry leaves the cache other than by being replaced. */
  onRemove?: (key: string, entry: ReplicaEntry) => void;
}

export interface ReplicaCache {
  /** Reads and marks as recently used. */
  get(key: string): ReplicaEntry | undefined;
  /** Reads without touching recency. */
  peek(key: string): ReplicaEntry | undefined;
  /** Stores; returns false when the entry alone exceeds the budget (then nothing is kept). */
  set(key: string, entry: ReplicaEntry): boolean;
  delete(key: string): void;
  /** Every key held, least recently used last. */
  keys(): string[];
  clear(): void;
  stats(): { replicas: number; bytes: number };
}

export function createReplicaCache({ maxBytes, onRemove }: ReplicaCacheOptions): ReplicaCache {
  const lru = new LRUCache<string, ReplicaEntry>({
    maxSize: maxBytes,
    sizeCalculation: (entry) => estimateHeapBytes(entry),
    dispose: (entry, key, reason) => {
      if (reason !== 'set') onRemove?.(key, entry);
    },
  });
  return {
    get: (key) => lru.get(key),
    peek: (key) => lru.peek(key),
    set(key, entry) {
      lru.set(key, entry);
      return lru.peek(key) === entry;
    },
    delete: (key) => void lru.delete(key),
    keys: () => [...lru.keys()],
    clear: () => lru.clear(),
    stats: () => ({ replicas: lru.size, bytes: lru.calculatedSize }),
  };
}

/** The cache key of a replica: never the raw token, and unambiguous for any tokenKey. */
export function replicaKey(tokenKey: string, planId: string): string {
  return `${tokenKey.length}:${tokenKey}/${planId}`;
}

/**
 * The largest plan export (JSON bytes) whose replica a budget of `maxBytes` can hold: an export
 * read is capped here, since a larger one could not be kept anyway.
 */
export function largestExportBytes(maxBytes: number): number {
  return Math.max(1, Math.floor(maxBytes / HEAP_BYTES_PER_JSON_BYTE));
}

export function estimateHeapBytes(entry: Pick<ReplicaEntry, 'jsonBytes'>): number {
  return Math.max(MIN_ENTRY_BYTES, Math.ceil(entry.jsonBytes * HEAP_BYTES_PER_JSON_BYTE));
}

/** Size fields of a replica freshly built from a full export of `exportBytes`. */
export function sizeOfFull(
  state: PlanState,
  exportBytes: number,
): Pick<ReplicaEntry, 'jsonBytes' | 'bytesPerRow'> {
  const bytes = Math.max(0, exportBytes);
  return { jsonBytes: bytes, bytesPerRow: bytes / Math.max(1, countRows(state)) };
}

/** Size fields after `previous` changed into `state` (a delta or an applied write). */
export function sizeAfterChange(
  previous: Pick<ReplicaEntry, 'state' | 'jsonBytes' | 'bytesPerRow'>,
  state: PlanState,
): Pick<ReplicaEntry, 'jsonBytes' | 'bytesPerRow'> {
  const grown = (countRows(state) - countRows(previous.state)) * previous.bytesPerRow;
  return { jsonBytes: Math.max(0, previous.jsonBytes + grown), bytesPerRow: previous.bytesPerRow };
}
