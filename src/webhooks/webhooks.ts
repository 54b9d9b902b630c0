/**
 * `createWebhooks(options)`: the webhooks of one gateway instance (docs/webhooks.md). The
 * registry behind the GraphQL mutations and queries (an endpoint belongs to the token that
 * created it: every look-up is by token key, and another token's endpoint is "not found"), the
 * feeds that turn the live hub's changes into outbox entries (feeds.ts), and the deliverer that
 * sends them (deliverer.ts). Everything kept is sealed under the operator's key
 * (sealed-store.ts); the store opens only when the key is the one it was sealed with, checked at
 * start: otherwise webhooks stay off, saying why once. Without the operator's key,
 * `disabledWebhooks()` answers every call with WEBHOOKS_DISABLED.
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
import { openSealedStore, WebhookKeyError } from './sealed-store.js';
import { newSecret } from './signing.js';
import {
  type AttemptRecord,
  type DeliveryRecord,
  type EndpointPatch,
  type EndpointRecord,
  type FeedKey,
  type WebhookRecords,
  type WebhookStore,
  WebhookStoreUnavailableError,
} from './store.js';
import { createTargetDispatcher, urlProblem } from './target.js';

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
  /**
   * Opens the store (checking the key, sealing what an earlier version left in clear), then the
   * feeds of the stored endpoints, and sends what waits in the outbox.
   */
  start(): Promise<void>;
  /** The (token key, plan) feeds open on this instance. */
  openFeeds(): FeedKey[];
  close(): Promise<void>;
}

export interface WebhooksOptions {
  config: WebhooksConfig;
  /** Where endpoints and the outbox are kept; sealed under `config.key`. */
  records: WebhookRecords;
  scheduler: Scheduler;
  subscribe: FeedSubscribe;
  onError: (error: unknown) => void;
  /**
   * `WEBHOOK_KEY` does not open the store: webhooks stay off and every call answers
   * WEBHOOKS_DISABLED with this error's message. Called once.
   */
  onKeyRefused: (error: WebhookKeyError) => void;
  /** Where deliveries connect. @default checked targets (`createTargetDispatcher`) */
  dispatcher?: Dispatcher;
}

/** What runs once the store is open. */
interface Running {
  readonly store: WebhookStore;
  readonly feeds: WebhookFeeds;
  readonly deliverer: Deliverer;
}

/**
 * With a shared store, how often an instance looks for feeds other instances opened or closed;
 * also how soon a start that failed (the store did not answer) is tried again.
 */
const SHARED_RESYNC_MS = 5_000;
/** An endpoint's description is a note for people: at most this many characters. */
const MAX_DESCRIPTION = 500;
/** Endpoints one token may hold. */
const MAX_ENDPOINTS_PER_TOKEN = 100;

export function createWebhooks(options: WebhooksOptions): Webhooks {
  const { config, scheduler, onError } = options;
  const dispatcher =
    options.dispatcher ??
    createTargetDispatcher({
      allowPrivate: config.allowPrivateTargets,
      timeoutMs: config.timeoutMs,
      connections: 4,
    });
  // This instance, as it holds feeds and claims deliveries in a shared store.
  const owner = randomUUID();
  let opening: Promise<Running> | undefined;
  let running: Running | undefined;
  let refused: WebhookKeyError | undefined;
  let resyncTimer: TimerHandle | undefined;
  let retryTimer: TimerHandle | undefined;
  let stopResuming: (() => void) | undefined;
  let closed = false;

  const startParts = (store: WebhookStore): Running => {
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
      subscribe: options.subscribe,
      scheduler,
      onQueued: () => deliverer.wake(),
      onError,
    });
    return { store, feeds, deliverer };
  };
  // The store, opened once; a failure other than the key's (Redis away) is tried again on the
  // next call. The key's is final: webhooks stay off, and say so once.
  const open = (): Promise<Running> => {
    if (refused) return Promise.reject(keyRefused());
    opening ??= openSealedStore(options.records, config.key).then(
      (store) => {
        running = startParts(store);
        return running;
      },
      (error: unknown) => {
        opening = undefined;
        if (error instanceof WebhookKeyError) {
          refused = error;
          options.onKeyRefused(error);
          throw keyRefused();
        }
        throw error;
      },
    );
    return opening;
  };
  const resync = async () => {
    if (running) await running.feeds.sync().catch(onError);
  };
  // Shared store: endpoints created, changed or deleted through other instances show up here.
  // Fire and forget, as every timer that waits on Redis: a manual scheduler waits for a task's
  // promise, and this one may wait on another of its timers (the link's deadline).
  const resyncEvery = (ms: number) => {
    resyncTimer = scheduler.setTimeout(() => {
      if (closed) return;
      void resync().then(() => {
        if (!closed) resyncEvery(ms);
      });
    }, ms);
  };

  // Opens the store and the feeds; a failure other than the key's (Redis away at start) is
  // logged and tried again, so feeds start once the store answers.
  const begin = async (): Promise<void> => {
    if (closed) return;
    try {
      const parts = await open();
      if (closed) return;
      // Redis back after an outage: what waited for it goes on now, not after its back-off.
      stopResuming ??= parts.store.onAvailable?.(() => {
        parts.feeds.resume();
        parts.deliverer.wake();
      });
      await parts.feeds.sync();
      parts.deliverer.wake();
      if (parts.store.shared) resyncEvery(SHARED_RESYNC_MS);
    } catch (error) {
      if (refused || closed) return; // the key's refusal is said once, by onKeyRefused
      onError(error);
      retryTimer = scheduler.setTimeout(() => void begin(), SHARED_RESYNC_MS);
    }
  };

  const owned = async (who: Credentials, id: string, field: string): Promise<EndpointRecord> => {
    const { store } = await open();
    const endpoint = await store.endpoint(id);
    if (!endpoint || endpoint.tokenKey !== who.tokenKey) throw notFound(field, id);
    return endpoint;
  };

  return answeringUnavailable({
    enabled: true,
    async create(who, input) {
      const url = checkUrl('input.url', input.url, config.allowPrivateTargets);
      const kinds = checkKinds('input.kinds', input.kinds);
      const description = checkDescription('input.description', input.description);
      const { store, feeds } = await open();
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
      await store.createEndpoint(endpoint, secret, who.token);
      await feeds.sync().catch(onError);
      return { endpoint, secret };
    },
    async update(who, id, changes) {
      await owned(who, id, 'id');
      const { store, feeds, deliverer } = await open();
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
      await feeds.sync().catch(onError);
      deliverer.wake();
      return updated;
    },
    async rotateSecret(who, id) {
      const endpoint = await owned(who, id, 'id');
      const { store } = await open();
      const secret = newSecret();
      const now = scheduler.now();
      await store.rotateSecret(id, secret, now, now + config.secretOverlapMs);
      return { endpoint, secret };
    },
    async delete(who, id) {
      await owned(who, id, 'id');
      const { store, feeds } = await open();
      await store.deleteEndpoint(id);
      await feeds.sync().catch(onError);
      return id;
    },
    endpoints: async (who) => (await open()).store.endpointsOf(who.tokenKey),
    async endpoint(who, id) {
      const endpoint = await (await open()).store.endpoint(id);
      return endpoint && endpoint.tokenKey === who.tokenKey ? endpoint : null;
    },
    deliveries: async (endpointId, first, before) =>
      (await open()).store.deliveries(endpointId, first, before),
    attempts: async (seq) => (await open()).store.attempts(seq),
    async redeliver(who, eventId) {
      const { store, deliverer } = await open();
      const delivery = await store.deliveryOfEvent(eventId);
      if (!delivery) throw notFound('eventId', eventId);
      await owned(who, delivery.endpointId, 'eventId');
      const copy = await store.redeliver(eventId, scheduler.now());
      if (!copy) throw notFound('eventId', eventId);
      deliverer.wake();
      return copy;
    },
    start: begin,
    openFeeds: () => running?.feeds.open() ?? [],
    async close() {
      closed = true;
      resyncTimer?.cancel();
      retryTimer?.cancel();
      stopResuming?.();
      const parts = running ?? (await opening?.catch(() => undefined));
      if (parts) {
        await parts.feeds.close();
        await parts.deliverer.close();
      }
      if (!options.dispatcher) await dispatcher.close();
      await options.records.close();
    },
  });
}

/**
 * Private: `webhooks` whose registry calls answer WEBHOOKS_UNAVAILABLE, at once, when the store
 * could not answer (Redis away or hanging), instead of an unexpected error.
 */
function answeringUnavailable(webhooks: Webhooks): Webhooks {
  const guard =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await call(...args);
      } catch (error) {
        if (!(error instanceof WebhookStoreUnavailableError)) throw error;
        throw gatewayError(
          'Webhooks are unavailable for a moment: their store (Redis) did not answer in time. A change asked for may or may not have been made; read before trying it again.',
          'WEBHOOKS_UNAVAILABLE',
        );
      }
    };
  return {
    ...webhooks,
    create: guard(webhooks.create),
    update: guard(webhooks.update),
    rotateSecret: guard(webhooks.rotateSecret),
    delete: guard(webhooks.delete),
    endpoints: guard(webhooks.endpoints),
    endpoint: guard(webhooks.endpoint),
    deliveries: guard(webhooks.deliveries),
    attempts: guard(webhooks.attempts),
    redeliver: guard(webhooks.redeliver),
  };
}

/**
 * Private: what every call answers once the key was refused: what is wrong, without the store's
 * whereabouts or key ids (those are in the operator's log line).
 */
function keyRefused(): GraphQLError {
  return gatewayError(
    'Webhooks are off on this gateway: its WEBHOOK_KEY is not the key the webhook store was sealed with. The operator must start it with that key; nothing stored was changed.',
    'WEBHOOKS_DISABLED',
  );
}

/** Webhooks without the operator's key: every call says so. */
export function disabledWebhooks(): WebhookRegistry {
  const off = async (): Promise<never> => {
    throw gatewayError(
      'Webhooks are off on this gateway: the operator has not set WEBHOOK_KEY (the key that seals what webhooks keep).',
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
