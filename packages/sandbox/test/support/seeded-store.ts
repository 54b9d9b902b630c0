/**
 * Helpers for the sandbox unit tests: a seeded plan store, and an independent recomputation of
 * the budget arithmetic from the raw transactions, to compare with what the store maintains
 * incrementally.
 */
import { addMonths, isoDateOf, monthOf } from '../../src/core/dates.js';
import { add, type Exact } from '../../src/core/exact.js';
import { createRandom } from '../../src/core/random.js';
import { seedPlan, US_DATE_FORMAT, USD_FORMAT } from '../../src/seed/index.js';
import type { PlanStore } from '../../src/store/plan-store.js';
import type { AccountRecord, CategoryRecord, TransactionRecord } from '../../src/store/records.js';
import { createTransaction, updateTransaction } from '../../src/store/transactions.js';
import {
  parseTransactionDraft,
  resolveNewTransaction,
  resolveTransactionUpdate,
} from '../../src/validate/transaction.js';
import { type BudgetFacts, type BudgetLine, referenceBudget } from './reference-budget.js';

/** 2025-06-15T12:00:00Z */
export const NOW = Date.UTC(2025, 5, 15, 12);

/**
 * A stored sum as a number, for the tests' own arithmetic: their amounts stay far below 2^53, so
 * a bigint here (core/exact.ts) is itself a failure.
 */
export function safe(value: Exact): number {
  if (typeof value !== 'number') throw new Error(`expected a safe integer, got ${value}n`);
  return value;
}
export const TODAY = isoDateOf(NOW);

export interface SeededPlan {
  store: PlanStore;
  newId: () => string;
}

/** The fields only imports and the seed set on a new transaction, left empty. */
export const NO_EXTRAS = {
  importId: null,
  importPayeeName: null,
  importPayeeNameOriginal: null,
  debtTransactionType: null,
};

/** Creates a transaction from a REST body, through the same validation as the handler. */
export function createVia(
  store: PlanStore,
  newId: () => string,
  body: Record<string, unknown>,
): TransactionRecord {
  const state = resolveNewTransaction(
    { store, today: TODAY },
    parseTransactionDraft(body, 'transaction'),
  );
  return store.change(NOW, () => createTransaction(store, newId, state, NO_EXTRAS));
}

/** Updates a transaction from a REST body, through the same validation as the handler. */
export function updateVia(
  store: PlanStore,
  newId: () => string,
  tx: TransactionRecord,
  body: Record<string, unknown>,
): void {
  const state = resolveTransactionUpdate(
    { store, today: TODAY },
    parseTransactionDraft(body, 'transaction'),
    tx,
  );
  store.change(NOW, () => updateTransaction(store, newId, tx, state));
}

export function accountNamed(store: PlanStore, name: string): AccountRecord {
  const account = [...store.accounts.values()].find((a) => a.name === name);
  if (!account) throw new Error(`no account ${name}`);
  return account;
}

export function categoryNamed(store: PlanStore, name: string): CategoryRecord {
  const found = [...store.categories.values()].find((c) => c.name === name);
  if (!found) throw new Error(`no category ${name}`);
  return found;
}

export function seedTestPlan(
  options: { seed?: number; transactions?: number; now?: number } = {},
): SeededPlan {
  const now = options.now ?? NOW;
  const ids = createRandom(options.seed ?? 1, 0, 0, 99);
  const store = seedPlan({
    name: 'Test plan',
    ownerUserId: '00000000-0000-4000-8000-000000000001',
    seed: options.seed ?? 1,
    transactions: options.transactions ?? 300,
    today: isoDateOf(now),
    nowMs: now,
    ids,
    currencyFormat: USD_FORMAT,
    dateFormat: US_DATE_FORMAT,
  });
  return { store, newId: () => ids.uuid() };
}

/** The store's transactions and assignments as facts for the reference arithmetic. */
function factsOf(store: PlanStore): BudgetFacts {
  const lines: BudgetLine[] = [];
  for (const tx of store.transactions.values()) {
    if (tx.deleted) continue;
    const month = monthOf(tx.date);
    const live = tx.subtransactions.filter((sub) => !sub.deleted);
    for (const line of tx.subtransactions.length > 0 ? live : [tx]) {
      lines.push({
        month,
        accountId: tx.account_id,
        categoryId: line.category_id,
        transferAccountId: line.transfer_account_id,
        amount: line.amount,
      });
    }
  }
  const paymentCategories = new Map<string, string>();
  for (const category of store.categories.values()) {
    if (category.role === 'creditCardPayment' && category.creditCardAccountId !== null)
      paymentCategories.set(category.creditCardAccountId, category.id);
  }
  return {
    months: store.months.map((month) => month.month),
    categoryIds: [...store.categories.keys()],
    readyToAssignId: store.readyToAssignCategoryId,
    paymentCategories,
    onBudget: new Set(
      [...store.accounts.values()].filter((a) => a.on_budget).map((account) => account.id),
    ),
    budgeted: (month, categoryId) =>
      categoryId === store.readyToAssignCategoryId
        ? 0
        : (store.monthsByKey.get(month)?.categories.get(categoryId)?.budgeted ?? 0),
    lines,
  };
}

/**
 * Every way the store's derived numbers differ from a recomputation from scratch, using the
 * documented rules (README "Budget arithmetic", support/reference-budget.ts). Empty when the
 * store is consistent.
 */
export function budgetProblems(store: PlanStore): string[] {
  const problems: string[] = [];
  const balances = new Map<string, { balance: bigint; cleared: bigint }>();
  for (const tx of store.transactions.values()) {
    if (tx.deleted) continue;
    const entry = balances.get(tx.account_id) ?? { balance: 0n, cleared: 0n };
    entry.balance += BigInt(tx.amount);
    if (tx.cleared !== 'uncleared') entry.cleared += BigInt(tx.amount);
    balances.set(tx.account_id, entry);
    if (tx.subtransactions.length > 0) {
      const sum = tx.subtransactions.reduce((total, sub) => total + sub.amount, 0);
      if (sum !== tx.amount)
        problems.push(`split ${tx.id}: lines add up to ${sum}, not ${tx.amount}`);
    }
  }
  for (const account of store.accounts.values()) {
    const expected = balances.get(account.id) ?? { balance: 0n, cleared: 0n };
    if (BigInt(account.balance) !== expected.balance)
      problems.push(
        `account ${account.name}: balance ${account.balance}, expected ${expected.balance}`,
      );
    if (BigInt(account.cleared_balance) !== expected.cleared)
      problems.push(
        `account ${account.name}: cleared ${account.cleared_balance}, expected ${expected.cleared}`,
      );
    if (add(account.cleared_balance, account.uncleared_balance) !== account.balance)
      problems.push(`account ${account.name}: cleared + uncleared != balance`);
  }
  const reference = referenceBudget(factsOf(store));
  store.months.forEach((month, index) => {
    if (index > 0 && month.month !== addMonths((store.months[index - 1] as typeof month).month, 1))
      problems.push(`months not contiguous at ${month.month}`);
    const expected = reference.get(month.month);
    if (!expected) return;
    for (const category of store.categories.values()) {
      const values = month.categories.get(category.id);
      if (!values) {
        problems.push(`${month.month}: no values for ${category.name}`);
        continue;
      }
      const want = expected.categories.get(category.id);
      if (BigInt(values.activity) !== want?.activity)
        problems.push(
          `${month.month} ${category.name}: activity ${values.activity}, expected ${want?.activity}`,
        );
      if (BigInt(values.balance) !== want?.balance)
        problems.push(
          `${month.month} ${category.name}: balance ${values.balance}, expected ${want?.balance}`,
        );
      if (BigInt(values.creditOverspent ?? 0) !== (want?.creditOverspent ?? 0n))
        problems.push(
          `${month.month} ${category.name}: credit overspending ${values.creditOverspent ?? 0}, expected ${want?.creditOverspent}`,
        );
    }
    for (const key of ['income', 'budgeted', 'activity'] as const) {
      if (BigInt(month[key]) !== expected[key])
        problems.push(`${month.month}: ${key} ${month[key]}, expected ${expected[key]}`);
    }
    if (BigInt(month.to_be_budgeted) !== expected.toBeBudgeted)
      problems.push(
        `${month.month}: to_be_budgeted ${month.to_be_budgeted}, expected ${expected.toBeBudgeted}`,
      );
    const rta = month.categories.get(store.readyToAssignCategoryId);
    if (rta === undefined || BigInt(rta.balance) !== expected.toBeBudgeted || rta.budgeted !== 0)
      problems.push(`${month.month}: Ready to Assign row does not show to_be_budgeted`);
  });
  return problems;
}

/** Pairs of a transfer must mirror each other. */
export function transferProblems(store: PlanStore): string[] {
  const problems: string[] = [];
  for (const tx of store.transactions.values()) {
    if (tx.deleted || tx.transfer_transaction_id === null) continue;
    const other = store.transactions.get(tx.transfer_transaction_id);
    const sub = store.subtransactions.get(tx.transfer_transaction_id);
    if (other) {
      if (other.deleted) problems.push(`${tx.id}: counterpart deleted`);
      if (other.amount !== -tx.amount || other.date !== tx.date)
        problems.push(`${tx.id}: counterpart does not mirror`);
      if (other.transfer_transaction_id !== tx.id || other.transfer_account_id !== tx.account_id)
        problems.push(`${tx.id}: counterpart points elsewhere`);
      if (tx.transfer_account_id !== other.account_id)
        problems.push(`${tx.id}: transfer_account_id is not the counterpart's account`);
    } else if (sub) {
      const parent = store.transactions.get(sub.transaction_id);
      if (!parent || parent.deleted) problems.push(`${tx.id}: split source gone`);
      if (sub.amount !== -tx.amount || sub.transfer_transaction_id !== tx.id)
        problems.push(`${tx.id}: split line does not mirror`);
    } else {
      problems.push(`${tx.id}: transfer_transaction_id points nowhere`);
    }
  }
  return problems;
}

export function randomFor(seed: number) {
  return createRandom(seed, 0x7e57);
}
