import type { MoneyMovementGroupRow, MoneyMovementRow } from '../loaders/loaders.js';
import { amountFields } from './amounts.js';
import { builder } from './builder.js';
import { Category } from './category/category.js';
import { arrayConnection } from './connections.js';
import { findCategory, inPlan } from './in-plan.js';
import { Month } from './month.js';
import { Node, PLAN_ID_DESCRIPTION, REST_ID_DESCRIPTION } from './node.js';
import { Plan } from './plan.js';
import { MonthSelectorScalar } from './scalars.js';

export const MoneyMovement = builder.objectRef<MoneyMovementRow>('MoneyMovement');
export const MoneyMovementGroup = builder.objectRef<MoneyMovementGroupRow>('MoneyMovementGroup');

MoneyMovement.implement({
  interfaces: [Node],
  description:
    'Money moved between two categories, or between a category and Ready to Assign (a null ' +
    'category), within a plan month.',
  fields: (t) => ({
    id: t.exposeID('id', {
      description: REST_ID_DESCRIPTION,
    }),
    planId: t.exposeID('plan_id', { description: PLAN_ID_DESCRIPTION }),
    month: t.field({
      type: 'Date',
      nullable: true,
      description: 'The month (its first day).',
      resolve: (m) => m.month,
    }),
    movedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the money was moved.',
      resolve: (m) => m.moved_at,
    }),
    note: t.exposeString('note', {
      nullable: true,
      description: 'The note the user wrote; null when none.',
    }),
    moneyMovementGroupId: t.exposeID('money_movement_group_id', {
      nullable: true,
      description: 'The REST id of the group of movements this one belongs to.',
    }),
    group: t.field({
      type: MoneyMovementGroup,
      nullable: true,
      description: 'The group of movements made by the same action.',
      resolve: async (m, _args, ctx) => {
        if (!m.money_movement_group_id) return null;
        const groups = await ctx.loaders.moneyMovementGroups(m.plan_id);
        return groups.find((g) => g.id === m.money_movement_group_id) ?? null;
      },
    }),
    performedByUserId: t.exposeID('performed_by_user_id', {
      nullable: true,
      description: 'The user who moved the money.',
    }),
    fromCategoryId: t.exposeID('from_category_id', {
      nullable: true,
      description: 'The REST id of the category the money came from; null for Ready to Assign.',
    }),
    fromCategory: t.field({
      type: Category,
      nullable: true,
      description: 'Null when the money came from Ready to Assign.',
      resolve: inPlan((m) => m.from_category_id, findCategory),
    }),
    toCategoryId: t.exposeID('to_category_id', {
      nullable: true,
      description: 'The REST id of the category the money went to; null for Ready to Assign.',
    }),
    toCategory: t.field({
      type: Category,
      nullable: true,
      description: 'Null when the money went to Ready to Assign.',
      resolve: inPlan((m) => m.to_category_id, findCategory),
    }),
    ...amountFields(t, 'amount', (m) => m.amount, 'The amount moved.'),
  }),
});

MoneyMovementGroup.implement({
  interfaces: [Node],
  description: 'Money movements performed together as one action.',
  fields: (t) => ({
    id: t.exposeID('id', {
      description: REST_ID_DESCRIPTION,
    }),
    planId: t.exposeID('plan_id', { description: PLAN_ID_DESCRIPTION }),
    groupCreatedAt: t.field({
      type: 'DateTime',
      description: 'When the movements were made.',
      resolve: (g) => g.group_created_at,
    }),
    month: t.field({
      type: 'Date',
      description: 'The month the money moved in.',
      resolve: (g) => g.month,
    }),
    note: t.exposeString('note', {
      nullable: true,
      description: 'The note the user wrote; null when none.',
    }),
    performedByUserId: t.exposeID('performed_by_user_id', {
      nullable: true,
      description: 'The user who moved the money.',
    }),
    moneyMovements: t.field({
      type: [MoneyMovement],
      description: 'The movements of this group.',
      resolve: async (g, _args, ctx) =>
        (await ctx.loaders.moneyMovements(g.plan_id)).filter(
          (m) => m.money_movement_group_id === g.id,
        ),
    }),
  }),
});

const MoneyMovementConnection = builder.connectionObject(
  {
    type: MoneyMovement,
    name: 'MoneyMovementConnection',
    description: 'A page of `MoneyMovement` items with its cursors (Relay connection).',
    fields: (t) => ({
      totalCount: t.int({
        description: 'Items matching the filters, on every page.',
        resolve: (connection) => connection.totalCount,
      }),
    }),
  },
  {
    name: 'MoneyMovementEdge',
    description: 'One item of a `MoneyMovement` page, with its cursor.',
  },
);

async function movementsIn(
  loadAll: () => Promise<readonly MoneyMovementRow[]>,
  month: string | null | undefined,
): Promise<readonly MoneyMovementRow[]> {
  const all = await loadAll();
  return month ? all.filter((m) => m.month === month) : all;
}

builder.objectFields(Plan, (t) => ({
  moneyMovements: t.connection(
    {
      type: MoneyMovement,
      description:
        'Money movements, optionally of one month (REST `GET .../money_movements` and ' +
        '`GET .../months/{month}/money_movements`; one upstream call serves every month).',
      args: {
        month: t.arg({
          type: MonthSelectorScalar,
          description: 'A month: `current` or any day in it.',
        }),
      },
      resolve: async (plan, args, ctx) => {
        const snapshot = await ctx.loaders.plan(plan.id);
        const month = args.month === 'current' ? snapshot.currentMonth() : args.month;
        return arrayConnection(
          args,
          await movementsIn(() => ctx.loaders.moneyMovements(snapshot.planId), month),
        );
      },
    },
    MoneyMovementConnection,
  ),
  moneyMovementGroups: t.field({
    type: [MoneyMovementGroup],
    description: 'Groups of money movements, optionally of one month.',
    args: {
      month: t.arg({
        type: MonthSelectorScalar,
        description: 'A month: `current` or any day in it.',
      }),
    },
    resolve: async (plan, args, ctx) => {
      const snapshot = await ctx.loaders.plan(plan.id);
      const month = args.month === 'current' ? snapshot.currentMonth() : args.month;
      const groups = await ctx.loaders.moneyMovementGroups(snapshot.planId);
      return month ? groups.filter((g) => g.month === month) : groups;
    },
  }),
}));

builder.objectFields(Month, (t) => ({
  moneyMovements: t.connection(
    {
      type: MoneyMovement,
      description: 'Money moved between categories in this month.',
      resolve: async (month, args, ctx) =>
        arrayConnection(
          args,
          await movementsIn(() => ctx.loaders.moneyMovements(month.plan_id), month.month),
        ),
    },
    MoneyMovementConnection,
  ),
  moneyMovementGroups: t.field({
    type: [MoneyMovementGroup],
    description: 'Groups of money movements of this month.',
    resolve: async (month, _args, ctx) =>
      (await ctx.loaders.moneyMovementGroups(month.plan_id)).filter((g) => g.month === month.month),
  }),
}));
