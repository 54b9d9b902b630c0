/**
 * Categories against REST (`getCategories`, `getCategoryById`, `getMonthCategoryById`): every
 * mirrored field holds REST's value, `Plan.categories` is REST's groups flattened, and each
 * category's group is the group REST lists it under.
 */
import { describe, expect, it } from 'vitest';
import { PlanCategoriesDocument } from '../generated/operations.js';
import { expectListMirrors, expectMirrors } from '../support/mirror.js';
import { allFields } from '../support/selection.js';
import { byId, expectLink, paritySuite } from './support/parity.js';

const parity = paritySuite();

describe('categories', () => {
  it('getCategories: groups with their categories, current month amounts', async () => {
    const restCategories = await parity.rest('getCategories', `/plans/${parity.planId}/categories`);
    const data = await parity.graph<{ plan: { categoryGroups: Record<string, unknown>[] } }>(
      `query($planId: PlanId!) { plan(id: $planId) {
        categoryGroups ${allFields('CategoryGroup', { categories: allFields('Category') })} } }`,
    );
    expectListMirrors(
      restCategories.category_groups as never,
      data.plan.categoryGroups,
      'categoryGroups',
    );
  });

  it('getCategoryById and getMonthCategoryById', async () => {
    const restCategories = await parity.rest('getCategories', `/plans/${parity.planId}/categories`);
    const category = restCategories.category_groups
      .flatMap((g) => g.categories)
      .find((c) => !c.internal)!;
    const months = await parity.rest('getPlanMonths', `/plans/${parity.planId}/months`);
    const month = months.months[1]!.month;
    const restCategory = await parity.rest(
      'getCategoryById',
      `/plans/${parity.planId}/categories/${category.id}`,
    );
    const restMonthCategory = await parity.rest(
      'getMonthCategoryById',
      `/plans/${parity.planId}/months/${month}/categories/${category.id}`,
    );
    const data = await parity.graph<{
      plan: { category: Record<string, unknown> & { inMonth: unknown } };
    }>(
      `query($planId: PlanId!, $id: UUID!, $month: MonthSelector!) { plan(id: $planId) {
        category(id: $id) ${allFields('Category', { inMonth: `(month: $month) ${allFields('MonthCategory')}` })} } }`,
      { id: category.id, month },
    );
    expectMirrors(restCategory.category, data.plan.category, 'category');
    expectMirrors(restMonthCategory.category, data.plan.category.inMonth, 'category.inMonth', {
      rename: { id: 'categoryId' },
    });
  });

  it("Plan.categories is every group's categories, each with the group REST lists it under", async () => {
    const restGroups = (await parity.rest('getCategories', `/plans/${parity.planId}/categories`))
      .category_groups;
    const { plan } = await parity.graph(PlanCategoriesDocument);
    const restCategories = restGroups.flatMap((group) => group.categories);
    expect(plan!.categories.map((c) => c.id).sort()).toEqual(
      restCategories.map((c) => c.id).sort(),
    );
    const groupOf = new Map(
      restGroups.flatMap((group) => group.categories.map((c) => [c.id, group] as const)),
    );
    for (const category of plan!.categories) {
      const where = `category ${category.name}`;
      const group = groupOf.get(category.id)!;
      expect(category.categoryGroupId, `${where}.categoryGroupId`).toBe(group.id);
      expect(category.categoryGroupName, `${where}.categoryGroupName`).toBe(group.name);
      expectLink(category.group, category.categoryGroupId, byId(restGroups), `${where}.group`);
    }
    // And each group's categories are those REST lists under it, in REST's order.
    expect(plan!.categoryGroups.map((g) => [g.id, g.categories.map((c) => c.id)])).toEqual(
      restGroups.map((g) => [g.id, g.categories.map((c) => c.id)]),
    );
  });
});
