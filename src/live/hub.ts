/**
 * `createLiveHub(options)`: the live updates of one gateway instance. See README.md here.
 *
 * - Channels: one per (token key, plan) with at least one subscriber on this instance. A channel
 *   owns the poller of that (token, plan), its change log, and one bus subscription that fans
 *   out to its subscribers' feeds.
 * - Publishing: the replica store calls `applied` for every change it stores, whoever caused it
 *   (a poll, a query's sync, a write through the gateway). The change is resolved into rows
 *   against the new replica version and published on the channel's topic.
 * - Feeds: `open` checks and reads at subscribe time; the feed takes its slot and joins its
 *   channel on its first `next()`, so a subscription that is never streamed holds nothing.
 * - Resuming: a subscriber that gives `since` first receives what changed after it, in bounded
 *   events (replay.ts, parts.ts): from the change log when it reaches back that far, the whole
 *   plan for `since: 0` (neither costs an upstream call), else after a backfill: one delta from
 *   `since`, a turn of the channel's poller within the polls' budget, which extends the log.
 * - Ending: a 401 ends every subscription of the token (`UNAUTHENTICATED`), a 403 or 404 those
 *   of the plan, through the bus so that every instance ends its own.
 */

import { PLAN_ALIASES } from '@plans-gateway/rest-contract';
import type { GraphQLError } from 'graphql';
import { gatewayError } from '../errors/codes.js';
import { rethrowAsGraphQL, toGraphQLError } from '../errors/to-graphql.js';
import { isUpstreamError } from '../errors/upstream-error.js';
import type { Loaders } from '../loaders/loaders.js';
import { type Credentials, requireCredentials } from '../operation/credentials.js';
import {
  changedKeys,
  deletedKeysOf,
  isEmptyChange,
  keysOfDelta,
  keysOfSnapshots,
  keysOfSource,
  type PlanChange,
  resolveKeys,
} from '../replica/changes.js';
import type { AppliedChange } from '../replica/store.js';
import type { Freshness, PlanSnapshot, ReplicaStore, SavedEntities } from '../replica/types.js';
import type { Scheduler } from '../time/scheduler.js';
import type { PollBudget } from './budget.js';
import { ChangeLog, type ChangeLogLimits, type LogEntry } from './change-log.js';
import {
  admitSubscriber,
  type Channel,
  closeChannels,
  createLogCache,
  joinChannel,
  type LiveState,
  leaveChannel,
  refuseWhenFull,
} from './channels.js';
import { type FeedLimits, PlanFeed } from './feed.js';
import { channelKey, createLiveBus, type LiveBus } from './live-bus.js';
import {
  ChangeParts,
  DEFAULT_EVENT_LIMITS,
  type EventLimits,
  MAX_EVENT_ROWS,
  RowSizes,
} from './parts.js';
import { createLocalLeases, type PollLeases } from './poll-leases.js';
import { type ReplayPlan, replayItems, replayParts, replayPlan } from './replay.js';
import { syncPage } from './sync.js';
import { type CursorSeal, createCursorSeal, InvalidCursorError } from './sync-cursor.js';
import { type ConflictCheck, changedRows, type RowKey, writtenRows } from './write-conflicts.js';

/** @default 100 subscriptions per token on one instance */
export const DEFAULT_SUBSCRIPTIONS_PER_TOKEN = 100;
/** @default 1,000,000 entity ids across the change logs of all (token, plan) pairs */
export const DEFAULT_CHANGE_LOG_BUDGET = 1_000_000;
/** @default 2 MiB of changes waiting for one subscriber that is not reading */
export const DEFAULT_PENDING_BYTES = 2 * 1024 * 1024;

export interface LiveHubOptions {
  /** `backfill`: the delta of a replay older than the log, through the store's one fetch path. */
  replicas: Pick<ReplicaStore, 'read' | 'peek' | 'backfill' | 'exactKnowledge'>;
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
  /** Rows and bytes of row data per event. @default 500 rows, 256 KiB */
  eventLimits?: EventLimits;
  /** Bytes of changes that may wait for a subscriber that is not reading. @default 2 MiB */
  pendingBytesPerSubscriber?: number;
  /** Unexpected poll failures (the poller backs off and carries on). @default ignored */
  onError?: (error: unknown) => void;
  /** Seals the `changes` query's cursors. @default sealed under a key of this process */
  cursorSeal?: CursorSeal;
}

export interface OpenRequest<T> {
  readonly credentials: Credentials | null;
  /** A plan id or alias; the channel is keyed by the concrete id it resolves to. */
  readonly planId: string;
  /** Replay what changed after this knowledge first. */
  readonly since?: number;
  /** Freshness of the first read (the request's, as for any query). */
  readonly freshness: Freshness;
  /**
   * What the subscription field delivers for an event; null skips it. `required`: the last event
   * of a change split in several, after earlier ones were delivered (deliver it, even empty).
   */
  readonly select: (change: PlanChange, required: boolean) => T | null;
}

/** What resolvers use: live updates bound to one operation's token and loaders. */
export interface LiveOperations {
  /** Opens a feed of the plan's changes for this operation's token. */
  open<T>(
    planId: string,
    options: { since?: number; select: (change: PlanChange, required: boolean) => T | null },
  ): Promise<AsyncIterableIterator<T | GraphQLError>>;
  /** Makes this operation's loaders read the plan as the replica holds it now (before an event resolves). */
  prime(planId: string): void;
  /**
   * The `changes` query (sync.ts): the page of the plan's changes after the sealed cursor
   * `since` (none: the current cursor, no rows), read through this operation's loaders.
   */
  changes(planId: string, since: string | undefined): Promise<SyncResult>;
  /**
   * The write guard of `ifUnchangedSince` (write-conflicts.ts): which of the rows `rows` names
   * in the plan, as this operation reads it, changed after the sealed cursor `since`; with the
   * plan as read and the current cursor. Throws `InvalidCursorError` for a cursor that does not open.
   */
  unchangedSince(
    planId: string,
    since: string,
    rows: (at: PlanSnapshot) => readonly RowKey[],
  ): Promise<ConflictCheck>;
  /**
   * A mutation payload's `writeCursor`: sealed like `changes` cursors, at the knowledge the write's
   * answer gave, for the rows it carried (write-conflicts.ts `writtenRows`); null when the answer
   * gave no knowledge, or the plan is known only by an alias.
   */
  writeCursor(planId: string, saved: SavedEntities | undefined): string | null;
}

/** What `changes` answers: a page (and the cursor after it), or "reload" (and the cursor to start from). */
export type SyncResult =
  | {
      readonly kind: 'page';
      readonly planId: string;
      readonly change: PlanChange;
      readonly cursor: string;
      readonly hasMore: boolean;
    }
  | { readonly kind: 'reload'; readonly planId: string; readonly cursor: string };

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
  /**
   * A feed of the plan's changes. It holds nothing (no slot, no channel) until its first
   * `next()`: a subscription that is never streamed leaves nothing behind.
   */
  open<T>(request: OpenRequest<T>): Promise<PlanFeed<T>>;
  /** `LiveOperations` for one GraphQL operation. */
  forOperation(deps: {
    credentials: Credentials | null;
    freshness: Freshness;
    loaders: Loaders;
    /** Replica reads charged to the operation (`extensions.upstream`). @default the hub's own */
    replicas?: Pick<ReplicaStore, 'read'>;
  }): LiveOperations;
  stats(): LiveHubStats;
  /**
   * The key's callers now use `token` (a sign-in grant's refreshed upstream token under the same
   * key): its pollers poll with it from their next turn, and their subscriptions go on.
   */
  renewToken(tokenKey: string, token: string): void;
  /** Ends every subscription (they complete) and stops every poller. */
  close(): Promise<void>;
}

/** What the hub's parts share: the channels' state plus what opening and resuming need. */
interface HubState extends LiveState {
  readonly replicas: Pick<ReplicaStore, 'read' | 'peek' | 'backfill' | 'exactKnowledge'>;
  readonly maxSubscriptionsPerToken: number;
  readonly limits: FeedLimits;
  /** Row sizes, measured once per row for every subscriber. */
  readonly sizes: RowSizes;
  /** Publish sequence: the number of the last change put on the bus. */
  seq: number;
  /** Set by `close`: opens are refused from then on. */
  closed: boolean;
  readonly cursorSeal: CursorSeal;
}

export function createLiveHub(options: LiveHubOptions): LiveHub {
  const live = hubStateOf(options);
  const hub: LiveHub = {
    scheduler: live.poll.scheduler,
    applied: (change) => publishApplied(live, change),
    open: <T>(request: OpenRequest<T>) => openFeed(live, request),
    forOperation: (deps) => operationsFor(hub, live, deps),
    stats: () => statsOf(live),
    renewToken(tokenKey, token) {
      for (const channel of live.channels.values())
        if (channel.tokenKey === tokenKey) channel.token = token;
    },
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
    budget,
    scheduler,
    bus = createLiveBus(),
    leases = createLocalLeases(),
    maxSubscriptionsPerToken = DEFAULT_SUBSCRIPTIONS_PER_TOKEN,
    changeLog = {},
    changeLogBudget = DEFAULT_CHANGE_LOG_BUDGET,
    eventLimits = DEFAULT_EVENT_LIMITS,
    pendingBytesPerSubscriber = DEFAULT_PENDING_BYTES,
    onError = () => {},
    cursorSeal = createCursorSeal(),
  } = options;
  const positive = (name: string, value: number) => {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`createLiveHub: ${name} must be a positive integer, got ${value}`);
    }
  };
  positive('maxSubscriptionsPerToken', maxSubscriptionsPerToken);
  positive('eventLimits.rows', eventLimits.rows);
  if (eventLimits.rows > MAX_EVENT_ROWS) {
    throw new RangeError(
      `createLiveHub: eventLimits.rows must be at most ${MAX_EVENT_ROWS} (what subscriptions are priced for), got ${eventLimits.rows}`,
    );
  }
  positive('eventLimits.bytes', eventLimits.bytes);
  positive('pendingBytesPerSubscriber', pendingBytesPerSubscriber);
  const live: HubState = {
    backfill: (channel, from) => backfill(live, channel, from),
    channels: new Map(),
    tokens: new Map(),
    logs: createLogCache(changeLogBudget),
    bus,
    poll: { replicas, budget, leases, scheduler },
    changeLog,
    onError,
    replicas,
    maxSubscriptionsPerToken,
    limits: { event: eventLimits, pendingBytes: pendingBytesPerSubscriber },
    sizes: new RowSizes(),
    seq: 0,
    closed: false,
    cursorSeal,
  };
  return live;
}

// Private: a change the replica stored goes into the (token, plan)'s log, and out on its topic
// when the plan has subscribers here. A delta asked from before what the log has shown repeats
// rows the replica held: a backfill, or the delta confirming writes applied whole (their WRITE
// changes were complete). Only the rows that differ are news: what the delta repaired, and
// what others changed. After a write not applied whole, the delta is all news of it: nothing
// is left out (a note's change moves no other row, and its readers wait for this event).
function publishApplied(live: HubState, applied: AppliedChange): void {
  const { tokenKey, planId, source, previous, snapshot } = applied;
  const key = channelKey(tokenKey, planId);
  const channel = live.channels.get(key);
  const log = channel?.log ?? live.logs.get(key);
  if (log === undefined) return;
  if (source.kind === 'full') {
    restartAfterReload(live, key, log, channel, previous, snapshot);
    return;
  }
  let keys = keysOfSource(source, previous, snapshot.currentMonth());
  let complete = false;
  if (source.kind === 'delta') {
    const from = source.fromKnowledge;
    if (
      previous &&
      from !== undefined &&
      (from < previous.serverKnowledge || (from < log.knowledge && !log.awaitsDelta))
    ) {
      keys = changedKeys(keys, previous, snapshot);
    }
    log.record(from, source.data.server_knowledge, keys);
    live.logs.set(key, log);
  } else if (source.kind === 'write') {
    // A write the replica shows in full, one step on (no delta): `changes` shows it at once.
    // (The exact knowledge reaches a write only when its derived effects were applied.)
    const written = source.saved.serverKnowledge;
    complete =
      written !== undefined &&
      live.replicas.exactKnowledge?.(tokenKey, planId) === written &&
      log.recordWrite(written, keys);
    if (!complete) log.notePendingWrite(written, keys);
    live.logs.set(key, log);
  }
  if (!channel) return;
  publish(
    live,
    channel,
    resolveKeys(keys, snapshot, {
      planId,
      origin: source.kind === 'write' ? 'WRITE' : 'SYNC',
      serverKnowledge: snapshot.serverKnowledge,
      previousServerKnowledge: previous?.serverKnowledge ?? null,
      ...(source.kind === 'write' && source.saved.serverKnowledge !== undefined
        ? { writeServerKnowledge: source.saved.serverKnowledge }
        : {}),
      ...(complete ? { complete: true } : {}),
    }),
  );
}

// Private: a change on the channel's topic, numbered and measured once for all its feeds.
function publish(live: HubState, channel: Channel, change: PlanChange): void {
  if (isEmptyChange(change)) return;
  live.seq += 1;
  live.bus.publish('plan', channel.key, {
    type: 'change',
    change,
    seq: live.seq,
    bytes: live.sizes.ofChange(change),
  });
}

// Private: the replica was reloaded in full. The log starts over from the reload; live
// subscribers get what differs from the replica they knew, or, when none was held (evicted),
// what a backfill from the knowledge the log had reached brings.
function restartAfterReload(
  live: HubState,
  key: string,
  log: ChangeLog,
  channel: Channel | undefined,
  previous: PlanSnapshot | undefined,
  snapshot: PlanSnapshot,
): void {
  const since = log.knowledge;
  log.restart(snapshot.serverKnowledge);
  live.logs.set(key, log);
  if (!channel) return;
  if (previous) {
    const keys = changedKeys(keysOfSnapshots(previous, snapshot), previous, snapshot);
    publish(
      live,
      channel,
      resolveKeys(keys, snapshot, {
        planId: snapshot.planId,
        origin: 'SYNC',
        serverKnowledge: snapshot.serverKnowledge,
        previousServerKnowledge: previous.serverKnowledge,
      }),
    );
  } else if (since < snapshot.serverKnowledge) {
    void fillGap(live, channel, since);
  }
}

// Private: publishes what changed after `since` as a sync, once a backfill brought it, unless
// the channel closed meanwhile.
async function fillGap(live: HubState, channel: Channel, since: number): Promise<void> {
  try {
    await channel.poller.backfill(since);
    const plan = planFor(channel, since);
    const at = live.replicas.peek(channel.tokenKey, channel.planId)?.snapshot;
    if (!plan || !at || live.channels.get(channel.key) !== channel) return;
    const whole = new ChangeParts(
      replayItems(at, plan),
      { planId: at.planId, origin: 'SYNC', from: since, to: at.serverKnowledge, previous: since },
      live.sizes,
    ).next({ rows: Number.POSITIVE_INFINITY, bytes: Number.POSITIVE_INFINITY });
    if (whole) publish(live, channel, whole.change);
  } catch (error) {
    if (live.channels.get(channel.key) === channel) live.onError(error);
  }
}

/**
 * Private: one delta from `from` for the channel's replays, at the poller's call (within the
 * poll budget, charged to it), through the replica store's one fetch path. Its keys become the
 * oldest entry of the log, which then reaches back to `from` (or, too many, a whole-plan entry
 * with the delta's deletions; more deletions than even that are kept on the channel for the
 * replays waiting now), before the store merges it like any delta fetched outside a read: it
 * brings the replica up to date too.
 */
async function backfill(live: HubState, channel: Channel, from: number): Promise<void> {
  await live.replicas.backfill({
    token: channel.token,
    tokenKey: channel.tokenKey,
    planId: channel.planId,
    since: from,
    meter: live.poll.budget.meter(channel.tokenKey),
    beforeMerge: (data, held) => {
      const { log } = channel;
      delete channel.backfilled;
      if (!log.extendBack(from, keysOfDelta(data.plan, held))) {
        const deleted = deletedKeysOf(data.plan);
        if (!log.extendBack(from, deleted, true)) {
          const entry: LogEntry = { to: log.base, keys: deleted, size: 0, everything: true };
          channel.backfilled = { from, entry };
        }
      }
      live.logs.set(channel.key, log);
    },
  });
}

// Private: how the channel replays from `from`: from its log, or its last backfill.
function planFor(channel: Channel, from: number): ReplayPlan | undefined {
  const logged = replayPlan(channel.log, from);
  if (logged) return logged;
  const kept = channel.backfilled;
  if (!kept || kept.from > from || kept.entry.to !== channel.log.base) return undefined;
  return {
    everything: true,
    entries: [kept.entry, ...(channel.log.entriesAfter(kept.entry.to) ?? [])],
  };
}

/** Private: who a feed is for, and the knowledge it resumes from. */
interface FeedTarget {
  readonly token: string;
  readonly tokenKey: string;
  /** The concrete plan id. */
  readonly planId: string;
  /** The knowledge to replay from; none: from the replica's when the feed attaches. */
  readonly since: number | undefined;
  /** The knowledge of the subscribe-time read (should the replica be gone when attaching). */
  readonly read: number;
}

// Private: checks and the first read at subscribe time; the feed takes its slot and channel
// only on its first `next()` (`attach`).
async function openFeed<T>(live: HubState, request: OpenRequest<T>): Promise<PlanFeed<T>> {
  const { credentials, planId, since, freshness, select } = request;
  if (live.closed) throw shuttingDown();
  const { token, tokenKey } = requireCredentials(credentials);
  refuseWhenFull(live, tokenKey, live.maxSubscriptionsPerToken);
  const read = await live.replicas
    .read({ token, tokenKey, planId, freshness })
    .catch(rethrowAsGraphQL);
  if (live.closed) throw shuttingDown();
  const first = read.snapshot;
  const target: FeedTarget = {
    token,
    tokenKey,
    planId: first.planId,
    since,
    read: first.serverKnowledge,
  };
  return new PlanFeed<T>({
    select,
    limits: live.limits,
    sizes: live.sizes,
    attach: (feed) => attach(live, feed, target),
  });
}

// Private: the feed's first `next()`: its slot, its channel, and what it missed (without
// `since`, nothing: it starts at the replica's knowledge, which also covers its first read).
function attach<T>(live: HubState, feed: PlanFeed<T>, target: FeedTarget): void {
  if (live.closed) throw shuttingDown();
  const { token, tokenKey, planId, since } = target;
  admitSubscriber(live, tokenKey, live.maxSubscriptionsPerToken);
  const knowledge = live.replicas.peek(tokenKey, planId)?.snapshot.serverKnowledge ?? target.read;
  const channel = joinChannel(live, tokenKey, planId, token, knowledge);
  channel.feeds.add(feed);
  feed.onClose(() => leaveChannel(live, channel, feed));
  startFeed(live, channel, feed, since ?? knowledge, 0);
}

/** A replay older than the log waits for at most this many backfills before giving up. */
const BACKFILL_ATTEMPTS = 2;

// Private: hands the feed what it missed since `from`, over the replica as it is now, and the
// publish sequence that covers; a backfill first when the log does not reach back that far.
function startFeed<T>(
  live: HubState,
  channel: Channel,
  feed: PlanFeed<T>,
  from: number,
  attempts: number,
): void {
  if (feed.closed) return;
  const at = live.replicas.peek(channel.tokenKey, channel.planId)?.snapshot;
  if (at === undefined || from >= at.serverKnowledge) {
    feed.start(undefined, live.seq, at?.serverKnowledge ?? from);
    return;
  }
  const plan = planFor(channel, from);
  if (plan) {
    feed.start(replayParts(at, from, plan, live.sizes), live.seq, from);
    return;
  }
  if (attempts >= BACKFILL_ATTEMPTS) {
    feed.end(
      gatewayError(
        'What changed since `since` could not be replayed; subscribe again without it and reload.',
        'UPSTREAM_UNAVAILABLE',
      ),
    );
    return;
  }
  channel.poller.backfill(from).then(
    () => startFeed(live, channel, feed, from, attempts + 1),
    (error: unknown) => feed.end(isUpstreamError(error) ? toGraphQLError(error) : undefined),
  );
}

// Private: `open` and `prime` bound to one operation's token, freshness and loaders.
function operationsFor(
  hub: LiveHub,
  live: HubState,
  { credentials, freshness, loaders, replicas: charged }: Parameters<LiveHub['forOperation']>[0],
): LiveOperations {
  const { replicas } = live;
  const read = charged ?? replicas;
  return {
    changes: (planId, since) =>
      changesFor(live, requireCredentials(credentials), loaders, planId, since),
    unchangedSince: (planId, since, rows) =>
      conflictsFor(live, read, requireCredentials(credentials), loaders, planId, since, rows),
    writeCursor: (planId, saved) =>
      writeCursorFor(live, requireCredentials(credentials), planId, saved),
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

// Private: the `changes` query over the plan as this operation reads it (the read does what
// freshness allows upstream, nothing more) and the (token, plan) log, started here if none is
// kept. The cursor opens only for this caller and plan (sync-cursor.ts).
async function changesFor(
  live: HubState,
  { tokenKey }: Credentials,
  loaders: Loaders,
  planId: string,
  since: string | undefined,
): Promise<SyncResult> {
  const at = await loaders.plan(planId);
  const state = since === undefined ? undefined : live.cursorSeal.open(since, tokenKey, at.planId);
  if (state?.rows) throw writeCursorInChanges();
  const key = channelKey(tokenKey, at.planId);
  let log = live.channels.get(key)?.log ?? live.logs.get(key);
  if (log === undefined) {
    log = new ChangeLog(at.serverKnowledge, live.changeLog);
    live.logs.set(key, log);
  }
  const answer = syncPage(at, shownKnowledge(live, tokenKey, at, log), log, state, {
    limits: live.limits.event,
    sizes: live.sizes,
  });
  const cursor = live.cursorSeal.seal(answer.next, tokenKey, at.planId);
  return answer.kind === 'page'
    ? { kind: 'page', planId: at.planId, change: answer.change, cursor, hasMore: answer.hasMore }
    : { kind: 'reload', planId: at.planId, cursor };
}

// Private: the knowledge whose every effect `at` shows and `log` reaches: past the replica's own
// when writes applied one step at a time (no delta yet) are on top of it and logged.
function shownKnowledge(
  live: HubState,
  tokenKey: string,
  at: PlanSnapshot,
  log: ChangeLog,
): number {
  const held = live.replicas.peek(tokenKey, at.planId)?.snapshot;
  const exact = held === at ? live.replicas.exactKnowledge?.(tokenKey, at.planId) : undefined;
  return exact !== undefined && exact > at.serverKnowledge && exact <= log.knowledge
    ? exact
    : at.serverKnowledge;
}

// Private: the write guard over the plan synced now and the (token, plan) log. A replica within
// max-age cannot know of an edit made elsewhere a second ago, which is exactly what the guard is
// for: it always costs one delta (the read-your-writes one the write would run anyway comes after
// it), and the operation's later reads take that snapshot. The cursor is opened before anything
// else is decided; a log that is not kept cannot tell, so every row counts as changed.
async function conflictsFor(
  live: HubState,
  replicas: Pick<ReplicaStore, 'read'>,
  { token, tokenKey }: Credentials,
  loaders: Loaders,
  planId: string,
  since: string,
  rows: (at: PlanSnapshot) => readonly RowKey[],
): Promise<ConflictCheck> {
  const read = await replicas
    .read({ token, tokenKey, planId, freshness: { maxAgeMs: 0, forceSync: true } })
    .catch(rethrowAsGraphQL);
  const at = read.snapshot;
  for (const name of new Set([planId, at.planId])) {
    loaders.forget(name);
    loaders.prime(name, at);
  }
  const state = live.cursorSeal.open(since, tokenKey, at.planId);
  const key = channelKey(tokenKey, at.planId);
  const log = live.channels.get(key)?.log ?? live.logs.get(key);
  const changed = changedRows(at, log, state, rows(at));
  // The cursor answered must resume: keep the log from here on, as `changes` does.
  if (log === undefined) live.logs.set(key, new ChangeLog(at.serverKnowledge, live.changeLog));
  return {
    at,
    cursor: live.cursorSeal.seal({ since: at.serverKnowledge }, tokenKey, at.planId),
    changed,
  };
}

// Private: a write's cursor (see `LiveOperations.writeCursor`). A guard with it reads the log of
// the (token, plan): kept from here on, as `changes` does, when nothing kept one (then a delta
// the write brought before it was started cannot be told apart, and the guard refuses: safe).
function writeCursorFor(
  live: HubState,
  { tokenKey }: Credentials,
  planId: string,
  saved: SavedEntities | undefined,
): string | null {
  const rows = saved && writtenRows(saved);
  if (rows === undefined || saved?.serverKnowledge === undefined || PLAN_ALIASES.has(planId))
    return null;
  const key = channelKey(tokenKey, planId);
  const held = live.replicas.peek(tokenKey, planId)?.snapshot;
  if (held && live.channels.get(key) === undefined && live.logs.get(key) === undefined)
    live.logs.set(key, new ChangeLog(held.serverKnowledge, live.changeLog));
  return live.cursorSeal.seal({ since: saved.serverKnowledge, rows }, tokenKey, planId);
}

function writeCursorInChanges(): InvalidCursorError {
  return new InvalidCursorError(
    "This cursor is a write's (a mutation payload's `writeCursor`): it guards later writes of the rows that write changed (`ifUnchangedSince`), and says nothing of the rest of the plan. Ask `changes` with the cursor your copy is at.",
  );
}

function statsOf(live: LiveState): LiveHubStats {
  let subscribers = 0;
  for (const channel of live.channels.values()) subscribers += channel.feeds.size;
  return { channels: live.channels.size, subscribers, changeLogs: live.logs.size };
}

function shuttingDown(): GraphQLError {
  return gatewayError('The gateway is shutting down; subscribe again shortly.', 'SHUTTING_DOWN');
}
