import { describe, expect, it } from 'vitest';
import { calendarDateOf } from '../../src/core/dates.js';

describe('calendarDateOf', () => {
  it('keeps a date, and takes the date part of a date-time as written', () => {
    expect(calendarDateOf('2024-02-29')).toBe('2024-02-29');
    for (const text of [
      '2026-11-22T16:44:30.591Z',
      '2026-11-22T23:30:00-05:00',
      '2026-11-22T00:15:00+14:00',
      '2026-11-22T08:00+0100',
      '2026-11-22t08:00:60z',
      '2026-11-22 08:00',
      '2026-11-22T08:00:00,5',
    ]) {
      expect(calendarDateOf(text), text).toBe('2026-11-22');
    }
  });

  it('refuses what is not a real date or date-time', () => {
    for (const text of [
      '2025-02-29',
      '2025-02-29T10:00:00Z',
      '2026-11-22T24:00:00Z',
      '2026-11-22T10:60Z',
      '2026-11-22T10',
      '2026-11-22T10:00:00+25:00',
      '2026-11-22Z',
      '2026-11-22T10:00:00Zulu',
      '22/11/2026',
      '',
    ]) {
      expect(calendarDateOf(text), text).toBeNull();
    }
  });
});
