/** `ShardedMap.deferred`: a table filled on its first read or edit, once, then as any other. */
import { describe, expect, it } from 'vitest';
import { ShardedMap } from '../../src/replica/sharded-map.js';

interface Row {
  readonly id: string;
  readonly n: number;
}

const rows: Row[] = Array.from({ length: 1000 }, (_, n) => ({ id: `row-${n}`, n }));

describe('ShardedMap.deferred', () => {
  it('knows its size unfilled, fills on the first lookup, once, and answers as a filled map', () => {
    let keyed = 0;
    const map = ShardedMap.deferred(rows, (row) => {
      keyed += 1;
      return row.id;
    });
    expect([map.size, map.filled, keyed]).toEqual([1000, false, 0]);
    expect(map.get('row-512')).toBe(rows[512]);
    expect([map.filled, keyed]).toEqual([true, 1000]);
    expect([map.has('row-0'), map.has('row-1000'), map.get('nope')]).toEqual([
      true,
      false,
      undefined,
    ]);
    expect([...map.values()].sort((a, b) => a.n - b.n)).toEqual(rows);
    expect(new Map(map.entries())).toEqual(new Map(rows.map((row) => [row.id, row])));
    expect(keyed).toBe(1000);
  });

  it('fills before a first edit, and the edit leaves it as it was', () => {
    const map = ShardedMap.deferred(rows, (row) => row.id);
    const draft = map.edit();
    expect(map.filled).toBe(true);
    draft.delete('row-1');
    draft.set('row-new', { id: 'row-new', n: -1 });
    const next = draft.finish();
    expect([next.size, next.has('row-1'), next.get('row-new')?.n]).toEqual([1000, false, -1]);
    expect([map.size, map.has('row-1'), map.has('row-new')]).toEqual([1000, true, false]);
  });
});
