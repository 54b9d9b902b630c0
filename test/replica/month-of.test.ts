/**
 * `monthOf` keeps the month it last named with its bounds (every replica read asks for the
 * current month): whatever it named before, each instant gets its own month.
 */
import { describe, expect, it } from 'vitest';
import { monthOf } from '../../src/replica/plan-state.js';

/** The month as named without any memory of the last one. */
function plainMonthOf(epochMs: number): string {
  const date = new Date(epochMs);
  return `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, '0')}-01`;
}

describe('monthOf', () => {
  it('names the month of each instant, across month and year boundaries, in any order', () => {
    const instants: number[] = [];
    for (const year of [1970, 2024, 2026, 2027]) {
      for (let month = 0; month < 12; month += 1) {
        const start = Date.UTC(year, month, 1);
        instants.push(start - 1, start, start + 1, start + 15 * 86_400_000);
      }
    }
    // Forwards, then backwards: a remembered month never answers for a neighbour.
    for (const instant of [...instants, ...instants.reverse()])
      expect(monthOf(instant)).toBe(plainMonthOf(instant));
  });

  it('names years before 100 as the plain form does (no Date.UTC two-digit years)', () => {
    const year50 = new Date(0).setUTCFullYear(50, 5, 10);
    const year1950 = Date.UTC(1950, 5, 10);
    for (const instant of [year50, year1950, year50])
      expect(monthOf(instant)).toBe(plainMonthOf(instant));
  });
});
