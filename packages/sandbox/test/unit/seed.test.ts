import { describe, expect, it } from 'vitest';
import { addMonths, monthOf } from '../../src/core/dates.js';
import { READY_TO_ASSIGN_NAME, STARTING_BALANCE_PAYEE } from '../../src/seed/catalog.js';
import { monthsOfHistory } from '../../src/seed/index.js';
import {
  budgetProblems,
  NOW,
  safe,
  seedTestPlan,
  TODAY,
  transferProblems,
} from '../support/seeded-store.js';

function fingerprint(seed: number, transactions: number, now = NOW): string {
  const { store } = seedTestPlan({ seed, transactions, now });
  return JSON.stringify({
    accounts: [...store.accounts.values()],
    categories: [...store.categories.values()],
    payees: [...store.payees.values()],
    transactions: store.transactionOrder.map((tx) => ({ ...tx, formerScopes: undefined })),
    months: store.months.map((m) => ({ ...m, categories: [...m.categories.values()] })),
    scheduled: [...store.scheduledTransactions.values()],
    movements: store.moneyMovements,
  });
}

describe('seeded demo plan', () => {
  const { store } = seedTestPlan({ transactions: 1200 });
  const live = [...store.transactions.values()].filter((tx) => !tx.deleted);

  it('is deterministic for a seed and a today, and differs across seeds', () => {
    expect(fingerprint(5, 400)).toBe(fingerprint(5, 400));
    expect(fingerprint(5, 400)).not.toBe(fingerprint(6, 400));
    expect(fingerprint(5, 400)).not.toBe(fingerprint(5, 400, NOW + 40 * 86_400_000));
  });

  it('has exactly the requested number of transactions, none in the future', () => {
    expect(store.transactions.size).toBe(1200);
    expect(live.every((tx) => tx.date <= TODAY)).toBe(true);
    expect(seedTestPlan({ transactions: 37 }).store.transactions.size).toBe(37);
  });

  it('has accounts of several types: a credit card, tracking accounts, a closed one, each with a transfer payee', () => {
    const accounts = [...store.accounts.values()];
    expect(accounts.length).toBeGreaterThanOrEqual(6);
    expect(new Set(accounts.map((a) => a.type)).size).toBeGreaterThanOrEqual(5);
    expect(accounts.some((a) => a.type === 'creditCard' && !a.closed)).toBe(true);
    expect(accounts.some((a) => !a.on_budget)).toBe(true);
    const closed = accounts.filter((a) => a.closed);
    expect(closed).toHaveLength(1);
    expect(closed[0]?.balance).toBe(0);
    for (const account of accounts) {
      const payee = store.payees.get(account.transfer_payee_id ?? '');
      expect(payee?.name).toBe(`Transfer : ${account.name}`);
      expect(payee?.transfer_account_id).toBe(account.id);
      expect(
        live.some(
          (tx) =>
            tx.account_id === account.id &&
            store.payees.get(tx.payee_id ?? '')?.name === STARTING_BALANCE_PAYEE,
        ),
      ).toBe(true);
    }
  });

  it('has the internal Ready to Assign category, a payment category per credit card and goals of several types', () => {
    const rta = store.categories.get(store.readyToAssignCategoryId);
    expect(rta?.name).toBe(READY_TO_ASSIGN_NAME);
    expect(store.categoryGroups.get(rta?.category_group_id ?? '')?.internal).toBe(true);
    const cards = [...store.accounts.values()].filter((a) => a.type === 'creditCard');
    for (const card of cards) {
      expect(
        [...store.categories.values()].filter(
          (c) => c.role === 'creditCardPayment' && c.creditCardAccountId === card.id,
        ),
      ).toHaveLength(1);
    }
    const goals = [...store.categories.values()].filter((c) => c.goal_type !== null);
    expect(new Set(goals.map((c) => c.goal_type))).toEqual(
      new Set(['TB', 'TBD', 'MF', 'NEED', 'DEBT']),
    );
    for (const goal of goals) {
      expect(goal.goal_target).not.toBeNull();
      expect(goal.goal_creation_month).not.toBeNull();
      expect(goal.goal_needs_whole_amount === null).toBe(goal.goal_type !== 'NEED');
      expect(goal.goal_target_date === null).toBe(goal.goal_type !== 'TBD');
    }
  });

  it('has payee locations with string coordinates', () => {
    const locations = [...store.payeeLocations.values()];
    expect(locations.length).toBeGreaterThan(5);
    for (const location of locations) {
      expect(location.latitude).toMatch(/^-?\d+\.\d+$/);
      expect(location.longitude).toMatch(/^-?\d+\.\d+$/);
      expect(store.payees.has(location.payee_id)).toBe(true);
    }
  });

  it('spans at least 12 months with assignments recorded as money movements', () => {
    expect(store.months.length).toBeGreaterThanOrEqual(13);
    expect(store.lastMonth).toBe(monthOf(TODAY));
    expect(store.firstMonth).toBe(addMonths(monthOf(TODAY), -(store.months.length - 1)));
    for (const month of store.months) {
      expect(month.budgeted).toBeGreaterThan(0);
      const net = new Map<string, number>();
      for (const movement of store.moneyMovements.filter((m) => m.month === month.month)) {
        if (movement.to_category_id)
          net.set(
            movement.to_category_id,
            (net.get(movement.to_category_id) ?? 0) + safe(movement.amount),
          );
        if (movement.from_category_id)
          net.set(
            movement.from_category_id,
            (net.get(movement.from_category_id) ?? 0) - safe(movement.amount),
          );
        expect(
          store.moneyMovementGroups.some((g) => g.id === movement.money_movement_group_id),
        ).toBe(true);
      }
      for (const [categoryId, values] of month.categories) {
        expect(net.get(categoryId) ?? 0).toBe(values.budgeted);
      }
    }
  });

  it('has splits, paired transfers (also inside a split), every cleared status, unapproved, flagged, memo and imported ones', () => {
    expect(live.filter((tx) => tx.subtransactions.length > 1).length).toBeGreaterThan(10);
    expect(live.filter((tx) => tx.transfer_account_id !== null).length).toBeGreaterThan(20);
    expect(
      live.some((tx) => tx.subtransactions.some((sub) => sub.transfer_transaction_id !== null)),
    ).toBe(true);
    expect(new Set(live.map((tx) => tx.cleared))).toEqual(
      new Set(['cleared', 'uncleared', 'reconciled']),
    );
    expect(live.some((tx) => !tx.approved)).toBe(true);
    expect(live.some((tx) => tx.flag_color !== null)).toBe(true);
    expect(live.some((tx) => tx.memo !== null)).toBe(true);
    const imported = live.filter((tx) => tx.import_id !== null);
    expect(imported.length).toBeGreaterThan(100);
    for (const tx of imported)
      expect(tx.import_id).toMatch(new RegExp(`^YNAB:${tx.amount}:${tx.date}:\\d+$`));
    expect(transferProblems(store)).toEqual([]);
  });

  it('has scheduled transactions in the future, one of them a split', () => {
    const scheduled = [...store.scheduledTransactions.values()];
    expect(scheduled.length).toBeGreaterThanOrEqual(5);
    expect(scheduled.every((s) => s.date_next > TODAY)).toBe(true);
    const split = scheduled.filter((s) => s.subtransactions.length > 1);
    expect(split).toHaveLength(1);
    expect(split[0]?.subtransactions.reduce((sum, sub) => sum + sub.amount, 0)).toBe(
      split[0]?.amount,
    );
  });

  it('keeps a small import queue on the linked accounts', () => {
    expect(store.importQueue.length).toBeGreaterThan(0);
    for (const item of store.importQueue) {
      expect(store.accounts.get(item.accountId)?.direct_import_linked).toBe(true);
      expect(item.date <= TODAY).toBe(true);
    }
  });

  it('satisfies the budget arithmetic it documents', () => {
    expect(budgetProblems(store)).toEqual([]);
  });

  it('scales: a large plan has the requested size and stays consistent', () => {
    const { store: large } = seedTestPlan({ transactions: 30_000, seed: 9 });
    expect(large.transactions.size).toBe(30_000);
    expect(large.months.length).toBe(monthsOfHistory(30_000));
    expect(large.months.length).toBeGreaterThan(13);
    expect(budgetProblems(large)).toEqual([]);
    expect(transferProblems(large)).toEqual([]);
  });
});
