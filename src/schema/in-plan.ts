import type { PlanScoped, PlanSnapshot } from '../replica/types.js';
import type { GatewayContext } from './context.js';

/**
 * A resolver following an id held by a plan row to what it names in the same plan (a row, or a
 * value derived from one such as its name); null when the id is null or names nothing.
 */
export function inPlan<Row extends PlanScoped, Target>(
  idOf: (row: Row) => string | null,
  find: (plan: PlanSnapshot, id: string) => Target | undefined,
) {
  return (
    row: Row,
    _args: unknown,
    ctx: GatewayContext,
  ): Target | null | Promise<Target | null> => {
    const id = idOf(row);
    return id === null ? null : withPlan(ctx, row.plan_id, (plan) => find(plan, id) ?? null);
  };
}

/**
 * `use` applied to the plan: at once when this operation already loaded it (rows always come
 * from a loaded plan), so the field needs no promise; else once it is loaded.
 */
export function withPlan<T>(
  ctx: GatewayContext,
  planId: string,
  use: (plan: PlanSnapshot) => T,
): T | Promise<T> {
  const plan = ctx.loaders.loaded(planId);
  return plan ? use(plan) : ctx.loaders.plan(planId).then(use);
}

export const findAccount = (plan: PlanSnapshot, id: string) => plan.account(id);
export const findPayee = (plan: PlanSnapshot, id: string) => plan.payee(id);
export const findCategory = (plan: PlanSnapshot, id: string) => plan.category(id);
export const payeeName = (plan: PlanSnapshot, id: string) => plan.payee(id)?.name;
export const categoryName = (plan: PlanSnapshot, id: string) => plan.category(id)?.name;
