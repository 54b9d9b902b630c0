import { formatMilliunits, toCurrencyAmount } from '@plans-gateway/rest-contract';
import type { PlanScoped } from '../replica/types.js';
import type { builder } from './builder.js';
import type { GatewayContext } from './context.js';
import { Milliunits } from './scalars.js';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
export type FieldBuilder<Shape> = PothosSchemaTypes.ObjectFieldBuilder<Types, Shape>;

async function currencyFormatOf(row: PlanScoped, ctx: GatewayContext) {
  const plan = await ctx.loaders.plan(row.plan_id);
  return plan.info.currency_format;
}

/**
 * An amount as three fields, as REST sends it: `name` in milliunits, `nameFormatted` in the
 * plan's currency format and `nameCurrency` as a decimal currency amount. The companions are
 * computed, never stored, so they cannot disagree with the amount.
 */
export function amountFields<Shape extends PlanScoped>(
  t: FieldBuilder<Shape>,
  name: string,
  get: (row: Shape) => number,
  description: string,
) {
  return {
    [name]: t.field({ type: Milliunits, description, resolve: get }),
    [`${name}Formatted`]: t.string({
      description: `\`${name}\` formatted in the plan's currency format.`,
      resolve: async (row, _args, ctx) =>
        formatMilliunits(get(row), await currencyFormatOf(row, ctx)),
    }),
    [`${name}Currency`]: t.float({
      description: `\`${name}\` as a decimal amount of the plan's currency.`,
      resolve: async (row, _args, ctx) =>
        toCurrencyAmount(get(row), await currencyFormatOf(row, ctx)),
    }),
  };
}

/** Like `amountFields`, for amounts REST may send as `null` (goal amounts). */
export function nullableAmountFields<Shape extends PlanScoped>(
  t: FieldBuilder<Shape>,
  name: string,
  get: (row: Shape) => number | null,
  description: string,
) {
  return {
    [name]: t.field({ type: Milliunits, nullable: true, description, resolve: get }),
    [`${name}Formatted`]: t.string({
      nullable: true,
      description: `\`${name}\` formatted in the plan's currency format.`,
      resolve: async (row, _args, ctx) => {
        const amount = get(row);
        return amount === null ? null : formatMilliunits(amount, await currencyFormatOf(row, ctx));
      },
    }),
    [`${name}Currency`]: t.float({
      nullable: true,
      description: `\`${name}\` as a decimal amount of the plan's currency.`,
      resolve: async (row, _args, ctx) => {
        const amount = get(row);
        return amount === null ? null : toCurrencyAmount(amount, await currencyFormatOf(row, ctx));
      },
    }),
  };
}
