/**
 * Checks the parts of an upstream plan export the replica relies on (ids, the keys it indexes
 * by, dates, the deleted flag) before anything is merged, so a malformed response fails with an
 * error that names the field and leaves the replica as it was.
 */
import type { ResponseData } from '../upstream/types.js';
import { isIsoDate } from './plan-state.js';

/** Upstream data the replica cannot merge; `path` names the offending field. */
export class ReplicaDataError extends Error {
  override readonly name = 'ReplicaDataError';
  constructor(
    readonly path: string,
    expected: string,
    received: unknown,
  ) {
    super(`${path} must be ${expected}, got ${describe(received)}`);
  }
}

type Check = (value: unknown) => boolean;

const isString: Check = (value) => typeof value === 'string' && value.length > 0;
const isStringOrNull: Check = (value) => value === null || isString(value);
const isBoolean: Check = (value) => typeof value === 'boolean';
const isDate: Check = isIsoDate;

const CHECKS = {
  string: [isString, 'a non-empty string'],
  stringOrNull: [isStringOrNull, 'a non-empty string or null'],
  boolean: [isBoolean, 'a boolean'],
  date: [isDate, 'a YYYY-MM-DD date'],
} as const satisfies Record<string, readonly [Check, string]>;

type FieldRules = Readonly<Record<string, keyof typeof CHECKS>>;

/** Fields checked on live entities of each collection (deleted ones need only `id`). */
const RULES = {
  accounts: { on_budget: 'boolean' },
  payees: {},
  payee_locations: { payee_id: 'string' },
  category_groups: {},
  categories: { category_group_id: 'string' },
  transactions: {
    date: 'date',
    account_id: 'string',
    category_id: 'stringOrNull',
    payee_id: 'stringOrNull',
    transfer_account_id: 'stringOrNull',
    approved: 'boolean',
  },
  subtransactions: {
    transaction_id: 'string',
    category_id: 'stringOrNull',
    payee_id: 'stringOrNull',
  },
  scheduled_transactions: {},
  scheduled_subtransactions: { scheduled_transaction_id: 'string' },
} as const satisfies Record<string, FieldRules>;

/** Throws ReplicaDataError unless `data` has the shape of a `getPlanById` response body. */
export function assertPlanExport(data: unknown): asserts data is ResponseData['getPlanById'] {
  if (!isRecord(data)) throw new ReplicaDataError('data', 'an object', data);
  const knowledge = data.server_knowledge;
  if (typeof knowledge !== 'number' || !Number.isSafeInteger(knowledge) || knowledge < 0) {
    throw new ReplicaDataError('data.server_knowledge', 'a non-negative integer', knowledge);
  }
  const plan = data.plan;
  if (!isRecord(plan)) throw new ReplicaDataError('data.plan', 'an object', plan);
  checkField(plan, 'id', 'data.plan', 'string');
  checkField(plan, 'name', 'data.plan', 'string');
  for (const [collection, rules] of Object.entries(RULES)) {
    const path = `data.plan.${collection}`;
    const list = plan[collection];
    if (!Array.isArray(list)) throw new ReplicaDataError(path, 'an array', list);
    for (const [index, entity] of list.entries()) checkEntity(entity, `${path}[${index}]`, rules);
  }
  const months = plan.months;
  if (!Array.isArray(months)) throw new ReplicaDataError('data.plan.months', 'an array', months);
  months.forEach((month, index) => {
    const path = `data.plan.months[${index}]`;
    if (!isRecord(month)) throw new ReplicaDataError(path, 'an object', month);
    checkField(month, 'month', path, 'date');
    checkField(month, 'deleted', path, 'boolean');
    if (month.deleted === true) return;
    const categories = month.categories;
    if (!Array.isArray(categories)) {
      throw new ReplicaDataError(`${path}.categories`, 'an array', categories);
    }
    for (const [i, category] of categories.entries()) {
      checkEntity(category, `${path}.categories[${i}]`, RULES.categories);
    }
  });
}

export type CheckedCollection = keyof typeof RULES;

/** Throws ReplicaDataError unless `entity` is a usable entity of `collection`. */
export function assertEntity(collection: CheckedCollection, entity: unknown, path: string): void {
  checkEntity(entity, path, RULES[collection]);
}

/** Throws ReplicaDataError unless `value` is a YYYY-MM-DD date. */
export function assertDate(value: unknown, path: string): void {
  if (!isDate(value)) throw new ReplicaDataError(path, CHECKS.date[1], value);
}

/** Private: checks `id`, `deleted` and, on a live entity, the collection's rules. */
function checkEntity(entity: unknown, path: string, rules: FieldRules): void {
  if (!isRecord(entity)) throw new ReplicaDataError(path, 'an object', entity);
  checkField(entity, 'id', path, 'string');
  checkField(entity, 'deleted', path, 'boolean');
  if (entity.deleted === true) return;
  for (const [field, rule] of Object.entries(rules)) checkField(entity, field, path, rule);
}

/** Private: throws unless `record[field]` passes `rule`. */
function checkField(
  record: Record<string, unknown>,
  field: string,
  path: string,
  rule: keyof typeof CHECKS,
): void {
  const [check, expected] = CHECKS[rule];
  if (!check(record[field]))
    throw new ReplicaDataError(`${path}.${field}`, expected, record[field]);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Private: a short, safe rendering of a received value for error messages. */
function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string')
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (Array.isArray(value)) return 'an array';
  if (value === null || typeof value !== 'object') return String(value);
  return 'an object';
}
