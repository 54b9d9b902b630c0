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
import { LRUCache } from 'lru-cache';
import { type Credentials, unauthenticated } from '../contracts/credentials.js';
import { rethrowAsGraphQL, toGraphQLError } from '../contracts/errors.js';
import type { Loaders } from '../loaders/loaders.js';
import type { AppliedChange } from '../replica/store.js';
import type { Freshness, ReplicaStore } from '../replica/types.js';
import { isUpstreamError } from '../upstream/errors.js';
import type { ResponseData } from '../upstream/types.js';
import type { PollBudget } from './budget.js';
import { channelKey, createLiveBus, type LiveBus, type LiveMessage } from './bus.js';
import { ChangeLog, type ChangeLogLimits } from './change-log.js';
import { isEmptyChange, keysOfSource, type PlanChange, resolveKeys } from './changes.js';
import { deltaView } from './delta-view.js';
import { PlanFeed } from './feed.js';
import { createLocalLeases, type PollLeases } from './leases.js';
import { type Poller, startPoller } from './poller.js';
import type { Scheduler } from './scheduler.js';

/** @default 100 subscriptions per token on one instance */
export const DEFAULT_SUBSCRIPTIONS_PER_TOKEN = 100;
/** @default 1,000,000 entity ids across the change logs of all (token, plan) pairs */
export const DEFAULT_CHANGE_LOG_BUDGET = 1_000_000;

export interface FetchDeltaRequest {
  readonly token: string;
  readonly planId: string;
  readonly since: number;
}

export interface LiveHubOptions {
  replicas: Pick<ReplicaStore, 'read' | 'peek'>;
  /** `GET /plans/{planId}?last_knowledge_of_server=since`: replays the change log cannot serve. */
  fetchDelta: (request: FetchDeltaRequest) => Promise<ResponseData['getPlanById']>;
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

interface Channel {
  readonly key: string;
  readonly tokenKey: string;
  readonly planId: string;
  /** The newest subscriber's token (all share the token key). */
  token: string;
  readonly feeds: Set<PlanFeed<unknown>>;
  readonly log: ChangeLog;
  readonly poller: Poller;
  readonly stopListening: () => void;
}

interface TokenState {
  /** Open feeds and opens in progress. */
  subscribers: number;
  readonly channels: Set<Channel>;
  readonly stopListening: () => void;
}

export function createLiveHub(options: LiveHubOptions): LiveHub {
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

  const channels = new Map<string, Channel>();
  const tokens = new Map<string, TokenState>();
  /** Logs outlive their channel, so a client that reconnects resumes without an upstream call. */
  const logs = new LRUCache<string, ChangeLog>({
    maxSize: changeLogBudget,
    sizeCalculation: (log) => log.size + 1,
  });
  let closed = false;

  function keep(key: string, log: ChangeLog): void {
    logs.set(key, log);
  }

  /** Private: a bus topic consumed for as long as the returned function is not called. */
  function listen(
    topic: 'plan' | 'token',
    id: string,
    onMessage: (message: LiveMessage) => void,
  ): () => void {
    const iterator = bus.subscribe(topic, id);
    void (async () => {
      for await (const message of iterator) onMessage(message);
    })().catch(onError);
    return () => void iterator.return?.();
  }

  function tokenState(tokenKey: string): TokenState {
    let state = tokens.get(tokenKey);
    if (!state) {
      state = {
        subscribers: 0,
        channels: new Set(),
        stopListening: listen('token', tokenKey, (message) => {
          if (message.type !== 'end') return;
          for (const channel of [...(tokens.get(tokenKey)?.channels ?? [])]) {
            endChannel(channel, message);
          }
        }),
      };
      tokens.set(tokenKey, state);
    }
    return state;
  }

  function releaseSubscriber(tokenKey: string): void {
    const state = tokens.get(tokenKey);
    if (!state) return;
    state.subscribers -= 1;
    if (state.subscribers <= 0 && state.channels.size === 0) {
      state.stopListening();
      tokens.delete(tokenKey);
    }
  }

  function join(tokenKey: string, planId: string, token: string, knowledge: number): Channel {
    const key = channelKey(tokenKey, planId);
    const existing = channels.get(key);
    if (existing) {
      existing.token = token;
      return existing;
    }
    const state = tokenState(tokenKey);
    let log = logs.get(key);
    // A kept log that did not follow the replica to its knowledge cannot vouch for the gap.
    if (log === undefined) log = new ChangeLog(knowledge, changeLog);
    else if (log.knowledge !== knowledge) log.restart(knowledge);
    keep(key, log);
    const channel: Channel = {
      key,
      tokenKey,
      planId,
      token,
      feeds: new Set(),
      log,
      poller: startPoller({
        tokenKey,
        planId,
        token: () => channel.token,
        replicas,
        budget,
        leases,
        leaseKey: key,
        scheduler,
        intervalMs: () => budget.intervalMs(state.channels.size),
        onRefused: (error) => refused(channel, error),
        onError,
      }),
      stopListening: listen('plan', key, (message) => deliver(key, message)),
    };
    channels.set(key, channel);
    state.channels.add(channel);
    return channel;
  }

  function deliver(key: string, message: LiveMessage): void {
    const channel = channels.get(key);
    if (!channel) return;
    if (message.type === 'end') {
      endChannel(channel, message);
      return;
    }
    for (const feed of channel.feeds) feed.push(message.change);
  }

  function endChannel(channel: Channel, message: Extract<LiveMessage, { type: 'end' }>): void {
    const error = new GraphQLError(message.error.message, {
      extensions: { ...message.error.extensions },
    });
    for (const feed of [...channel.feeds]) {
      feed.end(error);
      leave(channel, feed);
    }
  }

  function leave(channel: Channel, feed: PlanFeed<unknown>): void {
    if (!channel.feeds.delete(feed)) return;
    releaseSubscriber(channel.tokenKey);
    if (channel.feeds.size === 0) closeChannel(channel);
  }

  function closeChannel(channel: Channel): void {
    if (channels.get(channel.key) !== channel) return;
    channels.delete(channel.key);
    channel.poller.stop();
    channel.stopListening();
    keep(channel.key, channel.log);
    const state = tokens.get(channel.tokenKey);
    state?.channels.delete(channel);
    if (state && state.subscribers <= 0 && state.channels.size === 0) {
      state.stopListening();
      tokens.delete(channel.tokenKey);
    }
  }

  /**
   * Private: the poller met a refusal. This instance ends the subscriptions it concerns at once;
   * the bus tells the others (its echo finds nothing left here).
   */
  function refused(channel: Channel, error: unknown): void {
    const graphQLError = isUpstreamError(error)
      ? toGraphQLError(error)
      : new GraphQLError('The plan can no longer be read.');
    const message: Extract<LiveMessage, { type: 'end' }> = {
      type: 'end',
      error: { message: graphQLError.message, extensions: { ...graphQLError.extensions } },
    };
    if (isUpstreamError(error) && error.status === 401) {
      for (const each of [...(tokens.get(channel.tokenKey)?.channels ?? [])]) {
        endChannel(each, message);
      }
      bus.publish('token', channel.tokenKey, message);
    } else {
      endChannel(channel, message);
      bus.publish('plan', channel.key, message);
    }
  }

  /** Private: what changed after `since`, for a subscriber of `channel`; undefined when nothing. */
  async function replay(
    channel: Channel,
    token: string,
    since: number,
  ): Promise<PlanChange | undefined> {
    const current = replicas.peek(channel.tokenKey, channel.planId)?.snapshot;
    if (current === undefined || since >= current.serverKnowledge) return undefined;
    const meta = {
      planId: channel.planId,
      origin: 'REPLAY' as const,
      previousServerKnowledge: since,
    };
    const logged = channel.log.since(since);
    if (logged !== undefined) {
      const change = resolveKeys(logged, current, {
        ...meta,
        serverKnowledge: current.serverKnowledge,
      });
      return isEmptyChange(change) ? undefined : change;
    }
    const data = await fetchDelta({ token, planId: channel.planId, since }).catch(rethrowAsGraphQL);
    const keys = keysOfSource(
      { kind: 'delta', data, fromKnowledge: since },
      current,
      current.currentMonth(),
    );
    const change = resolveKeys(keys, deltaView(data.plan, current), {
      ...meta,
      serverKnowledge: data.server_knowledge,
    });
    return isEmptyChange(change) ? undefined : change;
  }

  /** Private: the replica was reloaded in full under live subscribers; find out what changed. */
  async function fillGap(channel: Channel, since: number): Promise<void> {
    try {
      const change = await replay(channel, channel.token, since);
      if (change && channels.get(channel.key) === channel) {
        bus.publish('plan', channel.key, {
          type: 'change',
          change: { ...change, origin: 'SYNC' },
        });
      }
    } catch (error) {
      onError(error);
    }
  }

  const hub: LiveHub = {
    scheduler,

    applied({ tokenKey, planId, source, previous, snapshot }) {
      const key = channelKey(tokenKey, planId);
      const channel = channels.get(key);
      const log = channel?.log ?? logs.get(key);
      if (log === undefined) return;
      if (source.kind === 'full') {
        const since = log.knowledge;
        log.restart(snapshot.serverKnowledge);
        keep(key, log);
        if (channel && since < snapshot.serverKnowledge) void fillGap(channel, since);
        return;
      }
      const keys = keysOfSource(source, previous, snapshot.currentMonth());
      if (source.kind === 'delta') {
        log.record(source.fromKnowledge, source.data.server_knowledge, keys);
        keep(key, log);
      }
      if (!channel) return;
      const change = resolveKeys(keys, snapshot, {
        planId,
        origin: source.kind === 'write' ? 'WRITE' : 'SYNC',
        serverKnowledge: snapshot.serverKnowledge,
        previousServerKnowledge: previous?.serverKnowledge ?? null,
      });
      if (!isEmptyChange(change)) bus.publish('plan', key, { type: 'change', change });
    },

    async open<T>({ credentials, planId, since, freshness, select }: OpenRequest<T>) {
      if (closed) throw shuttingDown();
      if (!credentials) throw unauthenticated();
      const { token, tokenKey } = credentials;
      const state = tokenState(tokenKey);
      if (state.subscribers >= maxSubscriptionsPerToken) {
        throw new GraphQLError(
          `Too many subscriptions for this token: at most ${maxSubscriptionsPerToken} at once on one gateway instance.`,
          { extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', limit: maxSubscriptionsPerToken } },
        );
      }
      state.subscribers += 1;
      let feed: PlanFeed<T> | undefined;
      try {
        const read = await replicas
          .read({ token, tokenKey, planId, freshness })
          .catch(rethrowAsGraphQL);
        if (closed) throw shuttingDown();
        const first = read.snapshot;
        const channel = join(tokenKey, first.planId, token, first.serverKnowledge);
        const opened: PlanFeed<T> = new PlanFeed(select, () => leave(channel, opened));
        feed = opened;
        channel.feeds.add(opened);
        const missed = await replay(channel, token, since ?? first.serverKnowledge);
        if (missed) opened.prepend(missed);
        return opened;
      } catch (error) {
        if (feed) await feed.return();
        else releaseSubscriber(tokenKey);
        throw error;
      }
    },

    forOperation({ credentials, freshness, loaders }) {
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
    },

    stats() {
      let subscribers = 0;
      for (const channel of channels.values()) subscribers += channel.feeds.size;
      return { channels: channels.size, subscribers, changeLogs: logs.size };
    },

    async close() {
      closed = true;
      for (const channel of [...channels.values()]) {
        for (const feed of [...channel.feeds]) {
          feed.end();
          leave(channel, feed);
        }
        closeChannel(channel);
      }
    },
  };
  return hub;
}

function shuttingDown(): GraphQLError {
  return new GraphQLError('The gateway is shutting down; subscribe again shortly.', {
    extensions: { code: 'SHUTTING_DOWN' },
  });
}
