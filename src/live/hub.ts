/**
 * `createLiveHub(options)`: the live updates of one gateway instance. See README.md here.
 *
 * - Channels: one per (token key, plan) with at least one subscriber on this instance. A channel
 *   owns the poller of that (token, plan), its change log, and one bus subscription that fans
 *   out to its subscribers' feeds.
 * - Publishing: the replica store calls `applied` for every change it stores, whoever caused it
 *   (a poll, a query's sync, a write through the gateway). The change is resolved into rows
 *   against the new replica version and published on the channel's topic.
 * - Resuming: a subscriber that gives `since` first receives what changed after it, from the
 *   change log when the log reaches back that far (no upstream call), else from one delta
 *   request sent from `since`. Without `since`, the same covers whatever landed between the
 *   subscriber's first read and its joining the channel.
 * - Ending: a 401 ends every subscription of the token (`UNAUTHENTICATED`), a 403 or 404 those
 *   of the plan, through the bus so that every instance ends its own.
 */
import { GraphQLError } from 'graphql';
import { type Credentials, unauthenticated } from '../contracts/credentials.js';
import { rethrowAsGraphQL } from '../contracts/errors.js';
import type { Loaders } from '../loaders/loaders.js';
import type { AppliedChange } from '../replica/store.js';
import type { Freshness, PlanSnapshot, ReplicaStore } from '../replica/types.js';
import type { PollBudget } from './budget.js';
import { channelKey, createLiveBus, type LiveBus } from './bus.js';
import type { ChangeLog, ChangeLogLimits } from './change-log.js';
import { isEmptyChange, keysOfSource, type PlanChange, resolveKeys } from './changes.js';
import {
  admitSubscriber,
  type Channel,
  closeChannels,
  createLogCache,
  joinChannel,
  type LiveState,
  leaveChannel,
  releaseSubscriber,
} from './channels.js';
import { PlanFeed } from './feed.js';
import { createLocalLeases, type PollLeases } from './leases.js';
import { type FetchDelta, type ReplaySources, replay } from './replay.js';
import type { Scheduler } from './scheduler.js';

/** @default 100 subscriptions per token on one instance */
export const DEFAULT_SUBSCRIPTIONS_PER_TOKEN = 100;
/** @default 1,000,000 entity ids across the change logs of all (token, plan) pairs */
export const DEFAULT_CHANGE_LOG_BUDGET = 1_000_000;

export interface LiveHubOptions {
  replicas: Pick<ReplicaStore, 'read' | 'peek'>;
  /** `GET /plans/{planId}?last_knowledge_of_server=since`: replays the change log cannot serve. */
  fetchDelta: FetchDelta;
  budget: PollBudget;
  scheduler: Scheduler;
  /** @default an in-process bus (`createLiveBus()`) */
  bus?: LiveBus;
  /** @default every lease granted (`createLocalLeases()`) */
  leases?: PollLeases;
  /** @default 100 */
  maxSubscriptionsPerToken?: number;
  /** Bounds of each (token, plan) change log. @default 256 deltas, 10,000 ids */
  changeLog?: ChangeLogLimits;
  /** Ids kept across all change logs; least recently used logs go first. @default 1,000,000 */
  changeLogBudget?: number;
  /** Unexpected poll failures (the poller backs off and carries on). @default ignored */
  onError?: (error: unknown) => void;
}

export interface OpenRequest<T> {
  readonly credentials: Credentials | null;
  /** A plan id or alias; the channel is keyed by the concrete id it resolves to. */
  readonly planId: string;
  /** Replay what changed after this knowledge first. */
  readonly since?: number;
  /** Freshness of the first read (the request's, as for any query). */
  readonly freshness: Freshness;
  /** What the subscription field delivers for a change; null skips it. */
  readonly select: (change: PlanChange) => T | null;
}

/** What resolvers use: live updates bound to one operation's token and loaders. */
export interface LiveOperations {
  /** Opens a feed of the plan's changes for this operation's token. */
  open<T>(
    planId: string,
    options: { since?: number; select: (change: PlanChange) => T | null },
  ): Promise<AsyncIterableIterator<T | GraphQLError>>;
  /** Makes this operation's loaders read the plan as the replica holds it now (before an event resolves). */
  prime(planId: string): void;
}

export interface LiveHubStats {
  /** (token, plan) pairs with subscribers, each with one poller. */
  channels: number;
  subscribers: number;
  changeLogs: number;
}

export interface LiveHub {
  readonly scheduler: Scheduler;
  /** The replica store's `onApplied` observer. */
  applied(change: AppliedChange): void;
  open<T>(request: OpenRequest<T>): Promise<PlanFeed<T>>;
  /** `LiveOperations` for one GraphQL operation. */
  forOperation(deps: {
    credentials: Credentials | null;
    freshness: Freshness;
    loaders: Loaders;
  }): LiveOperations;
  stats(): LiveHubStats;
  /** Ends every subscription (they complete) and stops every poller. */
  close(): Promise<void>;
}

/** What the hub's parts share: the channels' state plus what opening and resuming need. */
interface HubState extends LiveState, ReplaySources {
  readonly replicas: LiveHubOptions['replicas'];
  readonly maxSubscriptionsPerToken: number;
  /** Set by `close`: opens are refused from then on. */
  closed: boolean;
}

export function createLiveHub(options: LiveHubOptions): LiveHub {
  const live = hubStateOf(options);
  const hub: LiveHub = {
    scheduler: live.poll.scheduler,
    applied: (change) => publishApplied(live, change),
    open: <T>(request: OpenRequest<T>) => openFeed(live, request),
    forOperation: (deps) => operationsFor(hub, live.replicas, deps),
    stats: () => statsOf(live),
    async close() {
      live.closed = true;
      closeChannels(live);
    },
  };
  return hub;
}

// Private: the options, checked and with their defaults, around an empty state.
function hubStateOf(options: LiveHubOptions): HubState {
  const {
    replicas,
    fetchDelta,
    budget,
    scheduler,
    bus = createLiveBus(),
    leases = createLocalLeases(),
    maxSubscriptionsPerToken = DEFAULT_SUBSCRIPTIONS_PER_TOKEN,
    changeLog = {},
    changeLogBudget = DEFAULT_CHANGE_LOG_BUDGET,
    onError = () => {},
  } = options;
  if (!Number.isSafeInteger(maxSubscriptionsPerToken) || maxSubscriptionsPerToken < 1) {
    throw new RangeError(
      `createLiveHub: maxSubscriptionsPerToken must be a positive integer, got ${maxSubscriptionsPerToken}`,
    );
  }
  return {
    channels: new Map(),
    tokens: new Map(),
    logs: createLogCache(changeLogBudget),
    bus,
    poll: { replicas, budget, leases, scheduler },
    changeLog,
    onError,
    replicas,
    fetchDelta,
    maxSubscriptionsPerToken,
    closed: false,
  };
}

// Private: a change the replica stored goes into the (token, plan)'s log, and out on its topic
// when the plan has subscribers here.
function publishApplied(live: HubState, applied: AppliedChange): void {
  const { tokenKey, planId, source, previous, snapshot } = applied;
  const key = channelKey(tokenKey, planId);
  const channel = live.channels.get(key);
  const log = channel?.log ?? live.logs.get(key);
  if (log === undefined) return;
  if (source.kind === 'full') {
    restartAfterReload(live, key, log, channel, snapshot);
    return;
  }
  const keys = keysOfSource(source, previous, snapshot.currentMonth());
  if (source.kind === 'delta') {
    log.record(source.fromKnowledge, source.data.server_knowledge, keys);
    live.logs.set(key, log);
  }
  if (!channel) return;
  const change = resolveKeys(keys, snapshot, {
    planId,
    origin: source.kind === 'write' ? 'WRITE' : 'SYNC',
    serverKnowledge: snapshot.serverKnowledge,
    previousServerKnowledge: previous?.serverKnowledge ?? null,
  });
  if (!isEmptyChange(change)) live.bus.publish('plan', key, { type: 'change', change });
}

// Private: the replica was reloaded in full. The log starts over from the reload, and live
// subscribers get what it changed since the knowledge the log had reached.
function restartAfterReload(
  live: HubState,
  key: string,
  log: ChangeLog,
  channel: Channel | undefined,
  snapshot: PlanSnapshot,
): void {
  const since = log.knowledge;
  log.restart(snapshot.serverKnowledge);
  live.logs.set(key, log);
  if (channel && since < snapshot.serverKnowledge) void fillGap(live, channel, since);
}

// Private: publishes what changed after `since` as a sync, unless the channel closed meanwhile.
async function fillGap(live: HubState, channel: Channel, since: number): Promise<void> {
  try {
    const change = await replay(live, channel, channel.token, since);
    if (change && live.channels.get(channel.key) === channel) {
      live.bus.publish('plan', channel.key, {
        type: 'change',
        change: { ...change, origin: 'SYNC' },
      });
    }
  } catch (error) {
    live.onError(error);
  }
}

// Private: a subscriber admitted, joined to its channel, and handed what it missed first.
async function openFeed<T>(live: HubState, request: OpenRequest<T>): Promise<PlanFeed<T>> {
  const { credentials, planId, since, freshness, select } = request;
  if (live.closed) throw shuttingDown();
  if (!credentials) throw unauthenticated();
  const { token, tokenKey } = credentials;
  admitSubscriber(live, tokenKey, live.maxSubscriptionsPerToken);
  let feed: PlanFeed<T> | undefined;
  try {
    const read = await live.replicas
      .read({ token, tokenKey, planId, freshness })
      .catch(rethrowAsGraphQL);
    if (live.closed) throw shuttingDown();
    const first = read.snapshot;
    const channel = joinChannel(live, tokenKey, first.planId, token, first.serverKnowledge);
    const opened: PlanFeed<T> = new PlanFeed(select, () => leaveChannel(live, channel, opened));
    feed = opened;
    channel.feeds.add(opened);
    const missed = await replay(live, channel, token, since ?? first.serverKnowledge);
    if (missed) opened.prepend(missed);
    return opened;
  } catch (error) {
    if (feed) await feed.return();
    else releaseSubscriber(live, tokenKey);
    throw error;
  }
}

// Private: `open` and `prime` bound to one operation's token, freshness and loaders.
function operationsFor(
  hub: LiveHub,
  replicas: Pick<ReplicaStore, 'peek'>,
  { credentials, freshness, loaders }: Parameters<LiveHub['forOperation']>[0],
): LiveOperations {
  return {
    open: (planId, { since, select }) =>
      hub.open({
        credentials,
        planId,
        freshness,
        select,
        ...(since === undefined ? {} : { since }),
      }),
    prime(planId) {
      if (!credentials) return;
      const held = replicas.peek(credentials.tokenKey, planId);
      if (!held) return;
      loaders.forget(planId);
      loaders.prime(planId, held.snapshot);
    },
  };
}

function statsOf(live: LiveState): LiveHubStats {
  let subscribers = 0;
  for (const channel of live.channels.values()) subscribers += channel.feeds.size;
  return { channels: live.channels.size, subscribers, changeLogs: live.logs.size };
}

function shuttingDown(): GraphQLError {
  return new GraphQLError('The gateway is shutting down; subscribe again shortly.', {
    extensions: { code: 'SHUTTING_DOWN' },
  });
}
