/**
 * Categories, month categories and category groups.
 *
 * Delta rule of GET /categories: a group appears when the group itself or any of its categories
 * changed; its `categories` then holds only the changed categories (an empty list when only the
 * group changed). A category counts as changed when its record or its current-month amounts did.
 */
import type { CategoryGroupWithCategories } from '@plans-gateway/rest-contract';
import { addMonths, monthsBetween } from '../core/dates.js';
import { badRequest, resourceNotFound } from '../core/errors.js';
import type { Exactly } from '../core/exact.js';
import {
  orderedCategories,
  presentCategoryGroup,
  presentCurrentCategory,
  presentMonthCategory,
} from '../present/entities.js';
import { addCategoryToMonths, ensureMonth, setBudgeted } from '../store/budget.js';
import { NO_GOAL } from '../store/goals.js';
import { assignmentMovement, recordMoneyMovements } from '../store/money-movements.js';
import type { PlanStore } from '../store/plan-store.js';
import type { CategoryGroupRecord, CategoryRecord } from '../store/records.js';
import { touchRecordsShowing } from '../store/transactions.js';
import {
  type CategoryChanges,
  nextGoal,
  readCategoryGroupName,
  readCategoryName,
  readNote,
  readTargetGroup,
} from '../validate/category.js';
import { assertAssignmentExact } from '../validate/exact-totals.js';
import { readInteger, requirePresent } from '../validate/fields.js';
import { readKnowledgeParam } from '../validate/query.js';
import {
  bodyObject,
  created,
  type Handler,
  type HandlerContext,
  idParam,
  moneyOf,
  monthParam,
  ok,
  useMonth,
  usePlan,
  write,
} from './context.js';
import { currentCategoryKnowledge } from './plans.js';

/** How far ahead of the current month an assignment may be made (months are created on demand). */
const FUTURE_MONTHS_ALLOWED = 12;

function liveCategory(store: PlanStore, ctx: HandlerContext): CategoryRecord {
  const id = idParam(ctx, 'category_id');
  const category = store.liveCategory(id);
  if (!category) throw resourceNotFound(`Category '${id}' was not found`);
  return category;
}

const getCategories: Handler<'getCategories'> = (ctx) => {
  const since = readKnowledgeParam(ctx.query);
  const { store } = usePlan(ctx);
  const money = moneyOf(store);
  const byGroup = new Map<string, CategoryRecord[]>();
  for (const category of orderedCategories(store)) {
    const changed =
      since === null ? !category.deleted : currentCategoryKnowledge(store, category.id) > since;
    if (!changed) continue;
    const list = byGroup.get(category.category_group_id) ?? [];
    list.push(category);
    byGroup.set(category.category_group_id, list);
  }
  const groups: Exactly<CategoryGroupWithCategories>[] = [];
  for (const group of store.categoryGroups.values()) {
    const categories = byGroup.get(group.id) ?? [];
    const include =
      since === null ? !group.deleted : group.knowledge > since || categories.length > 0;
    if (!include) continue;
    groups.push({
      ...presentCategoryGroup(group),
      categories: categories.map((category) => presentCurrentCategory(store, category, money)),
    });
  }
  return ok({ category_groups: groups, server_knowledge: store.knowledge });
};

const getCategoryById: Handler<'getCategoryById'> = (ctx) => {
  const { store } = usePlan(ctx);
  return ok({ category: presentCurrentCategory(store, liveCategory(store, ctx), moneyOf(store)) });
};

/** Private: applies validated changes, touching whatever shows the changed names. */
function applyCategoryChanges(
  store: PlanStore,
  category: CategoryRecord,
  changes: CategoryChanges,
): void {
  if (changes.name !== undefined && changes.name !== category.name) {
    category.name = changes.name;
    touchRecordsShowing(store, 'category', category.id);
  }
  if (changes.note !== undefined) category.note = changes.note;
  if (changes.groupId !== undefined) category.category_group_id = changes.groupId;
  if (changes.goal !== undefined) Object.assign(category, changes.goal);
  store.touch(category);
}

const createCategory: Handler<'createCategory'> = (ctx) => {
  const entry = usePlan(ctx);
  const { store, newId } = entry;
  const body = bodyObject(ctx, 'category');
  const name = readCategoryName(requirePresent(body.name, 'category.name'), 'category.name');
  const group = readTargetGroup(store, body.category_group_id, 'category.category_group_id');
  const note = body.note === undefined ? null : readNote(body.note, 'category.note');
  const goal = nextGoal(NO_GOAL, body, 'regular', ctx.today, 'category');
  const category = write(ctx, entry, () => {
    const record: CategoryRecord = {
      id: newId(),
      category_group_id: group.id,
      name,
      hidden: false,
      internal: false,
      note,
      deleted: false,
      role: 'regular',
      creditCardAccountId: null,
      knowledge: 0,
      ...goal,
    };
    store.categories.set(record.id, record);
    store.touch(record);
    addCategoryToMonths(store, record);
    return record;
  });
  return created({
    category: presentCurrentCategory(store, category, moneyOf(store)),
    server_knowledge: store.knowledge,
  });
};

const updateCategory: Handler<'updateCategory'> = (ctx) => {
  const entry = usePlan(ctx);
  const { store } = entry;
  const category = liveCategory(store, ctx);
  const body = bodyObject(ctx, 'category');
  if (category.internal)
    throw badRequest(`'${category.name}' is an internal category and cannot be changed`);
  const changes: CategoryChanges = {};
  if (body.name !== undefined && body.name !== null)
    changes.name = readCategoryName(body.name, 'category.name');
  if (body.note !== undefined) changes.note = readNote(body.note, 'category.note');
  if (body.category_group_id !== undefined) {
    changes.groupId = readTargetGroup(
      store,
      body.category_group_id,
      'category.category_group_id',
    ).id;
  }
  changes.goal = nextGoal(category, body, category.role, ctx.today, 'category');
  write(ctx, entry, () => applyCategoryChanges(store, category, changes));
  return ok({
    category: presentCurrentCategory(store, category, moneyOf(store)),
    server_knowledge: store.knowledge,
  });
};

const getMonthCategoryById: Handler<'getMonthCategoryById'> = (ctx) => {
  const { store } = usePlan(ctx);
  const month = useMonth(ctx, store);
  return ok({
    category: presentMonthCategory(store, liveCategory(store, ctx), month, moneyOf(store)),
  });
};

/**
 * Sets the assigned amount of a category in a month (other body fields are ignored) and records
 * the difference as a money movement from or to Ready to Assign. Months up to a year after the
 * current one are created on demand.
 */
const updateMonthCategory: Handler<'updateMonthCategory'> = (ctx) => {
  const entry = usePlan(ctx);
  const { store, newId } = entry;
  const monthKey = monthParam(ctx, store);
  const latest = addMonths(store.currentMonth, FUTURE_MONTHS_ALLOWED);
  if (
    !store.monthsByKey.has(monthKey) &&
    (monthKey < store.firstMonth || monthsBetween(latest, monthKey) > 0)
  ) {
    throw resourceNotFound(
      `Month ${monthKey} was not found; assignments are possible from ${store.firstMonth} to ${latest}`,
    );
  }
  const category = liveCategory(store, ctx);
  const body = bodyObject(ctx, 'category');
  const budgeted = readInteger(
    requirePresent(body.budgeted, 'category.budgeted'),
    'category.budgeted',
  );
  if (category.role === 'readyToAssign')
    throw badRequest(`'${category.name}' cannot be assigned money`);
  assertAssignmentExact(store, monthKey, category.id, budgeted);
  const month = write(ctx, entry, () => {
    const record = ensureMonth(store, monthKey);
    const before = record.categories.get(category.id)?.budgeted ?? 0;
    setBudgeted(store, record, category.id, budgeted);
    const movement = assignmentMovement(category.id, before, budgeted);
    if (movement) {
      recordMoneyMovements(store, newId, {
        month: monthKey,
        at: ctx.now,
        note: null,
        userId: ctx.user.id,
        movements: [movement],
      });
    }
    return record;
  });
  return ok({
    category: presentMonthCategory(store, category, month, moneyOf(store)),
    server_knowledge: store.knowledge,
  });
};

const createCategoryGroup: Handler<'createCategoryGroup'> = (ctx) => {
  const entry = usePlan(ctx);
  const { store, newId } = entry;
  const name = readCategoryGroupName(bodyObject(ctx, 'category_group'), 'category_group');
  const group = write(ctx, entry, () => {
    const record: CategoryGroupRecord = {
      id: newId(),
      name,
      hidden: false,
      internal: false,
      deleted: false,
      knowledge: 0,
    };
    store.categoryGroups.set(record.id, record);
    store.touch(record);
    return record;
  });
  return created({
    category_group: presentCategoryGroup(group),
    server_knowledge: store.knowledge,
  });
};

const updateCategoryGroup: Handler<'updateCategoryGroup'> = (ctx) => {
  const entry = usePlan(ctx);
  const { store } = entry;
  const id = idParam(ctx, 'category_group_id');
  const group = store.categoryGroups.get(id);
  if (!group || group.deleted) throw resourceNotFound(`Category group '${id}' was not found`);
  const name = readCategoryGroupName(bodyObject(ctx, 'category_group'), 'category_group');
  if (group.internal)
    throw badRequest(`'${group.name}' is an internal category group and cannot be changed`);
  write(ctx, entry, () => {
    if (name === group.name) return;
    group.name = name;
    store.touch(group);
    // Categories show their group's name.
    for (const category of store.categories.values()) {
      if (category.category_group_id === group.id) store.touch(category);
    }
  });
  return ok({ category_group: presentCategoryGroup(group), server_knowledge: store.knowledge });
};

export const categoryHandlers = {
  getCategories,
  getCategoryById,
  createCategory,
  updateCategory,
  getMonthCategoryById,
  updateMonthCategory,
  createCategoryGroup,
  updateCategoryGroup,
};
