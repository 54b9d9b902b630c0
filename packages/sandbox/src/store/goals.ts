/**
 * Goal progress of a category in a month, computed from the stored goal configuration and the
 * month's amounts. Rules (kept simple and internally consistent, see README):
 *
 * - funded + left = target (NEED: the month's need, below), 0 <= under_funded <= left,
 *   percentage = floor(100 * funded / (target or need)).
 * - TB (target balance): funded = balance clamped to [0, target].
 * - TBD (target balance by date): as TB; months_to_budget counts the months from this one to the
 *   target date's month (inclusive); under_funded is this month's share of what is still
 *   missing, minus what was already assigned this month.
 * - MF (monthly funding) and DEBT: funded = this month's assigned amount, clamped.
 * - NEED: "set aside" (goal_needs_whole_amount true) counts this month's assignment; "refill"
 *   (false) counts the carried-in balance plus this month's assignment. What the month asks for
 *   follows the cadence: the target for a monthly one; for a weekly one the target once for
 *   each due weekday (`goal_day`) in the month; for longer periods (every few months, yearly)
 *   the target spread over the period's months, rounded up. The progress fields count against
 *   that amount (funded + left = the month's need).
 * - Months before the goal's creation month report no progress (nulls).
 */
import type { IsoDate } from '@plans-gateway/rest-contract';
import { daysInMonth, monthOf, monthsBetween, weekdayOf } from '../core/dates.js';
import { add, ceilDivide, type Exact, max, min, multiply, subtract } from '../core/exact.js';
import type { GoalConfig, MonthCategoryRecord } from './records.js';

/** The goal fields of a category without a goal. */
export const NO_GOAL: GoalConfig = {
  goal_type: null,
  goal_needs_whole_amount: null,
  goal_day: null,
  goal_cadence: null,
  goal_cadence_frequency: null,
  goal_creation_month: null,
  goal_target: null,
  goal_target_date: null,
  goal_snoozed_at: null,
};

export interface GoalProgress {
  goal_percentage_complete: number | null;
  goal_months_to_budget: number | null;
  goal_under_funded: Exact | null;
  goal_overall_funded: Exact | null;
  goal_overall_left: Exact | null;
}

/** Only the goal fields of a category record. */
export function goalOf(config: GoalConfig): GoalConfig {
  return {
    goal_type: config.goal_type,
    goal_needs_whole_amount: config.goal_needs_whole_amount,
    goal_day: config.goal_day,
    goal_cadence: config.goal_cadence,
    goal_cadence_frequency: config.goal_cadence_frequency,
    goal_creation_month: config.goal_creation_month,
    goal_target: config.goal_target,
    goal_target_date: config.goal_target_date,
    goal_snoozed_at: config.goal_snoozed_at,
  };
}

const NO_PROGRESS: GoalProgress = {
  goal_percentage_complete: null,
  goal_months_to_budget: null,
  goal_under_funded: null,
  goal_overall_funded: null,
  goal_overall_left: null,
};

function clamp(value: Exact, low: Exact, high: Exact): Exact {
  return min(high, max(low, value));
}

/** Private: `⌊100 · part / whole⌋` for 0 <= part <= whole, whole > 0. */
function percentOf(part: Exact, whole: Exact): number {
  if (typeof part === 'number' && typeof whole === 'number' && part <= 2 ** 40)
    return Math.floor((part * 100) / whole);
  return Number((BigInt(part) * 100n) / BigInt(whole));
}

/** Private: how many times a weekday (0 = Sunday) falls in a month. */
function weekdaysIn(month: IsoDate, weekday: number): number {
  const days = daysInMonth(month);
  const first = (weekday - weekdayOf(month) + 7) % 7;
  return first >= days ? 0 : Math.floor((days - 1 - first) / 7) + 1;
}

/** Private: the months one period of a cadence lasts; 0 for weekly (counted by weekday). */
function monthsPerPeriod(cadence: number, frequency: number): number {
  if (cadence === 2) return 0;
  if (cadence === 13) return 12 * frequency;
  if (cadence === 14) return 24;
  if (cadence >= 3 && cadence <= 12) return cadence - 1;
  return Math.max(1, frequency);
}

/** What a NEED goal asks for in `month`, by its cadence (see the rules above). */
export function monthlyNeed(goal: GoalConfig, target: number, month: IsoDate): Exact {
  const cadence = goal.goal_cadence ?? 1;
  const frequency = Math.max(1, goal.goal_cadence_frequency ?? 1);
  const months = monthsPerPeriod(cadence, frequency);
  if (months > 0) return ceilDivide(target, months);
  // Weekly: once per due weekday (every `frequency` weeks); without a day, once a week.
  const times = goal.goal_day === null ? 4 : weekdaysIn(month, goal.goal_day);
  return ceilDivide(multiply(target, times), frequency);
}

export function goalProgress(
  goal: GoalConfig,
  amounts: Pick<MonthCategoryRecord, 'budgeted' | 'activity' | 'balance'>,
  month: IsoDate,
): GoalProgress {
  const target = goal.goal_target;
  if (goal.goal_type === null || target === null) return NO_PROGRESS;
  if (goal.goal_creation_month !== null && month < goal.goal_creation_month) return NO_PROGRESS;
  const carry = subtract(subtract(amounts.balance, amounts.budgeted), amounts.activity);
  const monthsToDate =
    goal.goal_target_date === null
      ? null
      : Math.max(0, monthsBetween(month, monthOf(goal.goal_target_date)) + 1);

  let funded: Exact;
  let monthsToBudget: number | null = 1;
  let underFunded: Exact | null = null;
  let need: Exact = target;
  switch (goal.goal_type) {
    case 'TB':
      funded = clamp(amounts.balance, 0, target);
      monthsToBudget = null;
      break;
    case 'TBD': {
      funded = clamp(amounts.balance, 0, target);
      monthsToBudget = monthsToDate ?? 1;
      const missing = max(0, subtract(target, carry));
      const share = monthsToBudget > 0 ? ceilDivide(missing, monthsToBudget) : missing;
      underFunded = max(0, subtract(share, amounts.budgeted));
      break;
    }
    case 'NEED':
      need = monthlyNeed(goal, target, month);
      funded =
        goal.goal_needs_whole_amount === false
          ? clamp(add(carry, amounts.budgeted), 0, need)
          : clamp(amounts.budgeted, 0, need);
      monthsToBudget = monthsToDate ?? 1;
      break;
    case 'MF':
    case 'DEBT':
      funded = clamp(amounts.budgeted, 0, target);
      break;
  }
  const left = subtract(need, funded);
  return {
    goal_percentage_complete: need > 0 ? percentOf(funded, need) : 100,
    goal_months_to_budget: monthsToBudget,
    goal_under_funded: underFunded === null ? left : min(left, underFunded),
    goal_overall_funded: funded,
    goal_overall_left: left,
  };
}
