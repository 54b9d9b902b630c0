/**
 * Checks the parts of an upstream plan export the replica relies on (ids, the keys it indexes
 * by, dates, the deleted flag) and what the graph serializes as non-null (amounts as safe
 * integers, the sums that may pass 2^53 as exact integers within int64, names) before anything is merged, so a malformed response fails with an error that
 * names the field and leaves the replica as it was, instead of being stored and failing every
 * later read of the field until the next full load.
 */
import type { PlanDetail } from '@plans-gateway/rest-contract';
import { isIsoDate } from './plan-state.js';
import type { PlanExport } from './types.js';

/** Upstream data the replica cannot merge; `path` names the offending field. */
export class ReplicaDataError extends Error {
  override readonly name = 'ReplicaDataError';
  readonly code = 'GW_ERR_REPLICA_DATA';
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
const isText: Check = (value) => typeof value === 'string';
const isAmount: Check = (value) => typeof value === 'number' && Number.isSafeInteger(value);
const isAmountOrNull: Check = (value) => value === null || isAmount(value);
const INT64_MAX = 2n ** 63n - 1n;
/** A sum (`ExactMilliunits`): a safe integer, or a bigint beyond it within int64. */
const isExactAmount: Check = (value) =>
  isAmount(value) ||
  (typeof value === 'bigint' &&
    !Number.isSafeInteger(Number(value)) &&
    value >= -INT64_MAX &&
    value <= INT64_MAX);

const CHECKS = {
  string: [isString, 'a non-empty string'],
  stringOrNull: [isStringOrNull, 'a non-empty string or null'],
  boolean: [isBoolean, 'a boolean'],
  date: [isDate, 'a YYYY-MM-DD date'],
  text: [isText, 'a string'],
  amount: [isAmount, 'an integer amount in milliunits within ±(2^53 - 1)'],
  amountOrNull: [isAmountOrNull, 'an integer amount in milliunits within ±(2^53 - 1) or null'],
  exactAmount: [isExactAmount, 'an integer amount in milliunits within int64'],
} as const satisfies Record<string, readonly [Check, string]>;

type FieldRules = Readonly<Record<string, keyof typeof CHECKS>>;

/** Fields checked on live entities of each collection (deleted ones need only `id`). */
const RULES = {
  accounts: {
    name: 'text',
    on_budget: 'boolean',
    closed: 'boolean',
    balance: 'exactAmount',
    cleared_balance: 'exactAmount',
    uncleared_balance: 'exactAmount',
  },
  payees: { name: 'text' },
  payee_locations: { payee_id: 'string' },
  category_groups: { name: 'text' },
  categories: {
    category_group_id: 'string',
    name: 'text',
    budgeted: 'exactAmount',
    activity: 'exactAmount',
    balance: 'exactAmount',
    goal_target: 'amountOrNull',
  },
  transactions: {
    date: 'date',
    amount: 'amount',
    account_id: 'string',
    category_id: 'stringOrNull',
    payee_id: 'stringOrNull',
    transfer_account_id: 'stringOrNull',
    approved: 'boolean',
  },
  subtransactions: {
    transaction_id: 'string',
    amount: 'amount',
    category_id: 'stringOrNull',
    payee_id: 'stringOrNull',
  },
  scheduled_transactions: { amount: 'amount' },
  scheduled_subtransactions: { scheduled_transaction_id: 'string', amount: 'amount' },
} as const satisfies Record<string, FieldRules>;

/** Fields checked on live months (a month's categories follow `RULES.categories`). */
const MONTH_RULES = {
  income: 'exactAmount',
  budgeted: 'exactAmount',
  activity: 'exactAmount',
  to_be_budgeted: 'exactAmount',
} as const satisfies FieldRules;

/** A plan export's `data` without regard to its collections' rows (see `assertExportHead`). */
export interface ExportHead {
  readonly server_knowledge: number;
  readonly plan: PlanDetail;
}

/** Throws ReplicaDataError unless `data` has the shape of a `getPlanById` response body. */
export function assertPlanExport(data: unknown): asserts data is PlanExport {
  assertExportHead(data);
  const plan: Record<string, unknown> = { ...data.plan };
  for (const collection of Object.keys(RULES)) {
    const path = `data.plan.${collection}`;
    const list = plan[collection] as unknown[];
    for (const [index, entity] of list.entries()) {
      assertEntity(collection as CheckedCollection, entity, `${path}[${index}]`);
    }
  }
  for (const [index, month] of (plan.months as unknown[]).entries()) {
    assertMonth(month, `data.plan.months[${index}]`);
  }
}

/**
 * Throws ReplicaDataError unless `data` has the plan-level shape of a `getPlanById` body: the
 * knowledge, the plan's id and name, and every collection an array (their rows unchecked: a
 * streamed export checks them batch by batch with `assertEntity` and `assertMonth`).
 */
export function assertExportHead(data: unknown): asserts data is ExportHead {
  if (!isRecord(data)) throw new ReplicaDataError('data', 'an object', data);
  const knowledge = data.server_knowledge;
  if (typeof knowledge !== 'number' || !Number.isSafeInteger(knowledge) || knowledge < 0) {
    throw new ReplicaDataError('data.server_knowledge', 'a non-negative integer', knowledge);
  }
  const plan = data.plan;
  if (!isRecord(plan)) throw new ReplicaDataError('data.plan', 'an object', plan);
  checkField(plan, 'id', 'data.plan', 'string');
  checkField(plan, 'name', 'data.plan', 'string');
  for (const collection of [...Object.keys(RULES), 'months']) {
    const list = plan[collection];
    if (!Array.isArray(list))
      throw new ReplicaDataError(`data.plan.${collection}`, 'an array', list);
  }
}

/** Throws ReplicaDataError unless `month` is a usable month of an export, its categories too. */
export function assertMonth(month: unknown, path: string): void {
  if (!isRecord(month)) throw new ReplicaDataError(path, 'an object', month);
  checkField(month, 'month', path, 'date');
  checkField(month, 'deleted', path, 'boolean');
  if (month.deleted === true) return;
  for (const [field, rule] of Object.entries(MONTH_RULES)) checkField(month, field, path, rule);
  const categories = month.categories;
  if (!Array.isArray(categories)) {
    throw new ReplicaDataError(`${path}.categories`, 'an array', categories);
  }
  for (const [i, category] of categories.entries()) {
    checkEntity(category, `${path}.categories[${i}]`, RULES.categories);
  }
}

const REST_RULES = {
  user: {},
  plans: { name: 'text' },
  money_movements: { amount: 'amount' },
  money_movement_groups: { month: 'date' },
} as const satisfies Record<string, FieldRules>;

/**
 * Throws ReplicaDataError unless `data` holds `data[key]`, an object (`user`) or a list of
 * entities, whose fields the graph relies on have the right types; for the answers the REST
 * cache keeps (user, plan list, money movements).
 */
export function assertRestAnswer(data: unknown, key: keyof typeof REST_RULES): void {
  if (!isRecord(data)) throw new ReplicaDataError('data', 'an object', data);
  const value = data[key];
  const path = `data.${key}`;
  const rules = REST_RULES[key];
  if (key === 'user') {
    checkRecord(value, path, rules);
    return;
  }
  if (!Array.isArray(value)) throw new ReplicaDataError(path, 'an array', value);
  for (const [index, entity] of value.entries()) checkRecord(entity, `${path}[${index}]`, rules);
}

/** Private: an object with a string `id` whose fields pass `rules` (REST answers without `deleted`). */
function checkRecord(entity: unknown, path: string, rules: FieldRules): void {
  if (!isRecord(entity)) throw new ReplicaDataError(path, 'an object', entity);
  checkField(entity, 'id', path, 'string');
  for (const [field, rule] of Object.entries(rules)) checkField(entity, field, path, rule);
}

export type CheckedCollection = keyof typeof RULES;

/**
 * Throws ReplicaDataError unless `entity` is a usable entity of `collection`; `path` names it
 * (a function: called only when it fails).
 */
export function assertEntity(
  collection: CheckedCollection,
  entity: unknown,
  path: string | (() => string),
): void {
  const passes = LIVE_ROW_PASSES[collection];
  if (passes !== undefined && isRecord(entity) && isString(entity.id)) {
    if (entity.deleted === false && passes(entity)) return;
  }
  checkEntity(entity, path, RULES[collection]);
}

/**
 * `RULES` of the collections every row of a large export goes through, written out. The loop
 * of `checkEntity` reads each field by a key that changes from one read to the next, a slow
 * lookup that cost more than the checks (measured in docs/performance.md); these read each
 * field by name. They only say whether a live row passes; a row they refuse goes through
 * `checkEntity`, which names the field, so the errors are those of `RULES`.
 */
const LIVE_ROW_PASSES: Partial<
  Record<CheckedCollection, (entity: Record<string, unknown>) => boolean>
> = {
  transactions: (row) =>
    isDate(row.date) &&
    isAmount(row.amount) &&
    isString(row.account_id) &&
    isStringOrNull(row.category_id) &&
    isStringOrNull(row.payee_id) &&
    isStringOrNull(row.transfer_account_id) &&
    isBoolean(row.approved),
  subtransactions: (row) =>
    isString(row.transaction_id) &&
    isAmount(row.amount) &&
    isStringOrNull(row.category_id) &&
    isStringOrNull(row.payee_id),
};

/** The collections with a written-out check (for the test that holds them to `RULES`). */
export const WRITTEN_OUT_CHECKS = Object.keys(LIVE_ROW_PASSES) as CheckedCollection[];

/** The fields `RULES` checks on a live entity of `collection` (for tests). */
export function checkedFields(collection: CheckedCollection): readonly string[] {
  return Object.keys(RULES[collection]);
}

/** Throws ReplicaDataError unless `value` is a YYYY-MM-DD date. */
export function assertDate(value: unknown, path: string): void {
  if (!isDate(value)) throw new ReplicaDataError(path, CHECKS.date[1], value);
}

/** Private: each rule set as a list, made once (entity checks run for every row of an export). */
const RULE_LISTS = new Map<FieldRules, readonly (readonly [string, keyof typeof CHECKS])[]>();

function ruleList(rules: FieldRules): readonly (readonly [string, keyof typeof CHECKS])[] {
  let list = RULE_LISTS.get(rules);
  if (!list) {
    list = Object.entries(rules);
    RULE_LISTS.set(rules, list);
  }
  return list;
}

/**
 * Private: checks `id`, `deleted` and, on a live entity, the collection's rules. `path` may be
 * a function, called only to name a failure (building a path per row costs on large exports).
 */
function checkEntity(entity: unknown, path: string | (() => string), rules: FieldRules): void {
  const at = typeof path === 'string' ? () => path : path;
  if (!isRecord(entity)) throw new ReplicaDataError(at(), 'an object', entity);
  if (!isString(entity.id)) checkField(entity, 'id', at(), 'string');
  if (typeof entity.deleted !== 'boolean') checkField(entity, 'deleted', at(), 'boolean');
  if (entity.deleted === true) return;
  for (const [field, rule] of ruleList(rules)) {
    if (!CHECKS[rule][0](entity[field])) checkField(entity, field, at(), rule);
  }
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
