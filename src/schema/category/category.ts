import { GOAL_FREQUENCIES, GOAL_TYPES, type GoalFrequency } from '@plans-gateway/rest-contract';
import type { CategoryGroupRow, CategoryRow } from '../../replica/types.js';
import { amountFields, type FieldBuilder, nullableAmountFields } from '../amounts.js';
import { builder } from '../builder.js';
import { describedValues } from '../enum-values.js';
import { findCategory, inPlan } from '../in-plan.js';
import { Node, PLAN_ID_DESCRIPTION, REST_ID_DESCRIPTION } from '../node.js';
import { orNotFound } from '../not-found.js';
import { Plan } from '../plan.js';
import { MonthSelectorScalar } from '../scalars.js';

export const GoalTypeEnum = builder.enumType('GoalType', {
  description:
    'TB: target balance; TBD: target balance by date; MF: monthly funding; NEED: plan your ' +
    'spending; DEBT: debt payoff.',
  values: describedValues(GOAL_TYPES, {
    TB: 'Target balance.',
    TBD: 'Target balance by date.',
    MF: 'Monthly funding.',
    NEED: 'Plan your spending (a refill or set-aside target).',
    DEBT: 'Debt payoff.',
  }),
});

export const GoalFrequencyEnum = builder.enumType('GoalFrequency', {
  description:
    'How a recurring target repeats (REST `goal_frequency`, since specification 1.86.0): a NEED ' +
    'target of `goalTarget` due again every week, month or year.',
  values: describedValues(GOAL_FREQUENCIES, {
    monthly: 'Due again every month.',
    weekly: 'Due again every week, on the weekday it was set.',
    yearly: 'Due again every year.',
  }),
});

/** REST `goal_cadence` of each frequency, as specification 1.86.0 numbers them (1, 2, 13). */
const CADENCE_FREQUENCIES: ReadonlyMap<number, GoalFrequency> = new Map([
  [1, 'monthly'],
  [2, 'weekly'],
  [13, 'yearly'],
]);

/**
 * The frequency a category's target repeats at, when it repeats every single week, month or
 * year (what `goal_frequency` sets); null without a target or for other cadences (every other
 * month, every 2 years...), which `goalCadence` and `goalCadenceFrequency` still describe.
 */
export function goalFrequencyOf(
  c: Pick<CategoryRow, 'goal_type' | 'goal_cadence' | 'goal_cadence_frequency'>,
): GoalFrequency | null {
  if (c.goal_type === null || c.goal_type === undefined) return null;
  if ((c.goal_cadence_frequency ?? 1) !== 1) return null;
  return CADENCE_FREQUENCIES.get(c.goal_cadence ?? -1) ?? null;
}

export const CategoryGroup = builder.objectRef<CategoryGroupRow>('CategoryGroup');
/** A category with the amounts of the current month, keyed by its REST id. */
export const Category = builder.objectRef<CategoryRow>('Category');
/** A category with the amounts of one month; its id combines category and month. */
export const MonthCategory = builder.objectRef<CategoryRow>('MonthCategory');

/** The fields a category has whichever month its amounts belong to. */
function budgetFields(t: FieldBuilder<CategoryRow>) {
  return {
    categoryGroupId: t.exposeID('category_group_id', {
      description: 'The REST id of the category group.',
    }),
    categoryGroupName: t.string({
      description: 'Read from the group, so a renamed group shows its new name.',
      resolve: async (c, _args, ctx) =>
        (await ctx.loaders.plan(c.plan_id)).categoryGroup(c.category_group_id)?.name ??
        c.category_group_name,
    }),
    name: t.exposeString('name', { description: 'The name, as the user wrote it.' }),
    hidden: t.exposeBoolean('hidden', { description: 'Hidden from the budget screen.' }),
    internal: t.exposeBoolean('internal', {
      description: "Part of the plan's own structure (Ready to Assign, credit card payments, ...).",
    }),
    originalCategoryGroupId: t.exposeID('original_category_group_id', {
      nullable: true,
      deprecationReason: 'Always null upstream.',
      description: 'The group a hidden category came from.',
    }),
    note: t.exposeString('note', {
      nullable: true,
      description: 'The note the user wrote; null when none.',
    }),
    month: t.field({
      type: 'Date',
      description: 'The month whose amounts `budgeted`, `activity` and `balance` are.',
      resolve: (c) => c.month,
    }),
    ...amountFields(t, 'budgeted', (c) => c.budgeted, 'Assigned in the month.'),
    ...amountFields(
      t,
      'activity',
      (c) => c.activity,
      'Spending and inflows categorized here in the month.',
    ),
    ...amountFields(t, 'balance', (c) => c.balance, 'Available at the end of the month.'),
    goalType: t.field({
      type: GoalTypeEnum,
      nullable: true,
      description: 'The kind of goal; null when the category has none.',
      resolve: (c) => c.goal_type,
    }),
    goalNeedsWholeAmount: t.exposeBoolean('goal_needs_whole_amount', {
      nullable: true,
      description: 'NEED goals only: whether each month asks for the whole target again.',
    }),
    goalDay: t.exposeInt('goal_day', {
      nullable: true,
      description: 'The day of the goal cadence the target is due on.',
    }),
    goalCadence: t.exposeInt('goal_cadence', {
      nullable: true,
      description: 'How the goal repeats (REST `goal_cadence`: 0 none, 1 monthly, 2 weekly, ...).',
    }),
    goalCadenceFrequency: t.exposeInt('goal_cadence_frequency', {
      nullable: true,
      description: 'Every how many cadence units the goal repeats.',
    }),
    goalFrequency: t.field({
      type: GoalFrequencyEnum,
      nullable: true,
      description:
        'The cadence of a target that repeats every week, month or year (what `setCategoryTarget` ' +
        'sets); null without a target or for other cadences (see `goalCadence`).',
      resolve: goalFrequencyOf,
    }),
    goalCreationMonth: t.field({
      type: 'Date',
      nullable: true,
      description: 'The month the goal was created.',
      resolve: (c) => c.goal_creation_month,
    }),
    ...nullableAmountFields(t, 'goalTarget', (c) => c.goal_target, 'The goal target.'),
    goalTargetMonth: t.field({
      type: 'Date',
      nullable: true,
      deprecationReason: 'Use goalTargetDate.',
      description: 'The month a target balance by date is due.',
      resolve: (c) => c.goal_target_month,
    }),
    goalTargetDate: t.field({
      type: 'Date',
      nullable: true,
      description: 'The date a target balance by date is due.',
      resolve: (c) => c.goal_target_date,
    }),
    goalPercentageComplete: t.exposeInt('goal_percentage_complete', {
      nullable: true,
      description: 'How much of the goal is funded, in percent.',
    }),
    goalMonthsToBudget: t.exposeInt('goal_months_to_budget', {
      nullable: true,
      description: 'Months left to fund the goal, this one included.',
    }),
    ...nullableAmountFields(
      t,
      'goalUnderFunded',
      (c) => c.goal_under_funded,
      'Still needed this month to stay on track.',
    ),
    ...nullableAmountFields(
      t,
      'goalOverallFunded',
      (c) => c.goal_overall_funded,
      'Funded toward the goal in the current period.',
    ),
    ...nullableAmountFields(
      t,
      'goalOverallLeft',
      (c) => c.goal_overall_left,
      'Still needed to complete the goal in the current period.',
    ),
    goalSnoozedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the goal was snoozed for the month; null when not snoozed.',
      resolve: (c) => c.goal_snoozed_at,
    }),
    deleted: t.exposeBoolean('deleted', {
      description: 'Whether it was deleted upstream (lists leave deleted objects out).',
    }),
    group: t.field({
      type: CategoryGroup,
      nullable: true,
      description: 'The group it belongs to.',
      resolve: inPlan(
        (c) => c.category_group_id,
        (plan, id) => plan.categoryGroup(id),
      ),
    }),
  };
}

Category.implement({
  interfaces: [Node],
  description: 'A category, with the amounts of the current month (UTC), as REST lists them.',
  fields: (t) => ({
    id: t.exposeID('id', {
      description: REST_ID_DESCRIPTION,
    }),
    planId: t.exposeID('plan_id', { description: PLAN_ID_DESCRIPTION }),
    ...budgetFields(t),
    inMonth: t.field({
      type: MonthCategory,
      nullable: true,
      description: 'This category with the amounts of another month.',
      args: {
        month: t.arg({
          type: MonthSelectorScalar,
          required: true,
          description: 'The month whose amounts to show: `current` or any day in it.',
        }),
      },
      resolve: async (c, { month }, ctx) => {
        const plan = await ctx.loaders.plan(c.plan_id);
        const resolved = month === 'current' ? plan.currentMonth() : month;
        return orNotFound(plan.category(c.id, resolved), `category in month ${resolved}`, c.id);
      },
    }),
  }),
});

MonthCategory.implement({
  interfaces: [Node],
  description:
    'A category with the amounts of one month (REST `GET .../months/{month}/categories/{id}`).',
  fields: (t) => ({
    id: t.id({
      description: 'Stable across requests: `<category id>:<month>`.',
      resolve: (c) => `${c.id}:${c.month}`,
    }),
    categoryId: t.exposeID('id', {
      description: 'The REST id of the category; null when uncategorized.',
    }),
    planId: t.exposeID('plan_id', { description: PLAN_ID_DESCRIPTION }),
    ...budgetFields(t),
    category: t.field({
      type: Category,
      nullable: true,
      description: "The same category with the current month's amounts.",
      resolve: inPlan((c) => c.id, findCategory),
    }),
  }),
});

CategoryGroup.implement({
  interfaces: [Node],
  description: 'A group of categories.',
  fields: (t) => ({
    id: t.exposeID('id', {
      description: REST_ID_DESCRIPTION,
    }),
    planId: t.exposeID('plan_id', { description: PLAN_ID_DESCRIPTION }),
    name: t.exposeString('name', { description: 'The name, as the user wrote it.' }),
    hidden: t.exposeBoolean('hidden', { description: 'Hidden from the budget screen.' }),
    internal: t.exposeBoolean('internal', {
      description: "Part of the plan's own structure (Ready to Assign, credit card payments, ...).",
    }),
    deleted: t.exposeBoolean('deleted', {
      description: 'Whether it was deleted upstream (lists leave deleted objects out).',
    }),
    categories: t.field({
      type: [Category],
      description: 'With the amounts of the current month.',
      resolve: async (g, _args, ctx) => (await ctx.loaders.plan(g.plan_id)).categoriesOfGroup(g.id),
    }),
  }),
});

builder.objectFields(Plan, (t) => ({
  categoryGroups: t.field({
    type: [CategoryGroup],
    description: 'Category groups with their categories (REST `GET /plans/{plan_id}/categories`).',
    resolve: async (plan, _args, ctx) => (await ctx.loaders.plan(plan.id)).categoryGroups(),
  }),
  categories: t.field({
    type: [Category],
    description: 'Every category, with the amounts of the current month.',
    resolve: async (plan, _args, ctx) => (await ctx.loaders.plan(plan.id)).categories(),
  }),
  category: t.field({
    type: Category,
    nullable: true,
    description: "One category by REST id, with the current month's amounts.",
    args: { id: t.arg({ type: 'UUID', required: true, description: 'The REST id.' }) },
    resolve: async (plan, { id }, ctx) =>
      orNotFound((await ctx.loaders.plan(plan.id)).category(id), 'category', id),
  }),
}));
