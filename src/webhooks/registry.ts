/**
 * `createWebhookRegistry(options)`: the webhook endpoints of one gateway instance
 * (docs/webhooks.md), behind the GraphQL mutations and queries (an endpoint belongs to the token
 * that created it: every look-up is by token key, and another token's endpoint is "not found").
 * Everything kept is sealed under the operator's key (sealed-store.ts); the store opens only when
 * the key is the one it was sealed with, checked once: otherwise webhooks stay off, saying why
 * once. Without the operator's key, `disabledWebhooks()` answers every call with
 * WEBHOOKS_DISABLED.
 *
 * What sends the outbox is a transport above the schema (`src/deliveries`): it opens the same
 * store (`store()`) and listens to what the registry changes (`listen`).
 */
import { randomUUID } from 'node:crypto';
import type { WebhooksConfig } from '../config/config.js';
import { gatewayError } from '../errors/codes.js';
import type { Credentials } from '../operation/credentials.js';
import type { Scheduler } from '../time/scheduler.js';
import { isWebhookKind, type WebhookKind } from './kinds.js';
import { openSealedStore, WebhookKeyError } from './sealed-store.js';
import { newSecret } from './signing.js';
import {
  type AttemptRecord,
  type DeliveryRecord,
  type EndpointPatch,
  type EndpointRecord,
  type WebhookRecords,
  type WebhookStore,
  WebhookStoreUnavailableError,
} from './store.js';
import { urlProblem } from './target.js';
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

/** What the sending side is told of the registry's changes. */
export interface RegistryChanges {
  /**
   * Endpoints were created, changed or deleted: feeds to open or close. Awaited: a new endpoint
   * is answered once its feed has joined the plan's changes, so a write after it reaches it.
   */
  endpointsChanged(): Promise<void>;
  /** Deliveries may be due now (an endpoint enabled again, an event redelivered). */
  deliveriesDue(): void;
}

/** The registry of an instance whose operator gave the key. */
export interface OpenRegistry extends WebhookRegistry {
  /**
   * The store, opened once (the key checked, what an earlier version left in clear sealed);
   * rejects with WEBHOOKS_DISABLED for good when the key is not the store's, and with the
   * store's failure otherwise (tried again on the next call).
   */
  store(): Promise<WebhookStore>;
  /** The key was refused: webhooks are off on this instance for good. */
  readonly refused: boolean;
  /** Tells `changes` of every change from now on; returns the function that stops it. */
  listen(changes: RegistryChanges): () => void;
  /** Closes the store (after whatever sends from it). */
  close(): Promise<void>;
}

export interface WebhookRegistryOptions {
  config: WebhooksConfig;
  /** Where endpoints and the outbox are kept; sealed under `config.key`. */
  records: WebhookRecords;
  /** The clock of `createdAt`, rotations and redeliveries. */
  scheduler: Pick<Scheduler, 'now'>;
  /** A change could not be passed on (the sending side failed to sync); the call still answers. */
  onError: (error: unknown) => void;
  /**
   * `WEBHOOK_KEY` does not open the store: webhooks stay off and every call answers
   * WEBHOOKS_DISABLED with this error's message. Called once.
   */
  onKeyRefused: (error: WebhookKeyError) => void;
}

/** An endpoint's description is a note for people: at most this many characters. */
const MAX_DESCRIPTION = 500;
/** Endpoints one token may hold. */
const MAX_ENDPOINTS_PER_TOKEN = 100;

export function createWebhookRegistry(options: WebhookRegistryOptions): OpenRegistry {
  const { config, scheduler, onError } = options;
  let opening: Promise<WebhookStore> | undefined;
  let refused: WebhookKeyError | undefined;
  const listeners = new Set<RegistryChanges>();

  // The store, opened once; a failure other than the key's (Redis away) is tried again on the
  // next call. The key's is final: webhooks stay off, and say so once.
  const open = (): Promise<WebhookStore> => {
    if (refused) return Promise.reject(keyRefused());
    opening ??= openSealedStore(options.records, config.key).catch((error: unknown) => {
      opening = undefined;
      if (error instanceof WebhookKeyError) {
        refused = error;
        options.onKeyRefused(error);
        throw keyRefused();
      }
      throw error;
    });
    return opening;
  };
  const endpointsChanged = async () => {
    for (const changes of [...listeners]) await changes.endpointsChanged().catch(onError);
  };
  const deliveriesDue = () => {
    for (const changes of [...listeners]) changes.deliveriesDue();
  };

  const owned = async (who: Credentials, id: string, field: string): Promise<EndpointRecord> => {
    const store = await open();
    const endpoint = await store.endpoint(id);
    if (!endpoint || endpoint.tokenKey !== who.tokenKey) throw notFound(field, id);
    return endpoint;
  };

  return answeringUnavailable({
    enabled: true,
    store: open,
    get refused() {
      return refused !== undefined;
    },
    listen(changes) {
      listeners.add(changes);
      return () => void listeners.delete(changes);
    },
    async create(who, input) {
      const url = checkUrl('input.url', input.url, config.allowPrivateTargets);
      const kinds = checkKinds('input.kinds', input.kinds);
      const description = checkDescription('input.description', input.description);
      const store = await open();
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
      await endpointsChanged();
      return { endpoint, secret };
    },
    async update(who, id, changes) {
      await owned(who, id, 'id');
      const store = await open();
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
      await endpointsChanged();
      deliveriesDue();
      return updated;
    },
    async rotateSecret(who, id) {
      const endpoint = await owned(who, id, 'id');
      const store = await open();
      const secret = newSecret();
      const now = scheduler.now();
      await store.rotateSecret(id, secret, now, now + config.secretOverlapMs);
      return { endpoint, secret };
    },
    async delete(who, id) {
      await owned(who, id, 'id');
      const store = await open();
      await store.deleteEndpoint(id);
      await endpointsChanged();
      return id;
    },
    endpoints: async (who) => (await open()).endpointsOf(who.tokenKey),
    async endpoint(who, id) {
      const endpoint = await (await open()).endpoint(id);
      return endpoint && endpoint.tokenKey === who.tokenKey ? endpoint : null;
    },
    deliveries: async (endpointId, first, before) =>
      (await open()).deliveries(endpointId, first, before),
    attempts: async (seq) => (await open()).attempts(seq),
    async redeliver(who, eventId) {
      const store = await open();
      const delivery = await store.deliveryOfEvent(eventId);
      if (!delivery) throw notFound('eventId', eventId);
      await owned(who, delivery.endpointId, 'eventId');
      const copy = await store.redeliver(eventId, scheduler.now());
      if (!copy) throw notFound('eventId', eventId);
      deliveriesDue();
      return copy;
    },
    async close() {
      listeners.clear();
      await options.records.close();
    },
  });
}

/**
 * Private: `webhooks` whose registry calls answer WEBHOOKS_UNAVAILABLE, at once, when the store
 * could not answer (Redis away or hanging), instead of an unexpected error.
 */
function answeringUnavailable(webhooks: OpenRegistry): OpenRegistry {
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
    enabled: true,
    store: webhooks.store,
    get refused() {
      return webhooks.refused;
    },
    listen: webhooks.listen,
    close: webhooks.close,
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
function keyRefused(): ReturnType<typeof gatewayError> {
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

function fieldError(field: string, message: string): ReturnType<typeof gatewayError> {
  return gatewayError(`${field}: ${message}`, 'BAD_USER_INPUT', { extensions: { field } });
}

function notFound(field: string, id: string): ReturnType<typeof gatewayError> {
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
