import { expect } from 'vitest';

export function camel(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T/;

export interface MirrorOptions {
  /** REST keys without a GraphQL twin on purpose. */
  skip?: readonly string[];
  /** REST key → GraphQL field name, where the name is not the camelCase of the key. */
  rename?: Readonly<Record<string, string>>;
}

/** REST values and their GraphQL forms that mean the same thing. */
function normalise(key: string, value: unknown): unknown {
  if (typeof value === 'string' && DATE_TIME.test(value)) return Date.parse(value);
  if ((key === 'latitude' || key === 'longitude') && typeof value === 'string')
    return Number(value);
  if (key === 'flag_color' && value === '') return null;
  return value;
}

/** `debt_interest_rates: { '2024-01-01': 5000 }` is `[{ date, value }]` in the graph. */
function periodic(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.entries(value as Record<string, number>)
    .map(([date, v]) => ({ date, value: v }))
    .sort((a, b) => a.date.localeCompare(b.date));
}

/**
 * Asserts that every field of a REST object has a GraphQL twin (the camelCase name) holding
 * the same value, recursing into nested objects and lists. `where` names the object in failures.
 */
export function expectMirrors(
  rest: unknown,
  graph: unknown,
  where: string,
  options: MirrorOptions = {},
): void {
  expect(graph, `${where} is missing in the GraphQL answer`).toBeTypeOf('object');
  expect(graph, `${where} is missing in the GraphQL answer`).not.toBeNull();
  const restObject = rest as Record<string, unknown>;
  const graphObject = graph as Record<string, unknown>;
  for (const [key, raw] of Object.entries(restObject)) {
    if (options.skip?.includes(key)) continue;
    const name = options.rename?.[key] ?? camel(key);
    expect(graphObject, `${where}.${key} has no GraphQL field ${name}`).toHaveProperty(name);
    const mirror = graphObject[name];
    if (
      key.startsWith('debt_') &&
      key !== 'debt_original_balance' &&
      key !== 'debt_transaction_type'
    ) {
      expect(mirror, `${where}.${key}`).toEqual(periodic(raw));
    } else if (Array.isArray(raw)) {
      expect(Array.isArray(mirror), `${where}.${key} is not a list in GraphQL`).toBe(true);
      expect((mirror as unknown[]).length, `${where}.${key} length`).toBe(raw.length);
      raw.forEach((item, i) => {
        if (item !== null && typeof item === 'object') {
          expectMirrors(item, (mirror as unknown[])[i], `${where}.${key}[${i}]`, options);
        } else {
          expect((mirror as unknown[])[i], `${where}.${key}[${i}]`).toEqual(item);
        }
      });
    } else if (raw !== null && typeof raw === 'object') {
      expectMirrors(raw, mirror, `${where}.${key}`, options);
    } else {
      expect(normalise(key, mirror), `${where}.${key}`).toEqual(normalise(key, raw));
    }
  }
}

/** Compares two lists of REST objects and GraphQL objects matched by id. */
export function expectListMirrors(
  rest: readonly Record<string, unknown>[],
  graph: readonly Record<string, unknown>[],
  where: string,
  options: MirrorOptions & { idKey?: string; graphIdKey?: string } = {},
): void {
  const idKey = options.idKey ?? 'id';
  const graphIdKey = options.graphIdKey ?? camel(idKey);
  expect(graph.length, `${where}: number of items`).toBe(rest.length);
  const byId = new Map(graph.map((g) => [String(g[graphIdKey]), g]));
  for (const item of rest) {
    const id = String(item[idKey]);
    expectMirrors(item, byId.get(id), `${where}[${id}]`, options);
  }
}
