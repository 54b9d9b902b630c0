/**
 * `createWebhookDeliveries(options)`: the webhook transport of one gateway instance. Over the
 * registry's store it runs the feeds (feeds.ts: one server-owned `planChanged` subscription per
 * token and plan with an enabled endpoint, through the admission path) and the deliverer
 * (deliverer.ts: the outbox, signed POSTs to checked targets). It starts with the gateway, follows
 * what the registry changes (`RegistryChanges`), looks for what other instances changed every
 * 5 s with a shared store, and goes on at once when that store answers again after an outage.
 */
import { randomUUID } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { WebhooksConfig } from '../config/config.js';
import type { Scheduler, TimerHandle } from '../time/scheduler.js';
import type { OpenRegistry } from '../webhooks/registry.js';
import type { FeedKey, WebhookStore } from '../webhooks/store.js';
import { createTargetDispatcher } from '../webhooks/target.js';
import { createDeliverer, type Deliverer } from './deliverer.js';
import { type AdmissionPath, createWebhookFeeds, feedThrough, type WebhookFeeds } from './feeds.js';

export interface WebhookDeliveries {
  /**
   * Opens the store (through the registry), then the feeds of the stored endpoints, and sends
   * what waits in the outbox; a store that does not answer is tried again every 5 s.
   */
  start(): Promise<void>;
  /** The (token key, plan) feeds open on this instance. */
  openFeeds(): FeedKey[];
  /** Stops the feeds (giving their leases up) and waits for the deliveries in flight. */
  close(): Promise<void>;
}

export interface WebhookDeliveriesOptions {
  config: WebhooksConfig;
  registry: OpenRegistry;
  /** The gateway's admission path: every feed's operation runs through it. */
  admission: AdmissionPath;
  scheduler: Scheduler;
  onError: (error: unknown) => void;
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

export function createWebhookDeliveries(options: WebhookDeliveriesOptions): WebhookDeliveries {
  const { config, registry, scheduler, onError } = options;
  const dispatcher =
    options.dispatcher ??
    createTargetDispatcher({
      allowPrivate: config.allowPrivateTargets,
      timeoutMs: config.timeoutMs,
      connections: 4,
    });
  // This instance, as it holds feeds and claims deliveries in a shared store.
  const owner = randomUUID();
  let running: Running | undefined;
  let resyncTimer: TimerHandle | undefined;
  let retryTimer: TimerHandle | undefined;
  let stopResuming: (() => void) | undefined;
  let closed = false;

  // The feeds and the deliverer over the store, made once it first opens.
  const run = async (): Promise<Running> => {
    const store = await registry.store();
    if (running) return running;
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
      subscribe: feedThrough(options.admission),
      scheduler,
      onQueued: () => deliverer.wake(),
      onError,
    });
    running = { store, feeds, deliverer };
    return running;
  };
  const stopListening = registry.listen({
    async endpointsChanged() {
      if (!closed) await (await run()).feeds.sync();
    },
    deliveriesDue: () => running?.deliverer.wake(),
  });

  // Fire and forget, as every timer that waits on Redis: a manual scheduler waits for a task's
  // promise, and this one may wait on another of its timers (the link's deadline).
  const resyncEvery = (ms: number) => {
    resyncTimer = scheduler.setTimeout(() => {
      if (closed) return;
      void running?.feeds
        .sync()
        .catch(onError)
        .then(() => {
          if (!closed) resyncEvery(ms);
        });
    }, ms);
  };

  // Opens the store and the feeds; a failure other than the key's (Redis away at start) is
  // reported and tried again, so feeds start once the store answers.
  const begin = async (): Promise<void> => {
    if (closed) return;
    try {
      const parts = await run();
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
      if (registry.refused || closed) return; // the key's refusal is said once, by the registry
      onError(error);
      retryTimer = scheduler.setTimeout(() => void begin(), SHARED_RESYNC_MS);
    }
  };

  return {
    start: begin,
    openFeeds: () => running?.feeds.open() ?? [],
    async close() {
      closed = true;
      stopListening();
      resyncTimer?.cancel();
      retryTimer?.cancel();
      stopResuming?.();
      if (running) {
        await running.feeds.close();
        await running.deliverer.close();
      }
      if (!options.dispatcher) await dispatcher.close();
    },
  };
}
