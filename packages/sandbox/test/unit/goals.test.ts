/** What a NEED goal asks of a month, by its cadence (store/goals.ts). */
import { describe, expect, it } from 'vitest';
import { weekdayOf } from '../../src/core/dates.js';
import { goalProgress, monthlyNeed, NO_GOAL } from '../../src/store/goals.js';
import type { GoalConfig } from '../../src/store/records.js';

const need = (cadence: number, frequency: number, day: number | null = null): GoalConfig => ({
  ...NO_GOAL,
  goal_type: 'NEED',
  goal_needs_whole_amount: true,
  goal_cadence: cadence,
  goal_cadence_frequency: frequency,
  goal_day: day,
  goal_creation_month: '2025-01-01',
  goal_target: 120_000,
});

describe('monthlyNeed', () => {
  it('is the target for a monthly goal, and a share of it for longer periods', () => {
    expect(monthlyNeed(need(1, 1), 120_000, '2025-06-01')).toBe(120_000);
    expect(monthlyNeed(need(1, 2), 120_000, '2025-06-01')).toBe(60_000); // every other month
    expect(monthlyNeed(need(3, 0), 120_000, '2025-06-01')).toBe(60_000); // every 2 months
    expect(monthlyNeed(need(12, 0), 120_000, '2025-06-01')).toBe(10_910); // every 11 months, up
    expect(monthlyNeed(need(13, 1), 120_000, '2025-06-01')).toBe(10_000); // yearly
    expect(monthlyNeed(need(13, 2), 120_000, '2025-06-01')).toBe(5_000); // every other year
    expect(monthlyNeed(need(14, 0), 120_000, '2025-06-01')).toBe(5_000); // every 2 years
  });

  it('counts the due weekday of a weekly goal in the month', () => {
    expect(weekdayOf('2025-06-01')).toBe(0); // a Sunday
    expect(weekdayOf('1969-12-31')).toBe(3);
    expect(monthlyNeed(need(2, 1, 0), 1_000, '2025-06-01')).toBe(5_000); // five Sundays
    expect(monthlyNeed(need(2, 1, 6), 1_000, '2025-06-01')).toBe(4_000); // four Saturdays
    expect(monthlyNeed(need(2, 1, 6), 1_000, '2026-02-01')).toBe(4_000);
    expect(monthlyNeed(need(2, 2, 0), 1_000, '2025-06-01')).toBe(2_500); // every other week
    expect(monthlyNeed(need(2, 1), 1_000, '2025-06-01')).toBe(4_000); // no day: weekly
  });

  it('is what the progress fields count against', () => {
    const progress = goalProgress(
      need(13, 1),
      { budgeted: 4_000, activity: 0, balance: 4_000 },
      '2025-06-01',
    );
    expect(progress).toEqual({
      goal_percentage_complete: 40,
      goal_months_to_budget: 1,
      goal_under_funded: 6_000,
      goal_overall_funded: 4_000,
      goal_overall_left: 6_000,
    });
  });
});
