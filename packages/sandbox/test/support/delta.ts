/**
 * Replays a delta response onto an earlier full response the way a client keeps a replica:
 * entities in the delta replace their earlier version, `deleted: true` ones are dropped, and
 * filtered lists are filtered again (an entity may leave a filtered list without a tombstone).
 * `canonical` puts both sides in one order so they can be compared with `toEqual`.
 */
import { isRecord } from './check-shape.js';

export type Entity = Record<string, unknown>;

function keyOf(entity: Entity, key: string): string {
  const value = entity[key];
  if (typeof value !== 'string')
    throw new Error(`entity without a string ${key}: ${JSON.stringify(entity).slice(0, 200)}`);
  return value;
}

function entities(value: unknown, label: string): Entity[] {
  if (!Array.isArray(value) || !value.every(isRecord))
    throw new Error(`${label} is not a list of objects`);
  return value;
}

/** Upserts `changes` into `base` by `key` and drops deleted entities. */
export function mergeList(
  base: readonly Entity[],
  changes: readonly Entity[],
  key = 'id',
): Entity[] {
  const merged = new Map(base.map((entity) => [keyOf(entity, key), entity]));
  for (const change of changes) merged.set(keyOf(change, key), change);
  return [...merged.values()].filter((entity) => entity.deleted !== true);
}

/** Paths (as `a.b[3]`) of every `deleted: true` entity in a value: full responses must have none. */
export function deletedPaths(value: unknown, path = 'data'): string[] {
  if (Array.isArray(value))
    return value.flatMap((item, index) => deletedPaths(item, `${path}[${index}]`));
  if (!isRecord(value)) return [];
  const own = value.deleted === true ? [path] : [];
  return [
    ...own,
    ...Object.entries(value).flatMap(([key, item]) => deletedPaths(item, `${path}.${key}`)),
  ];
}

/**
 * A deep copy with every list of keyed entities sorted by key, and deleted nested entities
 * removed (a replaced parent may carry tombstones of its children).
 */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(canonical);
    const keyName = items.every((item) => isRecord(item) && typeof item.id === 'string')
      ? 'id'
      : items.every((item) => isRecord(item) && typeof item.month === 'string')
        ? 'month'
        : null;
    if (keyName === null || items.length === 0) return items;
    return (items as Entity[])
      .filter((item) => item.deleted !== true)
      .sort((a, b) => keyOf(a, keyName).localeCompare(keyOf(b, keyName)));
  }
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, canonical(item)]));
}

/** Collections of the plan export and the key of their entities. */
const PLAN_COLLECTIONS = [
  'accounts',
  'payees',
  'payee_locations',
  'category_groups',
  'categories',
  'transactions',
  'subtransactions',
  'scheduled_transactions',
  'scheduled_subtransactions',
] as const;

/** Replays a plan-export delta onto an earlier export (`data.plan`). */
export function replayPlan(base: Entity, delta: Entity): Entity {
  const merged: Entity = { ...base };
  for (const [key, value] of Object.entries(delta)) {
    if (!Array.isArray(value)) merged[key] = value;
  }
  for (const collection of PLAN_COLLECTIONS) {
    merged[collection] = mergeList(
      entities(base[collection], `plan.${collection}`),
      entities(delta[collection], `delta.${collection}`),
    );
  }
  // A changed month may carry only its changed categories: merge them into the earlier month.
  const months = new Map(
    entities(base.months, 'plan.months').map((month) => [keyOf(month, 'month'), month]),
  );
  for (const change of entities(delta.months, 'delta.months')) {
    const earlier = months.get(keyOf(change, 'month'));
    const categories = mergeList(
      earlier === undefined ? [] : entities(earlier.categories, 'month.categories'),
      entities(change.categories, 'delta month.categories'),
    );
    months.set(keyOf(change, 'month'), { ...change, categories });
  }
  merged.months = [...months.values()].filter((month) => month.deleted !== true);
  return merged;
}

/** Category groups with their categories, flattened so groups and categories merge independently. */
export interface FlatCategories {
  groups: Entity[];
  categories: Entity[];
}

export function flattenCategoryGroups(groups: readonly Entity[]): FlatCategories {
  return {
    groups: groups.map(({ categories: _categories, ...group }) => group),
    categories: groups.flatMap((group) => entities(group.categories, 'category_group.categories')),
  };
}

export function replayCategories(
  base: readonly Entity[],
  delta: readonly Entity[],
): FlatCategories {
  const earlier = flattenCategoryGroups(base);
  const changes = flattenCategoryGroups(delta);
  return {
    groups: mergeList(earlier.groups, changes.groups),
    categories: mergeList(earlier.categories, changes.categories),
  };
}

/** Up to `limit` paths where two JSON values differ, with both values, for readable failures. */
export function differences(actual: unknown, expected: unknown, path = '', limit = 12): string[] {
  const found: string[] = [];
  const walk = (a: unknown, b: unknown, at: string): void => {
    if (found.length >= limit) return;
    if (Array.isArray(a) && Array.isArray(b)) {
      if (a.length !== b.length) found.push(`${at}: length ${a.length} vs ${b.length}`);
      for (let index = 0; index < Math.min(a.length, b.length); index += 1)
        walk(a[index], b[index], `${at}[${index}]`);
      return;
    }
    if (isRecord(a) && isRecord(b)) {
      for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
        const label =
          typeof a.id === 'string' ? `${at}<${a.id.slice(0, 8)}>.${key}` : `${at}.${key}`;
        if (!(key in a)) found.push(`${label}: missing in replay`);
        else if (!(key in b)) found.push(`${label}: missing in full response`);
        else walk(a[key], b[key], label);
      }
      return;
    }
    if (a !== b)
      found.push(`${at}: ${JSON.stringify(a)?.slice(0, 80)} vs ${JSON.stringify(b)?.slice(0, 80)}`);
  };
  walk(actual, expected, path);
  return found;
}
