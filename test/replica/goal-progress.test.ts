/**
 * Target progress in one-trip writes: the gateway's rules (`src/replica/goal-progress.ts`) give
 * what the sandbox's (`packages/sandbox/src/store/goals.ts`) give, for any goal configuration,
 * amounts and month (every cadence, including weekly ones the seed has none of); and
 * `localEffects` recomputes the progress of a category with a target whose amounts a write moves,
 * unless the progress the replica holds is not what the rules give for its held amounts (an
 * upstream with other rules), when the write takes the delta.
 */
import {
  account,
  category,
  categoryGroup,
  month,
  planExport,
  TEST_MONTH,
  TEST_NOW,
  uuid,
} from '@plans-gateway/rest-contract/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { goalProgress as sandboxProgress } from '../../packages/sandbox/src/store/goals.js';
import { buildPlanState } from '../../src/replica/delta.js';
import { type GoalConfig, goalProgress } from '../../src/replica/goal-progress.js';
import { localEffects } from '../../src/replica/local-effects.js';
import { createPlanSnapshot } from '../../src/replica/snapshot.js';

const monthArb = fc
  .record({ year: fc.integer({ min: 2024, max: 2028 }), month: fc.integer({ min: 1, max: 12 }) })
  .map(({ year, month }) => `${year}-${String(month).padStart(2, '0')}-01`);
const dateArb = fc
  .tuple(monthArb, fc.integer({ min: 1, max: 28 }))
  .map(([m, day]) => `${m.slice(0, 8)}${String(day).padStart(2, '0')}`);

function goalArb(amount: fc.Arbitrary<number>): fc.Arbitrary<GoalConfig> {
  return fc.record({
    goal_type: fc.constantFrom('TB', 'TBD', 'MF', 'NEED', 'DEBT', null),
    goal_needs_whole_amount: fc.constantFrom(true, false, null),
    goal_day: fc.option(fc.integer({ min: 0, max: 31 })),
    goal_cadence: fc.option(fc.integer({ min: 0, max: 14 })),
    goal_cadence_frequency: fc.option(fc.integer({ min: 0, max: 4 })),
    goal_creation_month: fc.option(monthArb),
    goal_target: fc.option(amount, { freq: 8 }),
    goal_target_date: fc.option(dateArb),
  });
}

const amountsArb = (amount: fc.Arbitrary<number>) =>
  fc.record({ budgeted: amount, activity: amount, balance: amount });

describe("the gateway's target progress", () => {
  it("is the sandbox's for any goal, amounts and month", () => {
    const amount = fc.integer({ min: -50_000_000, max: 50_000_000 });
    fc.assert(
      fc.property(goalArb(amount), amountsArb(amount), monthArb, (goal, amounts, m) => {
        expect(goalProgress(goal, amounts, m)).toEqual(
          sandboxProgress({ ...goal, goal_snoozed_at: null }, amounts, m),
        );
      }),
      { numRuns: 3_000, seed: 34_041 },
    );
  });

  it("is the sandbox's past 2^40 too, or not followed where the sandbox's figures pass 2^53", () => {
    const amount = fc.oneof(
      fc.integer({ min: 2 ** 40 - 1_000, max: 2 ** 40 + 1_000 }),
      fc.integer({ min: -(2 ** 52), max: 2 ** 52 }),
    );
    let followed = 0;
    fc.assert(
      fc.property(goalArb(amount), amountsArb(amount), monthArb, (goal, amounts, m) => {
        const mine = goalProgress(goal, amounts, m);
        if (mine === undefined) return;
        followed += 1;
        expect(mine).toEqual(sandboxProgress({ ...goal, goal_snoozed_at: null }, amounts, m));
      }),
      { numRuns: 2_000, seed: 34_042 },
    );
    expect(followed).toBeGreaterThan(500);
  });
});

const GROUP = uuid(5, 1);
const CHECKING = uuid(2, 1);
const SAVINGS = uuid(6, 1);
const NEXT_MONTH = '2026-04-01';
/** A target balance of 100.000 by June; `held` its progress as the sandbox gives it. */
const GOAL = {
  goal_type: 'TBD',
  goal_needs_whole_amount: null,
  goal_day: null,
  goal_cadence: null,
  goal_cadence_frequency: null,
  goal_creation_month: '2026-01-01',
  goal_target: 100_000,
  goal_target_date: '2026-06-20',
} as const satisfies GoalConfig;

function savingsRow(amounts: { budgeted: number; activity: number; balance: number }, m: string) {
  return category({
    id: SAVINGS,
    category_group_id: GROUP,
    ...GOAL,
    ...amounts,
    ...goalProgress(GOAL, amounts, m),
  });
}

/** A plan with the savings category in March (held 20.000) and April (carried, nothing more). */
function snapshotWith(heldProgress: (row: ReturnType<typeof savingsRow>) => object = (row) => row) {
  const march = { budgeted: 20_000, activity: 0, balance: 20_000 };
  const april = { budgeted: 0, activity: 0, balance: 20_000 };
  const state = buildPlanState(
    planExport(
      {
        id: uuid(1, 1),
        accounts: [account({ id: CHECKING })],
        category_groups: [categoryGroup({ id: GROUP })],
        categories: [savingsRow(march, TEST_MONTH)],
        months: [
          month({
            month: TEST_MONTH,
            budgeted: 20_000,
            categories: [
              { ...savingsRow(march, TEST_MONTH), ...heldProgress(savingsRow(march, TEST_MONTH)) },
            ],
          }),
          month({ month: NEXT_MONTH, categories: [savingsRow(april, NEXT_MONTH)] }),
        ],
      },
      7,
    ),
    { currentMonth: TEST_MONTH },
  );
  return createPlanSnapshot(state, { now: () => TEST_NOW });
}

const ASSIGN = {
  kind: 'budgeted',
  month: TEST_MONTH,
  categoryId: SAVINGS,
  budgeted: 35_000,
} as const;

describe('localEffects of a write in a category with a target', () => {
  it('recomputes its progress in each month its amounts move, as the sandbox would', () => {
    const effects = localEffects(snapshotWith(), ASSIGN, '2026-03-15');
    expect(effects).not.toBeNull();
    const rows = new Map(effects!.monthCategories.map((entry) => [entry.month, entry.category]));
    const goal = { ...GOAL, goal_snoozed_at: null };
    const march = { budgeted: 35_000, activity: 0, balance: 35_000 };
    const april = { budgeted: 0, activity: 0, balance: 35_000 };
    expect(rows.get(TEST_MONTH)).toMatchObject({
      ...march,
      ...sandboxProgress(goal, march, TEST_MONTH),
    });
    expect(rows.get(NEXT_MONTH)).toMatchObject({
      ...april,
      ...sandboxProgress(goal, april, NEXT_MONTH),
    });
    // A quarter of what is missing is asked of March, and more was assigned: none under-funded.
    expect(rows.get(TEST_MONTH)).toMatchObject({
      goal_percentage_complete: 35,
      goal_months_to_budget: 4,
      goal_overall_funded: 35_000,
      goal_overall_left: 65_000,
      goal_under_funded: 0,
    });
  });

  it('is uncovered when the held progress is not what the rules give for the held amounts', () => {
    const otherRules = snapshotWith((row) => ({
      goal_under_funded: (row.goal_under_funded as number) + 1,
    }));
    expect(localEffects(otherRules, ASSIGN, '2026-03-15')).toBeNull();
  });
});
