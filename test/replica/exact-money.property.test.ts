/**
 * Property: the replica keeps money exact past 2^53. A model plan takes a long random history of
 * the largest amounts one request can carry (transactions in and out of accounts and
 * categories, income, assignments over six months); its sums (account balances, category
 * activity and the balance carried from month to month, each month's income, assigned,
 * activity and Ready to Assign) are computed in bigint and soon pass 2^53. The upstream sends
 * them as the JSON integers they are, a full export first and a delta after every stretch of
 * history; the gateway reads that text as it does an answer (streamed in batches for the
 * export, `parseExactJson` for a delta), merges it, and every figure of the replica equals the
 * model's, digit for digit, in canonical form (a number while safe, a bigint beyond). So does a
 * replica rebuilt from what the cluster tier writes of it (`planExportOf`), and its digests
 * equal the export's (reconciliation sees no drift where there is none).
 */
import {
  type AccountBase,
  type CategoryBase,
  type MonthDetailBase,
  parseExactJson,
  stringifyExactJson,
  type TransactionSummaryBase,
} from '@plans-gateway/rest-contract';
import {
  account,
  category,
  categoryGroup,
  month,
  planExport,
  TEST_MONTH,
  TEST_NOW,
  transaction,
  uuid,
} from '@plans-gateway/rest-contract/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planExportOf } from '../../src/cluster/plan-export.js';
import { buildPlanState, mergePlanDelta } from '../../src/replica/delta.js';
import { compareDigests, digestPlan, hasDrift } from '../../src/replica/drift.js';
import { PlanBuilder } from '../../src/replica/plan-builder.js';
import type { PlanState } from '../../src/replica/plan-state.js';
import { createPlanSnapshot } from '../../src/replica/snapshot.js';
import type { ExactMilliunits, PlanExport } from '../../src/replica/types.js';
import { JsonArraySplitter } from '../../src/upstream/json-array-stream.js';

const MAX = Number.MAX_SAFE_INTEGER;
const PLAN_ID = uuid(1, 1);
const GROUP_ID = uuid(2, 1);
const ACCOUNTS = [uuid(3, 1), uuid(3, 2), uuid(3, 3)];
const CATEGORIES = [uuid(4, 1), uuid(4, 2), uuid(4, 3), uuid(4, 4)];
/** Six months up to the tests' current month (2026-03). */
const MONTHS = ['2025-10-01', '2025-11-01', '2025-12-01', '2026-01-01', '2026-02-01', TEST_MONTH];
const options = { currentMonth: TEST_MONTH };

/** Mostly amounts near the largest, so sums pass 2^53 within a few steps, both ways. */
const amount = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(MAX, -MAX, MAX - 1, -(MAX - 7)) },
  { weight: 3, arbitrary: fc.integer({ min: -MAX, max: MAX }) },
  { weight: 1, arbitrary: fc.integer({ min: -5_000_000, max: 5_000_000 }) },
);

type Step =
  | {
      kind: 'spend';
      account: number;
      /** null: income to Ready to Assign. */
      category: number | null;
      month: number;
      amount: number;
      cleared: boolean;
    }
  | { kind: 'assign'; category: number; month: number; amount: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('spend' as const),
      account: fc.nat({ max: ACCOUNTS.length - 1 }),
      category: fc.option(fc.nat({ max: CATEGORIES.length - 1 }), { freq: 4 }),
      month: fc.nat({ max: MONTHS.length - 1 }),
      amount,
      cleared: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('assign' as const),
      category: fc.nat({ max: CATEGORIES.length - 1 }),
      month: fc.nat({ max: MONTHS.length - 1 }),
      amount,
    }),
  },
);

/** The canonical form the wire reader gives: a number while safe, a bigint beyond. */
function canonical(value: bigint): ExactMilliunits {
  return value >= -BigInt(MAX) && value <= BigInt(MAX) ? Number(value) : value;
}

/** The plan as the upstream knows it, every sum in bigint. */
class ModelPlan {
  readonly transactions: TransactionSummaryBase[] = [];
  private readonly _budgeted = MONTHS.map(() => CATEGORIES.map(() => 0n));
  private _knowledge = 1;

  apply(s: Step): void {
    if (s.kind === 'assign') {
      this._budgeted[s.month]![s.category] = BigInt(s.amount);
      return;
    }
    const n = this.transactions.length + 1;
    this.transactions.push(
      transaction({
        id: uuid(5, n),
        account_id: ACCOUNTS[s.account]!,
        category_id: s.category === null ? null : CATEGORIES[s.category]!,
        date: MONTHS[s.month]!.replace(/01$/, String(1 + (n % 28)).padStart(2, '0')),
        amount: s.amount,
        cleared: s.cleared ? 'cleared' : 'uncleared',
      }),
    );
  }

  nextKnowledge(): number {
    this._knowledge += 1;
    return this._knowledge;
  }

  accounts(): AccountBase[] {
    return ACCOUNTS.map((id) => {
      let balance = 0n;
      let cleared = 0n;
      for (const tx of this.transactions) {
        if (tx.account_id !== id) continue;
        balance += BigInt(tx.amount);
        if (tx.cleared !== 'uncleared') cleared += BigInt(tx.amount);
      }
      return account({
        id,
        balance: canonical(balance),
        cleared_balance: canonical(cleared),
        uncleared_balance: canonical(balance - cleared),
      } as Partial<AccountBase> & { id: string });
    });
  }

  /** Each month's category figures; balances carry from month to month. */
  months(): MonthDetailBase[] {
    const carried = CATEGORIES.map(() => 0n);
    let readyToAssign = 0n;
    return MONTHS.map((key, m) => {
      let income = 0n;
      const activity = CATEGORIES.map(() => 0n);
      for (const tx of this.transactions) {
        if (!tx.date.startsWith(key.slice(0, 7))) continue;
        if (tx.category_id === null) income += BigInt(tx.amount);
        else activity[CATEGORIES.indexOf(tx.category_id)]! += BigInt(tx.amount);
      }
      const budgeted = this._budgeted[m]!;
      const categories = CATEGORIES.map((id, c) => {
        carried[c]! += budgeted[c]! + activity[c]!;
        return category({
          id,
          category_group_id: GROUP_ID,
          budgeted: canonical(budgeted[c]!),
          activity: canonical(activity[c]!),
          balance: canonical(carried[c]!),
        } as Partial<CategoryBase> & { id: string; category_group_id: string });
      });
      const assigned = budgeted.reduce((sum, value) => sum + value, 0n);
      readyToAssign += income - assigned;
      return month({
        month: key,
        income: canonical(income),
        budgeted: canonical(assigned),
        activity: canonical(activity.reduce((sum, value) => sum + value, 0n)),
        to_be_budgeted: canonical(readyToAssign),
        categories,
      } as Partial<MonthDetailBase> & { month: string });
    });
  }

  /** An export (full) or a delta: the sums as they stand, the transactions given. */
  body(knowledge: number, transactions: TransactionSummaryBase[]): string {
    const months = this.months();
    const data = planExport(
      {
        id: PLAN_ID,
        category_groups: [categoryGroup({ id: GROUP_ID })],
        accounts: this.accounts(),
        categories: months.at(-1)!.categories,
        months,
        transactions,
      },
      knowledge,
    );
    return stringifyExactJson({ data });
  }
}

/** The streamed load of a full export, as `src/replica-fetch/plan-fetch.ts` does it. */
function streamedLoad(body: string, batchBytes: number): PlanState {
  const builder = new PlanBuilder(options);
  const splitter = new JsonArraySplitter(
    { at: ['data', 'plan'], onElements: (key, rows) => builder.add(key, rows) },
    { batchBytes },
  );
  const bytes = Buffer.from(body, 'utf8');
  for (let at = 0; at < bytes.length; at += 997) splitter.write(bytes.subarray(at, at + 997));
  return builder.finish((splitter.end() as { data: unknown }).data);
}

/** A delta or a relayed export, as `decode-response.ts` reads an answer. */
function parsed(body: string): PlanExport {
  return (parseExactJson(body) as { data: PlanExport }).data;
}

/** Every figure the replica answers with, keyed so a difference names its place. */
function figures(state: PlanState): Record<string, ExactMilliunits | null | undefined> {
  const snapshot = createPlanSnapshot(state, { now: () => TEST_NOW });
  const out: Record<string, ExactMilliunits | null | undefined> = {};
  for (const a of snapshot.accounts()) {
    out[`account ${a.id} balance`] = a.balance;
    out[`account ${a.id} cleared`] = a.cleared_balance;
    out[`account ${a.id} uncleared`] = a.uncleared_balance;
  }
  for (const m of snapshot.months()) {
    out[`${m.month} income`] = m.income;
    out[`${m.month} budgeted`] = m.budgeted;
    out[`${m.month} activity`] = m.activity;
    out[`${m.month} ready to assign`] = m.to_be_budgeted;
    for (const c of snapshot.categories(m.month)) {
      out[`${m.month} ${c.id} budgeted`] = c.budgeted;
      out[`${m.month} ${c.id} activity`] = c.activity;
      out[`${m.month} ${c.id} balance`] = c.balance;
    }
  }
  for (const c of snapshot.categories()) out[`current ${c.id} balance`] = c.balance;
  return out;
}

/** The model's figures in the same keys. */
function modelFigures(model: ModelPlan): Record<string, ExactMilliunits | null | undefined> {
  // From the model's own objects, never through the reader under test.
  const out: Record<string, ExactMilliunits | null | undefined> = {};
  for (const a of model.accounts()) {
    out[`account ${a.id} balance`] = a.balance;
    out[`account ${a.id} cleared`] = a.cleared_balance;
    out[`account ${a.id} uncleared`] = a.uncleared_balance;
  }
  const months = model.months();
  for (const m of months) {
    out[`${m.month} income`] = m.income;
    out[`${m.month} budgeted`] = m.budgeted;
    out[`${m.month} activity`] = m.activity;
    out[`${m.month} ready to assign`] = m.to_be_budgeted;
    for (const c of m.categories) {
      out[`${m.month} ${c.id} budgeted`] = c.budgeted;
      out[`${m.month} ${c.id} activity`] = c.activity;
      out[`${m.month} ${c.id} balance`] = c.balance;
    }
  }
  for (const c of months.at(-1)!.categories) out[`current ${c.id} balance`] = c.balance;
  return out;
}

describe('exact money in the replica', () => {
  it('equals a bigint model after long histories of the largest amounts', () => {
    let beyond = 0;
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 1, maxLength: 40 }),
        fc.array(fc.array(step, { minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 256, max: 8192 }),
        (history, stretches, batchBytes) => {
          const model = new ModelPlan();
          for (const s of history) model.apply(s);
          const full = model.body(model.nextKnowledge(), model.transactions);
          let state = streamedLoad(full, batchBytes);
          expect(figures(state)).toEqual(modelFigures(model));
          // The ordinary read of the same answer builds the same figures.
          expect(figures(buildPlanState(parsed(full), options))).toEqual(modelFigures(model));

          for (const stretch of stretches) {
            const before = model.transactions.length;
            for (const s of stretch) model.apply(s);
            const delta = model.body(model.nextKnowledge(), model.transactions.slice(before));
            state = mergePlanDelta(state, parsed(delta), options);
            expect(figures(state)).toEqual(modelFigures(model));
          }

          // What the cluster tier writes of the replica rebuilds it exactly.
          const relayed = stringifyExactJson(
            planExportOf(createPlanSnapshot(state, { now: () => TEST_NOW })),
          );
          const rebuilt = buildPlanState(parseExactJson(relayed) as PlanExport, options);
          expect(figures(rebuilt)).toEqual(modelFigures(model));
          // Reconciliation compares it with a fresh export of the same plan and finds nothing.
          const fresh = buildPlanState(
            parsed(model.body(state.serverKnowledge, model.transactions)),
            options,
          );
          expect(hasDrift(compareDigests(digestPlan(state), digestPlan(fresh)))).toBe(false);

          if (Object.values(figures(state)).some((value) => typeof value === 'bigint')) beyond++;
        },
      ),
      { numRuns: 15, seed: 2_53_2027 },
    );
    // The property would be empty if the histories never passed 2^53.
    expect(beyond).toBeGreaterThan(5);
  });

  it('tells a digest apart by one milliunit past 2^53', () => {
    const model = new ModelPlan();
    for (let i = 0; i < 3; i++)
      model.apply({ kind: 'spend', account: 0, category: 0, month: 5, amount: MAX, cleared: true });
    const knowledge = model.nextKnowledge();
    const exact = buildPlanState(parsed(model.body(knowledge, model.transactions)), options);
    expect(figures(exact)[`account ${ACCOUNTS[0]} balance`]).toBe(3n * BigInt(MAX));
    // The same answer one milliunit off: the rounding `JSON.parse` would have made unnoticed.
    const text = model
      .body(knowledge, model.transactions)
      .replace(`"balance":${3n * BigInt(MAX)}`, `"balance":${3n * BigInt(MAX) - 1n}`);
    const off = buildPlanState(parsed(text), options);
    expect(hasDrift(compareDigests(digestPlan(exact), digestPlan(off)))).toBe(true);
  });
});
