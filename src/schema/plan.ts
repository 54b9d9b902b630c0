import type { CurrencyFormat, DateFormat, PlanSummary } from '@plans-gateway/rest-contract';
import type { PlanInfo } from '../replica/types.js';
import { builder } from './builder.js';
import type { GatewayContext } from './context.js';
import type { PlanShape } from './models.js';
import { Node } from './node.js';
import { PlanIdScalar } from './scalars.js';

export const Plan = builder.objectRef<PlanShape>('Plan');

async function infoOf(plan: PlanShape, ctx: GatewayContext): Promise<PlanInfo | PlanSummary> {
  return plan.summary ?? (await ctx.loaders.plan(plan.id)).info;
}

export const DateFormatType = builder.objectRef<DateFormat>('DateFormat').implement({
  description: 'How the plan writes dates.',
  fields: (t) => ({
    format: t.exposeString('format', { description: 'The date format, e.g. `DD.MM.YYYY`.' }),
  }),
});

export const CurrencyFormatType = builder.objectRef<CurrencyFormat>('CurrencyFormat').implement({
  description: 'How the plan writes amounts; the `...Formatted` fields follow it.',
  fields: (t) => ({
    isoCode: t.exposeString('iso_code', { description: 'The ISO 4217 currency code.' }),
    exampleFormat: t.exposeString('example_format', {
      description: 'An amount written in this format.',
    }),
    decimalDigits: t.exposeInt('decimal_digits', {
      description: 'Digits after the decimal separator.',
    }),
    decimalSeparator: t.exposeString('decimal_separator', {
      description: 'The decimal separator.',
    }),
    symbolFirst: t.exposeBoolean('symbol_first', {
      description: 'The currency symbol comes before the amount.',
    }),
    groupSeparator: t.exposeString('group_separator', { description: 'The thousands separator.' }),
    currencySymbol: t.exposeString('currency_symbol', { description: 'The currency symbol.' }),
    displaySymbol: t.exposeBoolean('display_symbol', {
      description: 'Whether amounts show the currency symbol.',
    }),
  }),
});

interface PlanSettingsShape {
  readonly date_format: DateFormat | null;
  readonly currency_format: CurrencyFormat | null;
}

export const PlanSettings = builder.objectRef<PlanSettingsShape>('PlanSettings').implement({
  description: 'The plan settings (REST `GET /plans/{plan_id}/settings`).',
  fields: (t) => ({
    dateFormat: t.expose('date_format', {
      type: DateFormatType,
      nullable: true,
      description: 'How the plan writes dates; null when not set.',
    }),
    currencyFormat: t.expose('currency_format', {
      type: CurrencyFormatType,
      nullable: true,
      description: 'How the plan writes amounts; null when not set.',
    }),
  }),
});

Plan.implement({
  interfaces: [Node],
  description:
    'A plan (called a budget in older versions of the REST interface) and everything in it. ' +
    "Plan-scoped fields are answered from the caller's replica of the plan, kept fresh with " +
    'delta requests.',
  fields: (t) => ({
    id: t.exposeID('id', {
      description: 'The plan UUID, also when the plan was asked for by alias.',
    }),
    name: t.string({
      description: 'The name of the plan.',
      resolve: async (plan, _args, ctx) => (await infoOf(plan, ctx)).name,
    }),
    lastModifiedOn: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When any client last changed the plan.',
      resolve: async (plan, _args, ctx) => (await infoOf(plan, ctx)).last_modified_on ?? null,
    }),
    firstMonth: t.field({
      type: 'Date',
      nullable: true,
      description: 'The first month of the plan.',
      resolve: async (plan, _args, ctx) => (await infoOf(plan, ctx)).first_month ?? null,
    }),
    lastMonth: t.field({
      type: 'Date',
      nullable: true,
      description: 'The last month of the plan.',
      resolve: async (plan, _args, ctx) => (await infoOf(plan, ctx)).last_month ?? null,
    }),
    dateFormat: t.field({
      type: DateFormatType,
      nullable: true,
      description: 'How the plan writes dates; null when not set.',
      resolve: async (plan, _args, ctx) => (await infoOf(plan, ctx)).date_format ?? null,
    }),
    currencyFormat: t.field({
      type: CurrencyFormatType,
      nullable: true,
      description: 'How the plan writes amounts; null when not set.',
      resolve: async (plan, _args, ctx) => (await infoOf(plan, ctx)).currency_format ?? null,
    }),
    settings: t.field({
      type: PlanSettings,
      description: 'Date and currency format, as `GET /plans/{plan_id}/settings` returns them.',
      resolve: async (plan, _args, ctx) => {
        const { info } = await ctx.loaders.plan(plan.id);
        return { date_format: info.date_format, currency_format: info.currency_format };
      },
    }),
    serverKnowledge: t.field({
      type: 'SafeInt',
      description: 'The upstream knowledge the replica answering this operation has reached.',
      resolve: async (plan, _args, ctx) => (await ctx.loaders.plan(plan.id)).serverKnowledge,
    }),
  }),
});

builder.queryFields((t) => ({
  plans: t.field({
    type: [Plan],
    description: 'Every plan the token can see (REST `GET /plans`).',
    resolve: async (_root, _args, ctx) =>
      (await ctx.loaders.plans()).plans.map((summary) => ({ id: summary.id, summary })),
  }),
  defaultPlan: t.field({
    type: Plan,
    nullable: true,
    description: 'The default plan, when the OAuth application enables default plan selection.',
    resolve: async (_root, _args, ctx) => {
      const summary = (await ctx.loaders.plans()).defaultPlan;
      return summary ? { id: summary.id, summary } : null;
    },
  }),
  plan: t.field({
    type: Plan,
    nullable: true,
    description:
      'One plan by UUID, `last-used` or `default`. Null, beside a NOT_FOUND error, when the ' +
      'upstream does not know it.',
    args: {
      id: t.arg({
        type: PlanIdScalar,
        required: true,
        description: 'The plan UUID, `last-used` or `default`.',
      }),
    },
    resolve: async (_root, { id }, ctx) => {
      const snapshot = await ctx.loaders.plan(id);
      return { id: snapshot.planId, summary: null };
    },
  }),
}));
