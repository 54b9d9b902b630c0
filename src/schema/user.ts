import type { User as UserShape } from '@plans-gateway/rest-contract';
import { builder } from './builder.js';
import type { RateLimitUsage } from './context.js';
import { Node, REST_ID_DESCRIPTION } from './node.js';

export const User = builder.objectRef<UserShape>('User').implement({
  interfaces: [Node],
  description: 'The user the access token belongs to.',
  fields: (t) => ({
    id: t.exposeID('id', {
      description: REST_ID_DESCRIPTION,
    }),
  }),
});

export const RateLimit = builder.objectRef<RateLimitUsage>('RateLimit').implement({
  description:
    "This token's upstream requests in the rolling hour, as the gateway counted them (the " +
    'upstream does not report it). Requests other clients make with the same token are not seen.',
  fields: (t) => ({
    used: t.exposeInt('used', { description: 'Upstream requests counted in the rolling hour.' }),
    limit: t.exposeInt('limit', { description: 'Upstream requests allowed in the rolling hour.' }),
    remaining: t.exposeInt('remaining', {
      description: 'Upstream requests left in the rolling hour.',
    }),
    resetsAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the oldest counted request leaves the window; null when none is counted.',
      resolve: (usage) => (usage.resetsAt === null ? null : new Date(usage.resetsAt)),
    }),
  }),
});

builder.queryFields((t) => ({
  user: t.field({
    type: User,
    description: 'REST `GET /user`.',
    resolve: (_root, _args, ctx) => ctx.loaders.user(),
  }),
  rateLimit: t.field({
    type: RateLimit,
    description:
      'Counted after the rest of this operation, so it includes the calls the operation made.',
    resolve: async (_root, _args, ctx) => {
      await ctx.meter.idle();
      return ctx.rateLimit();
    },
  }),
}));
