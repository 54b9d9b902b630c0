/**
 * The channels and tokens with subscribers on one instance (see README.md here, "Channels"):
 *
 * - admission: a token holds at most so many subscriptions at once (`admitSubscriber`);
 * - the channel registry: a subscriber joins the channel of its (token key, plan), opened on first
 *   use with its change log, its poller and its bus topic (`joinChannel`), closed by the last one
 *   to leave (`leaveChannel`, `closeChannel`);
 * - fan-out: what the bus carries on a channel's topic reaches its feeds (`deliver`);
 * - endings: a refusal (`endOnRefusal`) or a message from another instance (`endChannel`) ends
 *   the subscriptions it concerns, and shutting down ends them all (`closeChannels`).
 *
 * Every function takes the state it works on (`LiveState`); `hub.ts` only wires them together.
 */
import type { GraphQLError } from 'graphql';
import { LRUCache } from 'lru-cache';
import { gatewayError, revivedError, serializedError } from '../errors/codes.js';
import { toGraphQLError } from '../errors/to-graphql.js';
import { isUpstreamError } from '../errors/upstream-error.js';
import type { PlanChange } from '../replica/changes.js';
import { ChangeLog, type ChangeLogLimits, type LogEntry } from './change-log.js';
import { channelKey, type LiveBus, type LiveMessage } from './live-bus.js';
import { type Poller, type PollerOptions, startPoller } from './poller.js';

/** What a channel needs of a subscriber's feed (`PlanFeed`). */
export interface ChannelFeed {
  /** A change published with sequence number `seq`, `bytes` of rows. */
  push(change: PlanChange, seq: number, bytes: number): void;
  /** Ends the stream (with an error as its last value). */
  end(error?: GraphQLError): void;
}

export interface Channel {
  readonly key: string;
  readonly tokenKey: string;
  readonly planId: string;
  /** The newest subscriber's token (all share the token key). */
  token: string;
  readonly feeds: Set<ChannelFeed>;
  readonly log: ChangeLog;
  readonly poller: Poller;
  readonly stopListening: () => void;
  /**
   * The last backfill when the log could not keep it (more deletions than its bounds): a
   * whole-plan entry reaching back to `from`, for the replays waiting for it.
   */
  backfilled?: { readonly from: number; readonly entry: LogEntry };
}

export interface TokenState {
  /** Open feeds and opens in progress. */
  subscribers: number;
  readonly channels: Set<Channel>;
  readonly stopListening: () => void;
}

/** What a channel's poller is started with, besides its (token, plan). */
export type PollParts = Pick<PollerOptions, 'replicas' | 'budget' | 'leases' | 'scheduler'>;

export interface LiveState {
  /**
   * One delta from `from` for the channel's replays, fetched within the poll budget and stored
   * (see `backfill` in hub.ts); the channel's poller decides when.
   */
  readonly backfill: (channel: Channel, from: number) => Promise<void>;
  /** Channels by `channelKey(tokenKey, planId)`. */
  readonly channels: Map<string, Channel>;
  /** Tokens by token key, while they have subscribers or channels here. */
  readonly tokens: Map<string, TokenState>;
  /** Logs outlive their channel, so a client that reconnects resumes without an upstream call. */
  readonly logs: LRUCache<string, ChangeLog>;
  readonly bus: LiveBus;
  readonly poll: PollParts;
  readonly changeLog: ChangeLogLimits;
  readonly onError: (error: unknown) => void;
}

export type EndMessage = Extract<LiveMessage, { type: 'end' }>;

/** What a refusal ends, and with what error. */
export interface Ending {
  /** `token`: every subscription of the token (a 401); `plan`: those of the channel's plan. */
  readonly scope: 'token' | 'plan';
  readonly message: EndMessage;
}

/** Change logs kept across channels, `budget` ids in all; least recently used logs go first. */
export function createLogCache(budget: number): LRUCache<string, ChangeLog> {
  return new LRUCache<string, ChangeLog>({
    maxSize: budget,
    sizeCalculation: (log) => log.size + 1,
  });
}

/** Counts one more subscriber of the token, or refuses it past `limit`. */
export function admitSubscriber(live: LiveState, tokenKey: string, limit: number): void {
  const state = tokenState(live, tokenKey);
  if (state.subscribers >= limit) throw tooManySubscriptions(limit);
  state.subscribers += 1;
}

/** Refuses a subscription the token has no room for, without counting it (checked early). */
export function refuseWhenFull(live: LiveState, tokenKey: string, limit: number): void {
  if ((live.tokens.get(tokenKey)?.subscribers ?? 0) >= limit) throw tooManySubscriptions(limit);
}

/** A subscriber of the token is gone (its feed ended, or its open failed before it had one). */
export function releaseSubscriber(live: LiveState, tokenKey: string): void {
  const state = live.tokens.get(tokenKey);
  if (!state) return;
  state.subscribers -= 1;
  forgetTokenIfIdle(live, tokenKey, state);
}

/** The channel of (token key, plan), opened when it is the first subscriber here. */
export function joinChannel(
  live: LiveState,
  tokenKey: string,
  planId: string,
  token: string,
  knowledge: number,
): Channel {
  const key = channelKey(tokenKey, planId);
  const existing = live.channels.get(key);
  if (existing) {
    existing.token = token;
    return existing;
  }
  const state = tokenState(live, tokenKey);
  const channel: Channel = {
    key,
    tokenKey,
    planId,
    token,
    feeds: new Set(),
    log: logFor(live, key, knowledge),
    poller: startChannelPoller(live, state, { key, tokenKey, planId }, () => channel),
    stopListening: listen(live, 'plan', key, (message) => deliver(live, key, message)),
  };
  live.channels.set(key, channel);
  state.channels.add(channel);
  return channel;
}

/** The feed left the channel; the last one to leave closes it. */
export function leaveChannel(live: LiveState, channel: Channel, feed: ChannelFeed): void {
  if (!channel.feeds.delete(feed)) return;
  releaseSubscriber(live, channel.tokenKey);
  if (channel.feeds.size === 0) closeChannel(live, channel);
}

/** Stops the channel's poller and topic; its log stays kept for subscribers that come back. */
export function closeChannel(live: LiveState, channel: Channel): void {
  if (live.channels.get(channel.key) !== channel) return;
  live.channels.delete(channel.key);
  channel.poller.stop();
  channel.stopListening();
  live.logs.set(channel.key, channel.log);
  const state = live.tokens.get(channel.tokenKey);
  if (state) {
    state.channels.delete(channel);
    forgetTokenIfIdle(live, channel.tokenKey, state);
  }
}

/** A message on the topic of channel `key`: a change for every feed, or the end of them all. */
export function deliver(live: LiveState, key: string, message: LiveMessage): void {
  const channel = live.channels.get(key);
  if (!channel) return;
  if (message.type === 'end') {
    endChannel(live, channel, message);
    return;
  }
  for (const feed of channel.feeds) feed.push(message.change, message.seq, message.bytes);
}

/** Ends every feed of the channel with the message's error. */
export function endChannel(live: LiveState, channel: Channel, message: EndMessage): void {
  const error = revivedError(message.error);
  for (const feed of [...channel.feeds]) {
    feed.end(error);
    leaveChannel(live, channel, feed);
  }
}

/**
 * The channel's poller met a refusal. This instance ends the subscriptions it concerns at once;
 * the bus tells the others (its echo finds nothing left here).
 */
export function endOnRefusal(live: LiveState, channel: Channel, error: unknown): void {
  const { scope, message } = endingOf(error);
  if (scope === 'token') {
    endToken(live, channel.tokenKey, message);
    live.bus.publish('token', channel.tokenKey, message);
  } else {
    endChannel(live, channel, message);
    live.bus.publish('plan', channel.key, message);
  }
}

/** What a poller's refusal ends: a 401 the token's subscriptions, anything else the plan's. */
export function endingOf(error: unknown): Ending {
  // The poller stops only on an upstream refusal; anything else is a fault of ours.
  const graphQLError = isUpstreamError(error)
    ? toGraphQLError(error)
    : gatewayError('The plan can no longer be read.', 'INTERNAL_SERVER_ERROR');
  return {
    scope: isUpstreamError(error) && error.status === 401 ? 'token' : 'plan',
    message: { type: 'end', error: serializedError(graphQLError) },
  };
}

/** Shutting down: every feed completes and every channel closes. */
export function closeChannels(live: LiveState): void {
  for (const channel of [...live.channels.values()]) {
    for (const feed of [...channel.feeds]) {
      feed.end();
      leaveChannel(live, channel, feed);
    }
    closeChannel(live, channel);
  }
}

// Private: the token's state, created (listening on its topic) with its first subscriber.
function tokenState(live: LiveState, tokenKey: string): TokenState {
  let state = live.tokens.get(tokenKey);
  if (!state) {
    state = {
      subscribers: 0,
      channels: new Set(),
      stopListening: listen(live, 'token', tokenKey, (message) => {
        if (message.type === 'end') endToken(live, tokenKey, message);
      }),
    };
    live.tokens.set(tokenKey, state);
  }
  return state;
}

// Private: a token with neither subscribers nor channels here stops listening to its topic.
function forgetTokenIfIdle(live: LiveState, tokenKey: string, state: TokenState): void {
  if (state.subscribers <= 0 && state.channels.size === 0) {
    state.stopListening();
    live.tokens.delete(tokenKey);
  }
}

// Private: ends every channel of the token here.
function endToken(live: LiveState, tokenKey: string, message: EndMessage): void {
  for (const channel of [...(live.tokens.get(tokenKey)?.channels ?? [])]) {
    endChannel(live, channel, message);
  }
}

// Private: a new channel's log; a kept log that did not follow the replica to its knowledge
// cannot vouch for the gap, so it restarts there.
function logFor(live: LiveState, key: string, knowledge: number): ChangeLog {
  let log = live.logs.get(key);
  if (log === undefined) log = new ChangeLog(knowledge, live.changeLog);
  else if (log.knowledge !== knowledge) log.restart(knowledge);
  live.logs.set(key, log);
  return log;
}

// Private: the poll hand-off. The poller of a new channel polls with its newest subscriber's
// token, at the interval the budget gives for as many plans as the token has channels here.
function startChannelPoller(
  live: LiveState,
  state: TokenState,
  of: { key: string; tokenKey: string; planId: string },
  channel: () => Channel,
): Poller {
  const { replicas, budget, leases, scheduler } = live.poll;
  return startPoller({
    tokenKey: of.tokenKey,
    planId: of.planId,
    token: () => channel().token,
    replicas,
    budget,
    leases,
    leaseKey: of.key,
    scheduler,
    intervalMs: () => budget.intervalMs(state.channels.size),
    backfill: (from) => live.backfill(channel(), from),
    onRefused: (error) => endOnRefusal(live, channel(), error),
    onError: live.onError,
  });
}

// Private: a bus topic consumed for as long as the returned function is not called.
function listen(
  live: LiveState,
  topic: 'plan' | 'token',
  id: string,
  onMessage: (message: LiveMessage) => void,
): () => void {
  const iterator = live.bus.subscribe(topic, id);
  void (async () => {
    for await (const message of iterator) onMessage(message);
  })().catch(live.onError);
  return () => void iterator.return?.();
}

function tooManySubscriptions(limit: number): GraphQLError {
  return gatewayError(
    `Too many subscriptions for this token: at most ${limit} at once on one gateway instance.`,
    'TOO_MANY_SUBSCRIPTIONS',
    { extensions: { limit } },
  );
}
