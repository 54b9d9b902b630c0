/**
 * Properties of the credit card rules (README "Credit cards"), each from a plan brought to a
 * random state by a random write sequence (card spending, refunds and payments included):
 * fully funded card spending moves exactly its amount into the card's payment category; a payment
 * draws the payment category down by exactly the payment; credit overspending never reduces the
 * next month's Ready to Assign (cash overspending does).
 */
import type { AccountBase, CategoryBase, PlanDetail } from '@plans-gateway/rest-contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { paymentCategories } from './support/budget.js';
import { addDays, addMonths, isoDate, monthOf } from './support/dates.js';
import { dataOf, type Rest } from './support/rest.js';
import { exportPlan, startTestSandbox, type TestSandbox } from './support/sandbox.js';
import { applyWrite, type WriteState, writeSequenceArbitrary } from './support/writes.js';

const RUNS = 12;
const MAX_WRITES = 8;

interface Scene {
  box: TestSandbox;
  plan: PlanDetail;
  today: string;
  card: AccountBase;
  paymentId: string;
  checking: AccountBase;
  categories: CategoryBase[];
}

/** A sandbox after a random write sequence, with its card, payment category and categories. */
async function sceneAfter(writes: Parameters<typeof applyWrite>[4][]): Promise<Scene> {
  const box = await startTestSandbox({ transactions: 40, seed: 8 });
  const state: WriteState = { counter: 0 };
  let plan = (await exportPlan(box.rest, box.planId)).plan;
  for (const write of writes) {
    await applyWrite(box.rest, box.planId, plan, box.clock.now(), write, state);
    plan = (await exportPlan(box.rest, box.planId)).plan;
  }
  const card = plan.accounts.find((a) => a.type === 'creditCard' && !a.closed && !a.deleted);
  const checking = plan.accounts.find((a) => a.type === 'checking' && !a.closed);
  const paymentId = card === undefined ? undefined : paymentCategories(plan).get(card.id);
  const groups = new Map(plan.category_groups.map((g) => [g.id, g]));
  const categories = plan.categories.filter((c) => {
    const group = groups.get(c.category_group_id);
    return !c.deleted && group !== undefined && !group.internal && !/credit card/i.test(group.name);
  });
  if (card === undefined || checking === undefined || paymentId === undefined) {
    await box.close();
    throw new Error('the seeded plan has no open card with a payment category, or no checking');
  }
  return { box, plan, today: isoDate(box.clock.now()), card, paymentId, checking, categories };
}

async function amountsOf(rest: Rest, planId: string, month: string, categoryId: string) {
  return dataOf(
    await rest.get(`/plans/${planId}/months/${month}/categories/${categoryId}`),
    'getMonthCategoryById',
  ).category;
}

async function readyToAssign(rest: Rest, planId: string, month: string): Promise<number> {
  return dataOf(await rest.get(`/plans/${planId}/months/${month}`), 'getPlanMonth').month
    .to_be_budgeted;
}

async function post(rest: Rest, planId: string, transaction: Record<string, unknown>) {
  dataOf(
    await rest.post(`/plans/${planId}/transactions`, { transaction }),
    'createTransaction',
    201,
  );
}

const amount = fc.integer({ min: 1, max: 50_000 }).map((n) => n * 10);

describe('credit card payment categories', () => {
  it('receive exactly the amount of fully funded card spending', async () => {
    await fc.assert(
      fc.asyncProperty(
        writeSequenceArbitrary(MAX_WRITES),
        fc.nat(),
        amount,
        async (writes, pick, spent) => {
          const scene = await sceneAfter(writes);
          const { box, today, card, paymentId } = scene;
          try {
            const month = monthOf(today);
            const category = scene.categories[pick % scene.categories.length];
            if (category === undefined) throw new Error('no category');
            // Fund it: assign what makes it hold at least the purchase.
            const held = await amountsOf(box.rest, box.planId, month, category.id);
            if (held.balance < spent) {
              await box.rest.patch(
                `/plans/${box.planId}/months/${month}/categories/${category.id}`,
                {
                  category: { budgeted: held.budgeted + spent - held.balance },
                },
              );
            }
            const before = await amountsOf(box.rest, box.planId, month, paymentId);
            const funded = await amountsOf(box.rest, box.planId, month, category.id);
            const tbb = await readyToAssign(box.rest, box.planId, month);
            await post(box.rest, box.planId, {
              account_id: card.id,
              date: today,
              amount: -spent,
              category_id: category.id,
            });
            const after = await amountsOf(box.rest, box.planId, month, paymentId);
            expect(after.activity - before.activity).toBe(spent);
            expect(after.balance - before.balance).toBe(spent);
            expect((await amountsOf(box.rest, box.planId, month, category.id)).balance).toBe(
              funded.balance - spent,
            );
            expect(await readyToAssign(box.rest, box.planId, month)).toBe(tbb);
          } finally {
            await box.close();
          }
        },
      ),
      { seed: 14_2025, numRuns: RUNS, endOnFailure: true },
    );
  });

  it('are drawn down by exactly a payment to the card, whichever side records it', async () => {
    await fc.assert(
      fc.asyncProperty(
        writeSequenceArbitrary(MAX_WRITES),
        amount,
        fc.boolean(),
        fc.integer({ min: 0, max: 90 }),
        async (writes, paid, fromCardSide, daysAgo) => {
          const scene = await sceneAfter(writes);
          const { box, today, card, checking, paymentId } = scene;
          try {
            const date = addDays(today, -daysAgo);
            const month = monthOf(date);
            const before = await amountsOf(box.rest, box.planId, month, paymentId);
            await post(box.rest, box.planId, {
              account_id: fromCardSide ? card.id : checking.id,
              date,
              amount: fromCardSide ? paid : -paid,
              payee_id: fromCardSide ? checking.transfer_payee_id : card.transfer_payee_id,
            });
            const after = await amountsOf(box.rest, box.planId, month, paymentId);
            expect(after.activity - before.activity).toBe(-paid);
            expect(after.balance - before.balance).toBe(-paid);
          } finally {
            await box.close();
          }
        },
      ),
      { seed: 14_2026, numRuns: RUNS, endOnFailure: true },
    );
  });

  it('leave the next month’s Ready to Assign alone when card spending overspends', async () => {
    await fc.assert(
      fc.asyncProperty(
        writeSequenceArbitrary(MAX_WRITES),
        fc.nat(),
        amount,
        fc.integer({ min: 1, max: 28 }),
        async (writes, pick, extra, day) => {
          const scene = await sceneAfter(writes);
          const { box, today, card, checking } = scene;
          try {
            const month = addMonths(today, -1);
            const next = monthOf(today);
            const category = scene.categories[pick % scene.categories.length];
            if (category === undefined) throw new Error('no category');
            const held = await amountsOf(box.rest, box.planId, month, category.id);
            // More than the category holds: overspending, all of it on the card.
            const spent = Math.max(0, held.balance) + extra;
            const tbb = await readyToAssign(box.rest, box.planId, next);
            await post(box.rest, box.planId, {
              account_id: card.id,
              date: addDays(month, day - 1),
              amount: -spent,
              category_id: category.id,
            });
            expect(
              (await amountsOf(box.rest, box.planId, month, category.id)).balance,
            ).toBeLessThan(0);
            expect(await readyToAssign(box.rest, box.planId, next)).toBe(tbb);

            // The same overspending from the checking account, in a category that had nothing,
            // is cash overspending: it is taken from the next month's Ready to Assign.
            const fresh = dataOf(
              await box.rest.post(`/plans/${box.planId}/categories`, {
                category: { name: 'Fresh', category_group_id: category.category_group_id },
              }),
              'createCategory',
              201,
            ).category;
            const cashBefore = await readyToAssign(box.rest, box.planId, next);
            await post(box.rest, box.planId, {
              account_id: checking.id,
              date: addDays(month, day - 1),
              amount: -extra,
              category_id: fresh.id,
            });
            expect(await readyToAssign(box.rest, box.planId, next)).toBe(cashBefore - extra);
          } finally {
            await box.close();
          }
        },
      ),
      { seed: 14_2027, numRuns: RUNS, endOnFailure: true },
    );
  });
});
