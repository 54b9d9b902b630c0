/**
 * An immutable string-keyed map split into shards, copied shard by shard on write.
 *
 * Why: a replica version must stay readable while the next version is built (an operation that
 * holds a snapshot keeps seeing one consistent plan), yet copying a 100,000-entry `Map` for a
 * ten-row delta would cost more than the delta. A new version that changes k keys copies at
 * most k shards of about `TARGET_PER_SHARD` entries and shares every other shard.
 */

/** Entries per shard the map aims for; it re-shards when it drifts far from it. */
const TARGET_PER_SHARD = 64;
const MAX_SHARDS = 1 << 14;

export class ShardedMap<V> {
  readonly size: number;
  private _made: readonly ReadonlyMap<string, V>[] | undefined;
  private _make: (() => readonly ReadonlyMap<string, V>[]) | undefined;

  private constructor(
    shards: readonly ReadonlyMap<string, V>[] | (() => readonly ReadonlyMap<string, V>[]),
    size: number,
  ) {
    if (typeof shards === 'function') this._make = shards;
    else this._made = shards;
    this.size = size;
  }

  static empty<V>(): ShardedMap<V> {
    return new ShardedMap<V>([new Map()], 0);
  }

  /** A map holding `map`'s entries, sharded as a draft that set them one by one would be. */
  static fromMap<V>(map: ReadonlyMap<string, V>): ShardedMap<V> {
    const wanted = shardCountFor(map.size);
    return new ShardedMap(wanted >= 4 ? reshard([map], wanted) : [new Map(map)], map.size);
  }

  /**
   * An empty map already split for about `expected` entries, so a draft filling it (a bulk
   * load) writes each entry once instead of re-sharding them all when it finishes.
   */
  static sized<V>(expected: number): ShardedMap<V> {
    const count = shardCountFor(expected);
    return new ShardedMap<V>(
      Array.from({ length: count }, () => new Map<string, V>()),
      0,
    );
  }

  /**
   * A map of `values`, each under `keyOf(value)`, whose shards are filled the first time
   * anything reads or edits it. The keys must be distinct (`size` is `values.length`).
   *
   * Why: a cold load answers its first read from the date order alone; filling a table by id
   * of a million rows, scattered in memory by then, is most of what the load does after the
   * last byte arrives. The first lookup by id, or the first merge, pays it instead.
   */
  static deferred<V>(values: readonly V[], keyOf: (value: V) => string): ShardedMap<V> {
    return new ShardedMap<V>(() => {
      const draft = ShardedMap.sized<V>(values.length).edit();
      for (const value of values) draft.set(keyOf(value), value);
      return draft.finish()._shards;
    }, values.length);
  }

  /** Whether its shards are filled yet (false only for a `deferred` map not read yet). */
  get filled(): boolean {
    return this._made !== undefined;
  }

  get(key: string): V | undefined {
    const shards = this._shards;
    return shards[shardIndex(key, shards.length)]!.get(key);
  }

  has(key: string): boolean {
    const shards = this._shards;
    return shards[shardIndex(key, shards.length)]!.has(key);
  }

  *values(): IterableIterator<V> {
    for (const shard of this._shards) yield* shard.values();
  }

  *entries(): IterableIterator<[string, V]> {
    for (const shard of this._shards) yield* shard.entries();
  }

  /** Starts a new version; this one stays unchanged whatever the draft does. */
  edit(): ShardedMapDraft<V> {
    return new ShardedMapDraft(this._shards, this.size, (shards, size) => {
      const wanted = shardCountFor(size);
      const count = shards.length;
      // Re-shard only on a fourfold drift, so growth costs amortised O(1) per entry.
      if (wanted >= count * 4 || wanted * 4 <= count)
        return new ShardedMap(reshard(shards, wanted), size);
      return new ShardedMap(shards, size);
    });
  }

  // Private: the shards, filled on first use when deferred; the filler (and the values it
  // holds) is dropped after.
  private get _shards(): readonly ReadonlyMap<string, V>[] {
    if (this._made === undefined) {
      this._made = this._make!();
      this._make = undefined;
    }
    return this._made;
  }
}

export class ShardedMapDraft<V> {
  private readonly _shards: (ReadonlyMap<string, V> | Map<string, V>)[];
  private readonly _copied = new Set<number>();
  private _size: number;
  private _finished = false;

  /** @internal Use `ShardedMap.edit()`. */
  constructor(
    shards: readonly ReadonlyMap<string, V>[],
    size: number,
    private readonly _finish: (
      shards: readonly ReadonlyMap<string, V>[],
      size: number,
    ) => ShardedMap<V>,
  ) {
    this._shards = [...shards];
    this._size = size;
  }

  get size(): number {
    return this._size;
  }

  get(key: string): V | undefined {
    return this._shards[shardIndex(key, this._shards.length)]!.get(key);
  }

  has(key: string): boolean {
    return this._shards[shardIndex(key, this._shards.length)]!.has(key);
  }

  set(key: string, value: V): void {
    const shard = this._writable(shardIndex(key, this._shards.length));
    if (!shard.has(key)) this._size += 1;
    shard.set(key, value);
  }

  delete(key: string): boolean {
    const index = shardIndex(key, this._shards.length);
    if (!this._shards[index]!.has(key)) return false;
    this._writable(index).delete(key);
    this._size -= 1;
    return true;
  }

  finish(): ShardedMap<V> {
    if (this._finished) throw new Error('ShardedMapDraft.finish() was already called');
    this._finished = true;
    return this._finish(this._shards, this._size);
  }

  /** Private: the shard at `index`, copied the first time this draft writes to it. */
  private _writable(index: number): Map<string, V> {
    if (this._finished) throw new Error('ShardedMapDraft was already finished');
    if (!this._copied.has(index)) {
      this._shards[index] = new Map(this._shards[index]!);
      this._copied.add(index);
    }
    return this._shards[index] as Map<string, V>;
  }
}

/** Private: a power of two near size / TARGET_PER_SHARD. */
function shardCountFor(size: number): number {
  let count = 1;
  while (count < MAX_SHARDS && count * TARGET_PER_SHARD < size) count *= 2;
  return count;
}

/** Private: redistributes every entry over `count` fresh shards. */
function reshard<V>(shards: readonly ReadonlyMap<string, V>[], count: number): Map<string, V>[] {
  const next = Array.from({ length: count }, () => new Map<string, V>());
  for (const shard of shards) {
    for (const [key, value] of shard) next[shardIndex(key, count)]!.set(key, value);
  }
  return next;
}

/** Characters hashed from each end of a long key. */
const HASHED_ENDS = 8;

/** Private: the shard of `key` among `count`, a power of two: its hash, masked. */
function shardIndex(key: string, count: number): number {
  if (count === 1) return 0;
  return keyHash(key) & (count - 1);
}

/**
 * FNV-1a over the key, as a signed 32-bit integer (arrays and sets of them hold small
 * integers). A long key is hashed by its first and last `HASHED_ENDS` characters and its
 * length: ids vary at both ends (UUIDs throughout, `<uuid>_<date>` ids at the start), and a
 * bulk load hashes a million of them. Exported for such loads, which compare or group many keys
 * by hash before touching the keys themselves.
 */
export function keyHash(key: string): number {
  let hash = 0x811c9dc5;
  const length = key.length;
  if (length <= 2 * HASHED_ENDS) {
    for (let i = 0; i < length; i += 1) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  } else {
    for (let i = 0; i < HASHED_ENDS; i += 1) {
      hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
    }
    for (let i = length - HASHED_ENDS; i < length; i += 1) {
      hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
    }
    hash = Math.imul(hash ^ length, 0x01000193);
  }
  return hash | 0;
}
