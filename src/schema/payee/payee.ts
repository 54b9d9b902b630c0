import type { PayeeLocationRow, PayeeRow } from '../../replica/types.js';
import { Account } from '../account/account.js';
import { builder } from '../builder.js';
import { findAccount, findPayee, inPlan } from '../links.js';
import { Node } from '../node.js';
import { orNotFound } from '../not-found.js';
import { Plan } from '../plan.js';

export const Payee = builder.objectRef<PayeeRow>('Payee');
export const PayeeLocation = builder.objectRef<PayeeLocationRow>('PayeeLocation');

Payee.implement({
  interfaces: [Node],
  description: 'Who money went to or came from. A transfer payee stands for another account.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    transferAccountId: t.exposeID('transfer_account_id', {
      nullable: true,
      description: 'Set when this is the transfer payee of an account.',
    }),
    transferAccount: t.field({
      type: Account,
      nullable: true,
      resolve: inPlan((p) => p.transfer_account_id, findAccount),
    }),
    deleted: t.exposeBoolean('deleted'),
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
    id: t.exposeID('id'),
    payeeId: t.exposeID('payee_id'),
    payee: t.field({
      type: Payee,
      nullable: true,
      resolve: inPlan((l) => l.payee_id, findPayee),
    }),
    latitude: t.field({ type: 'Latitude', resolve: (l) => Number(l.latitude) }),
    longitude: t.field({ type: 'Longitude', resolve: (l) => Number(l.longitude) }),
    deleted: t.exposeBoolean('deleted'),
  }),
});

builder.objectFields(Plan, (t) => ({
  payees: t.field({
    type: [Payee],
    resolve: async (plan, _args, ctx) => (await ctx.loaders.plan(plan.id)).payees(),
  }),
  payee: t.field({
    type: Payee,
    nullable: true,
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: async (plan, { id }, ctx) =>
      orNotFound((await ctx.loaders.plan(plan.id)).payee(id), 'payee', id),
  }),
  payeeLocations: t.field({
    type: [PayeeLocation],
    resolve: async (plan, _args, ctx) => (await ctx.loaders.plan(plan.id)).payeeLocations(),
  }),
  payeeLocation: t.field({
    type: PayeeLocation,
    nullable: true,
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: async (plan, { id }, ctx) =>
      orNotFound((await ctx.loaders.plan(plan.id)).payeeLocation(id), 'payee location', id),
  }),
}));
