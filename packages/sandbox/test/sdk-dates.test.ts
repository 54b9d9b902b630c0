/**
 * Dates as the official SDK sends them: its README dates a new transaction with
 * `utils.getCurrentDateInISOFormat()`, which returns a date-time. Every date input takes ISO 8601
 * date-times and keeps the calendar date as written; responses always hold `YYYY-MM-DD`.
 */
import type { AccountBase, CategoryBase, CurrencyFormat } from '@plans-gateway/rest-contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ynab from 'ynab';
import { addDays, DAY_MS, isoDate, monthOf } from './support/dates.js';
import { expectConforms } from './support/expect-response.js';
import { dataOf } from './support/rest.js';
import { exportPlan, type TestSandbox } from './support/sandbox.js';
import { type RecordingApi, startSdkSuite } from './support/sdk.js';

/**
 * The SDK helper reads the machine's clock in its time zone, which may be up to 14 hours ahead of
 * UTC; a sandbox clock that far ahead never sees the helper's date in the future.
 */
const NOW = Date.now() + (14 * DAY_MS) / 24;
const YYYY_MM_DD = /^\d{4}-\d{2}-\d{2}$/;

let box: TestSandbox;
let api: RecordingApi;
let currency: CurrencyFormat | null;
let checking: AccountBase;
let category: CategoryBase;

beforeAll(async () => {
  ({ box, api, currency } = await startSdkSuite({ transactions: 40, now: NOW }));
  const plan = (await exportPlan(box.rest, box.planId)).plan;
  const account = plan.accounts.find((a) => a.type === 'checking' && !a.closed);
  const groups = new Map(plan.category_groups.map((g) => [g.id, g]));
  const userCategory = plan.categories.find((c) => {
    const group = groups.get(c.category_group_id);
    return !c.internal && group !== undefined && !group.internal && !/credit/i.test(group.name);
  });
  if (account === undefined || userCategory === undefined)
    throw new Error('the seed needs a checking account and a user category');
  checking = account;
  category = userCategory;
});

afterAll(() => box.close());

describe('date-times from the official SDK', () => {
  it("saves a transaction dated with utils.getCurrentDateInISOFormat() on that helper's date", async () => {
    const sent = ynab.utils.getCurrentDateInISOFormat();
    expect(sent).toMatch(/T\d{2}:\d{2}/);
    const response = await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: checking.id,
        date: sent,
        amount: -12_340,
        payee_name: 'SDK date helper',
        category_id: category.id,
      },
    });
    expectConforms(api.last(), 'saveTransactions', 201, currency);
    const saved = response.data.transaction;
    expect(saved?.date).toBe(sent.slice(0, 10));

    const read = await api.transactions.getTransactionById(box.planId, saved?.id ?? '');
    expect(read.data.transaction.date).toBe(sent.slice(0, 10));
    expect(read.data.transaction.date).toMatch(YYYY_MM_DD);
  });

  it('keeps the calendar date as written whatever the offset, in every date input', async () => {
    const today = isoDate(NOW);
    const yesterday = addDays(today, -1);
    const created = await box.rest.post(`/plans/${box.planId}/transactions`, {
      transactions: [
        { account_id: checking.id, date: `${yesterday}T23:30:00-05:00`, amount: -1_000 },
        { account_id: checking.id, date: `${yesterday}T00:15:00+14:00`, amount: -2_000 },
        { account_id: checking.id, date: `${yesterday} 08:00`, amount: -3_000 },
      ],
    });
    const transactions = dataOf(created, 'createTransaction', 201).transactions ?? [];
    expect(transactions.map((t) => t.date)).toEqual([yesterday, yesterday, yesterday]);

    const inAWeek = addDays(today, 7);
    const scheduled = await box.rest.post(`/plans/${box.planId}/scheduled_transactions`, {
      scheduled_transaction: {
        account_id: checking.id,
        date: `${inAWeek}T06:00:00.000Z`,
        amount: -5_000,
        frequency: 'monthly',
      },
    });
    const saved = dataOf(scheduled, 'createScheduledTransaction', 201).scheduled_transaction;
    expect([saved.date_first, saved.date_next]).toEqual([inAWeek, inAWeek]);

    const goalDate = addDays(today, 90);
    const goal = await api.categories.updateCategory(box.planId, category.id, {
      category: { goal_target: 100_000, goal_target_date: `${goalDate}T12:00:00Z` },
    });
    expect(goal.data.category.goal_target_date).toBe(goalDate);

    const month = monthOf(today);
    const assigned = await api.categories.updateMonthCategory(
      box.planId,
      `${month}T00:00:00Z`,
      category.id,
      { category: { budgeted: 50_000 } },
    );
    expectConforms(api.last(), 'updateMonthCategory', 200, currency);
    expect(assigned.data.category.budgeted).toBe(50_000);
    const inMonth = await box.rest.get(`/plans/${box.planId}/transactions`, {
      since_date: `${yesterday}T00:00:00Z`,
    });
    expect(dataOf(inMonth, 'getTransactions').transactions.every((t) => t.date >= yesterday)).toBe(
      true,
    );
  });
});
