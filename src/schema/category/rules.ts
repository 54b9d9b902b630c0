/**
 * Category and category group input rules (openapi-1.86.0: SaveCategory, SaveCategoryGroup).
 * The interface sets no length for category names or notes; the upstream judges those. Of the
 * recurring target's rules (`goal_frequency`), those the body alone shows are checked here; the
 * one that needs the category (not a credit card payment category) is the upstream's 400.
 */
import { badUserInput, maxLength, notNull } from '../input-checks.js';

export const CATEGORY_GROUP_NAME_MAX = 50;

export interface CategoryFields {
  categoryGroupId?: string | null;
  goalTarget?: number | null;
  goalTargetDate?: string | null;
  goalFrequency?: string | null;
}

export function checkCategory(input: CategoryFields, path: string): void {
  notNull(input.categoryGroupId, `${path}.categoryGroupId`);
  notNull(input.goalFrequency, `${path}.goalFrequency`);
  if (input.goalTarget !== undefined && input.goalTarget !== null && input.goalTarget < 0) {
    throw badUserInput(`${path}.goalTarget`, 'must not be negative');
  }
  if (input.goalFrequency === undefined) return;
  if (input.goalTarget === undefined || input.goalTarget === null) {
    throw badUserInput(
      `${path}.goalFrequency`,
      `needs ${path}.goalTarget, the amount that repeats (1.86.0: goal_frequency requires goal_target)`,
    );
  }
  if (input.goalTargetDate !== undefined && input.goalTargetDate !== null) {
    throw badUserInput(
      `${path}.goalFrequency`,
      `cannot be combined with ${path}.goalTargetDate: a recurring target has no target date`,
    );
  }
}

export interface CategoryGroupFields {
  name: string;
}

export function checkCategoryGroup(input: CategoryGroupFields, path: string): void {
  maxLength(input.name, CATEGORY_GROUP_NAME_MAX, `${path}.name`);
}
