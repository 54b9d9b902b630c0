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
 * Writes through this gateway: one whose answer is exactly one step past what the replica shows in
 * full (its effects applied from the product's arithmetic, no delta) is an entry of its own, to
 * the write's knowledge, so `changes` shows it at once (`recordWrite`); the delta that confirms it
 * is an entry too, holding only the rows that differ from what the write's entry showed (the hub
 * compares them, as for a backfill). Any other write waits for its delta, which brings its rows
 * as they are after the write, the replica having held them since: the log keeps where the write
 * found each transaction (`notePendingWrite`) and files the delta's entry with those places, so a
 * transaction the write made is new to a client behind it, as it is.
 *
 * Backfills: a replay from a knowledge K below `base` needs one delta from K (see replay.ts).
 * Its keys cover (K, base] and more, so they become the oldest entry, reaching to `base`, and
 * the log reaches back to K: the next replay from there costs nothing. When they are too many
 * for the bounds, the entry says "everything" instead and keeps only the ids the delta deleted:
 * a replay through it sends the whole plan (every row is then covered) and those deletions.
 */
import { type ChangeKeys, keyCount, type TransactionPlace } from '../replica/changes.js';

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

/** Where a write not logged found a transaction (null: it made it), and the write's knowledge. */
interface PendingPlace {
  readonly place: TransactionPlace | null;
  readonly knowledge: number | undefined;
}

export class ChangeLog {
  private _base: number;
  private _knowledge: number;
  private _entries: LogEntry[] = [];
  private _size = 0;
  /** Transactions of writes applied and not logged, until the delta that brings them. */
  private _pending = new Map<string, PendingPlace>();
  /** A write not logged awaits the delta that brings what it moved. */
  private _awaitsDelta = false;
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

  /**
   * Whether a write not logged (`notePendingWrite`) waits for its delta: that delta is the only
   * news of it, so its rows must not be taken for repeats of what the log already shows.
   */
  get awaitsDelta(): boolean {
    return this._awaitsDelta;
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
    this._awaitsDelta = false;
    this.push(to, this.withPendingPlaces(to, keys));
  }

  /**
   * A write answered at `to`, exactly one step past the log, whose effects the replica shows in
   * full: an entry of its own. False when it is not the next step (then `notePendingWrite`).
   */
  recordWrite(to: number, keys: ChangeKeys): boolean {
    if (to !== this._knowledge + 1) return false;
    this.push(to, keys);
    return true;
  }

  /**
   * A write applied to the replica and not logged, answered at `knowledge` (when the upstream
   * said): where it found each transaction, for the entry of the delta that brings it. The
   * first write of a transaction since the last delta is the one that counts.
   */
  notePendingWrite(knowledge: number | undefined, keys: ChangeKeys): void {
    this._awaitsDelta = true;
    for (const id of keys.transactions) {
      if (this._pending.has(id) || this._pending.size >= this._maxKeys) continue;
      this._pending.set(id, { place: keys.before.get(id) ?? null, knowledge });
    }
  }

  // Private: a delta's keys with the places pending writes it brings found their transactions.
  private withPendingPlaces(to: number, keys: ChangeKeys): ChangeKeys {
    if (this._pending.size === 0) return keys;
    let before: Map<string, TransactionPlace> | undefined;
    for (const [id, { place, knowledge }] of this._pending) {
      if (knowledge !== undefined && knowledge > to) continue;
      this._pending.delete(id);
      if (!keys.transactions.has(id)) continue;
      // A copy: the same keys go out to subscribers, who saw the write itself.
      before ??= new Map(keys.before);
      if (place === null) before.delete(id);
      else before.set(id, place);
    }
    return before ? { ...keys, before } : keys;
  }

  // Private: an entry to `to`, then the bounds kept.
  private push(to: number, keys: ChangeKeys): void {
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
    this._pending.clear();
    this._awaitsDelta = false;
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
