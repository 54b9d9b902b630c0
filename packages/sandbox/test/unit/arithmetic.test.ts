import { describe, expect, it } from 'vitest';
import { addDays, addMonths, monthOf } from '../../src/core/dates.js';
import { ApiError } from '../../src/core/errors.js';
import { setBudgeted } from '../../src/store/budget.js';
import type { TransactionRecord } from '../../src/store/records.js';
import { deleteTransaction } from '../../src/store/transactions.js';
import {
  accountNamed,
  budgetProblems,
  categoryNamed,
  createVia,
  NOW,
  randomFor,
  safe,
  seedTestPlan,
  TODAY,
  transferProblems,
  updateVia,
} from '../support/seeded-store.js';

describe('budget arithmetic after writes', () => {
  it('is checked by a recomputation that notices a wrong number', () => {
    const { store } = seedTestPlan({ transactions: 100 });
    expect(budgetProblems(store)).toEqual([]);
    const month = store.months[3];
    const values = month?.categories.get(categoryNamed(store, 'Groceries').id);
    if (!values) throw new Error('no values');
    values.activity = safe(values.activity) + 10;
    expect(budgetProblems(store).length).toBeGreaterThan(0);
  });

  it('stays consistent through a long random sequence of creates, updates, deletes and assignments', () => {
    const { store, newId } = seedTestPlan({ transactions: 400, seed: 4 });
    const random = randomFor(1);
    const accounts = [...store.accounts.values()].filter((a) => !a.closed);
    const categories = [...store.categories.values()].filter((c) => !c.internal);
    const payees = [...store.payees.values()];
    const someDate = () => addDays(TODAY, -random.int(0, 400));
    const someTarget = () =>
      random.chance(0.2) ? random.pick(accounts).transfer_payee_id : random.pick(payees).id;
    let applied = 0;
    for (let step = 0; step < 600; step++) {
      const live = store.transactionOrder.filter((tx) => !tx.deleted);
      const roll = random.next();
      try {
        if (roll < 0.35) {
          const amount = -random.int(1, 200_000) * 10;
          const split = random.chance(0.2);
          createVia(store, newId, {
            account_id: random.pick(accounts).id,
            date: someDate(),
            amount,
            payee_id: split
              ? random.pick(payees.filter((p) => p.transfer_account_id === null)).id
              : someTarget(),
            category_id: random.chance(0.85) ? random.pick(categories).id : null,
            cleared: random.pick(['cleared', 'uncleared', 'reconciled']),
            ...(split
              ? {
                  subtransactions: [
                    { amount: amount + 5_000, category_id: random.pick(categories).id },
                    {
                      amount: -5_000,
                      payee_id: random.chance(0.5) ? random.pick(accounts).transfer_payee_id : null,
                      category_id: random.pick(categories).id,
                    },
                  ],
                }
              : {}),
          });
        } else if (roll < 0.75 && live.length > 0) {
          const tx = random.pick(live);
          const body: Record<string, unknown> = {};
          if (random.chance(0.4)) body.amount = random.int(-300_000, 300_000) * 10;
          if (random.chance(0.3)) body.date = someDate();
          if (random.chance(0.2)) body.account_id = random.pick(accounts).id;
          if (random.chance(0.3)) body.payee_id = someTarget();
          if (random.chance(0.3))
            body.category_id = random.chance(0.8) ? random.pick(categories).id : null;
          if (random.chance(0.3))
            body.cleared = random.pick(['cleared', 'uncleared', 'reconciled']);
          if (random.chance(0.2)) body.approved = random.chance(0.5);
          updateVia(store, newId, tx, body);
        } else if (roll < 0.9 && live.length > 0) {
          const tx = random.pick(live);
          store.change(NOW, () => deleteTransaction(store, tx));
        } else {
          const month = random.pick(store.months);
          store.change(NOW, () =>
            setBudgeted(store, month, random.pick(categories).id, random.int(0, 500_000) * 10),
          );
        }
        applied++;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
      }
      if (step % 50 === 0) expect(budgetProblems(store), `after step ${step}`).toEqual([]);
    }
    expect(applied).toBeGreaterThan(400);
    expect(budgetProblems(store)).toEqual([]);
    expect(transferProblems(store)).toEqual([]);
  });

  it('takes overspending out of next month: no negative carry, and Ready to Assign drops', () => {
    const { store, newId } = seedTestPlan({ transactions: 200 });
    const dining = categoryNamed(store, 'Dining Out');
    const lastMonth = addMonths(monthOf(TODAY), -1);
    const before = safe(store.monthsByKey.get(monthOf(TODAY))?.to_be_budgeted ?? 0);
    const values = store.monthsByKey.get(lastMonth)?.categories.get(dining.id);
    const overspend = safe(values?.balance ?? 0) + 100_000;
    createVia(store, newId, {
      account_id: accountNamed(store, 'Everyday Checking').id,
      date: addDays(lastMonth, 3),
      amount: -overspend,
      category_id: dining.id,
    });
    expect(store.monthsByKey.get(lastMonth)?.categories.get(dining.id)?.balance).toBe(-100_000);
    const current = store.monthsByKey.get(monthOf(TODAY))?.categories.get(dining.id);
    expect(current?.balance).toBe((current?.budgeted ?? 0) + safe(current?.activity ?? 0));
    expect(store.monthsByKey.get(monthOf(TODAY))?.to_be_budgeted).toBe(before - 100_000);
    expect(budgetProblems(store)).toEqual([]);
  });

  it('keeps both sides of a transfer in step through amount, date and account changes, and deletes them together', () => {
    const { store, newId } = seedTestPlan({ transactions: 200 });
    const checking = accountNamed(store, 'Everyday Checking');
    const savings = accountNamed(store, 'Rainy Day Savings');
    const cash = accountNamed(store, 'Wallet Cash');
    const tx = createVia(store, newId, {
      account_id: checking.id,
      date: TODAY,
      amount: -50_000,
      payee_id: savings.transfer_payee_id,
    });
    const counterpart = store.transactions.get(tx.transfer_transaction_id ?? '');
    expect(counterpart).toMatchObject({
      account_id: savings.id,
      amount: 50_000,
      payee_id: checking.transfer_payee_id,
      transfer_account_id: checking.id,
      transfer_transaction_id: tx.id,
    });
    expect(tx.category_id).toBeNull();

    updateVia(store, newId, tx, { amount: -70_000, date: addDays(TODAY, -3), account_id: cash.id });
    expect(counterpart).toMatchObject({
      amount: 70_000,
      date: addDays(TODAY, -3),
      payee_id: cash.transfer_payee_id,
      transfer_account_id: cash.id,
    });
    expect(transferProblems(store)).toEqual([]);

    store.change(NOW, () => deleteTransaction(store, counterpart as TransactionRecord));
    expect(tx.deleted).toBe(true);
    expect(budgetProblems(store)).toEqual([]);
  });

  it('turns a split transfer line into an ordinary line when its other side is deleted', () => {
    const { store, newId } = seedTestPlan({ transactions: 200 });
    const checking = accountNamed(store, 'Everyday Checking');
    const savings = accountNamed(store, 'Rainy Day Savings');
    const groceries = categoryNamed(store, 'Groceries');
    const split = createVia(store, newId, {
      account_id: checking.id,
      date: TODAY,
      amount: -100_000,
      subtransactions: [
        { amount: -60_000, category_id: groceries.id },
        { amount: -40_000, payee_id: savings.transfer_payee_id },
      ],
    });
    const line = split.subtransactions[1];
    const counterpart = store.transactions.get(line?.transfer_transaction_id ?? '');
    expect(counterpart).toMatchObject({
      account_id: savings.id,
      amount: 40_000,
      transfer_transaction_id: line?.id,
    });
    store.change(NOW, () => deleteTransaction(store, counterpart as TransactionRecord));
    expect(line).toMatchObject({
      payee_id: null,
      transfer_account_id: null,
      transfer_transaction_id: null,
      deleted: false,
    });
    expect(split.deleted).toBe(false);
    expect(budgetProblems(store)).toEqual([]);
  });

  it('ignores credit card payment categories on transactions and categories on on-budget transfers', () => {
    const { store, newId } = seedTestPlan({ transactions: 200 });
    const card = [...store.categories.values()].find((c) => c.role === 'creditCardPayment');
    const tx = createVia(store, newId, {
      account_id: accountNamed(store, 'Everyday Checking').id,
      date: TODAY,
      amount: -1_000,
      category_id: card?.id,
    });
    expect(tx.category_id).toBeNull();
    const transfer = createVia(store, newId, {
      account_id: accountNamed(store, 'Everyday Checking').id,
      date: TODAY,
      amount: -1_000,
      payee_id: accountNamed(store, 'Rainy Day Savings').transfer_payee_id,
      category_id: categoryNamed(store, 'Groceries').id,
    });
    expect(transfer.category_id).toBeNull();
    const tracking = createVia(store, newId, {
      account_id: accountNamed(store, 'Everyday Checking').id,
      date: TODAY,
      amount: -1_000,
      payee_id: accountNamed(store, 'Index Fund Brokerage').transfer_payee_id,
      category_id: categoryNamed(store, 'Investing').id,
    });
    expect(tracking.category_id).toBe(categoryNamed(store, 'Investing').id);
    expect(budgetProblems(store)).toEqual([]);
  });
});
