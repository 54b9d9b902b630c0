/**
 * Property: after every write of a random sequence the plan's arithmetic holds (balances,
 * cleared + uncleared, category activity per month, month totals, transfer pairs, split sums),
 * and the per-collection endpoints agree with the plan export.
 */
import type { PlanDetail } from '@plans-gateway/rest-contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { budgetProblems } from './support/budget.js';
import { isoDate, monthOf } from './support/dates.js';
import { dataOf, type Rest } from './support/rest.js';
import { exportPlan, startTestSandbox } from './support/sandbox.js';
import { applyWrite, type WriteState, writeSequenceArbitrary } from './support/writes.js';

const SEED = 615_2025;
const RUNS = 25;
const MAX_WRITES = 15;

/** The collection endpoints tell the same story as the export. */
async function endpointProblems(
  rest: Rest,
  planId: string,
  plan: PlanDetail,
  today: string,
): Promise<string[]> {
  const problems: string[] = [];
  const accounts = dataOf(await rest.get(`/plans/${planId}/accounts`), 'getAccounts').accounts;
  for (const account of accounts) {
    const exported = plan.accounts.find((a) => a.id === account.id);
    if (
      exported?.balance !== account.balance ||
      exported.cleared_balance !== account.cleared_balance
    ) {
      problems.push(
        `account ${account.name}: /accounts says ${account.balance}, the export ${String(exported?.balance)}`,
      );
    }
  }
  const months = dataOf(await rest.get(`/plans/${planId}/months`), 'getPlanMonths').months;
  for (const month of months) {
    const exported = plan.months.find((m) => m.month === month.month);
    for (const key of ['income', 'budgeted', 'activity', 'to_be_budgeted'] as const) {
      if (exported?.[key] !== month[key])
        problems.push(
          `month ${month.month}: /months ${key} ${month[key]}, export ${String(exported?.[key])}`,
        );
    }
  }
  const current = plan.months.find((m) => m.month === monthOf(today));
  const groups = dataOf(
    await rest.get(`/plans/${planId}/categories`),
    'getCategories',
  ).category_groups;
  for (const category of groups.flatMap((g) => g.categories)) {
    const exported = current?.categories.find((c) => c.id === category.id);
    for (const key of ['budgeted', 'activity', 'balance'] as const) {
      if (exported?.[key] !== category[key]) {
        problems.push(
          `category ${category.name}: /categories ${key} ${category[key]}, export current month ${String(exported?.[key])}`,
        );
      }
    }
  }
  return problems;
}

describe('budget invariants', () => {
  it('hold after every write of random sequences', async () => {
    await fc.assert(
      fc.asyncProperty(writeSequenceArbitrary(MAX_WRITES), async (writes) => {
        const box = await startTestSandbox({ transactions: 40, seed: 4 });
        const log: string[] = [];
        try {
          const today = isoDate(box.clock.now());
          let plan = (await exportPlan(box.rest, box.planId)).plan;
          expect(budgetProblems(plan), 'the seeded plan').toEqual([]);
          const state: WriteState = { counter: 0 };
          for (const write of writes) {
            const outcome = await applyWrite(
              box.rest,
              box.planId,
              plan,
              box.clock.now(),
              write,
              state,
            );
            log.push(outcome?.description ?? `${write.kind}: nothing to do`);
            plan = (await exportPlan(box.rest, box.planId)).plan;
            expect(budgetProblems(plan), `after write ${log.length}`).toEqual([]);
          }
          expect(await endpointProblems(box.rest, box.planId, plan, today)).toEqual([]);
        } catch (error) {
          throw new Error(
            `${error instanceof Error ? error.message : String(error)}\nwrites:\n  ${log.join('\n  ')}`,
          );
        } finally {
          await box.close();
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    // 25 sandboxes and a full export after every write: seconds alone, more on a shared machine.
  }, 120_000);
});
