import { FREQUENCIES, type Frequency } from '@plans-gateway/rest-contract';
import { describe, expect, it } from 'vitest';
import { addDays, daysInMonth, monthOf } from '../../src/core/dates.js';
import { firstOccurrenceAfter, nextOccurrence } from '../../src/core/recurrence.js';

/** The first `count` occurrences after `dateFirst`, stepping as the store does. */
function series(dateFirst: string, frequency: Frequency, count: number): (string | null)[] {
  const dates: (string | null)[] = [];
  let date: string | null = dateFirst;
  for (let i = 0; i < count && date !== null; i++) {
    date = nextOccurrence(dateFirst, frequency, date);
    dates.push(date);
  }
  return dates;
}

describe('scheduled transaction recurrence', () => {
  it('occurs once for never', () => {
    expect(nextOccurrence('2025-07-01', 'never', '2025-07-01')).toBeNull();
    expect(firstOccurrenceAfter('2025-07-01', 'never', '2025-06-30')).toBe('2025-07-01');
    expect(firstOccurrenceAfter('2025-07-01', 'never', '2025-07-01')).toBeNull();
  });

  it('adds whole days for the day-based frequencies, across month and year ends', () => {
    expect(series('2024-12-30', 'daily', 3)).toEqual(['2024-12-31', '2025-01-01', '2025-01-02']);
    expect(series('2024-02-22', 'weekly', 2)).toEqual(['2024-02-29', '2024-03-07']);
    expect(series('2025-12-20', 'everyOtherWeek', 2)).toEqual(['2026-01-03', '2026-01-17']);
    expect(series('2025-01-31', 'every4Weeks', 4)).toEqual([
      '2025-02-28',
      '2025-03-28',
      '2025-04-25',
      '2025-05-23',
    ]);
  });

  it('keeps the day of date_first for monthly series, clamped to shorter months', () => {
    expect(series('2025-01-31', 'monthly', 5)).toEqual([
      '2025-02-28',
      '2025-03-31',
      '2025-04-30',
      '2025-05-31',
      '2025-06-30',
    ]);
    expect(series('2024-01-31', 'monthly', 2)).toEqual(['2024-02-29', '2024-03-31']);
    expect(series('2024-12-31', 'everyOtherMonth', 4)).toEqual([
      '2025-02-28',
      '2025-04-30',
      '2025-06-30',
      '2025-08-31',
    ]);
    expect(series('2025-05-31', 'every3Months', 3)).toEqual([
      '2025-08-31',
      '2025-11-30',
      '2026-02-28',
    ]);
    expect(series('2025-10-31', 'every4Months', 3)).toEqual([
      '2026-02-28',
      '2026-06-30',
      '2026-10-31',
    ]);
    expect(series('2025-08-31', 'twiceAYear', 3)).toEqual([
      '2026-02-28',
      '2026-08-31',
      '2027-02-28',
    ]);
  });

  it('moves a leap day to 28 February in other years and back in leap years', () => {
    expect(series('2024-02-29', 'yearly', 4)).toEqual([
      '2025-02-28',
      '2026-02-28',
      '2027-02-28',
      '2028-02-29',
    ]);
    expect(series('2024-02-29', 'everyOtherYear', 2)).toEqual(['2026-02-28', '2028-02-29']);
    expect(series('2023-03-15', 'yearly', 2)).toEqual(['2024-03-15', '2025-03-15']);
  });

  it('runs twiceAMonth on a day and fifteen days later, clamping the later day to the month end', () => {
    expect(series('2025-01-01', 'twiceAMonth', 4)).toEqual([
      '2025-01-16',
      '2025-02-01',
      '2025-02-16',
      '2025-03-01',
    ]);
    expect(series('2025-01-14', 'twiceAMonth', 5)).toEqual([
      '2025-01-29',
      '2025-02-14',
      '2025-02-28',
      '2025-03-14',
      '2025-03-29',
    ]);
    expect(series('2024-02-14', 'twiceAMonth', 2)).toEqual(['2024-02-29', '2024-03-14']);
    expect(series('2025-01-20', 'twiceAMonth', 3)).toEqual([
      '2025-02-05',
      '2025-02-20',
      '2025-03-05',
    ]);
    expect(series('2025-01-31', 'twiceAMonth', 6)).toEqual([
      '2025-02-16',
      '2025-02-28',
      '2025-03-16',
      '2025-03-31',
      '2025-04-16',
      '2025-04-30',
    ]);
  });

  it('takes a date_next off the date_first pattern (frequency changed, date kept) as the new anchor', () => {
    expect(nextOccurrence('2025-01-31', 'monthly', '2025-03-15')).toBe('2025-04-15');
    expect(nextOccurrence('2025-01-01', 'twiceAMonth', '2025-03-20')).toBe('2025-04-05');
    expect(nextOccurrence('2025-01-01', 'twiceAMonth', '2025-03-10')).toBe('2025-03-25');
  });

  it('finds the first occurrence after a date, date_first included when it is later', () => {
    expect(firstOccurrenceAfter('2025-01-31', 'monthly', '2025-06-15')).toBe('2025-06-30');
    expect(firstOccurrenceAfter('2025-01-31', 'monthly', '2025-06-30')).toBe('2025-07-31');
    expect(firstOccurrenceAfter('2025-07-04', 'weekly', '2025-06-15')).toBe('2025-07-04');
    expect(firstOccurrenceAfter('2024-06-01', 'twiceAMonth', '2025-06-15')).toBe('2025-06-16');
  });

  it('always moves forward, at most one period, and never skips a month for month-based series', () => {
    const periods = { daily: 1, weekly: 7, everyOtherWeek: 14, every4Weeks: 28 } as Partial<
      Record<Frequency, number>
    >;
    const months = {
      monthly: 1,
      everyOtherMonth: 2,
      every3Months: 3,
      every4Months: 4,
      twiceAYear: 6,
      yearly: 12,
      everyOtherYear: 24,
    } as Partial<Record<Frequency, number>>;
    const monthIndex = (date: string) => Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7));
    const problems: string[] = [];
    for (let first = '2023-12-01'; first <= '2024-03-31'; first = addDays(first, 1)) {
      for (const frequency of FREQUENCIES) {
        if (frequency === 'never') continue;
        let date = first;
        for (let i = 0; i < 30; i++) {
          const next = nextOccurrence(first, frequency, date);
          const where = `${frequency} from ${first}: ${date} -> ${next}`;
          if (next === null || next <= date) {
            problems.push(`${where} does not move forward`);
            break;
          }
          const days = periods[frequency];
          const step = months[frequency];
          if (days !== undefined && next !== addDays(date, days))
            problems.push(`${where} is not ${days} days on`);
          if (step !== undefined && monthIndex(next) - monthIndex(date) !== step)
            problems.push(`${where} is not ${step} months on`);
          if (
            step !== undefined &&
            Number(next.slice(8, 10)) !==
              Math.min(Number(first.slice(8, 10)), daysInMonth(monthOf(next)))
          ) {
            problems.push(`${where} left the day of date_first`);
          }
          if (frequency === 'twiceAMonth' && monthIndex(next) - monthIndex(date) > 1)
            problems.push(`${where} skips a month`);
          date = next;
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
