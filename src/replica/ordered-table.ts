/**
 * An immutable keyed list that keeps the order rows arrived in: the REST order of the export,
 * with rows first seen in a later delta appended at the end, and updated rows kept in place.
 * Used for the small collections (accounts, payees, categories, months...); a change copies the
 * whole table, which is cheaper than anything cleverer at these sizes.
 */

/** One change: a row to upsert under `key`, or `undefined` to remove the key. */
export interface TableChange<T> {
  readonly key: string;
  readonly row: T | undefined;
}

export class OrderedTable<T> {
  readonly rows: readonly T[];
  private readonly _byKey: ReadonlyMap<string, T>;

  private constructor(rows: readonly T[], byKey: ReadonlyMap<string, T>) {
    this.rows = rows;
    this._byKey = byKey;
  }

  static empty<T>(): OrderedTable<T> {
    return new OrderedTable<T>([], new Map());
  }

  get size(): number {
    return this.rows.length;
  }

  get(key: string): T | undefined {
    return this._byKey.get(key);
  }

  has(key: string): boolean {
    return this._byKey.has(key);
  }

  /**
   * Applies changes in order (a later change of the same key wins) and returns the next table,
   * or this one when nothing changed.
   */
  with(changes: Iterable<TableChange<T>>, keyOf: (row: T) => string): OrderedTable<T> {
    let byKey: Map<string, T> | undefined;
    const appended: string[] = [];
    for (const { key, row } of changes) {
      const current = (byKey ?? this._byKey).get(key);
      if (row === undefined ? current === undefined : current === row) continue;
      byKey ??= new Map(this._byKey);
      if (row === undefined) {
        byKey.delete(key);
      } else {
        if (!byKey.has(key) && !this._byKey.has(key)) appended.push(key);
        byKey.set(key, row);
      }
    }
    if (!byKey) return this;
    const next = byKey;
    const rows: T[] = [];
    for (const row of this.rows) {
      const kept = next.get(keyOf(row));
      if (kept !== undefined) rows.push(kept);
    }
    const seen = new Set<string>();
    for (const key of appended) {
      const row = next.get(key);
      if (row !== undefined && !this._byKey.has(key) && !seen.has(key)) {
        seen.add(key);
        rows.push(row);
      }
    }
    return new OrderedTable(rows, next);
  }
}
