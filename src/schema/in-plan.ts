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
  return async (row: Row, _args: unknown, ctx: GatewayContext): Promise<Target | null> => {
    const id = idOf(row);
    return id === null ? null : (find(await ctx.loaders.plan(row.plan_id), id) ?? null);
  };
}

export const findAccount = (plan: PlanSnapshot, id: string) => plan.account(id);
export const findPayee = (plan: PlanSnapshot, id: string) => plan.payee(id);
export const findCategory = (plan: PlanSnapshot, id: string) => plan.category(id);
export const payeeName = (plan: PlanSnapshot, id: string) => plan.payee(id)?.name;
export const categoryName = (plan: PlanSnapshot, id: string) => plan.category(id)?.name;
