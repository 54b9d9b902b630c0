import type { Cluster } from '../cluster/cluster.js';
import type { GatewayConfig } from '../config/config.js';
import { createPollBudget, type PollBudget } from '../live/budget.js';
import { createLiveHub, type LiveHub } from '../live/hub.js';
import type { LiveBus } from '../live/live-bus.js';
import type { PollLeases } from '../live/poll-leases.js';
import { createCursorSeal } from '../live/sync-cursor.js';
import type { ReplicaStore } from '../replica/types.js';
import type { Clock } from '../time/clock.js';
import type { Scheduler } from '../time/scheduler.js';
import type { RequestLedger } from '../upstream/request-ledger.js';
import type { GatewayLedger } from './cluster.js';

export interface GatewayLiveOptions {
  config: GatewayConfig;
  now: Clock;
  replicas: ReplicaStore;
  usage: GatewayLedger['usage'];
  cluster?: Cluster | undefined;
  /** The gateway's timers. */
  scheduler: Scheduler;
  /** Parts injected by the caller, before the cluster's, before in-process ones. */
  live?: { bus?: LiveBus; leases?: PollLeases; pollLedger?: RequestLedger } | undefined;
  onError: (error: unknown) => void;
}

export interface GatewayLive {
  readonly hub: LiveHub;
  /** The one poll budget of every token: the hub's pollers and the reconciler spend from it. */
  readonly budget: PollBudget;
}

/**
 * Subscriptions: polls within the budget the request ledger leaves, sharing the event bus, the
 * poll leases and the poll ledger with other instances through the cluster, when there is one.
 */
export function createGatewayLive(options: GatewayLiveOptions): GatewayLive {
  const { config, now, replicas, usage, cluster, scheduler, live, onError } = options;
  const sharedPolls = cluster?.ledger('polls', config.rateLimit);
  const polls =
    live?.pollLedger ??
    (sharedPolls ? { record: sharedPolls.record, usage: sharedPolls.shared } : undefined);
  const bus = live?.bus ?? cluster?.bus;
  const leases = live?.leases ?? cluster?.leases;
  const budget = createPollBudget({
    usage,
    ...config.rateLimit,
    share: config.live.budgetShare,
    maxAgeMs: config.maxAgeMs,
    now,
    ...(polls ? { polls } : {}),
  });
  const hub = createLiveHub({
    replicas,
    budget,
    scheduler,
    maxSubscriptionsPerToken: config.live.maxSubscriptionsPerToken,
    eventLimits: { rows: config.live.eventRows, bytes: config.live.eventBytes },
    pendingBytesPerSubscriber: config.live.pendingBytesPerSubscriber,
    onError,
    // Sealed under the operator's key, cursors open on every instance that shares it.
    cursorSeal: createCursorSeal(config.webhooks?.key ?? config.signIn?.key),
    ...(bus ? { bus } : {}),
    ...(leases ? { leases } : {}),
  });
  return { hub, budget };
}
