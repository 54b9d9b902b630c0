/**
 * A read-only map built the first time anything reads it.
 *
 * Why: a cold load builds the replica before its first answer, and most first answers (a
 * dashboard, a page of recent transactions) never filter by account, category or payee. The
 * three indexes that serve those filters are built from rows the replica already holds, so
 * building them when a read or a merge first needs them takes their grouping off the first
 * answer, and costs the same in total.
 */
export class LazyMap<K, V> implements ReadonlyMap<K, V> {
  private _built: ReadonlyMap<K, V> | undefined;
  private _build: (() => ReadonlyMap<K, V>) | undefined;

  constructor(build: () => ReadonlyMap<K, V>) {
    this._build = build;
  }

  /** Whether it was built yet (for tests and diagnostics). */
  get built(): boolean {
    return this._built !== undefined;
  }

  get size(): number {
    return this._map().size;
  }

  get(key: K): V | undefined {
    return this._map().get(key);
  }

  has(key: K): boolean {
    return this._map().has(key);
  }

  forEach(callback: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this._map()) callback.call(thisArg, value, key, this);
  }

  entries(): MapIterator<[K, V]> {
    return this._map().entries();
  }

  keys(): MapIterator<K> {
    return this._map().keys();
  }

  values(): MapIterator<V> {
    return this._map().values();
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this._map()[Symbol.iterator]();
  }

  // Private: the map, built once; the builder (and what it holds) is dropped after.
  private _map(): ReadonlyMap<K, V> {
    if (this._built === undefined) {
      this._built = this._build!();
      this._build = undefined;
    }
    return this._built;
  }
}
