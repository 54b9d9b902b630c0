import {
  type CurrencyFormat,
  formatMilliunits,
  toCurrencyAmount,
} from '@plans-gateway/rest-contract';
import type { ExactMilliunits, PlanScoped } from '../replica/types.js';
import type { builder } from './builder.js';
import type { GatewayContext } from './context.js';
import { withPlan } from './in-plan.js';
import { amountBeyondJson, Milliunits } from './scalars.js';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
export type FieldBuilder<Shape> = PothosSchemaTypes.ObjectFieldBuilder<Types, Shape>;

/** Formatted amounts kept per currency format object; a full table starts over. */
const FORMATTED_PER_FORMAT = 4_096;
const NO_FORMAT = {};
const formattedByFormat = new WeakMap<object, Map<ExactMilliunits, string>>();

/**
 * Private: `formatMilliunits`, remembered per currency format (a replica's format object lives as
 * long as its snapshot): a plan's answers repeat the same few thousand amounts (balances, budgeted
 * figures), each formatted on every answer otherwise. Module-level but keyed by the replicas'
 * own objects, so nothing crosses gateways or outlives the snapshot that owns the format.
 */
function formatted(milliunits: ExactMilliunits, format: CurrencyFormat | null): string {
  const key = format ?? NO_FORMAT;
  let table = formattedByFormat.get(key);
  if (!table) {
    table = new Map();
    formattedByFormat.set(key, table);
  }
  let text = table.get(milliunits);
  if (text === undefined) {
    if (table.size >= FORMATTED_PER_FORMAT) table.clear();
    text = formatMilliunits(milliunits, format);
    table.set(milliunits, text);
  }
  return text;
}

/**
 * Private: `toCurrencyAmount`, refusing an amount past 2^53 milliunits: as a double its last
 * digits would be rounded without a word (`amountBeyondJson`).
 */
function currencyAmount(milliunits: ExactMilliunits, format: CurrencyFormat | null): number {
  if (typeof milliunits === 'bigint' && !Number.isSafeInteger(Number(milliunits)))
    throw amountBeyondJson();
  return toCurrencyAmount(milliunits, format);
}

/**
 * Private: the amount as the `Milliunits` number, refusing one past 2^53 in the resolver: an
 * error a scalar's `serialize` throws reaches the client without its code (the executor and the
 * compiled queries rebuild it from its message), so it would be masked as internal.
 */
function safeMilliunits(milliunits: ExactMilliunits): number {
  if (typeof milliunits === 'number') return milliunits;
  if (!Number.isSafeInteger(Number(milliunits))) throw amountBeyondJson();
  return Number(milliunits);
}

/** The amount in the row's plan's currency format, without a promise once the plan is loaded. */
function inCurrency<T>(
  row: PlanScoped,
  ctx: GatewayContext,
  convert: (format: CurrencyFormat | null) => T,
): T | Promise<T> {
  return withPlan(ctx, row.plan_id, (plan) => convert(plan.info.currency_format));
}

/**
 * An amount as three fields, as REST sends it: `name` in milliunits, `nameFormatted` in the
 * plan's currency format and `nameCurrency` as a decimal currency amount. The companions are
 * computed, never stored, so they cannot disagree with the amount. Past 2^53 milliunits (a sum
 * held as a bigint) the two numbers fail with `AMOUNT_BEYOND_JSON` and the text shows every digit.
 */
export function amountFields<Shape extends PlanScoped>(
  t: FieldBuilder<Shape>,
  name: string,
  get: (row: Shape) => ExactMilliunits,
  description: string,
) {
  return {
    [name]: t.field({ type: Milliunits, description, resolve: (row) => safeMilliunits(get(row)) }),
    [`${name}Formatted`]: t.string({
      description: `\`${name}\` formatted in the plan's currency format.`,
      resolve: (row, _args, ctx) => inCurrency(row, ctx, (format) => formatted(get(row), format)),
    }),
    [`${name}Currency`]: t.float({
      description: `\`${name}\` as a decimal amount of the plan's currency.`,
      resolve: (row, _args, ctx) =>
        inCurrency(row, ctx, (format) => currencyAmount(get(row), format)),
    }),
  };
}

/** Like `amountFields`, for amounts REST may send as `null` (goal amounts). */
export function nullableAmountFields<Shape extends PlanScoped>(
  t: FieldBuilder<Shape>,
  name: string,
  get: (row: Shape) => ExactMilliunits | null,
  description: string,
) {
  return {
    [name]: t.field({
      type: Milliunits,
      nullable: true,
      description,
      resolve: (row) => {
        const amount = get(row);
        return amount === null ? null : safeMilliunits(amount);
      },
    }),
    [`${name}Formatted`]: t.string({
      nullable: true,
      description: `\`${name}\` formatted in the plan's currency format.`,
      resolve: (row, _args, ctx) => {
        const amount = get(row);
        return amount === null ? null : inCurrency(row, ctx, (format) => formatted(amount, format));
      },
    }),
    [`${name}Currency`]: t.float({
      nullable: true,
      description: `\`${name}\` as a decimal amount of the plan's currency.`,
      resolve: (row, _args, ctx) => {
        const amount = get(row);
        return amount === null
          ? null
          : inCurrency(row, ctx, (format) => currencyAmount(amount, format));
      },
    }),
  };
}
