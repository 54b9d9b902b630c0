/**
 * The webhooks' consumers of the live hub: for each (token, plan) with an enabled endpoint, one
 * long-lived, server-owned `planChanged` subscription (payload.ts), run through the admission
 * path with the stored token. It is a subscriber like any other: the one poller of that (token,
 * plan), inside the token's subscription budget share, and one subscriber slot of the token, however
 * many endpoints listen. Each event is written to the outbox for every endpoint that wants it,
 * together with the feed's cursor (its `serverKnowledge`), in one transaction; a feed (re)starts
 * with `since` set to its cursor, so after a crash or a restart the hub replays what was missed
 * (from its change log, or one delta in the polls' share) and nothing is lost.
 *
 * A token the upstream refuses (401) disables all its endpoints, a plan it may not read (403,
 * 404) that plan's, with the reason; any other ending (a shutdown, the upstream down) restarts
 * the feed after a back-off.
 */
import type { ExecutionResult, GraphQLError, GraphQLFormattedError } from 'graphql';
import { bearer, type Presented } from '../admission/presented.js';
import { type LeaseRenewal, renewLease } from '../live/lease-renewal.js';
import type { Scheduler, TimerHandle } from '../time/scheduler.js';
import { newEventId } from '../webhooks/signing.js';
import type { FeedKey, NewDelivery, WebhookStore } from '../webhooks/store.js';
import type { FeedEvent } from './payload.js';
import { FEED_DOCUMENT, knowledgeOf, payloadFor } from './payload.js';

/** Runs the feed document for a token and plan from `since`. */
export type FeedSubscribe = (request: {
  token: string;
  planId: string;
  since: number | undefined;
}) => Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult>;

/**
 * The gateway's admission path for transports that are not yoga's own (`prepareOperation` in
 * src/server/run-operation.ts, bound to the gateway): admission, validation, the operation's
 * context, as over HTTP.
 */
export type AdmissionPath = (call: {
  readonly query: string;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly operationName: string;
  /** The stored token as presented (`bearer`), read once per feed run: admission digests it. */
  readonly presented: Presented;
  readonly path: string;
  readonly own: boolean;
}) => Promise<
  | {
      readonly ok: true;
      subscribe(): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult>;
    }
  | { readonly ok: false; readonly errors: readonly GraphQLError[] }
>;

/**
 * The feeds' subscription: the fixed `WebhookFeed` document (payload.ts) through the admission
 * path with the stored token, like any operation of any transport.
 */
export function feedThrough(admission: AdmissionPath): FeedSubscribe {
  return async ({ token, planId, since }) => {
    const prepared = await admission({
      query: FEED_DOCUMENT,
      variables: { planId, since: since ?? null },
      operationName: 'WebhookFeed',
      presented: bearer(token),
      path: '/webhooks',
      // The gateway's own document: it runs under TRUSTED_DOCUMENTS_ONLY like the MCP tools.
      own: true,
    });
    if (!prepared.ok) return { errors: [...prepared.errors] };
    return prepared.subscribe();
  };
}

export interface WebhookFeeds {
  /**
   * Opens the feeds of every (token, plan) with an enabled endpoint, closes the others; resolves
   * once each feed it opened has joined its plan's changes (or failed to), so a write that lands
   * after it reaches the endpoint that made it open.
   */
  sync(): Promise<void>;
  /** (token key, plan) pairs with an open feed on this instance. */
  open(): FeedKey[];
  /**
   * Runs every feed waiting out a back-off now: the store answers again after an outage (the
   * feeds resume from their cursors at once, not after a back-off of up to 5 minutes).
   */
  resume(): void;
  close(): Promise<void>;
}

export interface WebhookFeedsOptions {
  /** This instance, as it holds feed leases in a shared store. */
  owner: string;
  store: WebhookStore;
  subscribe: FeedSubscribe;
  scheduler: Scheduler;
  /** Deliveries were queued. */
  onQueued: () => void;
  onError: (error: unknown) => void;
}

/** Restarts of a feed that ended for a passing reason: 1 s, doubling, at most 5 min. */
const RESTART_FIRST_MS = 1_000;
const RESTART_MAX_MS = 5 * 60_000;

/**
 * With a shared store a feed runs on the one instance holding its lease, renewed every third of
 * it; the others try to take it this often, so a dead holder's feeds move within a lease.
 */
const FEED_LEASE_MS = 15_000;

/** Codes that end a feed for good: the token or the plan is refused. */
const TOKEN_REFUSED = new Set(['UNAUTHENTICATED']);
const PLAN_REFUSED = new Set([
  'NOT_FOUND',
  'SUBSCRIPTION_LAPSED',
  'TRIAL_EXPIRED',
  'DATA_LIMIT_REACHED',
]);

interface Feed {
  readonly key: FeedKey;
  stopped: boolean;
  iterator?: AsyncIterableIterator<ExecutionResult>;
  timer?: TimerHandle;
  /** Waiting for `timer` to run it again (a back-off, another instance's lease). */
  idle?: boolean;
  renewal?: LeaseRenewal;
  failures: number;
  running: Promise<void>;
  /** Its first subscription has joined the plan's changes, or will not. */
  readonly joined: Promise<void>;
  join(): void;
}

export function createWebhookFeeds(options: WebhookFeedsOptions): WebhookFeeds {
  const { owner, store, subscribe, scheduler, onQueued, onError } = options;
  const feeds = new Map<string, Feed>();
  let closed = false;

  const idOf = (key: FeedKey) => `${key.tokenKey}:${key.planId}`;

  // Gives the feed's lease up (with a shared store), resolving once Redis has it.
  const stop = (feed: Feed): Promise<void> => {
    feed.join();
    feed.stopped = true;
    feed.timer?.cancel();
    feed.renewal?.stop();
    void feed.iterator?.return?.();
    feeds.delete(idOf(feed.key));
    if (!store.shared) return Promise.resolve();
    return store.releaseFeed(feed.key, owner).catch(onError);
  };

  // Private: shared store: keeps the feed's lease while it runs; losing it ends this run (the
  // feed then waits to take it again, from the cursor the new holder moves).
  const holdLease = (feed: Feed) => {
    feed.renewal = renewLease({
      scheduler,
      everyMs: FEED_LEASE_MS / 3,
      renew: () => store.claimFeed(feed.key, owner, FEED_LEASE_MS),
      onLost: () => void feed.iterator?.return?.(),
    });
  };

  // Private: one subscription of the feed, until it ends; then what its ending calls for.
  const runOnce = async (feed: Feed): Promise<void> => {
    const { key } = feed;
    if (store.shared) {
      if (!(await store.claimFeed(key, owner, FEED_LEASE_MS))) {
        waitForLease(feed);
        return;
      }
      // Stopped while the lease was being taken: `stop` released it before it was set.
      if (feed.stopped) return void (await store.releaseFeed(key, owner));
      holdLease(feed);
    }
    const token = await store.token(key.tokenKey);
    if (token === undefined) return stop(feed);
    const since = await store.cursor(key);
    const result = await subscribe({ token, planId: key.planId, since });
    if (feed.stopped) {
      if (Symbol.asyncIterator in result) await result.return?.();
      return;
    }
    if (!(Symbol.asyncIterator in result)) {
      feed.renewal?.stop();
      return ended(feed, result.errors ?? []);
    }
    feed.iterator = result;
    // The first pull joins the plan's channel: a change published from then on is in this feed.
    let pulled = result.next();
    feed.join();
    // Ended by itself, or left (errors, a lost lease, a failure): then it is returned.
    let done = false;
    try {
      for (;;) {
        const step = await pulled;
        if (step.done) {
          done = true;
          break;
        }
        if (step.value.errors?.length) {
          feed.renewal?.stop();
          return await ended(feed, step.value.errors);
        }
        const data = step.value.data as { planChanged?: FeedEvent } | null | undefined;
        if (data?.planChanged) {
          if (!(await enqueue(feed, data.planChanged))) break;
          feed.failures = 0;
        }
        pulled = result.next();
      }
    } finally {
      if (!done) await result.return?.();
    }
    feed.renewal?.stop();
    if (!feed.stopped) restartLater(feed);
  };

  // Each endpoint enabled when the event is written gets it, unless it is from before the
  // endpoint existed (a feed resuming from an older cursor replays changes it never asked for).
  // A write is after an endpoint when its own knowledge is past the one the endpoint started at,
  // even while the replica's has not moved yet. The cursor moves to the replica's knowledge
  // only: a write's does not tell that everything before it was seen.
  const enqueue = async (feed: Feed, event: FeedEvent) => {
    const knowledge = knowledgeOf(event);
    if (knowledge === undefined) return true;
    const now = scheduler.now();
    const deliveries: NewDelivery[] = [];
    for (const endpoint of await store.feedEndpoints(feed.key)) {
      if (knowledge <= endpoint.startKnowledge) continue;
      const payload = payloadFor(event, endpoint.kinds, knowledge, now);
      if (payload !== null) {
        deliveries.push({
          eventId: newEventId(),
          endpointId: endpoint.id,
          serverKnowledge: knowledge,
          payload,
        });
      }
    }
    const written = await store.enqueue(feed.key, event.serverKnowledge, deliveries, now, owner);
    if (written && deliveries.length > 0) onQueued();
    return written;
  };

  const ended = async (feed: Feed, errors: readonly GraphQLFormattedError[]) => {
    const [first] = errors;
    const code = String(first?.extensions?.code ?? '');
    const now = scheduler.now();
    if (TOKEN_REFUSED.has(code)) {
      await store.disableFeeds(
        feed.key.tokenKey,
        null,
        `The upstream refused the token (${code}): ${first?.message ?? ''} Register the endpoint again with a valid token.`,
        now,
      );
      for (const other of [...feeds.values()]) {
        if (other.key.tokenKey === feed.key.tokenKey) void stop(other);
      }
      return;
    }
    if (PLAN_REFUSED.has(code)) {
      await store.disableFeeds(
        feed.key.tokenKey,
        feed.key.planId,
        `The upstream refused the plan (${code}): ${first?.message ?? ''}`,
        now,
      );
      void stop(feed);
      return;
    }
    if (code !== 'SHUTTING_DOWN') {
      onError(new Error(`A webhook feed ended (${code || 'no code'}): ${first?.message ?? ''}`));
    }
    restartLater(feed);
  };

  // Private: the feed runs again in `delayMs` (it is idle until then: `resume` may run it now).
  const runLater = (feed: Feed, delayMs: number) => {
    feed.idle = true;
    feed.timer = scheduler.setTimeout(() => {
      feed.idle = false;
      if (!feed.stopped) feed.running = run(feed);
    }, delayMs);
  };

  const waitForLease = (feed: Feed) => {
    if (feed.stopped || closed) return;
    runLater(feed, FEED_LEASE_MS / 3);
  };

  const restartLater = (feed: Feed) => {
    if (feed.stopped || closed) return;
    delete feed.iterator;
    const delay = Math.min(RESTART_MAX_MS, RESTART_FIRST_MS * 2 ** feed.failures);
    feed.failures += 1;
    runLater(feed, delay);
  };

  const run = (feed: Feed): Promise<void> =>
    runOnce(feed)
      .catch((error: unknown) => {
        onError(error);
        restartLater(feed);
      })
      .finally(() => feed.join());

  return {
    async sync() {
      if (closed) return;
      const wanted = await store.feeds();
      const ids = new Set(wanted.map(idOf));
      for (const feed of [...feeds.values()]) if (!ids.has(idOf(feed.key))) void stop(feed);
      const opened: Promise<void>[] = [];
      for (const key of wanted) {
        if (feeds.has(idOf(key))) continue;
        let join = () => {};
        const joined = new Promise<void>((resolve) => {
          join = resolve;
        });
        const feed: Feed = {
          key,
          stopped: false,
          failures: 0,
          running: Promise.resolve(),
          joined,
          join,
        };
        feeds.set(idOf(key), feed);
        feed.running = run(feed);
        opened.push(joined);
      }
      await Promise.all(opened);
    },
    open: () => [...feeds.values()].map((feed) => feed.key),
    resume() {
      for (const feed of feeds.values()) {
        if (!feed.idle || feed.stopped || closed) continue;
        feed.timer?.cancel();
        feed.idle = false;
        feed.failures = 0;
        feed.running = run(feed);
      }
    },
    async close() {
      closed = true;
      const running = [...feeds.values()].map((feed) => feed.running);
      // Leases given up before the store (and its Redis link) closes.
      const released = [...feeds.values()].map(stop);
      await Promise.allSettled([...running, ...released]);
    },
  };
}
