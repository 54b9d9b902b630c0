/**
 * The credit card rules of the README, one example each, in the words of the product's help
 * pages: funded spending moves to the payment category, unfunded spending is credit overspending
 * (card debt, not taken from Ready to Assign), covering it later in the month moves it after all,
 * refunds move money back, payments draw the payment category down. The store is checked against
 * the from-scratch recomputation after each example.
 */
import { describe, expect, it } from 'vitest';
import { addDays, addMonths, monthOf } from '../../src/core/dates.js';
import { setBudgeted } from '../../src/store/budget.js';
import type { PlanStore } from '../../src/store/plan-store.js';
import type { TransactionRecord } from '../../src/store/records.js';
import { deleteTransaction } from '../../src/store/transactions.js';
import {
  accountNamed,
  budgetProblems,
  categoryNamed,
  createVia,
  NOW,
  safe,
  seedTestPlan,
  TODAY,
} from '../support/seeded-store.js';

const LAST_MONTH = addMonths(monthOf(TODAY), -1);
const THIS_MONTH = monthOf(TODAY);

function setup() {
  const { store, newId } = seedTestPlan({ transactions: 300, seed: 5 });
  const visa = accountNamed(store, 'Visa Rewards');
  const paymentId = store.paymentCategoryByCard.get(visa.id) ?? '';
  /** A category's month values as numbers (the tests' amounts stay far below 2^53). */
  const values = (month: string, categoryId: string) => {
    const record = store.monthsByKey.get(month)?.categories.get(categoryId);
    if (!record) throw new Error(`no ${categoryId} in ${month}`);
    return {
      budgeted: record.budgeted,
      activity: safe(record.activity),
      balance: safe(record.balance),
      creditOverspent:
        record.creditOverspent === undefined ? undefined : safe(record.creditOverspent),
    };
  };
  const create = (body: Record<string, unknown>) => createVia(store, newId, body);
  /** Assigns what makes the category hold exactly `amount` in the month (before later writes). */
  const makeAvailable = (month: string, categoryId: string, amount: number) => {
    const record = values(month, categoryId);
    const monthRecord = store.monthsByKey.get(month);
    if (!monthRecord) throw new Error(`no month ${month}`);
    store.change(NOW, () =>
      setBudgeted(store, monthRecord, categoryId, record.budgeted + amount - record.balance),
    );
    expect(values(month, categoryId).balance).toBe(amount);
  };
  const tbb = (month: string) => safe(store.monthsByKey.get(month)?.to_be_budgeted ?? Number.NaN);
  return {
    store,
    visa,
    checking: accountNamed(store, 'Everyday Checking'),
    paymentId,
    groceries: categoryNamed(store, 'Groceries').id,
    clothing: categoryNamed(store, 'Clothing').id,
    values,
    create,
    makeAvailable,
    tbb,
  };
}

function consistent(store: PlanStore): void {
  expect(budgetProblems(store)).toEqual([]);
}

describe('credit card payment categories', () => {
  it('move funded card spending into the payment category, and only that', () => {
    const t = setup();
    t.makeAvailable(THIS_MONTH, t.groceries, 100_000);
    t.makeAvailable(THIS_MONTH, t.clothing, 0);
    const payment = { ...t.values(THIS_MONTH, t.paymentId) };
    const tbb = t.tbb(THIS_MONTH);
    // The help page's example: $100 of groceries with the money there, $75 of clothing without.
    t.create({ account_id: t.visa.id, date: TODAY, amount: -100_000, category_id: t.groceries });
    t.create({ account_id: t.visa.id, date: TODAY, amount: -75_000, category_id: t.clothing });
    expect(t.values(THIS_MONTH, t.paymentId).activity).toBe(payment.activity + 100_000);
    expect(t.values(THIS_MONTH, t.paymentId).balance).toBe(payment.balance + 100_000);
    expect(t.values(THIS_MONTH, t.groceries).balance).toBe(0);
    expect(t.values(THIS_MONTH, t.clothing).balance).toBe(-75_000);
    expect(t.values(THIS_MONTH, t.clothing).creditOverspent).toBe(75_000);
    expect(t.tbb(THIS_MONTH)).toBe(tbb);
    consistent(t.store);
  });

  it('leave credit overspending on the card: the category starts at zero next month and Ready to Assign keeps it', () => {
    const t = setup();
    t.makeAvailable(LAST_MONTH, t.clothing, 20_000);
    const nextTbb = t.tbb(THIS_MONTH);
    const nextClothing = { ...t.values(THIS_MONTH, t.clothing) };
    t.create({
      account_id: t.visa.id,
      date: addDays(LAST_MONTH, 4),
      amount: -50_000,
      category_id: t.clothing,
    });
    expect(t.values(LAST_MONTH, t.clothing).balance).toBe(-30_000);
    expect(t.values(LAST_MONTH, t.clothing).creditOverspent).toBe(30_000);
    expect(t.tbb(THIS_MONTH)).toBe(nextTbb);
    // The carry of 20,000 is gone (spent); the overspending does not follow into the month.
    expect(t.values(THIS_MONTH, t.clothing).balance).toBe(nextClothing.balance - 20_000);
    consistent(t.store);

    // Cash overspending, by contrast, is taken from next month's Ready to Assign.
    t.makeAvailable(LAST_MONTH, t.groceries, 0);
    const beforeCash = t.tbb(THIS_MONTH);
    t.create({
      account_id: t.checking.id,
      date: addDays(LAST_MONTH, 5),
      amount: -40_000,
      category_id: t.groceries,
    });
    expect(t.tbb(THIS_MONTH)).toBe(beforeCash - 40_000);
    consistent(t.store);
  });

  it('move the covered amount after all when the overspending is covered later in the month', () => {
    const t = setup();
    t.makeAvailable(THIS_MONTH, t.clothing, 0);
    const before = t.values(THIS_MONTH, t.paymentId).activity;
    t.create({ account_id: t.visa.id, date: TODAY, amount: -75_000, category_id: t.clothing });
    expect(t.values(THIS_MONTH, t.paymentId).activity).toBe(before);
    const month = t.store.monthsByKey.get(THIS_MONTH);
    if (!month) throw new Error('no month');
    t.store.change(NOW, () =>
      setBudgeted(t.store, month, t.clothing, t.values(THIS_MONTH, t.clothing).budgeted + 75_000),
    );
    expect(t.values(THIS_MONTH, t.clothing).balance).toBe(0);
    expect(t.values(THIS_MONTH, t.clothing).creditOverspent).toBeUndefined();
    expect(t.values(THIS_MONTH, t.paymentId).activity).toBe(before + 75_000);
    consistent(t.store);
  });

  it('pay cash spending first, then card spending, from what a category holds', () => {
    const t = setup();
    t.makeAvailable(THIS_MONTH, t.groceries, 100_000);
    const before = t.values(THIS_MONTH, t.paymentId).activity;
    t.create({ account_id: t.visa.id, date: TODAY, amount: -80_000, category_id: t.groceries });
    t.create({ account_id: t.checking.id, date: TODAY, amount: -60_000, category_id: t.groceries });
    expect(t.values(THIS_MONTH, t.paymentId).activity).toBe(before + 40_000);
    expect(t.values(THIS_MONTH, t.groceries).creditOverspent).toBe(40_000);
    consistent(t.store);
  });

  it('move a refund on the card back out of the payment category', () => {
    const t = setup();
    t.makeAvailable(THIS_MONTH, t.groceries, 0);
    const before = t.values(THIS_MONTH, t.paymentId).activity;
    t.create({ account_id: t.visa.id, date: TODAY, amount: 30_000, category_id: t.groceries });
    expect(t.values(THIS_MONTH, t.paymentId).activity).toBe(before - 30_000);
    expect(t.values(THIS_MONTH, t.groceries).balance).toBe(30_000);
    consistent(t.store);
  });

  it('draw the payment category down by a payment, and up by a cash advance', () => {
    const t = setup();
    const before = t.values(THIS_MONTH, t.paymentId).activity;
    t.create({
      account_id: t.checking.id,
      date: TODAY,
      amount: -120_000,
      payee_id: t.visa.transfer_payee_id,
    });
    expect(t.values(THIS_MONTH, t.paymentId).activity).toBe(before - 120_000);
    t.create({
      account_id: t.visa.id,
      date: TODAY,
      amount: -50_000,
      payee_id: t.checking.transfer_payee_id,
    });
    expect(t.values(THIS_MONTH, t.paymentId).activity).toBe(before - 70_000);
    consistent(t.store);
  });

  it('count the lines of a split on the card one by one, a payment line included', () => {
    const t = setup();
    t.makeAvailable(THIS_MONTH, t.groceries, 50_000);
    t.makeAvailable(THIS_MONTH, t.clothing, 0);
    const before = t.values(THIS_MONTH, t.paymentId).activity;
    const split = t.create({
      account_id: t.visa.id,
      date: TODAY,
      amount: -70_000,
      subtransactions: [
        { amount: -50_000, category_id: t.groceries },
        { amount: -45_000, category_id: t.clothing },
        // Money paid onto the card from checking inside the same split.
        { amount: 25_000, payee_id: t.checking.transfer_payee_id },
      ],
    });
    expect(t.values(THIS_MONTH, t.paymentId).activity).toBe(before + 50_000 - 25_000);
    expect(t.values(THIS_MONTH, t.clothing).creditOverspent).toBe(45_000);
    consistent(t.store);

    // Deleting the other side turns the payment line into an ordinary line: no payment any more.
    const line = split.subtransactions[2];
    const counterpart = t.store.transactions.get(line?.transfer_transaction_id ?? '');
    t.store.change(NOW, () => deleteTransaction(t.store, counterpart as TransactionRecord));
    expect(t.values(THIS_MONTH, t.paymentId).activity).toBe(before + 50_000);
    consistent(t.store);
  });

  it('show the seeded card with a payment category close to what it owes for funded spending', () => {
    const t = setup();
    const owed = -safe(t.visa.balance);
    const held = t.values(THIS_MONTH, t.paymentId).balance;
    const unfunded = [...(t.store.monthsByKey.get(THIS_MONTH)?.categories.values() ?? [])].reduce(
      (sum, c) => sum + safe(c.creditOverspent ?? 0),
      0,
    );
    // Recent imports still waiting for a category have not moved any money yet.
    const waiting = t.store.transactionOrder
      .filter(
        (tx) =>
          !tx.deleted &&
          tx.account_id === t.visa.id &&
          tx.date >= LAST_MONTH &&
          tx.category_id === null &&
          tx.subtransactions.length === 0 &&
          tx.transfer_account_id === null,
      )
      .reduce((sum, tx) => sum - tx.amount, 0);
    expect(owed).toBeGreaterThan(0);
    expect(held).toBeGreaterThan(owed / 2);
    // Everything the card owes is set aside, but this month's spending nobody funded yet.
    expect(held).toBe(owed - unfunded - waiting);
  });
});
