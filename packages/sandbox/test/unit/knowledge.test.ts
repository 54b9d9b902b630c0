import { describe, expect, it } from 'vitest';
import { addDays, addMonths, isoDateOf, monthOf } from '../../src/core/dates.js';
import { followClock } from '../../src/handlers/context.js';
import { setBudgeted } from '../../src/store/budget.js';
import { scopesSince } from '../../src/store/scopes.js';
import { createTransaction, updateTransaction } from '../../src/store/transactions.js';
import {
  parseTransactionDraft,
  resolveNewTransaction,
  resolveTransactionUpdate,
} from '../../src/validate/transaction.js';
import { NO_EXTRAS, NOW, seedTestPlan, TODAY } from '../support/seeded-store.js';

describe('server knowledge bookkeeping', () => {
  it('gives one new knowledge value per change, and none to a change that touches nothing', () => {
    const { store } = seedTestPlan({ transactions: 100 });
    const start = store.knowledge;
    store.change(NOW, () => undefined);
    expect(store.knowledge).toBe(start);
    const month = store.monthsByKey.get(monthOf(TODAY));
    const groceries = [...store.categories.values()].find((c) => c.name === 'Groceries');
    if (!month || !groceries) throw new Error('seed changed');
    store.change(NOW, () => setBudgeted(store, month, groceries.id, 123_450));
    expect(store.knowledge).toBe(start + 1);
    expect(month.categories.get(groceries.id)?.knowledge).toBe(start + 1);
    expect(month.knowledge).toBe(start + 1);
  });

  it('stamps what a write changed, including derived values, and leaves the rest alone', () => {
    const { store, newId } = seedTestPlan({ transactions: 100 });
    const checking = [...store.accounts.values()].find((a) => a.name === 'Everyday Checking');
    const savings = [...store.accounts.values()].find((a) => a.name === 'Rainy Day Savings');
    const dining = [...store.categories.values()].find((c) => c.name === 'Dining Out');
    if (!checking || !savings || !dining) throw new Error('seed changed');
    const savingsKnowledge = savings.knowledge;
    const before = store.knowledge;
    const state = resolveNewTransaction(
      { store, today: TODAY },
      parseTransactionDraft(
        { account_id: checking.id, date: TODAY, amount: -5_000, category_id: dining.id },
        'transaction',
      ),
    );
    const tx = store.change(NOW, () => createTransaction(store, newId, state, NO_EXTRAS));
    const k = before + 1;
    expect(store.knowledge).toBe(k);
    expect(tx.knowledge).toBe(k);
    expect(checking.knowledge).toBe(k);
    expect(savings.knowledge).toBe(savingsKnowledge);
    const current = store.monthsByKey.get(monthOf(TODAY));
    expect(current?.categories.get(dining.id)?.knowledge).toBe(k);
    expect(current?.knowledge).toBe(k);
  });

  it('stamps a month category whose activity moved even when its balance did not', () => {
    const { store, newId } = seedTestPlan({ transactions: 100 });
    const checking = [...store.accounts.values()].find((a) => a.name === 'Everyday Checking');
    const dining = [...store.categories.values()].find((c) => c.name === 'Dining Out');
    if (!checking || !dining) throw new Error('seed changed');
    const lastMonth = addMonths(monthOf(TODAY), -1);
    const last = store.monthsByKey.get(lastMonth);
    if (!last) throw new Error('seed changed');
    // Keep last month's balance positive, so the carry into this month moves with it.
    store.change(NOW, () =>
      setBudgeted(
        store,
        last,
        dining.id,
        (last.categories.get(dining.id)?.budgeted ?? 0) + 1_000_000,
      ),
    );
    const state = resolveNewTransaction(
      { store, today: TODAY },
      parseTransactionDraft(
        { account_id: checking.id, date: TODAY, amount: -5_000, category_id: dining.id },
        'transaction',
      ),
    );
    const tx = store.change(NOW, () => createTransaction(store, newId, state, NO_EXTRAS));
    const current = store.monthsByKey.get(monthOf(TODAY))?.categories.get(dining.id);
    const balanceBefore = current?.balance;
    // Moving the outflow into last month lowers last month's balance and this month's carry by
    // the same amount as this month's activity rises: this month's balance stays the same.
    const update = resolveTransactionUpdate(
      { store, today: TODAY },
      parseTransactionDraft({ date: addDays(lastMonth, 2) }, 'transaction'),
      tx,
    );
    store.change(NOW, () => updateTransaction(store, newId, tx, update));
    expect(current?.balance).toBe(balanceBefore);
    expect(current?.knowledge).toBe(store.knowledge);
  });

  it('remembers the scope a transaction had before a change, for filtered-list deltas', () => {
    const { store, newId } = seedTestPlan({ transactions: 100 });
    const checking = [...store.accounts.values()].find((a) => a.name === 'Everyday Checking');
    const cash = [...store.accounts.values()].find((a) => a.name === 'Wallet Cash');
    if (!checking || !cash) throw new Error('seed changed');
    const created = resolveNewTransaction(
      { store, today: TODAY },
      parseTransactionDraft({ account_id: checking.id, date: TODAY, amount: -1 }, 'transaction'),
    );
    const tx = store.change(NOW, () => createTransaction(store, newId, created, NO_EXTRAS));
    const afterCreate = store.knowledge;
    expect(tx.formerScopes).toBeUndefined();
    const moved = resolveTransactionUpdate(
      { store, today: TODAY },
      parseTransactionDraft({ account_id: cash.id }, 'transaction'),
      tx,
    );
    store.change(NOW, () => updateTransaction(store, newId, tx, moved));
    expect(scopesSince(store, tx, null).map((s) => s.accountId)).toEqual([cash.id]);
    expect(scopesSince(store, tx, afterCreate).map((s) => s.accountId)).toEqual([
      cash.id,
      checking.id,
    ]);
    expect(scopesSince(store, tx, store.knowledge).map((s) => s.accountId)).toEqual([cash.id]);
  });

  it('adds the new month and stamps every category when the clock enters a new month', () => {
    const plan = seedTestPlan({ transactions: 100 });
    const { store } = plan;
    const before = store.knowledge;
    const lastMonth = store.lastMonth;
    followClock(plan, TODAY, NOW);
    expect(store.knowledge).toBe(before);
    const nextMonthDay = addMonths(monthOf(TODAY), 1);
    followClock(plan, isoDateOf(Date.parse(`${nextMonthDay}T08:00:00Z`)), NOW);
    expect(store.knowledge).toBe(before + 1);
    expect(store.lastMonth).toBe(addMonths(lastMonth, 1));
    expect(store.currentMonth).toBe(nextMonthDay);
    expect([...store.categories.values()].every((c) => c.knowledge === before + 1)).toBe(true);
  });
});
