/**
 * Category and month category mutations: createCategory, updateCategory and
 * updateMonthCategory (assign money to a category in a month).
 */
import type {
  Category as CategoryAnswer,
  GoalFrequency,
  SaveCategory,
} from '@plans-gateway/rest-contract';
import type { CategoryRow } from '../../replica/types.js';
import type { WriteOutcome } from '../../writes/pipeline.js';
import { builder } from '../builder.js';
import { WRITE_ERRORS } from '../errors.js';
import { badUserInput } from '../input-checks.js';
import { Month } from '../month.js';
import {
  changesField,
  type InputFields,
  type PayloadBase,
  payloadBase,
  planField,
  planIdArg,
  resultOf,
  scoped,
  serverKnowledgeField,
  writeCursorField,
} from '../payloads.js';
import { Milliunits, MonthSelectorScalar } from '../scalars.js';
import { conflictGuard, GUARDED_WRITE_ERRORS, ifUnchangedSinceArg } from '../write-conflict.js';
import { Category, GoalFrequencyEnum, MonthCategory } from './category.js';
import { checkCategory } from './rules.js';

/** The goal and note fields of a category body (REST `SaveCategory`). */
function categoryFields(t: InputFields, goalTargetDateDescription: string) {
  return {
    note: t.string({ description: 'The note the user wrote; null when none.' }),
    goalTarget: t.field({
      type: Milliunits,
      description:
        'Sets the goal target; on a category without a goal, creates a monthly goal. Null removes the goal.',
    }),
    goalTargetDate: t.field({ type: 'Date', description: goalTargetDateDescription }),
    goalNeedsWholeAmount: t.boolean({
      description:
        'NEED goals only: true asks for the whole target each month, false refills up to it.',
    }),
    goalFrequency: t.field({
      type: GoalFrequencyEnum,
      description:
        'Makes the target a recurring NEED target of `goalTarget` (required with it) repeating at ' +
        'this frequency, replacing any target; not with `goalTargetDate`, nor on a credit card ' +
        'payment category. Left out, an existing cadence stays as it is.',
    }),
  };
}

export const CreateCategoryInput = builder.inputType('CreateCategoryInput', {
  description: 'A new category (REST `NewCategory`).',
  fields: (t) => ({
    name: t.string({ required: true, description: 'The category name; at most 100 characters.' }),
    categoryGroupId: t.field({
      type: 'UUID',
      required: true,
      description: 'A group that is not internal.',
    }),
    ...categoryFields(t, 'The date a target balance is due by.'),
  }),
});

export const UpdateCategoryInput = builder.inputType('UpdateCategoryInput', {
  description: 'Changes to a category (REST `ExistingCategory`); fields left out keep their value.',
  fields: (t) => ({
    name: t.string({ description: 'The new name; at most 100 characters.' }),
    categoryGroupId: t.field({ type: 'UUID', description: 'Moves the category to this group.' }),
    ...categoryFields(t, 'The date a target balance is due by; null removes it.'),
  }),
});

export const UpdateMonthCategoryInput = builder.inputType('UpdateMonthCategoryInput', {
  description: 'The body of `updateMonthCategory`, as the REST body has it.',
  fields: (t) => ({
    budgeted: t.field({
      type: Milliunits,
      required: true,
      description: 'The amount assigned in the month.',
    }),
  }),
});

interface CategoryInput {
  name?: string | null;
  categoryGroupId?: string | null;
  note?: string | null;
  goalTarget?: number | null;
  goalTargetDate?: string | null;
  goalNeedsWholeAmount?: boolean | null;
  goalFrequency?: GoalFrequency | null;
}

function toSaveCategory(input: CategoryInput): SaveCategory {
  return {
    name: input.name,
    note: input.note,
    category_group_id: input.categoryGroupId ?? undefined,
    goal_target: input.goalTarget,
    goal_target_date: input.goalTargetDate,
    goal_needs_whole_amount: input.goalNeedsWholeAmount,
    goal_frequency: input.goalFrequency ?? undefined,
  };
}

// ---------------------------------------------------------------------------------------------
// Payloads

interface CategoryPayloadShape extends PayloadBase {
  readonly saved: CategoryAnswer;
  /** The month the saved amounts belong to (first day). */
  readonly month: string;
  readonly serverKnowledge: number;
}

function categoryRow(p: CategoryPayloadShape): CategoryRow {
  return scoped({ ...p.saved, month: p.month }, p.planId);
}

function categoryPayload(name: string, description: string) {
  return builder.objectRef<CategoryPayloadShape>(name).implement({
    description,
    fields: (t) => ({
      category: t.field({
        type: Category,
        description: 'With the amounts of the current month.',
        resolve: categoryRow,
      }),
      serverKnowledge: serverKnowledgeField(t),
      plan: planField(t),
      changes: changesField(t),
      writeCursor: writeCursorField(t),
    }),
  });
}

export const CreateCategoryPayload = categoryPayload(
  'CreateCategoryPayload',
  'What `createCategory` saved, read after the write.',
);
export const UpdateCategoryPayload = categoryPayload(
  'UpdateCategoryPayload',
  'What `updateCategory` saved, read after the write.',
);

export const SetCategoryTargetPayload = categoryPayload(
  'SetCategoryTargetPayload',
  'What `setCategoryTarget` saved, read after the write.',
);

const monthCategoryPayload = builder.objectRef<CategoryPayloadShape>('UpdateMonthCategoryPayload');

export const UpdateMonthCategoryPayload = monthCategoryPayload.implement({
  description: 'What `updateMonthCategory` saved, read after the write.',
  fields: (t) => ({
    category: t.field({
      type: MonthCategory,
      description: 'With the amounts of the month assigned in.',
      resolve: categoryRow,
    }),
    month: t.field({
      type: Month,
      nullable: true,
      description: 'The month assigned in, with its new totals (Ready to Assign).',
      resolve: async (p, _args, ctx) => (await ctx.loaders.plan(p.planId)).month(p.month) ?? null,
    }),
    serverKnowledge: serverKnowledgeField(t),
    plan: planField(t),
    changes: changesField(t),
    writeCursor: writeCursorField(t),
  }),
});

// ---------------------------------------------------------------------------------------------
// Mutations

const monthOf = (date: string) => `${date.slice(0, 7)}-01`;

type CategoryWrite = 'createCategory' | 'updateCategory' | 'updateMonthCategory';

function categoryPayloadOf(
  outcome: WriteOutcome<CategoryWrite>,
  month: string,
): CategoryPayloadShape {
  const { category, server_knowledge } = outcome.data;
  return { ...payloadBase(outcome), saved: category, month, serverKnowledge: server_knowledge };
}

builder.mutationField('createCategory', (t) =>
  t.field({
    type: CreateCategoryPayload,
    nullable: true,
    description: 'Creates a category in a group (REST `POST /plans/{plan_id}/categories`).',
    errors: resultOf('CreateCategory', WRITE_ERRORS),
    args: {
      planId: planIdArg(t.arg),
      input: t.arg({
        type: CreateCategoryInput,
        required: true,
        description: 'The fields to save, as the REST body has them.',
      }),
    },
    resolve: async (_root, { planId, input }, ctx) => {
      checkCategory(input, 'input');
      const body = {
        ...toSaveCategory(input),
        name: input.name,
        category_group_id: input.categoryGroupId,
      };
      const outcome = await ctx.writes.run('createCategory', { planId, body: { category: body } });
      return categoryPayloadOf(outcome, monthOf(ctx.writes.today()));
    },
  }),
);

builder.mutationField('updateCategory', (t) =>
  t.field({
    type: UpdateCategoryPayload,
    nullable: true,
    description:
      "Changes a category's name, note, group or goal (REST `PATCH .../categories/{category_id}`).",
    errors: resultOf('UpdateCategory', GUARDED_WRITE_ERRORS),
    args: {
      planId: planIdArg(t.arg),
      ifUnchangedSince: ifUnchangedSinceArg(t.arg),
      categoryId: t.arg({
        type: 'UUID',
        required: true,
        description: 'The REST id of the category.',
      }),
      input: t.arg({
        type: UpdateCategoryInput,
        required: true,
        description: 'The fields to save, as the REST body has them.',
      }),
    },
    resolve: async (_root, { planId, categoryId, input, ifUnchangedSince }, ctx) => {
      checkCategory(input, 'input');
      const body = { category: toSaveCategory(input) };
      const guard = conflictGuard(ctx, planId, ifUnchangedSince, () => [
        { key: { kind: 'category', id: categoryId }, attempted: input },
      ]);
      const outcome = await ctx.writes.run(
        'updateCategory',
        { planId, categoryId, body },
        { guard },
      );
      return categoryPayloadOf(outcome, monthOf(ctx.writes.today()));
    },
  }),
);

export const RecurringTargetInput = builder.inputType('RecurringTargetInput', {
  description:
    'A target that repeats (REST `goal_target` with `goal_frequency`, since specification 1.86.0).',
  fields: (t) => ({
    amount: t.field({
      type: Milliunits,
      required: true,
      description: 'The amount needed each period; not negative.',
    }),
    frequency: t.field({
      type: GoalFrequencyEnum,
      required: true,
      description: 'How often the amount is needed again.',
    }),
  }),
});

builder.mutationField('setCategoryTarget', (t) =>
  t.field({
    type: SetCategoryTargetPayload,
    nullable: true,
    description:
      "Sets a category's recurring NEED target, replacing any target it had, or with `target: " +
      'null` removes its target (REST `PATCH .../categories/{category_id}` with `goal_target` and ' +
      '`goal_frequency`). Credit card payment categories take no recurring target (a ' +
      '`ValidationError`).',
    errors: resultOf('SetCategoryTarget', WRITE_ERRORS),
    args: {
      planId: planIdArg(t.arg),
      categoryId: t.arg({
        type: 'UUID',
        required: true,
        description: 'The REST id of the category.',
      }),
      target: t.arg({
        type: RecurringTargetInput,
        required: false,
        description: 'The target to set; null removes the target.',
      }),
    },
    resolve: async (_root, { planId, categoryId, target }, ctx) => {
      if (target === undefined) {
        throw badUserInput('target', 'must be given: a recurring target, or null to remove it');
      }
      if (target !== null && target.amount < 0) {
        throw badUserInput('target.amount', 'must not be negative');
      }
      const category: SaveCategory =
        target === null
          ? { goal_target: null }
          : { goal_target: target.amount, goal_frequency: target.frequency };
      const outcome = await ctx.writes.run('updateCategory', {
        planId,
        categoryId,
        body: { category },
      });
      return categoryPayloadOf(outcome, monthOf(ctx.writes.today()));
    },
  }),
);

builder.mutationField('updateMonthCategory', (t) =>
  t.field({
    type: UpdateMonthCategoryPayload,
    nullable: true,
    description: 'Assigns money to a category in a month (only `budgeted` changes).',
    errors: resultOf('UpdateMonthCategory', GUARDED_WRITE_ERRORS),
    args: {
      planId: planIdArg(t.arg),
      ifUnchangedSince: ifUnchangedSinceArg(t.arg),
      month: t.arg({
        type: MonthSelectorScalar,
        required: true,
        description: 'The month whose assignment changes.',
      }),
      categoryId: t.arg({
        type: 'UUID',
        required: true,
        description: 'The REST id of the category.',
      }),
      input: t.arg({
        type: UpdateMonthCategoryInput,
        required: true,
        description: 'The fields to save, as the REST body has them.',
      }),
    },
    resolve: async (_root, { planId, month, categoryId, input, ifUnchangedSince }, ctx) => {
      const first = month === 'current' ? monthOf(ctx.writes.today()) : month;
      const guard = conflictGuard(ctx, planId, ifUnchangedSince, () => [
        { key: { kind: 'monthCategory', id: categoryId, month: first }, attempted: input },
      ]);
      const outcome = await ctx.writes.run(
        'updateMonthCategory',
        { planId, month, categoryId, body: { category: { budgeted: input.budgeted } } },
        { guard },
      );
      return categoryPayloadOf(outcome, month === 'current' ? monthOf(ctx.writes.today()) : month);
    },
  }),
);
