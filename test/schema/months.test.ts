/**
 * Months against REST (`getPlanMonths`, `getPlanMonth`, `getMonthCategoryById`): every mirrored
 * field holds REST's value, and a month's categories name the category and the group REST gives
 * them.
 */
import { describe, expect, it } from 'vitest';
import { MonthLinksDocument } from '../generated/operations.js';
import { expectListMirrors, expectMirrors } from '../support/mirror.js';
import { allFields } from '../support/selection.js';
import { byId, expectLink, paritySuite } from './support/parity.js';

const parity = paritySuite();

describe('months', () => {
  it('getPlanMonths', async () => {
    const restMonths = await parity.rest('getPlanMonths', `/plans/${parity.planId}/months`);
    const data = await parity.graph<{ plan: { months: Record<string, unknown>[] } }>(
      `query($planId: PlanId!) { plan(id: $planId) { months ${allFields('Month')} } }`,
    );
    expectListMirrors(restMonths.months as never, data.plan.months, 'months', {
      idKey: 'month',
    });
  });

  it.each(['current', 'an earlier month'])(
    'getPlanMonth for %s, with its categories',
    async (which) => {
      const restMonths = await parity.rest('getPlanMonths', `/plans/${parity.planId}/months`);
      const month = which === 'current' ? 'current' : restMonths.months.at(-3)!.month;
      const restMonth = await parity.rest(
        'getPlanMonth',
        `/plans/${parity.planId}/months/${month}`,
      );
      const data = await parity.graph<{ plan: { month: unknown } }>(
        `query($planId: PlanId!, $month: MonthSelector!) { plan(id: $planId) {
        month(month: $month) ${allFields('Month', { categories: allFields('MonthCategory') })} } }`,
        { month },
      );
      expectMirrors(restMonth.month, data.plan.month, 'month', { rename: { id: 'categoryId' } });
    },
  );

  it("a month's categories name REST's category and group; Month.category(id) is getMonthCategoryById", async () => {
    const restMonths = await parity.rest('getPlanMonths', `/plans/${parity.planId}/months`);
    const month = restMonths.months.at(-2)!.month;
    const restGroups = (await parity.rest('getCategories', `/plans/${parity.planId}/categories`))
      .category_groups;
    const categories = byId(restGroups.flatMap((group) => group.categories));
    const chosen = [...categories.values()].find((c) => !c.internal)!;
    const restMonthCategory = (
      await parity.rest(
        'getMonthCategoryById',
        `/plans/${parity.planId}/months/${month}/categories/${chosen.id}`,
      )
    ).category;

    const data = await parity.graph(MonthLinksDocument, { month, categoryId: chosen.id });
    const graphMonth = data.plan!.month!;
    expect(graphMonth.month).toBe(month);
    expect(graphMonth.planId).toBe(parity.planId);
    expect(graphMonth.plan.id).toBe(parity.planId);
    expect(graphMonth.categories.length).toBeGreaterThan(0);
    for (const row of graphMonth.categories) {
      const where = `month ${month} category ${row.name}`;
      expectLink(row.category, row.categoryId, categories, `${where}.category`);
      expectLink(row.group, row.categoryGroupId, byId(restGroups), `${where}.group`);
    }
    expect(graphMonth.category).toEqual({
      categoryId: chosen.id,
      month,
      budgeted: restMonthCategory.budgeted,
      activity: restMonthCategory.activity,
      balance: restMonthCategory.balance,
    });
  });
});
