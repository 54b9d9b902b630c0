/**
 * The official SDK against the sandbox: categories, month categories and category groups,
 * and the money movements an assignment records.
 */
import type { Category, CurrencyFormat } from '@plans-gateway/rest-contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectConforms, expectError } from './support/expect-response.js';
import { dataOf } from './support/rest.js';
import type { TestSandbox } from './support/sandbox.js';
import { type RecordingApi, sdkError, startSdkSuite } from './support/sdk.js';

const CURRENT_MONTH = '2025-06-01';
const LAST_MONTH = '2025-05-01';

let box: TestSandbox;
let api: RecordingApi;
let currency: CurrencyFormat | null;

beforeAll(async () => {
  ({ box, api, currency } = await startSdkSuite({ transactions: 150 }));
});

afterAll(async () => {
  await box.close();
});

/** Categories a user can edit: outside internal groups (the SDK drops `internal`, so read raw). */
async function userCategories(): Promise<Category[]> {
  const groups = dataOf(
    await box.rest.get(`/plans/${box.planId}/categories`),
    'getCategories',
  ).category_groups;
  return groups
    .filter((g) => !g.internal && !/credit card/i.test(g.name))
    .flatMap((g) => g.categories.filter((c) => !c.internal && !c.deleted));
}

async function firstUserCategory(offset = 0): Promise<Category> {
  const category = (await userCategories())[offset];
  if (category === undefined) throw new Error('the seed has too few user categories');
  return category;
}

describe('categories', () => {
  it('lists categories grouped by their group, with the server knowledge', async () => {
    const response = await api.categories.getCategories(box.planId);
    expectConforms(api.last(), 'getCategories', 200, currency);
    expect(response.data.server_knowledge).toBeGreaterThan(0);
    for (const group of response.data.category_groups) {
      for (const category of group.categories) {
        expect(category.category_group_id).toBe(group.id);
        expect(category.category_group_name).toBe(group.name);
      }
    }
    expect(
      response.data.category_groups.some((g) =>
        g.categories.some((c) => c.goal_type !== undefined),
      ),
    ).toBe(true);
    const raw = dataOf(api.last(), 'getCategories');
    expect(raw.category_groups.some((g) => g.internal)).toBe(true);
  });

  it("gives the current month's amounts in the list and in the single read", async () => {
    const month = (await api.months.getPlanMonth(box.planId, CURRENT_MONTH)).data.month;
    const categories = await userCategories();
    for (const category of categories) {
      const inMonth = month.categories.find((c) => c.id === category.id);
      expect({
        budgeted: category.budgeted,
        activity: category.activity,
        balance: category.balance,
      }).toEqual({
        budgeted: inMonth?.budgeted,
        activity: inMonth?.activity,
        balance: inMonth?.balance,
      });
    }
  });

  it('reads one category without server knowledge', async () => {
    const category = await firstUserCategory();
    await api.categories.getCategoryById(box.planId, category.id);
    expectConforms(api.last(), 'getCategoryById', 200, currency);
    const body = api.last().body as { data: Record<string, unknown> };
    expect(Object.keys(body.data)).toEqual(['category']);
    await api.categories.getCategories(box.planId);
    const listed = (
      api.last().body as { data: { category_groups: { categories: { id: string }[] }[] } }
    ).data.category_groups
      .flatMap((g) => g.categories)
      .find((c) => c.id === category.id);
    expect(body.data.category).toEqual(listed);
  });

  it('updates name and note (200) and shows them in later reads', async () => {
    const category = await firstUserCategory(1);
    const response = await api.categories.updateCategory(box.planId, category.id, {
      category: { name: 'Renamed by SDK', note: 'a note' },
    });
    expectConforms(api.last(), 'updateCategory', 200, currency);
    expect(response.data.category).toMatchObject({
      id: category.id,
      name: 'Renamed by SDK',
      note: 'a note',
    });
    const read = await api.categories.getCategoryById(box.planId, category.id);
    expect(read.data.category.name).toBe('Renamed by SDK');
    expect(read.data.category.note).toBe('a note');
  });

  it('creates a NEED goal when a goal target is set on a category without one', async () => {
    const group = (await userCategories())[0]?.category_group_id ?? '';
    const category = (
      await api.categories.createCategory(box.planId, {
        category: { name: 'No goal yet', category_group_id: group },
      })
    ).data.category;
    expect(category.goal_type).toBeUndefined();
    const response = await api.categories.updateCategory(box.planId, category.id, {
      category: { goal_target: 250_000 },
    });
    expectConforms(api.last(), 'updateCategory', 200, currency);
    expect(response.data.category.goal_target).toBe(250_000);
    expect(response.data.category.goal_type).toBe('NEED');
    const raw = (api.last().body as { data: { category: { goal_needs_whole_amount: unknown } } })
      .data.category;
    expect(typeof raw.goal_needs_whole_amount).toBe('boolean');

    const refill = await api.categories.updateCategory(box.planId, category.id, {
      category: { goal_needs_whole_amount: false },
    });
    expect(refill.data.category.goal_needs_whole_amount).toBe(false);
    const setAside = await api.categories.updateCategory(box.planId, category.id, {
      category: { goal_needs_whole_amount: true },
    });
    expect(setAside.data.category.goal_needs_whole_amount).toBe(true);
  });

  it('keeps goal_needs_whole_amount null for goals that are not NEED', async () => {
    await api.plans.getPlanById(box.planId);
    const categories = (
      api.last().body as {
        data: {
          plan: { categories: { goal_type: string | null; goal_needs_whole_amount: unknown }[] };
        };
      }
    ).data.plan.categories;
    for (const category of categories) {
      if (category.goal_type !== 'NEED') expect(category.goal_needs_whole_amount).toBeNull();
    }
  });

  it('moves a category to another group', async () => {
    const groups = dataOf(
      await box.rest.get(`/plans/${box.planId}/categories`),
      'getCategories',
    ).category_groups;
    const [from, to] = groups.filter((g) => !g.internal && g.categories.length > 0);
    const category = from?.categories[0];
    if (from === undefined || to === undefined || category === undefined)
      throw new Error('the seed needs two user groups');
    await api.categories.updateCategory(box.planId, category.id, {
      category: { category_group_id: to.id },
    });
    const after = (await api.categories.getCategories(box.planId)).data.category_groups;
    expect(after.find((g) => g.id === to.id)?.categories.map((c) => c.id)).toContain(category.id);
    expect(after.find((g) => g.id === from.id)?.categories.map((c) => c.id)).not.toContain(
      category.id,
    );
    expect(
      (await api.categories.getCategoryById(box.planId, category.id)).data.category
        .category_group_name,
    ).toBe(to.name);
  });

  it('answers a delta request with the categories changed since the knowledge', async () => {
    const knowledge = (await api.categories.getCategories(box.planId)).data.server_knowledge;
    const empty = await api.categories.getCategories(box.planId, knowledge);
    expect(empty.data.category_groups.flatMap((g) => g.categories)).toEqual([]);
    const category = await firstUserCategory(2);
    await api.categories.updateCategory(box.planId, category.id, {
      category: { note: 'delta note' },
    });
    const delta = await api.categories.getCategories(box.planId, knowledge);
    expectConforms(api.last(), 'getCategories', 200, currency);
    expect(delta.data.category_groups.flatMap((g) => g.categories).map((c) => c.id)).toEqual([
      category.id,
    ]);
  });

  it('refuses an unknown category with 404.2', async () => {
    await sdkError(
      api.categories.getCategoryById(box.planId, '5d1c6c4e-0000-4000-8000-000000000002'),
    );
    expectError(api.last(), 404, '404.2', 'resource_not_found');
  });
});

describe('month categories', () => {
  it('reads a category in a given month, as the month shows it, without server knowledge', async () => {
    const category = await firstUserCategory();
    await api.categories.getMonthCategoryById(box.planId, LAST_MONTH, category.id);
    expectConforms(api.last(), 'getMonthCategoryById', 200, currency);
    const body = api.last().body as { data: Record<string, unknown> };
    expect(Object.keys(body.data)).toEqual(['category']);
    await api.months.getPlanMonth(box.planId, LAST_MONTH);
    const month = (api.last().body as { data: { month: { categories: { id: string }[] } } }).data
      .month;
    expect(body.data.category).toEqual(month.categories.find((c) => c.id === category.id));
    await api.categories.getMonthCategoryById(box.planId, 'current', category.id);
    expect(api.last().body).toEqual(
      (await box.rest.get(`/plans/${box.planId}/categories/${category.id}`)).body,
    );
  });

  it('assigns an amount (200): balance and the month total follow, and a money movement is recorded', async () => {
    // A category that ends last month with money left, so the whole assignment carries over.
    const lastMonth = (await api.months.getPlanMonth(box.planId, LAST_MONTH)).data.month;
    const userIds = new Set((await userCategories()).map((c) => c.id));
    const category = lastMonth.categories.find((c) => userIds.has(c.id) && c.balance >= 0);
    if (category === undefined)
      throw new Error('no user category ends last month at or above zero');
    const before = (await api.categories.getMonthCategoryById(box.planId, LAST_MONTH, category.id))
      .data.category;
    const monthBefore = (await api.months.getPlanMonth(box.planId, LAST_MONTH)).data.month;
    const movementsBefore = (
      await api.moneyMovements.getMoneyMovements(box.planId)
    ).data.money_movements.map((m) => m.id);
    const currentBefore = (
      await api.categories.getMonthCategoryById(box.planId, CURRENT_MONTH, category.id)
    ).data.category;
    const budgeted = before.budgeted + 77_000;

    const response = await api.categories.updateMonthCategory(box.planId, LAST_MONTH, category.id, {
      category: { budgeted },
    });
    expectConforms(api.last(), 'updateMonthCategory', 200, currency);
    expect(response.data.category.budgeted).toBe(budgeted);
    expect(response.data.category.balance).toBe(before.balance + 77_000);
    expect(response.data.server_knowledge).toBeGreaterThan(0);

    const after = (await api.categories.getMonthCategoryById(box.planId, LAST_MONTH, category.id))
      .data.category;
    expect(after.budgeted).toBe(budgeted);
    const monthAfter = (await api.months.getPlanMonth(box.planId, LAST_MONTH)).data.month;
    expect(monthAfter.budgeted).toBe(monthBefore.budgeted + 77_000);
    expect(monthAfter.to_be_budgeted).toBe(monthBefore.to_be_budgeted - 77_000);
    // What is available at the end of a month carries into the next one.
    const current = (
      await api.categories.getMonthCategoryById(box.planId, CURRENT_MONTH, category.id)
    ).data.category;
    expect(current.balance).toBe(currentBefore.balance + 77_000);

    const movements = (await api.moneyMovements.getMoneyMovements(box.planId)).data.money_movements;
    const recorded = movements.filter((m) => !movementsBefore.includes(m.id));
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({
      month: LAST_MONTH,
      to_category_id: category.id,
      amount: 77_000,
    });
    expect(recorded[0]?.from_category_id).toBeUndefined();
    const groups = (await api.moneyMovements.getMoneyMovementGroups(box.planId)).data
      .money_movement_groups;
    const group = groups.find((g) => g.id === recorded[0]?.money_movement_group_id);
    expect(group?.month).toBe(LAST_MONTH);
    // Who and when come from the token's user and the sandbox clock.
    const userId = box.sandbox.users[0]?.userId;
    expect(recorded[0]?.performed_by_user_id).toBe(userId);
    expect(Date.parse(recorded[0]?.moved_at ?? '')).toBe(box.clock.now());
    expect(group?.performed_by_user_id).toBe(userId);
    expect(Date.parse(group?.group_created_at ?? '')).toBe(box.clock.now());
  });

  it('records a decrease as money moved out of the category', async () => {
    const category = await firstUserCategory(2);
    const before = (
      await api.categories.getMonthCategoryById(box.planId, CURRENT_MONTH, category.id)
    ).data.category;
    await api.categories.updateMonthCategory(box.planId, CURRENT_MONTH, category.id, {
      category: { budgeted: before.budgeted + 50_000 },
    });
    const known = new Set(
      (await api.moneyMovements.getMoneyMovements(box.planId)).data.money_movements.map(
        (m) => m.id,
      ),
    );
    await api.categories.updateMonthCategory(box.planId, CURRENT_MONTH, category.id, {
      category: { budgeted: before.budgeted + 30_000 },
    });
    const recorded = (
      await api.moneyMovements.getMoneyMovements(box.planId)
    ).data.money_movements.filter((m) => !known.has(m.id));
    expect(recorded).toHaveLength(1);
    const [movement] = recorded;
    const outOf =
      movement?.from_category_id === category.id &&
      movement.to_category_id === undefined &&
      movement.amount === 20_000;
    const negativeInto =
      movement?.to_category_id === category.id &&
      movement.from_category_id === undefined &&
      movement.amount === -20_000;
    expect(outOf || negativeInto, JSON.stringify(movement)).toBe(true);
  });

  it('applies only budgeted and ignores the other fields of the body', async () => {
    const category = await firstUserCategory(0);
    const response = await box.rest.patch(
      `/plans/${box.planId}/months/${CURRENT_MONTH}/categories/${category.id}`,
      {
        category: { budgeted: 12_340, name: 'Ignored name', note: 'ignored note' },
      },
    );
    const saved = dataOf(response, 'updateMonthCategory').category;
    expect(saved.budgeted).toBe(12_340);
    expect(saved.name).toBe(category.name);
    expect(saved.note).toBe(category.note ?? null);
  });

  it('accepts the current month alias for assignments', async () => {
    const category = await firstUserCategory(1);
    const response = await api.categories.updateMonthCategory(box.planId, 'current', category.id, {
      category: { budgeted: 4_000 },
    });
    expect(response.data.category.budgeted).toBe(4_000);
    const read = await api.categories.getMonthCategoryById(box.planId, CURRENT_MONTH, category.id);
    expect(read.data.category.budgeted).toBe(4_000);
  });
});

describe('category groups and new categories', () => {
  it('creates a group (201) that the category list shows empty', async () => {
    const response = await api.categories.createCategoryGroup(box.planId, {
      category_group: { name: 'SDK group' },
    });
    expectConforms(api.last(), 'createCategoryGroup', 201, currency);
    expect(dataOf(api.last(), 'createCategoryGroup', 201).category_group).toMatchObject({
      name: 'SDK group',
      hidden: false,
      internal: false,
      deleted: false,
    });
    const groups = (await api.categories.getCategories(box.planId)).data.category_groups;
    expect(groups.find((g) => g.id === response.data.category_group.id)?.categories).toEqual([]);
  });

  it('renames a group (200) and its categories carry the new group name', async () => {
    const groups = dataOf(
      await box.rest.get(`/plans/${box.planId}/categories`),
      'getCategories',
    ).category_groups;
    const group = groups.find((g) => !g.internal && g.categories.length > 0);
    if (group === undefined) throw new Error('the seed has no user group with categories');
    const response = await api.categories.updateCategoryGroup(box.planId, group.id, {
      category_group: { name: 'Renamed group' },
    });
    expectConforms(api.last(), 'updateCategoryGroup', 200, currency);
    expect(response.data.category_group.name).toBe('Renamed group');
    const category = group.categories[0];
    if (category === undefined) throw new Error('unreachable');
    expect(
      (await api.categories.getCategoryById(box.planId, category.id)).data.category
        .category_group_name,
    ).toBe('Renamed group');
  });

  it('creates a category (201) in a group, visible in the list and in every month', async () => {
    const group = (
      await api.categories.createCategoryGroup(box.planId, {
        category_group: { name: 'Holds new' },
      })
    ).data.category_group;
    const response = await api.categories.createCategory(box.planId, {
      category: {
        name: 'Brand new',
        category_group_id: group.id,
        note: 'fresh',
        goal_target: 90_000,
      },
    });
    expectConforms(api.last(), 'createCategory', 201, currency);
    const category = response.data.category;
    expect(category).toMatchObject({
      name: 'Brand new',
      category_group_id: group.id,
      note: 'fresh',
      goal_target: 90_000,
      goal_type: 'NEED',
    });
    expect(category.budgeted).toBe(0);
    expect(category.activity).toBe(0);
    const groups = (await api.categories.getCategories(box.planId)).data.category_groups;
    expect(groups.find((g) => g.id === group.id)?.categories.map((c) => c.id)).toEqual([
      category.id,
    ]);
    const month = (await api.months.getPlanMonth(box.planId, CURRENT_MONTH)).data.month;
    expect(month.categories.map((c) => c.id)).toContain(category.id);
  });
});
