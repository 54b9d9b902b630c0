/** `LazyMap`: a read-only map built on its first read, once. */
import { describe, expect, it } from 'vitest';
import { LazyMap } from '../../src/replica/lazy-map.js';

describe('LazyMap', () => {
  it('builds on the first read of any kind, once, and then answers as the built map', () => {
    let builds = 0;
    const map = new LazyMap(() => {
      builds += 1;
      return new Map([
        ['a', 1],
        ['b', 2],
      ]);
    });
    expect(builds).toBe(0);
    expect(map.built).toBe(false);
    expect(map.get('b')).toBe(2);
    expect(map.built).toBe(true);
    expect([map.size, map.has('a'), map.has('z'), [...map.keys()], [...map.values()]]).toEqual([
      2,
      true,
      false,
      ['a', 'b'],
      [1, 2],
    ]);
    const seen: [string, number][] = [];
    map.forEach((value, key, self) => {
      expect(self).toBe(map);
      seen.push([key, value]);
    });
    expect(seen).toEqual([...map.entries()]);
    expect(new Map(map)).toEqual(new Map([...map]));
    expect(builds).toBe(1);
  });
});
