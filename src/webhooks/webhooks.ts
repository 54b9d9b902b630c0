/**
 * `createWebhooks(options)`: the webhooks of one gateway instance (docs/webhooks.md). The
 * registry behind the GraphQL mutations and queries (an endpoint belongs to the token that
 * created it: every look-up is by token key, and another token's endpoint is "not found"), the
 * feeds that turn the live hub's changes into outbox entries (feeds.ts), and the deliverer that
 * sends them (deliverer.ts). Without the operator's key, `disabledWebhooks()` answers every
 * call with WEBHOOKS_DISABLED.
 */
import { randomUUID } from 'node:crypto';
import type { GraphQLError } from 'graphql';
import type { Dispatcher } from 'undici';
import type { WebhooksConfig } from '../config/config.js';
import { gatewayError } from '../errors/codes.js';
import type { Scheduler, TimerHandle } from '../live/scheduler.js';
import type { Credentials } from '../operation/credentials.js';
import { createDeliverer, type Deliverer } from './deliverer.js';
import { createWebhookFeeds, type FeedSubscribe, type WebhookFeeds } from './feeds.js';
import { isWebhookKind, type WebhookKind } from './kinds.js';
import { newSecret } from './signing.js';
import type {
  AttemptRecord,
  DeliveryRecord,
  EndpointPatch,
  EndpointRecord,
  WebhookStore,
} from './store.js';
import { createTargetDispatcher, urlProblem } from './target.js';
import { createTokenVault } from './token-vault.js';

/** What a client sends to create an endpoint, the plan already resolved and read. */
export interface EndpointInput {
  readonly planId: string;
  /** The plan's knowledge when the endpoint is created: its events start after it. */
  readonly knowledge: number;
  readonly url: string;
  readonly kinds: readonly string[];
  readonly description?: string | null | undefined;
}

export interface EndpointChanges {
  readonly url?: string | null | undefined;
  readonly kinds?: readonly string[] | null | undefined;
  readonly description?: string | null | undefined;
  readonly enabled?: boolean | null | undefined;
}

/** What the GraphQL schema asks of webhooks; every call acts for one token. */
export interface WebhookRegistry {
  readonly enabled: boolean;
  create(
    who: Credentials,
    input: EndpointInput,
  ): Promise<{ endpoint: EndpointRecord; secret: string }>;
  update(who: Credentials, id: string, changes: EndpointChanges): Promise<EndpointRecord>;
  rotateSecret(who: Credentials, id: string): Promise<{ endpoint: EndpointRecord; secret: string }>;
  delete(who: Credentials, id: string): Promise<string>;
  endpoints(who: Credentials): Promise<EndpointRecord[]>;
  endpoint(who: Credentials, id: string): Promise<EndpointRecord | null>;
  deliveries(endpointId: string, first: number, before?: number): Promise<DeliveryRecord[]>;
  attempts(seq: number): Promise<AttemptRecord[]>;
  redeliver(who: Credentials, eventId: string): Promise<DeliveryRecord>;
}

export interface Webhooks extends WebhookRegistry {
  /** Opens the feeds of the stored endpoints and sends what waits in the outbox. */
  start(): Promise<void>;
  /** The (token key, plan) feeds open on this instance. */
  feeds(): WebhookFeeds;
  close(): Promise<void>;
}

export interface WebhooksOptions {
  config: WebhooksConfig;
  store: WebhookStore;
  scheduler: Scheduler;
  subscribe: FeedSubscribe;
  onError: (error: unknown) => void;
  /** Where deliveries connect. @default checked targets (`createTargetDispatcher`) */
  dispatcher?: Dispatcher;
}

/** With a shared store, how often an instance looks for feeds other instances opened or closed. */
const SHARED_RESYNC_MS = 5_000;
/** An endpoint's description is a note for people: at most this many characters. */
const MAX_DESCRIPTION = 500;
/** Endpoints one token may hold. */
const MAX_ENDPOINTS_PER_TOKEN = 100;

export function createWebhooks(options: WebhooksOptions): Webhooks {
  const { config, store, scheduler, onError } = options;
  const vault = createTokenVault(config.key);
  const dispatcher =
    options.dispatcher ??
    createTargetDispatcher({
      allowPrivate: config.allowPrivateTargets,
      timeoutMs: config.timeoutMs,
      connections: 4,
    });
  // This instance, as it holds feeds and claims deliveries in a shared store.
  const owner = randomUUID();
  const deliverer: Deliverer = createDeliverer({
    owner,
    store,
    config,
    scheduler,
    dispatcher,
    onError,
    onDisabled: () => void feeds.sync().catch(onError),
  });
  const feeds = createWebhookFeeds({
    owner,
    store,
    vault,
    subscribe: options.subscribe,
    scheduler,
    onQueued: () => deliverer.wake(),
    onError,
  });
  const resync = () => feeds.sync().catch(onError);
  let resyncTimer: TimerHandle | undefined;
  let closed = false;
  // Shared store: endpoints created, changed or deleted through other instances show up here.
  const resyncEvery = (ms: number) => {
    resyncTimer = scheduler.setTimeout(async () => {
      if (closed) return;
      await resync();
      resyncEvery(ms);
    }, ms);
  };

  const owned = async (who: Credentials, id: string, field: string): Promise<EndpointRecord> => {
    const endpoint = await store.endpoint(id);
    if (!endpoint || endpoint.tokenKey !== who.tokenKey) throw notFound(field, id);
    return endpoint;
  };

  return {
    enabled: true,
    async create(who, input) {
      const url = checkUrl('input.url', input.url, config.allowPrivateTargets);
      const kinds = checkKinds('input.kinds', input.kinds);
      const description = checkDescription('input.description', input.description);
      if ((await store.endpointsOf(who.tokenKey)).length >= MAX_ENDPOINTS_PER_TOKEN) {
        throw gatewayError(
          `A token may hold at most ${MAX_ENDPOINTS_PER_TOKEN} webhook endpoints; delete one first.`,
          'BAD_USER_INPUT',
          { extensions: { field: 'input' } },
        );
      }
      const endpoint: EndpointRecord = {
        id: randomUUID(),
        tokenKey: who.tokenKey,
        planId: input.planId,
        url,
        kinds,
        description,
        createdAt: scheduler.now(),
        startKnowledge: input.knowledge,
        disabledReason: null,
        disabledAt: null,
      };
      const secret = newSecret();
      await store.createEndpoint(endpoint, secret, vault.seal(who.token, who.tokenKey));
      await resync();
      return { endpoint, secret };
    },
    async update(who, id, changes) {
      await owned(who, id, 'id');
      const patch: EndpointPatch = {
        ...(changes.url == null
          ? {}
          : { url: checkUrl('input.url', changes.url, config.allowPrivateTargets) }),
        ...(changes.kinds == null ? {} : { kinds: checkKinds('input.kinds', changes.kinds) }),
        ...(changes.description === undefined
          ? {}
          : { description: checkDescription('input.description', changes.description) }),
        ...(changes.enabled == null ? {} : { enabled: changes.enabled }),
      };
      const updated = await store.updateEndpoint(id, patch, scheduler.now());
      if (!updated) throw notFound('id', id);
      await resync();
      deliverer.wake();
      return updated;
    },
    async rotateSecret(who, id) {
      const endpoint = await owned(who, id, 'id');
      const secret = newSecret();
      const now = scheduler.now();
      await store.rotateSecret(id, secret, now, now + config.secretOverlapMs);
      return { endpoint, secret };
    },
    async delete(who, id) {
      await owned(who, id, 'id');
      await store.deleteEndpoint(id);
      await resync();
      return id;
    },
    endpoints: (who) => store.endpointsOf(who.tokenKey),
    async endpoint(who, id) {
      const endpoint = await store.endpoint(id);
      return endpoint && endpoint.tokenKey === who.tokenKey ? endpoint : null;
    },
    deliveries: (endpointId, first, before) => store.deliveries(endpointId, first, before),
    attempts: (seq) => store.attempts(seq),
    async redeliver(who, eventId) {
      const delivery = await store.deliveryOfEvent(eventId);
      if (!delivery) throw notFound('eventId', eventId);
      await owned(who, delivery.endpointId, 'eventId');
      const copy = await store.redeliver(eventId, scheduler.now());
      if (!copy) throw notFound('eventId', eventId);
      deliverer.wake();
      return copy;
    },
    async start() {
      await feeds.sync();
      deliverer.wake();
      if (store.shared) resyncEvery(SHARED_RESYNC_MS);
    },
    feeds: () => feeds,
    async close() {
      closed = true;
      resyncTimer?.cancel();
      await feeds.close();
      await deliverer.close();
      if (!options.dispatcher) await dispatcher.close();
      await store.close();
    },
  };
}

/** Webhooks without the operator's key: every call says so. */
export function disabledWebhooks(): WebhookRegistry {
  const off = async (): Promise<never> => {
    throw gatewayError(
      'Webhooks are off on this gateway: the operator has not set WEBHOOK_KEY (the key that encrypts the tokens webhooks keep).',
      'WEBHOOKS_DISABLED',
    );
  };
  return {
    enabled: false,
    create: off,
    update: off,
    rotateSecret: off,
    delete: off,
    endpoints: off,
    endpoint: off,
    deliveries: off,
    attempts: off,
    redeliver: off,
  };
}

function fieldError(field: string, message: string): GraphQLError {
  return gatewayError(`${field}: ${message}`, 'BAD_USER_INPUT', { extensions: { field } });
}

function notFound(field: string, id: string): GraphQLError {
  return gatewayError(
    `${field}: no webhook endpoint or event ${JSON.stringify(id.slice(0, 100))} of this token`,
    'NOT_FOUND',
    {
      extensions: { field },
    },
  );
}

function checkUrl(field: string, url: string, allowPrivate: boolean): string {
  const problem = urlProblem(url, allowPrivate);
  if (problem) throw fieldError(field, problem);
  return new URL(url).href;
}

function checkKinds(field: string, kinds: readonly string[]): WebhookKind[] {
  if (kinds.length === 0) throw fieldError(field, 'must name at least one kind of change');
  const unknown = kinds.find((kind) => !isWebhookKind(kind));
  if (unknown !== undefined)
    throw fieldError(field, `unknown kind of change ${JSON.stringify(unknown)}`);
  return [...new Set(kinds as WebhookKind[])];
}

function checkDescription(field: string, description: string | null | undefined): string | null {
  if (description == null) return null;
  if (description.length > MAX_DESCRIPTION) {
    throw fieldError(
      field,
      `must be at most ${MAX_DESCRIPTION} characters; got ${description.length}`,
    );
  }
  return description;
}
