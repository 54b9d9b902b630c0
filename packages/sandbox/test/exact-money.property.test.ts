/**
 * Property: the month arithmetic stays exact past 2^53. A plan takes a long random history of
 * the largest amounts a request can carry (transactions far back and recent, transfers, card
 * spending, edits and deletes of old transactions, assignments up to a year ahead), each through
 * the handlers' validation and int64 check. Then every account balance, category activity and
 * carried balance, month total and Ready to Assign equals a recomputation from scratch in bigint
 * (support/reference-budget.ts), and the answers' JSON carries each of them digit for digit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addMonths, monthOf } from '../src/core/dates.js';
import { ApiError } from '../src/core/errors.js';
import type { Exact } from '../src/core/exact.js';
import { toJson } from '../src/http/json-stream.js';
import { presentAccountBase, presentMonthSummaryBase } from '../src/present/entities.js';
import { ensureMonth, setBudgeted } from '../src/store/budget.js';
import type { PlanStore } from '../src/store/plan-store.js';
import type { TransactionRecord } from '../src/store/records.js';
import {
  createTransaction,
  deleteTransaction,
  updateTransaction,
} from '../src/store/transactions.js';
import { assertAssignmentExact, inexactTransactionTotal } from '../src/validate/exact-totals.js';
import {
  parseTransactionDraft,
  resolveNewTransaction,
  resolveTransactionUpdate,
} from '../src/validate/transaction.js';
import {
  budgetProblems,
  NO_EXTRAS,
  NOW,
  seedTestPlan,
  TODAY,
  transferProblems,
} from './support/seeded-store.js';

const SEED = 2_53_2026;
const RUNS = 20;
const MAX = Number.MAX_SAFE_INTEGER;

/** Mostly amounts near the largest, so sums pass 2^53 within a few writes. */
const amount = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(MAX, -MAX, MAX - 1, -(MAX - 7)) },
  { weight: 3, arbitrary: fc.integer({ min: -MAX, max: MAX }) },
  { weight: 1, arbitrary: fc.integer({ min: -5_000_000, max: 5_000_000 }) },
);

type Step =
  | {
      kind: 'create';
      account: number;
      daysAgo: number;
      amount: number;
      category: number;
      transfer: number | null;
    }
  | { kind: 'update'; pick: number; amount: number; daysAgo: number }
  | { kind: 'delete'; pick: number }
  | { kind: 'assign'; monthsAgo: number; category: number; amount: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      account: fc.nat(),
      // Up to about four years back: before the seeded months too, which the plan then gains.
      daysAgo: fc.integer({ min: 0, max: 1_450 }),
      amount,
      category: fc.nat(),
      transfer: fc.option(fc.nat(), { freq: 4 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('update' as const),
      pick: fc.nat(),
      amount,
      daysAgo: fc.integer({ min: 0, max: 1_450 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('assign' as const),
      // Negative: months ahead of the current one (up to the twelve the interface allows).
      monthsAgo: fc.integer({ min: -12, max: 40 }),
      category: fc.nat(),
      amount,
    }),
  },
);

function dateDaysAgo(days: number): string {
  return new Date(Date.parse(`${TODAY}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);
}

const at = <T>(list: readonly T[], index: number): T | undefined =>
  list.length === 0 ? undefined : list[index % list.length];

/** Runs a step as the handlers would; a refusal (400) leaves the plan as it was. */
function apply(store: PlanStore, newId: () => string, made: TransactionRecord[], s: Step): void {
  const accounts = [...store.accounts.values()].filter((a) => !a.closed && !a.deleted);
  const categories = [...store.categories.values()].filter((c) => !c.deleted);
  try {
    if (s.kind === 'create') {
      const account = at(accounts, s.account);
      const other = s.transfer === null ? undefined : at(accounts, s.transfer);
      if (!account) return;
      const body: Record<string, unknown> = {
        account_id: account.id,
        date: dateDaysAgo(s.daysAgo),
        amount: s.amount,
        category_id: at(categories, s.category)?.id ?? null,
      };
      if (other && other.id !== account.id) body.payee_id = other.transfer_payee_id;
      const state = resolveNewTransaction(
        { store, today: TODAY },
        parseTransactionDraft(body, 'transaction'),
      );
      if (inexactTransactionTotal(store, [{ before: null, after: state, path: 'transaction' }]))
        return;
      made.push(store.change(NOW, () => createTransaction(store, newId, state, NO_EXTRAS)));
    } else if (s.kind === 'update') {
      const tx = at(
        made.filter((t) => !t.deleted),
        s.pick,
      );
      if (!tx) return;
      const state = resolveTransactionUpdate(
        { store, today: TODAY },
        parseTransactionDraft({ amount: s.amount, date: dateDaysAgo(s.daysAgo) }, 'transaction'),
        tx,
      );
      if (inexactTransactionTotal(store, [{ before: tx, after: state, path: 'transaction' }]))
        return;
      store.change(NOW, () => updateTransaction(store, newId, tx, state));
    } else if (s.kind === 'delete') {
      const tx = at(
        made.filter((t) => !t.deleted),
        s.pick,
      );
      if (!tx) return;
      if (inexactTransactionTotal(store, [{ before: tx, after: null, path: 'transaction' }]))
        return;
      store.change(NOW, () => deleteTransaction(store, tx));
    } else {
      const category = at(
        categories.filter((c) => c.role !== 'readyToAssign'),
        s.category,
      );
      const month = addMonths(monthOf(TODAY), -s.monthsAgo);
      if (!category) return;
      assertAssignmentExact(store, month, category.id, s.amount);
      store.change(NOW, () => setBudgeted(store, ensureMonth(store, month), category.id, s.amount));
    }
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 400)) throw error;
  }
}

/** Every sum the plan holds, to see how far past 2^53 a history went. */
function sums(store: PlanStore): Exact[] {
  const values: Exact[] = [];
  for (const account of store.accounts.values()) values.push(account.balance);
  for (const month of store.months) {
    values.push(month.income, month.budgeted, month.activity, month.to_be_budgeted);
    for (const category of month.categories.values())
      values.push(category.activity, category.balance);
  }
  return values;
}

describe('month arithmetic past 2^53 (property)', () => {
  it('equals a bigint recomputation after long histories of the largest amounts', () => {
    let beyond = 0;
    fc.assert(
      fc.property(fc.array(step, { minLength: 20, maxLength: 60 }), (steps) => {
        const { store, newId } = seedTestPlan({ transactions: 20, seed: 3 });
        const made: TransactionRecord[] = [];
        for (const s of steps) apply(store, newId, made, s);
        expect(budgetProblems(store)).toEqual([]);
        expect(transferProblems(store)).toEqual([]);
        if (sums(store).some((value) => typeof value === 'bigint')) beyond++;
        // The answers carry each sum as the integer it is.
        for (const account of store.accounts.values()) {
          expect(toJson(presentAccountBase(account))).toContain(
            `"balance":${account.balance},"cleared_balance":${account.cleared_balance},"uncleared_balance":${account.uncleared_balance},`,
          );
        }
        for (const month of store.months) {
          expect(toJson(presentMonthSummaryBase(month))).toContain(
            `"income":${month.income},"budgeted":${month.budgeted},"activity":${month.activity},"to_be_budgeted":${month.to_be_budgeted},`,
          );
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // The histories did reach past 2^53, most of them.
    expect(beyond).toBeGreaterThan(RUNS / 2);
  });
});
