/**
 * Federation entities: the types a supergraph router may fetch from this subgraph by key
 * (`_entities`). Every key names the plan, so a representation is found in one plan's replica
 * without searching the token's plans: `planId id` for what REST finds by id within a plan,
 * `planId month` for a month and `planId month categoryId` for a category in a month (their REST
 * keys), `id` for a plan. Representations of one plan share one replica read (the plan loader
 * batches and memoises them per operation), so a hundred of them cost what one does.
 *
 * `ENTITY_KEYS` is the one list: the schema's `@key`s below follow it, and the subgraph checks
 * every representation against it before anything is read (`subgraph.ts`).
 */
import { GraphQLError } from 'graphql';
import type { PlanSnapshot } from '../replica/types.js';
import { Account } from './account/account.js';
import { builder } from './builder.js';
import { Category, CategoryGroup, MonthCategory } from './category/category.js';
import type { GatewayContext } from './context.js';
import { MoneyMovement, MoneyMovementGroup } from './money-movement.js';
import { Month } from './month.js';
import { Payee, PayeeLocation } from './payee/payee.js';
import { Plan } from './plan.js';
import { ScheduledTransaction } from './scheduled-transaction/scheduled-transaction.js';
import { Transaction } from './transaction/transaction.js';

/**
 * How a key field of a representation is checked, by the rule of the graph's own lookup
 * argument: `PlanId` (a UUID, or `last-used` / `default`, as `plan(id:)` takes), `UUID` (as
 * `account(id:)` takes), `TransactionId` (as `transaction(id:)` takes), `Date` (a month's first
 * day, as the `month` field answers).
 */
export type KeyRule = 'PlanId' | 'UUID' | 'TransactionId' | 'Date';

/** Each entity's key fields, in the order of its `@key(fields:)`, with their rules. */
export const ENTITY_KEYS = {
  Plan: { id: 'PlanId' },
  Account: { planId: 'PlanId', id: 'UUID' },
  CategoryGroup: { planId: 'PlanId', id: 'UUID' },
  Category: { planId: 'PlanId', id: 'UUID' },
  Payee: { planId: 'PlanId', id: 'UUID' },
  PayeeLocation: { planId: 'PlanId', id: 'UUID' },
  Transaction: { planId: 'PlanId', id: 'TransactionId' },
  ScheduledTransaction: { planId: 'PlanId', id: 'UUID' },
  MoneyMovement: { planId: 'PlanId', id: 'UUID' },
  MoneyMovementGroup: { planId: 'PlanId', id: 'UUID' },
  Month: { planId: 'PlanId', month: 'Date' },
  MonthCategory: { planId: 'PlanId', month: 'Date', categoryId: 'UUID' },
} as const satisfies Record<string, Record<string, KeyRule>>;

export type EntityName = keyof typeof ENTITY_KEYS;

/**
 * Private: what `load` reads for a representation, or null when the upstream knows no such plan
 * (a representation naming nothing resolves to null). Other failures (no token, rate limited with
 * no replica, upstream down) fail the representation with their code.
 */
async function unlessNotFound<T>(load: () => Promise<T>): Promise<T | null> {
  try {
    return await load();
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

function isNotFound(error: unknown): boolean {
  return error instanceof GraphQLError && error.extensions.code === 'NOT_FOUND';
}

const planOrNull = (ctx: GatewayContext, planId: string) =>
  unlessNotFound(() => ctx.loaders.plan(planId));

const byPlanAndId = () => builder.selection<{ planId: string; id: string }>('planId id');

builder.asEntity(Plan, {
  key: builder.selection<{ id: string }>('id'),
  resolveReference: async ({ id }, ctx) => {
    const plan = await planOrNull(ctx, id);
    return plan && { id: plan.planId, summary: null };
  },
});

/** Private: an entity found in its plan's replica by REST id. */
function inReplica<Row>(find: (plan: PlanSnapshot, id: string) => Row | undefined) {
  return async ({ planId, id }: { planId: string; id: string }, ctx: GatewayContext) => {
    const plan = await planOrNull(ctx, planId);
    return (plan && find(plan, id)) ?? null;
  };
}

builder.asEntity(Account, {
  key: byPlanAndId(),
  resolveReference: inReplica((plan, id) => plan.account(id)),
});
builder.asEntity(CategoryGroup, {
  key: byPlanAndId(),
  resolveReference: inReplica((plan, id) => plan.categoryGroup(id)),
});
builder.asEntity(Category, {
  key: byPlanAndId(),
  resolveReference: inReplica((plan, id) => plan.category(id)),
});
builder.asEntity(Payee, {
  key: byPlanAndId(),
  resolveReference: inReplica((plan, id) => plan.payee(id)),
});
builder.asEntity(PayeeLocation, {
  key: byPlanAndId(),
  resolveReference: inReplica((plan, id) => plan.payeeLocation(id)),
});
builder.asEntity(Transaction, {
  key: byPlanAndId(),
  resolveReference: inReplica((plan, id) => plan.transaction(id)),
});
builder.asEntity(ScheduledTransaction, {
  key: byPlanAndId(),
  resolveReference: inReplica((plan, id) => plan.scheduledTransaction(id)),
});

/** Private: an entity found by REST id in one of its plan's REST lists. */
function inRestList<Row extends { readonly id: string }>(
  list: (ctx: GatewayContext, planId: string) => Promise<readonly Row[]>,
) {
  return async ({ planId, id }: { planId: string; id: string }, ctx: GatewayContext) =>
    (await unlessNotFound(() => list(ctx, planId)))?.find((row) => row.id === id) ?? null;
}

// Money movements are not in the plan export: one REST read per plan and operation (cached for
// max-age like the graph's `moneyMovements`), shared by every representation of the plan.
builder.asEntity(MoneyMovement, {
  key: byPlanAndId(),
  resolveReference: inRestList((ctx, planId) => ctx.loaders.moneyMovements(planId)),
});
builder.asEntity(MoneyMovementGroup, {
  key: byPlanAndId(),
  resolveReference: inRestList((ctx, planId) => ctx.loaders.moneyMovementGroups(planId)),
});

builder.asEntity(Month, {
  key: builder.selection<{ planId: string; month: string }>('planId month'),
  resolveReference: async ({ planId, month }, ctx) => {
    // The replica answers any day of a month with that month; a key names it by its first day.
    const row = (await planOrNull(ctx, planId))?.month(month);
    return row?.month === month ? row : null;
  },
});
builder.asEntity(MonthCategory, {
  key: builder.selection<{ planId: string; month: string; categoryId: string }>(
    'planId month categoryId',
  ),
  resolveReference: async ({ planId, month, categoryId }, ctx) => {
    const row = (await planOrNull(ctx, planId))?.category(categoryId, month);
    // The replica answers any day of a month (and a month it lacks with the current one); a
    // key names exactly one month by its first day.
    return row?.month === month ? row : null;
  },
});
