/**
 * Category and category group bodies. Goal rules: a `goal_target` on a category without a goal
 * creates a monthly goal (NEED, or MF for credit card payment categories); `goal_target: null`
 * removes the goal; `goal_target_date` needs a goal and turns TB into TBD (and back when
 * cleared); `goal_needs_whole_amount` only applies to NEED goals. `goal_frequency` (1.86.0) sets
 * a recurring NEED target of `goal_target`, replacing any goal; it needs `goal_target`, takes no
 * `goal_target_date` and no credit card payment category. Without it a goal keeps its cadence.
 */
import { GOAL_FREQUENCIES, type GoalFrequency, type IsoDate } from '@plans-gateway/rest-contract';
import { monthOf, weekdayOf } from '../core/dates.js';
import { badRequest } from '../core/errors.js';
import { goalOf, NO_GOAL } from '../store/goals.js';
import type { PlanStore } from '../store/plan-store.js';
import type { CategoryGroupRecord, CategoryRole, GoalConfig } from '../store/records.js';
import {
  type JsonObject,
  readBoolean,
  readDate,
  readEnum,
  readInteger,
  readNullableString,
  readString,
  readUuid,
  requirePresent,
} from './fields.js';

export const CATEGORY_GROUP_NAME_MAX = 50;
export const CATEGORY_NAME_MAX = 100;
export const NOTE_MAX = 500;

export interface CategoryChanges {
  name?: string;
  note?: string | null;
  groupId?: string;
  goal?: GoalConfig;
}

export function readCategoryGroupName(body: JsonObject, path: string): string {
  return readString(requirePresent(body.name, `${path}.name`), `${path}.name`, {
    nonEmpty: true,
    maxLength: CATEGORY_GROUP_NAME_MAX,
  });
}

/** A group a category may be put in: live and not internal. */
export function readTargetGroup(
  store: PlanStore,
  value: unknown,
  path: string,
): CategoryGroupRecord {
  const id = readUuid(requirePresent(value, path), path);
  const group = store.categoryGroups.get(id);
  if (!group || group.deleted)
    throw badRequest(`${path} '${id}' is not a category group of this plan`);
  if (group.internal) throw badRequest(`${path}: an internal category group may not be specified`);
  return group;
}

/** Private: a target amount: an integer of milliunits, not negative. */
function readTarget(value: unknown, path: string): number {
  const target = readInteger(value, `${path}.goal_target`);
  if (target < 0) throw badRequest(`${path}.goal_target must not be negative`);
  return target;
}

/** `goal_cadence` of each `goal_frequency` (the description's numbering: 1, 2 and 13). */
const CADENCES: Record<GoalFrequency, number> = { monthly: 1, weekly: 2, yearly: 13 };

/**
 * Private: the recurring target `goal_frequency` asks for, after the refusals the description
 * states. A weekly target falls due on the weekday it was set (`goal_day`); monthly and yearly
 * ones at the end of the month (`goal_day` null).
 */
function recurringGoal(
  body: JsonObject,
  role: CategoryRole,
  today: IsoDate,
  path: string,
): GoalConfig {
  const frequency = readEnum(body.goal_frequency, GOAL_FREQUENCIES, `${path}.goal_frequency`);
  if (role === 'creditCardPayment') {
    throw badRequest(`${path}.goal_frequency is not supported for credit card payment categories`);
  }
  if (body.goal_target === undefined || body.goal_target === null) {
    throw badRequest(
      `${path}.goal_frequency requires ${path}.goal_target, the amount that repeats`,
    );
  }
  if (body.goal_target_date !== undefined && body.goal_target_date !== null) {
    throw badRequest(`${path}.goal_frequency cannot be combined with ${path}.goal_target_date`);
  }
  return {
    ...NO_GOAL,
    goal_type: 'NEED',
    goal_needs_whole_amount: true,
    goal_day: frequency === 'weekly' ? weekdayOf(today) : null,
    goal_cadence: CADENCES[frequency],
    goal_cadence_frequency: 1,
    goal_creation_month: monthOf(today),
    goal_target: readTarget(body.goal_target, path),
  };
}

/** The goal a category will have after applying the body's goal fields to `current`. */
export function nextGoal(
  current: GoalConfig,
  body: JsonObject,
  role: CategoryRole,
  today: IsoDate,
  path: string,
): GoalConfig {
  let goal: GoalConfig = goalOf(current);
  if (body.goal_frequency !== undefined) {
    goal = recurringGoal(body, role, today, path);
  } else if (body.goal_target !== undefined) {
    if (body.goal_target === null) {
      goal = { ...NO_GOAL };
    } else {
      const target = readTarget(body.goal_target, path);
      if (goal.goal_type === null) {
        const type = role === 'creditCardPayment' ? 'MF' : 'NEED';
        goal = {
          ...NO_GOAL,
          goal_type: type,
          goal_needs_whole_amount: type === 'NEED' ? true : null,
          goal_cadence: 1,
          goal_cadence_frequency: 1,
          goal_creation_month: monthOf(today),
        };
      }
      goal.goal_target = target;
    }
  }
  if (body.goal_target_date !== undefined && body.goal_frequency === undefined) {
    const date =
      body.goal_target_date === null
        ? null
        : readDate(body.goal_target_date, `${path}.goal_target_date`);
    if (goal.goal_type === null) {
      if (date !== null)
        throw badRequest(`${path}.goal_target_date needs a goal: set ${path}.goal_target too`);
    } else {
      goal.goal_target_date = date;
      if (goal.goal_type === 'TB' && date !== null) goal.goal_type = 'TBD';
      if (goal.goal_type === 'TBD' && date === null) goal.goal_type = 'TB';
    }
  }
  if (body.goal_needs_whole_amount !== undefined && body.goal_needs_whole_amount !== null) {
    const whole = readBoolean(body.goal_needs_whole_amount, `${path}.goal_needs_whole_amount`);
    if (goal.goal_type !== 'NEED') {
      throw badRequest(
        `${path}.goal_needs_whole_amount only applies to NEED goals (this category's goal is ${goal.goal_type ?? 'not set'})`,
      );
    }
    goal.goal_needs_whole_amount = whole;
  }
  return goal;
}

export function readCategoryName(value: unknown, path: string): string {
  return readString(value, path, { nonEmpty: true, maxLength: CATEGORY_NAME_MAX });
}

export function readNote(value: unknown, path: string): string | null {
  return readNullableString(value, path, { maxLength: NOTE_MAX });
}
