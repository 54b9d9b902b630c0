/** The official SDK against the sandbox: months, the `current` alias, money movements and groups. */

import type { CurrencyFormat } from '@plans-gateway/rest-contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectConforms, expectError } from './support/expect-response.js';
import { dataOf } from './support/rest.js';
import type { TestSandbox } from './support/sandbox.js';
import { type RecordingApi, sdkError, startSdkSuite } from './support/sdk.js';

const CURRENT_MONTH = '2025-06-01';

let box: TestSandbox;
let api: RecordingApi;
let currency: CurrencyFormat | null;

beforeAll(async () => {
  ({ box, api, currency } = await startSdkSuite({ transactions: 200 }));
});

afterAll(async () => {
  await box.close();
});

/** A visible category outside the internal groups, as the current month shows it. */
async function userCategoryThisMonth() {
  const month = dataOf(
    await box.rest.get(`/plans/${box.planId}/months/${CURRENT_MONTH}`),
    'getPlanMonth',
  ).month;
  const category = month.categories.find(
    (c) => !c.internal && !c.hidden && !c.deleted && !/credit card/i.test(c.category_group_name),
  );
  if (category === undefined) throw new Error('no user category this month');
  return category;
}

describe('months', () => {
  it('lists month summaries with the server knowledge, the current month among them', async () => {
    const response = await api.months.getPlanMonths(box.planId);
    expectConforms(api.last(), 'getPlanMonths', 200, currency);
    expect(response.data.server_knowledge).toBeGreaterThan(0);
    const months = response.data.months.map((m) => m.month);
    expect(months).toContain(CURRENT_MONTH);
    expect(new Set(months).size).toBe(months.length);
    for (const month of months) expect(month.endsWith('-01')).toBe(true);
  });

  it('reads a month with its categories, agreeing with its summary', async () => {
    const summaries = (await api.months.getPlanMonths(box.planId)).data.months;
    for (const summary of summaries.filter((m) => m.month <= CURRENT_MONTH).slice(0, 4)) {
      const response = await api.months.getPlanMonth(box.planId, summary.month);
      expectConforms(api.last(), 'getPlanMonth', 200, currency);
      const { categories, ...rest } = response.data.month;
      expect(categories.length).toBeGreaterThan(0);
      expect(rest).toEqual(summary);
    }
  });

  it('serves the current calendar month for the current alias', async () => {
    await api.months.getPlanMonth(box.planId, 'current');
    expectConforms(api.last(), 'getPlanMonth', 200, currency);
    const viaAlias = api.last().body;
    await api.months.getPlanMonth(box.planId, CURRENT_MONTH);
    expect(viaAlias).toEqual(api.last().body);
  });

  it('follows the manual clock for the current alias', async () => {
    box.clock.set(Date.UTC(2025, 4, 20, 12));
    try {
      const response = await api.months.getPlanMonth(box.planId, 'current');
      expect(response.data.month.month).toBe('2025-05-01');
    } finally {
      box.clock.set(Date.UTC(2025, 5, 15, 12));
    }
  });

  it('answers a delta request with the months changed since the knowledge', async () => {
    const knowledge = (await api.months.getPlanMonths(box.planId)).data.server_knowledge;
    expect((await api.months.getPlanMonths(box.planId, knowledge)).data).toEqual({
      months: [],
      server_knowledge: knowledge,
    });
    const accounts = dataOf(
      await box.rest.get(`/plans/${box.planId}/accounts`),
      'getAccounts',
    ).accounts;
    const account = accounts.find((a) => a.on_budget && !a.closed);
    if (account === undefined) throw new Error('no open on-budget account');
    const category = await userCategoryThisMonth();
    await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: account.id,
        date: '2025-06-02',
        amount: -15_000,
        category_id: category.id,
      },
    });
    const delta = await api.months.getPlanMonths(box.planId, knowledge);
    expectConforms(api.last(), 'getPlanMonths', 200, currency);
    expect(delta.data.months.map((m) => m.month)).toContain(CURRENT_MONTH);
    expect(delta.data.server_knowledge).toBeGreaterThan(knowledge);
  });

  it('refuses a month without data with 404.2', async () => {
    await sdkError(api.months.getPlanMonth(box.planId, '1990-01-01'));
    expectError(api.last(), 404, '404.2', 'resource_not_found');
  });
});

describe('money movements', () => {
  it('lists money movements with the server knowledge, each in a group of its month', async () => {
    const movements = await api.moneyMovements.getMoneyMovements(box.planId);
    expectConforms(api.last(), 'getMoneyMovements', 200, currency);
    expect(movements.data.money_movements.length).toBeGreaterThan(0);
    const groups = await api.moneyMovements.getMoneyMovementGroups(box.planId);
    expectConforms(api.last(), 'getMoneyMovementGroups', 200, currency);
    expect(groups.data.money_movement_groups.length).toBeGreaterThan(0);
    const groupMonths = new Map(groups.data.money_movement_groups.map((g) => [g.id, g.month]));
    const categoryIds = new Set(
      (await api.months.getPlanMonth(box.planId, CURRENT_MONTH)).data.month.categories.map(
        (c) => c.id,
      ),
    );
    for (const movement of movements.data.money_movements) {
      if (movement.money_movement_group_id !== undefined) {
        expect(groupMonths.get(movement.money_movement_group_id)).toBe(movement.month);
      }
      expect(movement.from_category_id !== undefined || movement.to_category_id !== undefined).toBe(
        true,
      );
      for (const id of [movement.from_category_id, movement.to_category_id]) {
        if (id !== undefined) expect(categoryIds.has(id)).toBe(true);
      }
    }
  });

  it('lists the movements and groups of one month, the current alias included', async () => {
    const all = (await api.moneyMovements.getMoneyMovements(box.planId)).data.money_movements;
    const allGroups = (await api.moneyMovements.getMoneyMovementGroups(box.planId)).data
      .money_movement_groups;
    const month = all.find((m) => m.month !== undefined)?.month;
    if (month === undefined) throw new Error('no money movement with a month');

    const byMonth = await api.moneyMovements.getMoneyMovementsByMonth(box.planId, month);
    expectConforms(api.last(), 'getMoneyMovements', 200, currency);
    expect(byMonth.data.money_movements.map((m) => m.id).sort()).toEqual(
      all
        .filter((m) => m.month === month)
        .map((m) => m.id)
        .sort(),
    );

    const groupsByMonth = await api.moneyMovements.getMoneyMovementGroupsByMonth(box.planId, month);
    expectConforms(api.last(), 'getMoneyMovementGroups', 200, currency);
    expect(groupsByMonth.data.money_movement_groups.map((g) => g.id).sort()).toEqual(
      allGroups
        .filter((g) => g.month === month)
        .map((g) => g.id)
        .sort(),
    );

    const current = await api.moneyMovements.getMoneyMovementsByMonth(box.planId, 'current');
    expect(current.data.money_movements.map((m) => m.id).sort()).toEqual(
      all
        .filter((m) => m.month === CURRENT_MONTH)
        .map((m) => m.id)
        .sort(),
    );
    const currentGroups = await api.moneyMovements.getMoneyMovementGroupsByMonth(
      box.planId,
      'current',
    );
    expect(currentGroups.data.money_movement_groups.map((g) => g.id).sort()).toEqual(
      allGroups
        .filter((g) => g.month === CURRENT_MONTH)
        .map((g) => g.id)
        .sort(),
    );
  });

  it('records a movement for each change of an assigned amount', async () => {
    const category = await userCategoryThisMonth();
    const before = (await api.moneyMovements.getMoneyMovementsByMonth(box.planId, CURRENT_MONTH))
      .data.money_movements.length;
    await api.categories.updateMonthCategory(box.planId, CURRENT_MONTH, category.id, {
      category: { budgeted: category.budgeted + 10_000 },
    });
    await api.categories.updateMonthCategory(box.planId, CURRENT_MONTH, category.id, {
      category: { budgeted: category.budgeted + 30_000 },
    });
    const movements = (await api.moneyMovements.getMoneyMovementsByMonth(box.planId, CURRENT_MONTH))
      .data.money_movements;
    expect(movements.length).toBe(before + 2);
    expect(movements.filter((m) => m.to_category_id === category.id).map((m) => m.amount)).toEqual(
      expect.arrayContaining([10_000, 20_000]),
    );
  });
});
