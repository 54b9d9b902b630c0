/**
 * Webhooks (src/webhooks, docs/webhooks.md): endpoints a token registers for a plan, the
 * deliveries made to them with each attempt, and the mutations that manage them. An endpoint
 * belongs to the token that created it; no other token sees or changes it.
 */
import { GraphQLError } from 'graphql';
import { isUpstreamError } from '../errors/upstream-error.js';
import { requireCredentials } from '../operation/credentials.js';
import { WEBHOOK_KINDS, type WebhookKind } from '../webhooks/kinds.js';
import type { AttemptRecord, DeliveryRecord, EndpointRecord } from '../webhooks/store.js';
import { builder } from './builder.js';
import type { GatewayContext } from './context.js';
import { badUserInput, checkId } from './input-checks.js';
import { PlanIdScalar } from './scalars.js';

const KIND_DESCRIPTIONS: Record<WebhookKind, string> = {
  ACCOUNTS: 'Accounts created, changed (balances included) or deleted.',
  CATEGORY_GROUPS: 'Category groups created, changed or deleted.',
  CATEGORIES: 'Categories created, changed or deleted (amounts of the current month).',
  MONTHS: 'Month totals that changed.',
  MONTH_CATEGORIES: "Categories' amounts that changed in a month.",
  PAYEES: 'Payees created, changed or deleted.',
  TRANSACTIONS: 'Transactions created, changed or deleted.',
  SCHEDULED_TRANSACTIONS: 'Scheduled transactions created, changed or deleted.',
};

export const WebhookChangeKindEnum = builder.enumType('WebhookChangeKind', {
  description:
    'A kind of change an endpoint receives: one list of a `planChanged` event, with its deletions.',
  values: Object.fromEntries(
    WEBHOOK_KINDS.map((kind) => [kind, { description: KIND_DESCRIPTIONS[kind] }]),
  ) as Record<WebhookKind, { description: string }>,
});

const WebhookDeliveryStateEnum = builder.enumType('WebhookDeliveryState', {
  description: 'Where a delivery stands.',
  values: {
    PENDING: { description: 'Not answered with a 2xx yet: waiting for its turn or a retry.' },
    DELIVERED: { description: 'Answered with a 2xx.' },
  },
});

const WebhookAttempt = builder.objectRef<AttemptRecord>('WebhookAttempt').implement({
  description: 'One POST of a delivery to its endpoint.',
  fields: (t) => ({
    at: t.field({
      type: 'DateTime',
      description: 'When it was sent.',
      resolve: (a) => new Date(a.at),
    }),
    succeeded: t.boolean({ description: 'Answered with a 2xx in time.', resolve: (a) => a.ok }),
    responseStatus: t.int({
      nullable: true,
      description:
        'The HTTP status answered; null when nothing was (refused, unreachable, timed out).',
      resolve: (a) => a.statusCode,
    }),
    durationMs: t.exposeInt('durationMs', {
      description: 'From sending to the answer (or giving up).',
    }),
    error: t.exposeString('error', {
      nullable: true,
      description: 'What went wrong, when something did.',
    }),
  }),
});

const WebhookDelivery = builder.objectRef<DeliveryRecord>('WebhookDelivery').implement({
  description: 'One event for one endpoint, sent until a 2xx answers it.',
  fields: (t) => ({
    eventId: t.exposeID('eventId', {
      description: 'The event id (`webhook-id`): the same on every attempt and on a redelivery.',
    }),
    serverKnowledge: t.expose('serverKnowledge', {
      type: 'SafeInt',
      description: 'The knowledge the event brings the receiver to.',
    }),
    state: t.expose('state', {
      type: WebhookDeliveryStateEnum,
      description: 'Where it stands.',
    }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When it was queued.',
      resolve: (d) => new Date(d.createdAt),
    }),
    nextAttemptAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it is tried next; null once delivered.',
      resolve: (d) => (d.state === 'PENDING' ? new Date(d.nextAttemptAt) : null),
    }),
    body: t.string({ description: 'The JSON body sent.', resolve: (d) => d.payload }),
    attempts: t.field({
      type: [WebhookAttempt],
      description: 'Its attempts, oldest first.',
      resolve: (d, _args, ctx) => ctx.webhooks.attempts(d.seq),
    }),
  }),
});

export const WebhookEndpoint = builder.objectRef<EndpointRecord>('WebhookEndpoint').implement({
  description: "A URL that receives a plan's changes, signed (Standard Webhooks) and retried.",
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The endpoint id.' }),
    planId: t.exposeID('planId', { description: 'The plan whose changes it receives.' }),
    url: t.exposeString('url', { description: 'Where deliveries are POSTed.' }),
    kinds: t.field({
      type: [WebhookChangeKindEnum],
      description: 'The kinds of change it receives.',
      resolve: (e) => [...e.kinds],
    }),
    description: t.exposeString('description', {
      nullable: true,
      description: 'A note for people.',
    }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When it was created.',
      resolve: (e) => new Date(e.createdAt),
    }),
    enabled: t.boolean({
      description: 'Deliveries are being made.',
      resolve: (e) => e.disabledReason === null,
    }),
    disabledReason: t.exposeString('disabledReason', {
      nullable: true,
      description:
        'Why deliveries stopped: a day of failed retries, the upstream refusing the token or the plan, or its owner.',
    }),
    disabledAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When deliveries stopped.',
      resolve: (e) => (e.disabledAt === null ? null : new Date(e.disabledAt)),
    }),
    deliveries: t.field({
      type: [WebhookDelivery],
      description: 'Its deliveries, newest first.',
      args: {
        first: t.arg.int({ defaultValue: 20, description: 'At most this many (up to 100).' }),
        before: t.arg.id({
          description: 'Only those queued before this delivery (`WebhookDelivery.seq`).',
        }),
      },
      resolve: (e, args, ctx) => {
        const first = args.first ?? 20;
        if (first < 1 || first > 100)
          throw badUserInput('first', `must be from 1 to 100; got ${first}`);
        const before = args.before == null ? undefined : Number(args.before);
        if (before !== undefined && !Number.isSafeInteger(before)) {
          throw badUserInput('before', 'must be a delivery `seq`');
        }
        return ctx.webhooks.deliveries(e.id, first, before);
      },
    }),
  }),
});

builder.objectField(WebhookDelivery, 'seq', (t) =>
  t.id({
    description: 'Its place in the outbox (for `deliveries(before:)`).',
    resolve: (d) => String(d.seq),
  }),
);

/**
 * Private: the operation's token; webhooks always act for one. What they answer comes from the
 * webhook store, not the replica, so the answer is never one to cache or validate by ETag.
 */
function who(ctx: GatewayContext) {
  ctx.reads.volatile();
  return requireCredentials(ctx.credentials);
}

builder.queryFields((t) => ({
  webhookEndpoints: t.field({
    type: [WebhookEndpoint],
    description: "This token's webhook endpoints.",
    resolve: (_root, _args, ctx) => ctx.webhooks.endpoints(who(ctx)),
  }),
  webhookEndpoint: t.field({
    type: WebhookEndpoint,
    nullable: true,
    description: "One of this token's webhook endpoints; null when it has none by that id.",
    args: { id: t.arg.id({ required: true, description: 'The endpoint id.' }) },
    resolve: (_root, args, ctx) => ctx.webhooks.endpoint(who(ctx), checkId('id', args.id)),
  }),
}));

const CreateWebhookEndpointInput = builder.inputType('CreateWebhookEndpointInput', {
  description: 'An endpoint to create.',
  fields: (t) => ({
    planId: t.field({
      type: PlanIdScalar,
      required: true,
      description: 'A plan UUID, `last-used` or `default`.',
    }),
    url: t.string({
      required: true,
      description: 'An https URL whose host resolves to public addresses.',
    }),
    kinds: t.field({
      type: [WebhookChangeKindEnum],
      required: true,
      description: 'The kinds of change to receive (at least one).',
    }),
    description: t.string({ description: 'A note for people; at most 500 characters.' }),
  }),
});

const UpdateWebhookEndpointInput = builder.inputType('UpdateWebhookEndpointInput', {
  description: 'What to change in an endpoint; fields left out stay as they are.',
  fields: (t) => ({
    url: t.string({ description: 'A new https URL.' }),
    kinds: t.field({ type: [WebhookChangeKindEnum], description: 'The new kinds of change.' }),
    description: t.string({ description: 'A new note (null clears it).' }),
    enabled: t.boolean({
      description:
        'false stops deliveries; true resumes them, with the events that waited (a disabled endpoint keeps them).',
    }),
  }),
});

interface SecretPayloadShape {
  readonly endpoint: EndpointRecord;
  readonly secret: string;
}

const secretField = (description: string) =>
  ({ description, resolve: (p: SecretPayloadShape) => p.secret }) as const;

const CreateWebhookEndpointPayload = builder
  .objectRef<SecretPayloadShape>('CreateWebhookEndpointPayload')
  .implement({
    description: 'The endpoint created, and its signing secret (shown only here).',
    fields: (t) => ({
      endpoint: t.expose('endpoint', { type: WebhookEndpoint, description: 'The endpoint.' }),
      secret: t.string(secretField('The `whsec_` signing secret; keep it, it is not shown again.')),
    }),
  });

const RotateWebhookSecretPayload = builder
  .objectRef<SecretPayloadShape>('RotateWebhookSecretPayload')
  .implement({
    description:
      'The new signing secret; the previous one also signs for the overlap (24 h by default).',
    fields: (t) => ({
      endpoint: t.expose('endpoint', { type: WebhookEndpoint, description: 'The endpoint.' }),
      secret: t.string(secretField('The new `whsec_` signing secret.')),
    }),
  });

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    type: CreateWebhookEndpointPayload,
    description:
      "Registers a URL to receive the plan's changes from now on, signed with a new secret. The gateway keeps this token (encrypted) to keep polling for it.",
    args: {
      input: t.arg({
        type: CreateWebhookEndpointInput,
        required: true,
        description: 'The endpoint.',
      }),
    },
    resolve: async (_root, { input }, ctx) => {
      const credentials = who(ctx);
      if (!ctx.webhooks.enabled) await ctx.webhooks.endpoints(credentials);
      const plan = await ctx.loaders.plan(input.planId).catch((error: unknown) => {
        const code = isUpstreamError(error)
          ? error.status
          : error instanceof GraphQLError
            ? error.extensions.code
            : undefined;
        if (code === 404 || code === 'NOT_FOUND') {
          throw badUserInput(
            'input.planId',
            `no plan ${JSON.stringify(input.planId)} for this token`,
          );
        }
        throw error;
      });
      return ctx.webhooks.create(credentials, {
        planId: plan.planId,
        knowledge: plan.serverKnowledge,
        url: input.url,
        kinds: input.kinds,
        description: input.description,
      });
    },
  }),
  updateWebhookEndpoint: t.field({
    type: WebhookEndpoint,
    description: 'Changes an endpoint of this token.',
    args: {
      id: t.arg.id({ required: true, description: 'The endpoint id.' }),
      input: t.arg({
        type: UpdateWebhookEndpointInput,
        required: true,
        description: 'What to change.',
      }),
    },
    resolve: (_root, { id, input }, ctx) => ctx.webhooks.update(who(ctx), checkId('id', id), input),
  }),
  rotateWebhookSecret: t.field({
    type: RotateWebhookSecretPayload,
    description:
      'Gives an endpoint a new signing secret; the old one also signs during the overlap.',
    args: { id: t.arg.id({ required: true, description: 'The endpoint id.' }) },
    resolve: (_root, { id }, ctx) => ctx.webhooks.rotateSecret(who(ctx), checkId('id', id)),
  }),
  deleteWebhookEndpoint: t.id({
    description: 'Deletes an endpoint of this token with its waiting deliveries; answers its id.',
    args: { id: t.arg.id({ required: true, description: 'The endpoint id.' }) },
    resolve: (_root, { id }, ctx) => ctx.webhooks.delete(who(ctx), checkId('id', id)),
  }),
  redeliverWebhookEvent: t.field({
    type: WebhookDelivery,
    description: 'Sends an event again (same id and body), after whatever waits for its endpoint.',
    args: { eventId: t.arg.id({ required: true, description: 'The event id (`webhook-id`).' }) },
    resolve: (_root, { eventId }, ctx) =>
      ctx.webhooks.redeliver(who(ctx), checkId('eventId', eventId)),
  }),
}));
