/**
 * What webhooks keep beyond a request: endpoints and their secrets, the tokens, each (token,
 * plan) feed's cursor, the outbox of deliveries and their attempts. Two interfaces:
 *
 * - `WebhookStore`, what the rest of webhooks use: records in clear.
 * - `WebhookRecords`, what a backend keeps (`sqlite-store.ts` alone, `redis-store.ts` with
 *   `REDIS_URL`): the same records with everything that would tell something sealed under
 *   `WEBHOOK_KEY` (tokens, secrets, endpoints' plan, URL, kinds and description, payloads,
 *   reasons and errors) and plans named by a keyed digest. `sealed-store.ts` turns one into the
 *   other, so a backend never sees a secret or plan data in clear.
 *
 * Every method that changes two things changes them in one transaction: a crash (`kill -9`)
 * leaves either both or neither.
 */
import type { WebhookKind } from './kinds.js';

export interface EndpointRecord {
  readonly id: string;
  readonly tokenKey: string;
  readonly planId: string;
  readonly url: string;
  readonly kinds: readonly WebhookKind[];
  readonly description: string | null;
  readonly createdAt: number;
  /** The plan's knowledge when it was created: it receives the changes after it. */
  readonly startKnowledge: number;
  /** Why deliveries stopped (retries exhausted, the token refused); null while enabled. */
  readonly disabledReason: string | null;
  readonly disabledAt: number | null;
}

/** PENDING until a 2xx answer; an endpoint disabled after a day of failures keeps its PENDING ones for when it is enabled again. */
export type DeliveryState = 'PENDING' | 'DELIVERED';

/** One event for one endpoint: what is sent (and re-sent) until it is delivered or given up. */
export interface DeliveryRecord {
  /** Outbox order: an endpoint's deliveries go out in this order. */
  readonly seq: number;
  readonly eventId: string;
  readonly endpointId: string;
  readonly serverKnowledge: number;
  /** The JSON body sent. */
  readonly payload: string;
  readonly createdAt: number;
  readonly state: DeliveryState;
  readonly attempts: number;
  readonly nextAttemptAt: number;
  readonly firstAttemptAt: number | null;
}

export interface AttemptRecord {
  readonly at: number;
  readonly durationMs: number;
  /** The HTTP status answered; null when there was no answer (refused, timed out, unreachable). */
  readonly statusCode: number | null;
  readonly ok: boolean;
  /** What went wrong, when it did. */
  readonly error: string | null;
}

export interface NewDelivery {
  readonly eventId: string;
  readonly endpointId: string;
  /** The knowledge the event brings its receiver to (a write's own knowledge for a WRITE event). */
  readonly serverKnowledge: number;
  readonly payload: string;
}

export interface EndpointPatch {
  readonly url?: string;
  readonly kinds?: readonly WebhookKind[];
  readonly description?: string | null;
  /** true: enabled again (its pending deliveries resume); false: disabled by its owner. */
  readonly enabled?: boolean;
}

/** A (token, plan) with at least one enabled endpoint: the feeds an instance keeps open. */
export interface FeedKey {
  readonly tokenKey: string;
  readonly planId: string;
}

/**
 * The store could not answer (Redis away, or slower than `REDIS_COMMAND_TIMEOUT_MS`): the call
 * failed at once rather than wait. A change it was making may have been applied or not; every
 * change is one script or transaction, so it was applied whole or not at all.
 */
export class WebhookStoreUnavailableError extends Error {
  override readonly name = 'WebhookStoreUnavailableError';
  readonly code = 'GW_ERR_WEBHOOK_STORE_UNAVAILABLE';
  constructor(where: string) {
    super(`The webhook store (${where}) did not answer in time.`);
  }
}

/**
 * Deliveries kept in an endpoint's history, in either store: older ones are dropped with their
 * attempts (pending ones are always kept).
 */
export const DELIVERY_HISTORY = 1_000;

export interface WebhookStore {
  /**
   * Shared by several instances (Redis): a feed runs where its lease is held, and a delivery is
   * claimed by one instance at a time. Alone (SQLite), every claim is granted.
   */
  readonly shared: boolean;
  /** Takes or renews the lease of a feed for `owner`; false while another instance holds it. */
  claimFeed(key: FeedKey, owner: string, ttlMs: number): Promise<boolean>;
  releaseFeed(key: FeedKey, owner: string): Promise<void>;
  /**
   * Saves the endpoint, its first secret and its owner's token; starts the feed's cursor at the
   * endpoint's `startKnowledge` if it has none (a feed that has one resumes from it: endpoints
   * disabled meanwhile get what they missed when enabled again).
   */
  createEndpoint(endpoint: EndpointRecord, secret: string, token: string): Promise<void>;
  endpoint(id: string): Promise<EndpointRecord | undefined>;
  endpointsOf(tokenKey: string): Promise<EndpointRecord[]>;
  /** Enabled endpoints of one feed. */
  feedEndpoints(key: FeedKey): Promise<EndpointRecord[]>;
  updateEndpoint(
    id: string,
    patch: EndpointPatch,
    now: number,
  ): Promise<EndpointRecord | undefined>;
  deleteEndpoint(id: string): Promise<boolean>;
  /** Signing secrets, newest first: the current one, then any still within its overlap. */
  secrets(endpointId: string, now: number): Promise<string[]>;
  /** A new current secret; the previous ones sign until `previousUntil`. */
  rotateSecret(
    endpointId: string,
    secret: string,
    now: number,
    previousUntil: number,
  ): Promise<void>;
  /** The token an endpoint's feed polls with. */
  token(tokenKey: string): Promise<string | undefined>;
  feeds(): Promise<FeedKey[]>;
  cursor(key: FeedKey): Promise<number | undefined>;
  /**
   * Adds an event's deliveries and moves the feed's cursor to `cursor` (where the feed resumes:
   * at most the event's knowledge), together; false (and nothing written) when `owner` no longer
   * holds the feed's lease.
   */
  enqueue(
    key: FeedKey,
    cursor: number,
    deliveries: readonly NewDelivery[],
    now: number,
    owner: string,
  ): Promise<boolean>;
  /**
   * Claims the head of each enabled endpoint's queue that is due by `now` (one per endpoint: an
   * endpoint's events go out in order), oldest first, skipping `busy` endpoints; a claim lasts
   * `holdMs` (an instance that dies mid-delivery lets it go then) or until `recordAttempt` /
   * `release`.
   */
  due(
    now: number,
    limit: number,
    busy: ReadonlySet<string>,
    owner: string,
    holdMs: number,
  ): Promise<DeliveryRecord[]>;
  /** Gives a claimed delivery back without an attempt. */
  release(delivery: DeliveryRecord, owner: string): Promise<void>;
  /**
   * When the earliest head of an enabled endpoint's queue falls due, of those due after `after`;
   * undefined: none.
   */
  nextDueAt(after: number): Promise<number | undefined>;
  /** Records an attempt and the delivery's new state (and when to try again). */
  recordAttempt(
    delivery: DeliveryRecord,
    attempt: AttemptRecord,
    next: { state: DeliveryState; nextAttemptAt: number },
    owner: string,
  ): Promise<void>;
  disableEndpoint(id: string, reason: string, now: number): Promise<void>;
  /** Disables every endpoint of a token (the upstream refused it), or of one of its plans. */
  disableFeeds(tokenKey: string, planId: string | null, reason: string, now: number): Promise<void>;
  /** An endpoint's deliveries, newest first, before the `before` sequence. */
  deliveries(endpointId: string, limit: number, before?: number): Promise<DeliveryRecord[]>;
  /** The latest delivery of an event. */
  deliveryOfEvent(eventId: string): Promise<DeliveryRecord | undefined>;
  attempts(seq: number): Promise<AttemptRecord[]>;
  /** Queues an event again, with the same id and body, at the end of its endpoint's queue. */
  redeliver(eventId: string, now: number): Promise<DeliveryRecord | undefined>;
  /**
   * Calls `listener` each time the store answers again after it could not (Redis came back);
   * undefined for a store that is never away (SQLite). Returns the function that stops it.
   */
  onAvailable?(listener: () => void): () => void;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// At rest: what a backend keeps

/**
 * An endpoint as kept: who owns it (the token's digest), which feed it belongs to (a keyed
 * digest of the token key and plan id), and the rest sealed.
 */
export interface StoredEndpoint {
  readonly id: string;
  readonly tokenKey: string;
  readonly feed: string;
  readonly createdAt: number;
  readonly startKnowledge: number;
  /** Sealed JSON of its plan id, URL, kinds and description (`sealed-store.ts`). */
  readonly details: string;
  /** Sealed; null while enabled. */
  readonly disabledReason: string | null;
  readonly disabledAt: number | null;
}

/** A feed as kept: the token's digest and the keyed digest of its plan. */
export interface StoredFeed {
  readonly tokenKey: string;
  readonly feed: string;
}

export interface StoredEndpointPatch {
  /** Sealed, as `StoredEndpoint.details`. */
  readonly details?: string;
  /** true: enabled again; false: disabled with `disabledReason` unless it already was. */
  readonly enabled?: boolean;
  /** Sealed: the reason recorded when `enabled: false` disables it. */
  readonly disabledReason?: string;
}

/** An endpoint after `patch`: enabled again, disabled by its owner, its details replaced. */
export function patchedEndpoint(
  current: StoredEndpoint,
  patch: StoredEndpointPatch,
  now: number,
): StoredEndpoint {
  return {
    ...current,
    ...(patch.details === undefined ? {} : { details: patch.details }),
    ...(patch.enabled === true ? { disabledReason: null, disabledAt: null } : {}),
    ...(patch.enabled === false && current.disabledReason === null && patch.disabledReason
      ? { disabledReason: patch.disabledReason, disabledAt: now }
      : {}),
  };
}

/**
 * Rows written before sealing (`sealed-store.ts` makes it): a backend that finds them passes each
 * through here and keeps what comes back. Each call throws when the key cannot do it (a token
 * sealed under another key): the backend then changes nothing.
 */
export interface ClearRows {
  /** A token as sealed before (or already in the current format): the current format. */
  token(tokenKey: string, sealed: string): string;
  endpoint(endpoint: EndpointRecord): StoredEndpoint;
  feed(tokenKey: string, planId: string): string;
  secret(endpointId: string, secret: string): string;
  payload(endpointId: string, eventId: string, payload: string): string;
  error(seq: number, error: string): string;
}

/** The store of a backend: `WebhookStore` over stored records (see the head of this file). */
export interface WebhookRecords {
  readonly shared: boolean;
  /** Where it is, for messages: the SQLite file, or Redis and its prefix. */
  readonly where: string;
  /** A value sealed when the store was first opened: the key that opens it is the store's. */
  canary(): Promise<string | undefined>;
  setCanary(sealed: string): Promise<void>;
  /** Any one token, to tell whether the key opens the store when it has no canary yet. */
  anyToken(): Promise<{ tokenKey: string; sealed: string } | undefined>;
  /** Seals what was written before sealing; nothing when there is none. */
  sealClearRows(rows: ClearRows): Promise<void>;
  claimFeed(feed: StoredFeed, owner: string, ttlMs: number): Promise<boolean>;
  releaseFeed(feed: StoredFeed, owner: string): Promise<void>;
  createEndpoint(endpoint: StoredEndpoint, secret: string, token: string): Promise<void>;
  endpoint(id: string): Promise<StoredEndpoint | undefined>;
  endpointsOf(tokenKey: string): Promise<StoredEndpoint[]>;
  feedEndpoints(feed: StoredFeed): Promise<StoredEndpoint[]>;
  updateEndpoint(
    id: string,
    patch: StoredEndpointPatch,
    now: number,
  ): Promise<StoredEndpoint | undefined>;
  deleteEndpoint(id: string): Promise<boolean>;
  secrets(endpointId: string, now: number): Promise<string[]>;
  rotateSecret(
    endpointId: string,
    secret: string,
    now: number,
    previousUntil: number,
  ): Promise<void>;
  token(tokenKey: string): Promise<string | undefined>;
  /** One enabled endpoint of each feed that has one. */
  feeds(): Promise<StoredEndpoint[]>;
  cursor(feed: StoredFeed): Promise<number | undefined>;
  enqueue(
    feed: StoredFeed,
    cursor: number,
    deliveries: readonly NewDelivery[],
    now: number,
    owner: string,
  ): Promise<boolean>;
  due(
    now: number,
    limit: number,
    busy: ReadonlySet<string>,
    owner: string,
    holdMs: number,
  ): Promise<DeliveryRecord[]>;
  release(delivery: DeliveryRecord, owner: string): Promise<void>;
  nextDueAt(after: number): Promise<number | undefined>;
  recordAttempt(
    delivery: DeliveryRecord,
    attempt: AttemptRecord,
    next: { state: DeliveryState; nextAttemptAt: number },
    owner: string,
  ): Promise<void>;
  disableEndpoint(id: string, reason: string, now: number): Promise<void>;
  /** Every endpoint of the token, or of one of its feeds (`StoredFeed.feed`). */
  disableFeeds(tokenKey: string, feed: string | null, reason: string, now: number): Promise<void>;
  deliveries(endpointId: string, limit: number, before?: number): Promise<DeliveryRecord[]>;
  deliveryOfEvent(eventId: string): Promise<DeliveryRecord | undefined>;
  attempts(seq: number): Promise<AttemptRecord[]>;
  redeliver(eventId: string, now: number): Promise<DeliveryRecord | undefined>;
  /** As `WebhookStore.onAvailable`. */
  onAvailable?(listener: () => void): () => void;
  close(): Promise<void>;
}
