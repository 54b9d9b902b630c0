/**
 * What changed in one (token, plan) replica, by knowledge, for subscribers that resume from a
 * `serverKnowledge` they hold: the keys of every delta merged since `base`, bounded in entries
 * and keys (the oldest go first, and `base` moves up with them).
 *
 * Entries are contiguous: each delta is asked from a knowledge the log already reached (the
 * replica's own), so the union of the entries newer than K covers everything after K, for any
 * K ≥ base. A full export (the replica was reloaded) or a delta asked from beyond the log's
 * knowledge leaves a gap: the log restarts at the new knowledge.
 *
 * Backfills: a replay from a knowledge K below `base` needs one delta from K (see replay.ts).
 * Its keys cover (K, base] and more, so they become the oldest entry, reaching to `base`, and
 * the log reaches back to K: the next replay from there costs nothing. When they are too many
 * for the bounds, the entry says "everything" instead and keeps only the ids the delta deleted:
 * a replay through it sends the whole plan (every row is then covered) and those deletions.
 */
import { type ChangeKeys, keyCount } from '../replica/changes.js';

/** @default 256 deltas per (token, plan) */
export const DEFAULT_LOG_ENTRIES = 256;
/** @default 10_000 entity ids per (token, plan) */
export const DEFAULT_LOG_KEYS = 10_000;

/** The keys of the deltas up to knowledge `to` (since the entry before it). */
export interface LogEntry {
  readonly to: number;
  readonly keys: ChangeKeys;
  readonly size: number;
  /** Everything may have changed: `keys` holds only deleted ids (a large backfill). */
  readonly everything?: true;
}

export interface ChangeLogLimits {
  maxEntries?: number;
  maxKeys?: number;
}

export class ChangeLog {
  private _base: number;
  private _knowledge: number;
  private _entries: LogEntry[] = [];
  private _size = 0;
  private readonly _maxEntries: number;
  private readonly _maxKeys: number;

  constructor(
    knowledge: number,
    { maxEntries = DEFAULT_LOG_ENTRIES, maxKeys = DEFAULT_LOG_KEYS }: ChangeLogLimits = {},
  ) {
    this._base = knowledge;
    this._knowledge = knowledge;
    this._maxEntries = maxEntries;
    this._maxKeys = maxKeys;
  }

  /** The oldest knowledge the log can replay from. */
  get base(): number {
    return this._base;
  }

  /** The newest knowledge recorded. */
  get knowledge(): number {
    return this._knowledge;
  }

  /** Ids held, across entries (what the logs' common memory budget counts). */
  get size(): number {
    return this._size;
  }

  /** A delta asked from `from` (absent: a full export) and answered at `to`. */
  record(from: number | undefined, to: number, keys: ChangeKeys): void {
    if (from === undefined || from > this._knowledge) {
      this.restart(to);
      return;
    }
    if (to < this._knowledge) return; // older than what the log holds; nothing new in it
    const size = keyCount(keys);
    if (size > 0) {
      this._entries.push({ to, keys, size });
      this._size += size;
    }
    this._knowledge = to;
    while (
      this._entries.length > this._maxEntries ||
      (this._size > this._maxKeys && this._entries.length > 0)
    ) {
      const dropped = this._entries.shift()!;
      this._size -= dropped.size;
      this._base = dropped.to;
    }
  }

  /** Forgets everything: the log is complete from `knowledge` on. */
  restart(knowledge: number): void {
    this._entries = [];
    this._size = 0;
    this._base = knowledge;
    this._knowledge = knowledge;
  }

  /**
   * A delta asked from `from`, below `base`, answered with `keys`: the oldest entry, and the log
   * reaches back to `from`; with `everything`, `keys` are only the delta's deleted ids. Returns
   * false (nothing kept) when the keys do not fit the log's bounds.
   */
  extendBack(from: number, keys: ChangeKeys, everything = false): boolean {
    if (from >= this._base) return true;
    const size = keyCount(keys) + (everything ? 1 : 0);
    if (this._size + size > this._maxKeys || this._entries.length + 1 > this._maxEntries) {
      return false;
    }
    this._entries.unshift({ to: this._base, keys, size, ...(everything ? { everything } : {}) });
    this._size += size;
    this._base = from;
    return true;
  }

  /** The entries after `knowledge`, oldest first, or undefined when the log does not reach back to it. */
  entriesAfter(knowledge: number): readonly LogEntry[] | undefined {
    if (knowledge < this._base) return undefined;
    return this._entries.filter((entry) => entry.to > knowledge);
  }
}
