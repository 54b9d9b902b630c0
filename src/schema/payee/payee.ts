import type { PayeeLocationRow, PayeeRow } from '../../replica/types.js';
import { builder } from '../builder.js';
import { findPayee, inPlan } from '../in-plan.js';
import { Node, PLAN_ID_DESCRIPTION, REST_ID_DESCRIPTION } from '../node.js';
import { orNotFound } from '../not-found.js';
import { Plan } from '../plan.js';

export const Payee = builder.objectRef<PayeeRow>('Payee');
export const PayeeLocation = builder.objectRef<PayeeLocationRow>('PayeeLocation');

Payee.implement({
  interfaces: [Node],
  description: 'Who money went to or came from. A transfer payee stands for another account.',
  fields: (t) => ({
    id: t.exposeID('id', {
      description: REST_ID_DESCRIPTION,
    }),
    planId: t.exposeID('plan_id', { description: PLAN_ID_DESCRIPTION }),
    name: t.exposeString('name', { description: 'The name, as the user wrote it.' }),
    transferAccountId: t.exposeID('transfer_account_id', {
      nullable: true,
      description: 'Set when this is the transfer payee of an account.',
    }),
    deleted: t.exposeBoolean('deleted', {
      description: 'Whether it was deleted upstream (lists leave deleted objects out).',
    }),
    locations: t.field({
      type: [PayeeLocation],
      description:
        'GPS locations stored for this payee (REST `GET .../payees/{id}/payee_locations`).',
      resolve: async (p, _args, ctx) =>
        (await ctx.loaders.plan(p.plan_id)).payeeLocationsOfPayee(p.id),
    }),
  }),
});

PayeeLocation.implement({
  interfaces: [Node],
  description: 'Where a payee was used, as recorded by the mobile apps.',
  fields: (t) => ({
    id: t.exposeID('id', {
      description: REST_ID_DESCRIPTION,
    }),
    planId: t.exposeID('plan_id', { description: PLAN_ID_DESCRIPTION }),
    payeeId: t.exposeID('payee_id', { description: 'The REST id of the payee; null when none.' }),
    payee: t.field({
      type: Payee,
      nullable: true,
      description: 'The payee; null when none.',
      resolve: inPlan((l) => l.payee_id, findPayee),
    }),
    latitude: t.field({
      type: 'Latitude',
      description: 'Latitude of the place.',
      resolve: (l) => Number(l.latitude),
    }),
    longitude: t.field({
      type: 'Longitude',
      description: 'Longitude of the place.',
      resolve: (l) => Number(l.longitude),
    }),
    deleted: t.exposeBoolean('deleted', {
      description: 'Whether it was deleted upstream (lists leave deleted objects out).',
    }),
  }),
});

builder.objectFields(Plan, (t) => ({
  payees: t.field({
    type: [Payee],
    description: 'Every payee of the plan (REST `GET /plans/{plan_id}/payees`).',
    resolve: async (plan, _args, ctx) => (await ctx.loaders.plan(plan.id)).payees(),
  }),
  payee: t.field({
    type: Payee,
    nullable: true,
    description: 'One payee by REST id; null beside a NOT_FOUND error when the plan has none.',
    args: { id: t.arg({ type: 'UUID', required: true, description: 'The REST id.' }) },
    resolve: async (plan, { id }, ctx) =>
      orNotFound((await ctx.loaders.plan(plan.id)).payee(id), 'payee', id),
  }),
  payeeLocations: t.field({
    type: [PayeeLocation],
    description: 'Every stored payee location of the plan.',
    resolve: async (plan, _args, ctx) => (await ctx.loaders.plan(plan.id)).payeeLocations(),
  }),
  payeeLocation: t.field({
    type: PayeeLocation,
    nullable: true,
    description: 'One payee location by REST id; null beside NOT_FOUND when unknown.',
    args: { id: t.arg({ type: 'UUID', required: true, description: 'The REST id.' }) },
    resolve: async (plan, { id }, ctx) =>
      orNotFound((await ctx.loaders.plan(plan.id)).payeeLocation(id), 'payee location', id),
  }),
}));
