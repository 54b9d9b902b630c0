import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/core/dates.js';
import { createImportedTransaction } from '../../src/store/matching.js';
import type { PlanStore } from '../../src/store/plan-store.js';
import { createTransaction } from '../../src/store/transactions.js';
import { parseTransactionDraft, resolveNewTransaction } from '../../src/validate/transaction.js';
import { budgetProblems, NOW, seedTestPlan, TODAY } from '../support/seeded-store.js';

const extras = (importId: string | null) => ({
  importId,
  importPayeeName: null,
  importPayeeNameOriginal: null,
  debtTransactionType: null,
});

function make(
  store: PlanStore,
  newId: () => string,
  body: Record<string, unknown>,
  importId: string | null = null,
) {
  const state = resolveNewTransaction(
    { store, today: TODAY },
    parseTransactionDraft(body, 'transaction'),
  );
  return store.change(NOW, () =>
    importId === null
      ? createTransaction(store, newId, state, extras(null))
      : createImportedTransaction(store, newId, state, extras(importId)),
  );
}

describe('matching imports to user-entered transactions', () => {
  it('matches the nearest user-entered transaction of the same account and amount within 10 days', () => {
    const { store, newId } = seedTestPlan({ transactions: 100 });
    const account = [...store.accounts.values()].find((a) => a.name === 'Rainy Day Savings');
    const groceries = [...store.categories.values()].find((c) => c.name === 'Groceries');
    if (!account || !groceries) throw new Error('seed changed');
    const far = make(store, newId, {
      account_id: account.id,
      date: addDays(TODAY, -9),
      amount: -77_770,
      payee_name: 'Far',
    });
    const near = make(store, newId, {
      account_id: account.id,
      date: addDays(TODAY, -4),
      amount: -77_770,
      payee_name: 'By hand',
      category_id: groceries.id,
      memo: 'mine',
    });
    const balance = account.balance;
    const imported = make(
      store,
      newId,
      { account_id: account.id, date: TODAY, amount: -77_770, payee_name: 'BANK TEXT' },
      'bank:1',
    );
    expect(imported).toMatchObject({
      matched_transaction_id: near.id,
      import_id: 'bank:1',
      date: near.date,
      payee_id: near.payee_id,
      category_id: groceries.id,
      memo: 'mine',
      cleared: 'cleared',
    });
    expect(near).toMatchObject({ deleted: true, matched_transaction_id: imported.id });
    expect(far.deleted).toBe(false);
    expect(account.balance).toBe(balance);
    expect([...store.payees.values()].some((p) => p.name === 'BANK TEXT')).toBe(false);
    expect(budgetProblems(store)).toEqual([]);
  });

  it('does not match another amount, another account, a date 11 days away, or an imported transaction', () => {
    const { store, newId } = seedTestPlan({ transactions: 100 });
    const [savings, cash] = ['Rainy Day Savings', 'Wallet Cash'].map((name) =>
      [...store.accounts.values()].find((a) => a.name === name),
    );
    if (!savings || !cash) throw new Error('seed changed');
    make(store, newId, { account_id: savings.id, date: addDays(TODAY, -11), amount: -5_000 });
    make(store, newId, { account_id: savings.id, date: TODAY, amount: -6_000 }, 'already:imported');
    for (const body of [
      { account_id: savings.id, date: TODAY, amount: -5_001 },
      { account_id: cash.id, date: addDays(TODAY, -11), amount: -5_000 },
      { account_id: savings.id, date: TODAY, amount: -5_000 },
      { account_id: savings.id, date: TODAY, amount: -6_000 },
    ]) {
      expect(
        make(store, newId, body, `bank:${body.amount}:${body.account_id}`).matched_transaction_id,
      ).toBeNull();
    }
  });
});
