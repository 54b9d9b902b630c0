/** Exact milliunits (core/exact.ts): numbers while safe, bigints past 2^53, never rounded. */
import { describe, expect, it } from 'vitest';
import {
  add,
  ceilDivide,
  exact,
  isInt64,
  max,
  min,
  multiply,
  negate,
  subtract,
} from '../../src/core/exact.js';

const MAX = Number.MAX_SAFE_INTEGER;

describe('exact arithmetic', () => {
  it('stays a number while safe and turns bigint past 2^53, both ways', () => {
    expect(add(MAX - 1, 1)).toBe(MAX);
    expect(add(MAX, 1)).toBe(2n ** 53n);
    expect(add(MAX, MAX)).toBe(2n * BigInt(MAX));
    expect(subtract(-MAX, 2)).toBe(-(2n ** 53n) - 1n);
    expect(add(2n ** 53n, -1)).toBe(MAX); // back in range: a number again
    expect(subtract(2n ** 60n, 2n ** 60n)).toBe(0);
    expect(negate(2n ** 53n)).toBe(-(2n ** 53n));
    expect(negate(0)).toBe(0);
    expect(Object.is(negate(0), -0)).toBe(false);
    expect(exact(BigInt(-MAX))).toBe(-MAX);
  });

  it('compares across the two forms and multiplies and divides without rounding', () => {
    expect(max(2n ** 60n, MAX)).toBe(2n ** 60n);
    expect(min(2n ** 60n, MAX)).toBe(MAX);
    expect(multiply(MAX, 5)).toBe(BigInt(MAX) * 5n);
    expect(multiply(1_000, 5)).toBe(5_000);
    expect(ceilDivide(1_000_000, 12)).toBe(83_334);
    expect(ceilDivide(-1_000_001, 12)).toBe(-83_333);
    expect(ceilDivide(-5, 12)).toBe(0);
    expect(Object.is(ceilDivide(-5, 12), -0)).toBe(false);
    expect(ceilDivide(9_007_199_254_740_985, 24)).toBe(375_299_968_947_542); // 24q + 1
    expect(ceilDivide(-9_007_199_254_740_985, 24)).toBe(-375_299_968_947_541);
    expect(ceilDivide(2n ** 64n + 1n, 2)).toBe(2n ** 63n + 1n);
  });

  it('knows the bounds of the interface (int64)', () => {
    expect(isInt64(MAX)).toBe(true);
    expect(isInt64(2n ** 63n - 1n)).toBe(true);
    expect(isInt64(2n ** 63n)).toBe(false);
    expect(isInt64(-(2n ** 63n) + 1n)).toBe(true);
  });
});
