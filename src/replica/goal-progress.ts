/**
 * Pure: a category's target progress in one month (`goal_percentage_complete`,
 * `goal_months_to_budget`, `goal_under_funded`, `goal_overall_funded`, `goal_overall_left`), from
 * its goal configuration and the month's budgeted, activity and balance, by the rules the sandbox
 * implements (packages/sandbox/src/store/goals.ts, `goalProgress` and `monthlyNeed`, mirrored
 * step by step so that every rounding agrees). The REST interface does not document these rules,
 * so `local-effects.ts` uses them only for a category whose held figures they reproduce.
 *
 * Nothing here reads a clock: the progress of a month follows from that month alone (a target
 * date counts months from the row's own month, not from today).
 *
 * Amounts are safe integers. Where the sandbox would carry a sum past 2^53 exactly, or for a goal
 * type it does not know, the answer is undefined: not followed.
 */
import type { IsoDate } from '@plans-gateway/rest-contract';
import type { CategoryRow } from './types.js';

/** The progress fields of a category month. */
export interface GoalProgress {
  readonly goal_percentage_complete: number | null;
  readonly goal_months_to_budget: number | null;
  readonly goal_under_funded: number | null;
  readonly goal_overall_funded: number | null;
  readonly goal_overall_left: number | null;
}

/** The goal configuration the rules read (a category row holds it in every month). */
export type GoalConfig = Pick<
  CategoryRow,
  | 'goal_type'
  | 'goal_needs_whole_amount'
  | 'goal_day'
  | 'goal_cadence'
  | 'goal_cadence_frequency'
  | 'goal_creation_month'
  | 'goal_target'
  | 'goal_target_date'
>;

export interface MonthAmounts {
  readonly budgeted: number;
  readonly activity: number;
  readonly balance: number;
}

/** The names of the progress fields, in the order the interface lists them. */
export const GOAL_PROGRESS_FIELDS = [
  'goal_percentage_complete',
  'goal_months_to_budget',
  'goal_under_funded',
  'goal_overall_funded',
  'goal_overall_left',
] as const satisfies readonly (keyof GoalProgress)[];

const NO_PROGRESS: GoalProgress = {
  goal_percentage_complete: null,
  goal_months_to_budget: null,
  goal_under_funded: null,
  goal_overall_funded: null,
  goal_overall_left: null,
};

/** Private: a figure the sandbox would hold past 2^53 (as a bigint); not followed. */
class PastSafe extends Error {
  override readonly name = 'PastSafe';
  readonly code = 'GW_ERR_GOAL_PAST_SAFE';
}

function safe(value: number | bigint): number {
  if (typeof value === 'bigint') {
    if (value < BigInt(Number.MIN_SAFE_INTEGER) || value > BigInt(Number.MAX_SAFE_INTEGER))
      throw new PastSafe();
    return Number(value);
  }
  if (!Number.isSafeInteger(value)) throw new PastSafe();
  return value;
}

const add = (a: number, b: number) => safe(a + b);
const subtract = (a: number, b: number) => safe(a - b);
const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

/**
 * Below this, a number divided by a small divisor rounds as the exact quotient (the sandbox's
 * bound).
 */
const SMALL = 2 ** 40;

/** `⌈a / divisor⌉` for a positive integer divisor, as the sandbox's `ceilDivide` rounds it. */
function ceilDivide(a: number, divisor: number): number {
  if (Math.abs(a) <= SMALL) return Math.ceil(a / divisor) + 0;
  const big = BigInt(a);
  const d = BigInt(divisor);
  const quotient = big / d;
  return safe(big % d > 0n ? quotient + 1n : quotient);
}

/** `⌊100 · part / whole⌋` for 0 <= part <= whole, whole > 0 (the sandbox's `percentOf`). */
function percentOf(part: number, whole: number): number {
  if (part <= SMALL) return Math.floor((part * 100) / whole);
  return Number((BigInt(part) * 100n) / BigInt(whole));
}

/** Private: `YYYY-MM-01` of a date. */
const monthOf = (date: string): IsoDate => `${date.slice(0, 7)}-01`;

function monthsBetween(from: IsoDate, to: IsoDate): number {
  return (
    (Number(to.slice(0, 4)) - Number(from.slice(0, 4))) * 12 +
    Number(to.slice(5, 7)) -
    Number(from.slice(5, 7))
  );
}

/** Private: how many times a weekday (0 = Sunday) falls in `month`. */
function weekdaysIn(month: IsoDate, weekday: number): number {
  const year = Number(month.slice(0, 4));
  const index = Number(month.slice(5, 7)) - 1;
  const days = new Date(Date.UTC(year, index + 1, 0)).getUTCDate();
  const first = (weekday - new Date(Date.UTC(year, index, 1)).getUTCDay() + 7) % 7;
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

/** What a NEED goal asks for in `month`: the target by its cadence. */
function monthlyNeed(goal: GoalConfig, target: number, month: IsoDate): number {
  const cadence = goal.goal_cadence ?? 1;
  const frequency = Math.max(1, goal.goal_cadence_frequency ?? 1);
  const months = monthsPerPeriod(cadence, frequency);
  if (months > 0) return ceilDivide(target, months);
  // Weekly: once per due weekday (every `frequency` weeks); without a day, once a week.
  const times = goal.goal_day === null ? 4 : weekdaysIn(month, goal.goal_day);
  return ceilDivide(safe(target * times), frequency);
}

/**
 * The progress of `goal` in `month` with these amounts; all null without a target or before the
 * goal's creation month; undefined when the rules are not followed (see above).
 */
export function goalProgress(
  goal: GoalConfig,
  amounts: MonthAmounts,
  month: IsoDate,
): GoalProgress | undefined {
  try {
    return progressOf(goal, amounts, month);
  } catch (error) {
    if (error instanceof PastSafe) return undefined;
    throw error;
  }
}

function progressOf(
  goal: GoalConfig,
  amounts: MonthAmounts,
  month: IsoDate,
): GoalProgress | undefined {
  const target = goal.goal_target;
  if (goal.goal_type === null || target === null) return NO_PROGRESS;
  if (goal.goal_creation_month !== null && month < goal.goal_creation_month) return NO_PROGRESS;
  const carry = subtract(subtract(amounts.balance, amounts.budgeted), amounts.activity);
  const monthsToDate =
    goal.goal_target_date === null
      ? null
      : Math.max(0, monthsBetween(month, monthOf(goal.goal_target_date)) + 1);

  let funded: number;
  let monthsToBudget: number | null = 1;
  let underFunded: number | null = null;
  let need = target;
  switch (goal.goal_type) {
    case 'TB':
      funded = clamp(amounts.balance, 0, target);
      monthsToBudget = null;
      break;
    case 'TBD': {
      funded = clamp(amounts.balance, 0, target);
      monthsToBudget = monthsToDate ?? 1;
      const missing = Math.max(0, subtract(target, carry));
      const share = monthsToBudget > 0 ? ceilDivide(missing, monthsToBudget) : missing;
      underFunded = Math.max(0, subtract(share, amounts.budgeted));
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
    default:
      return undefined;
  }
  const left = subtract(need, funded);
  return {
    goal_percentage_complete: need > 0 ? percentOf(funded, need) : 100,
    goal_months_to_budget: monthsToBudget,
    goal_under_funded: underFunded === null ? left : Math.min(left, underFunded),
    goal_overall_funded: funded,
    goal_overall_left: left,
  };
}
