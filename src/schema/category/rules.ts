/**
 * Category and category group input rules (openapi-1.85.0: SaveCategory, SaveCategoryGroup).
 * The interface sets no length for category names or notes; the upstream judges those.
 */
import { maxLength, notNull } from '../input-checks.js';

export const CATEGORY_GROUP_NAME_MAX = 50;

export interface CategoryFields {
  categoryGroupId?: string | null;
}

export function checkCategory(input: CategoryFields, path: string): void {
  notNull(input.categoryGroupId, `${path}.categoryGroupId`);
}

export interface CategoryGroupFields {
  name: string;
}

export function checkCategoryGroup(input: CategoryGroupFields, path: string): void {
  maxLength(input.name, CATEGORY_GROUP_NAME_MAX, `${path}.name`);
}
