import type { MonthRow } from '../replica/types.js';
import { amountFields } from './amounts.js';
import { builder } from './builder.js';
import { MonthCategory } from './category/category.js';
import { Node, PLAN_ID_DESCRIPTION } from './node.js';
import { orNotFound } from './not-found.js';
import { Plan } from './plan.js';
import { MonthSelectorScalar } from './scalars.js';

export const Month = builder.objectRef<MonthRow>('Month');

Month.implement({
  interfaces: [Node],
  description: "A plan month: Ready to Assign, Age of Money and the month's category amounts.",
  fields: (t) => ({
    id: t.id({
      description: 'Stable across requests: `<plan id>:<month>`.',
      resolve: (m) => `${m.plan_id}:${m.month}`,
    }),
    planId: t.exposeID('plan_id', { description: PLAN_ID_DESCRIPTION }),
    month: t.field({
      type: 'Date',
      description: 'The first day of the month.',
      resolve: (m) => m.month,
    }),
    note: t.exposeString('note', {
      nullable: true,
      description: 'The note the user wrote; null when none.',
    }),
    ...amountFields(t, 'income', (m) => m.income, 'Inflows to Ready to Assign in the month.'),
    ...amountFields(t, 'budgeted', (m) => m.budgeted, 'Assigned in the month.'),
    ...amountFields(
      t,
      'activity',
      (m) => m.activity,
      'Categorized activity in the month, excluding inflows to Ready to Assign.',
    ),
    ...amountFields(t, 'toBeBudgeted', (m) => m.to_be_budgeted, 'Ready to Assign.'),
    ageOfMoney: t.exposeInt('age_of_money', {
      nullable: true,
      description: 'Age of Money in days: how long money sat before it was spent.',
    }),
    deleted: t.exposeBoolean('deleted', {
      description: 'Whether it was deleted upstream (lists leave deleted objects out).',
    }),
    categories: t.field({
      type: [MonthCategory],
      description: "Every category with this month's amounts.",
      resolve: async (m, _args, ctx) => (await ctx.loaders.plan(m.plan_id)).categories(m.month),
    }),
    category: t.field({
      type: MonthCategory,
      nullable: true,
      description: "One category with this month's amounts, by REST id.",
      args: { id: t.arg({ type: 'UUID', required: true, description: 'The REST id.' }) },
      resolve: async (m, { id }, ctx) =>
        orNotFound((await ctx.loaders.plan(m.plan_id)).category(id, m.month), 'category', id),
    }),
    plan: t.field({
      type: Plan,
      description: 'The plan it belongs to.',
      resolve: (m) => ({ id: m.plan_id, summary: null }),
    }),
  }),
});

builder.objectFields(Plan, (t) => ({
  months: t.field({
    type: [Month],
    description: 'Every plan month (REST `GET /plans/{plan_id}/months`).',
    resolve: async (plan, _args, ctx) => (await ctx.loaders.plan(plan.id)).months(),
  }),
  month: t.field({
    type: Month,
    nullable: true,
    description: 'One month, by date or `current`.',
    args: {
      month: t.arg({
        type: MonthSelectorScalar,
        required: true,
        description: 'A month: `current` or any day in it.',
      }),
    },
    resolve: async (plan, { month }, ctx) => {
      const snapshot = await ctx.loaders.plan(plan.id);
      const resolved = month === 'current' ? snapshot.currentMonth() : month;
      return orNotFound(snapshot.month(resolved), 'month', resolved);
    },
  }),
}));
