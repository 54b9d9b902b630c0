/**
 * The replicas' shared tier in Redis: relayed deltas (L1 replication) and snapshots (warm start).
 * See README.md here for the mechanism and its cost.
 *
 * Per (token, plan), named by `rid = redisName('replica', tokenKey, planId)`:
 *
 * | name         | what                                                                           |
 * | ------------ | ------------------------------------------------------------------------------ |
 * | `r:<rid>`    | channel: each delta an instance fetched, and each write it applied            |
 * | `g:<rid>`    | sorted set: the deltas since the snapshot (score: knowledge they reach)       |
 * | `s:<rid>`    | hash: the snapshot: knowledge `k`, time `t` its data was asked for, sealed `d` |
 * | `a:<aid>`    | `<rid> <time> <tag>`: what an alias (`last-used`, `default`) resolved to      |
 *
 * Values are sealed with the token's key (`seal.ts`); deltas, writes and snapshots are bound to
 * their replica by the additional data (`delta:<rid>`, `write:<rid>`, `snapshot:<rid>`), alias
 * pointers signed for their key. Redis sees digests, sizes, knowledge counters and times; never
 * a token, an id, a name or an amount.
 *
 * - Relay: the instance whose request a delta answered publishes it and appends it to the log
 *   (one script, one round trip) before its readers get their answer, so any later request to
 *   another instance finds that instance's replica already updated. An instance holding the
 *   replica at a knowledge the delta covers merges it (`applyRelayed`): no upstream call. One
 *   that missed some catches up from the log; one the log cannot help syncs itself once.
 * - Writes: the entities a write through this instance saved (`relayWrite`) are published on the
 *   same channel, not logged. Every instance holding the replica below the write's knowledge
 *   applies them as the writer did (`applySaved`: pending until a delta confirms them), so its
 *   subscribers see the write at once, even when no delta follows it (payees, category groups).
 *   A write without knowledge of its own (accounts, scheduled transactions) is not relayed: the
 *   delta that follows it brings it, as it must confirm it.
 * - Snapshot: written after a full export (by the instance that loaded it) and rewritten from a
 *   replica when the log grows past `compactAfter` deltas or the snapshot is missing (Redis
 *   restarted). An instance without the replica installs the snapshot and the log's deltas (one
 *   round trip), then syncs at most one delta if that is older than the read accepts.
 * - Bounds: every key expires `ttlMs` after its last write; the log keeps `maxLogEntries`; a
 *   snapshot larger than `maxSnapshotBytes` sealed is not stored.
 */
import { PLAN_ALIASES, type ResponseData } from '@plans-gateway/rest-contract';
import { LRUCache } from 'lru-cache';
import { createSystemScheduler, type Scheduler } from '../live/scheduler.js';
import type { AppliedChange } from '../replica/store.js';
import type { RelayedSync, ReplicaStore, SavedEntities } from '../replica/types.js';
import { planExportOf } from './plan-export.js';
import { luaScript, type RedisLink, UNAVAILABLE } from './redis.js';
import { OWNED } from './redis-leases.js';
import { redisName, sealJson, signed, type TokenSeal, type TokenSeals, verified } from './seal.js';

type PlanExport = ResponseData['getPlanById'];

/** A delta one instance fetched, as relayed to the others and kept in the log. */
export interface DeltaRelay {
  readonly from: number;
  readonly to: number;
  /** When the upstream request was sent (its answer is at least that fresh). */
  readonly sentAt: number;
  /** Requested ids that resolved to this plan (`last-used`...). */
  readonly aliases: readonly string[];
  readonly data: PlanExport;
  /** JSON bytes of `data` (memory estimate); not sent, measured on arrival. */
  readonly bytes: number;
}

export interface StoredSnapshot {
  readonly data: PlanExport;
  readonly sentAt: number;
  readonly bytes: number;
  /** When an alias was last resolved to this plan, if the snapshot was found through one. */
  readonly aliasCheckedAt?: number;
  /** Deltas logged after the snapshot, oldest first. */
  readonly deltas: readonly DeltaRelay[];
}

export interface ReplicaTierOptions {
  link: RedisLink;
  seals: TokenSeals;
  /** 8 bytes naming this instance (to skip its own relays). */
  instanceId: Buffer;
  /** The replica store (created after the tier, since its fetch goes through the tier). */
  store: () => ReplicaStore;
  /** @default Date.now */
  now?: () => number;
  /** Timers of the flights waiting for a relay. @default real timers */
  scheduler?: Scheduler;
  /** Every key expires this long after its last write. @default 86_400_000 (24 h) */
  ttlMs?: number;
  /** Sealed snapshots beyond this are not stored. @default 64 MiB */
  maxSnapshotBytes?: number;
  /** The link's command timeout (a snapshot write gets more, by its size). @default 1_000 */
  commandTimeoutMs?: number;
  /** A new snapshot is written once the log holds this many deltas. @default 32 */
  compactAfter?: number;
  /** Deltas the log keeps at most. @default 64 */
  maxLogEntries?: number;
  /** Unexpected failures (unreadable messages, failed installs); logged by the caller. */
  onError?: (error: unknown) => void;
  /** An entry that failed authentication was ignored (logged by the caller). */
  onRejected?: (what: string) => void;
}

export interface TierStats {
  relaysPublished: number;
  relaysApplied: number;
  /** Writes through this instance published for the others. */
  writesRelayed: number;
  /** Writes through other instances applied here. */
  writesApplied: number;
  relayGaps: number;
  snapshotsWritten: number;
  snapshotsSkipped: number;
  warmed: number;
  /** Flights waiting now for another instance's relay (not a counter). */
  waitingForRelay: number;
}

/** Appends a delta, publishes it, releases the flight: [log size, snapshot knowledge or false]. */
const PUBLISH_DELTA = luaScript(`${OWNED}
redis.call('PUBLISH', KEYS[1], ARGV[1] .. ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -(tonumber(ARGV[5]) + 1))
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
if owned(redis.call('GET', KEYS[4]), ARGV[6]) then redis.call('DEL', KEYS[4]) end
if KEYS[5] then redis.call('SET', KEYS[5], ARGV[7], 'PX', ARGV[4]) end
return { redis.call('ZCARD', KEYS[2]), redis.call('HGET', KEYS[3], 'k') }
`);

/** Stores a snapshot unless a newer one is there; drops the deltas it covers; releases the flight. */
const WRITE_SNAPSHOT = luaScript(`${OWNED}
local k = tonumber(redis.call('HGET', KEYS[1], 'k') or '-1')
local t = tonumber(redis.call('HGET', KEYS[1], 't') or '-1')
local nk, nt = tonumber(ARGV[1]), tonumber(ARGV[2])
local stored = 0
if nk > k or (nk == k and nt > t) then
  redis.call('HSET', KEYS[1], 'k', ARGV[1], 't', ARGV[2], 'd', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
  stored = 1
end
if owned(redis.call('GET', KEYS[3]), ARGV[5]) then redis.call('DEL', KEYS[3]) end
if KEYS[4] then redis.call('SET', KEYS[4], ARGV[6], 'PX', ARGV[4]) end
return stored
`);

/**
 * The snapshot and the deltas after it, by replica (ARGV[2] = 'id', ARGV[3] = rid) or through an
 * alias pointer (KEYS[1], `<rid> <time> <tag>`): [rid, pointer or false, k, t, d, delta...] or
 * false.
 */
const LOAD = luaScript(`
local rid, pointer = ARGV[3], false
if ARGV[2] == 'alias' then
  pointer = redis.call('GET', KEYS[1])
  if not pointer then return false end
  local space = string.find(pointer, ' ', 1, true)
  if not space then return false end
  rid = string.sub(pointer, 1, space - 1)
end
local snap = redis.call('HMGET', ARGV[1] .. 's:' .. rid, 'k', 't', 'd')
if not snap[3] then return false end
local deltas = redis.call('ZRANGEBYSCORE', ARGV[1] .. 'g:' .. rid, '(' .. snap[1], '+inf')
return { rid, pointer, snap[1], snap[2], snap[3], unpack(deltas) }
`);

/** First byte of a relayed write after the instance id (a sealed delta starts with its version, 1). */
const WRITE_MARK = 0x77;
/** What a snapshot write may count on the link to carry, at least (a slow network). */
const BULK_BYTES_PER_SECOND = 8 * 1024 * 1024;
/** The newest relayed delta of each replica is kept up to this many JSON bytes in all. */
const LATEST_RELAYS_BYTES = 32 * 1024 * 1024;
/** Unsubscribes from replicas this instance no longer holds, this often. */
const SWEEP_MS = 60_000;

export interface ReplicaTier {
  /** Names of one replica's keys. */
  rid(tokenKey: string, planId: string): string;
  /**
   * A cold read: installs the snapshot and the deltas after it (one round trip) into the store.
   * @returns false when the tier has nothing for it, Redis cannot answer, or the install failed
   */
  warm(request: { token: string; tokenKey: string; planId: string }): Promise<boolean>;
  /** Installs a stored snapshot and its deltas into the store; false when it could not. */
  install(tokenKey: string, requested: string, stored: StoredSnapshot): boolean;
  /** The snapshot of a plan as stored, for a cold flight that waited for another instance. */
  load(seal: TokenSeal, planId: string): Promise<StoredSnapshot | undefined>;
  /**
   * After this instance fetched a delta: relay it, log it, release the flight (one round trip),
   * and refresh the snapshot in the background when due.
   */
  publishDelta(
    seal: TokenSeal,
    relay: Omit<DeltaRelay, 'bytes'>,
    flight: { key: string; owner: string },
  ): Promise<void>;
  /**
   * After this instance loaded a full export: store it as the snapshot, then release the flight.
   * An export too large for a snapshot is not written out at all (the flight is released).
   */
  storeExport(
    seal: TokenSeal,
    exported: LoadedExport,
    sentAt: number,
    aliases: readonly string[],
    flight: { key: string; owner: string },
  ): Promise<void>;
  /**
   * After a write through this instance: its entities, for the other instances holding the
   * replica (one publish, not waited for). Only a write that carries its knowledge.
   */
  relayWrite(tokenKey: string, planId: string, saved: SavedEntities): void;
  /** The newest delta applied here for a replica (relayed, or fetched here), if any. */
  latest(tokenKey: string, planId: string): DeltaRelay | undefined;
  /** Resolves when a delta of the replica arrives, or after `ms`. */
  nextRelay(tokenKey: string, planId: string, ms: number, signal?: AbortSignal): Promise<void>;
  /** The replica store's observer: follows relays of every replica held here. */
  observe(change: AppliedChange): void;
  stats(): TierStats;
  close(): void;
}

/** A full export this instance loaded, as the snapshot tier stores it. */
export interface LoadedExport {
  readonly planId: string;
  /** Its JSON size: past what a snapshot can hold compressed, it is not written out. */
  readonly bytes: number;
  /** The export, made when it is written (a streamed export is written back from its replica). */
  readonly data: () => PlanExport;
}

/**
 * JSON bytes per sealed byte a snapshot is assumed to shrink to at most (brotli at quality 4
 * measured 15 on a 100,000-transaction export): an export larger than this many times
 * `maxSnapshotBytes` is not even serialized.
 */
const SNAPSHOT_COMPRESSION = 8;

export function createReplicaTier(options: ReplicaTierOptions): ReplicaTier {
  const state = tierStateOf(options);
  const sweep = setInterval(() => unfollowUnheld(state), SWEEP_MS);
  sweep.unref();
  // Nothing waits for a relay through a Redis that went away (or hangs): each flight goes on alone.
  const stopWaking = state.link.onUnavailable(() => state.waiters.wakeAll());
  const tier: ReplicaTier = {
    rid: ridOf,
    warm: (request) => warm(state, request),
    install: (tokenKey, requested, stored) => install(state, tokenKey, requested, stored),
    load: (seal, planId) => load(state, seal, planId),
    publishDelta: (seal, relay, flight) => publishDelta(state, seal, relay, flight),
    storeExport: (seal, exported, sentAt, aliases, flight) =>
      storeExport(state, seal, exported, sentAt, aliases, flight),
    relayWrite: (tokenKey, planId, saved) =>
      void relayWrite(state, tokenKey, planId, saved).catch(state.onError),
    latest: (tokenKey, planId) => state.latest.get(ridOf(tokenKey, planId)),
    nextRelay: (tokenKey, planId, ms, signal) =>
      state.waiters.next(ridOf(tokenKey, planId), ms, signal),
    observe: ({ tokenKey, planId }) => follow(state, tokenKey, planId),
    stats: () => ({ ...state.stats, waitingForRelay: state.waiters.size }),
    close() {
      clearInterval(sweep);
      stopWaking();
      for (const { stop } of state.followed.values()) stop();
      state.followed.clear();
      state.waiters.wakeAll();
    },
  };
  return tier;
}

/** One instance's tier: its settings, the replicas it follows, and what it has counted. */
interface TierState
  extends Required<
    Omit<ReplicaTierOptions, 'link' | 'seals' | 'instanceId' | 'store' | 'scheduler'>
  > {
  readonly link: RedisLink;
  readonly seals: TokenSeals;
  readonly instanceId: Buffer;
  readonly store: () => ReplicaStore;
  /** Relay subscriptions by replica, ended when the replica is no longer held here. */
  readonly followed: Map<string, { tokenKey: string; planId: string; stop: () => void }>;
  readonly queues: ReplicaQueues;
  /** Kept for flights waiting on another instance; bounded by the bytes of the deltas held. */
  readonly latest: LRUCache<string, DeltaRelay>;
  readonly waiters: RelayWaiters;
  readonly compacting: Set<string>;
  readonly resyncing: Set<string>;
  readonly stats: TierStats;
}

function tierStateOf(options: ReplicaTierOptions): TierState {
  const onError = options.onError ?? (() => {});
  return {
    link: options.link,
    seals: options.seals,
    instanceId: options.instanceId,
    store: options.store,
    now: options.now ?? Date.now,
    ttlMs: options.ttlMs ?? 86_400_000,
    maxSnapshotBytes: options.maxSnapshotBytes ?? 64 * 1024 * 1024,
    commandTimeoutMs: options.commandTimeoutMs ?? 1_000,
    compactAfter: options.compactAfter ?? 32,
    maxLogEntries: options.maxLogEntries ?? 64,
    onError,
    onRejected: options.onRejected ?? (() => {}),
    followed: new Map(),
    queues: new ReplicaQueues(onError),
    latest: new LRUCache<string, DeltaRelay>({
      maxSize: LATEST_RELAYS_BYTES,
      sizeCalculation: (relay) => relay.bytes + 1,
    }),
    waiters: new RelayWaiters(options.scheduler),
    compacting: new Set(),
    resyncing: new Set(),
    stats: {
      relaysPublished: 0,
      relaysApplied: 0,
      writesRelayed: 0,
      writesApplied: 0,
      relayGaps: 0,
      snapshotsWritten: 0,
      snapshotsSkipped: 0,
      warmed: 0,
      waitingForRelay: 0,
    },
  };
}

/** A Redis key of the tier: `<prefix><kind>:<name>`. */
function keyOf(state: TierState, kind: string, name: string): string {
  return `${state.link.prefix}${kind}:${name}`;
}

function ridOf(tokenKey: string, planId: string): string {
  return redisName('replica', tokenKey, planId);
}

/** Ends the relay subscriptions of replicas this instance no longer holds. */
function unfollowUnheld(state: TierState): void {
  for (const [rid, { tokenKey, planId, stop }] of state.followed) {
    if (state.store().peek(tokenKey, planId) === undefined) {
      stop();
      state.followed.delete(rid);
      state.latest.delete(rid);
    }
  }
}

/** Subscribes to another instance's relays of a replica held here (once per replica). */
function follow(state: TierState, tokenKey: string, planId: string): void {
  const rid = ridOf(tokenKey, planId);
  if (state.followed.has(rid) || !state.seals.get(tokenKey)) return;
  const { instanceId } = state;
  const stop = state.link.subscribe(keyOf(state, 'r', rid), (message) => {
    if (message.subarray(0, instanceId.length).equals(instanceId)) return;
    const body = message.subarray(instanceId.length);
    state.queues.enqueue(rid, async () => {
      const seal = state.seals.get(tokenKey);
      if (!seal) return;
      if (body[0] === WRITE_MARK) {
        applyWrite(state, tokenKey, planId, await openWrite(seal, rid, body.subarray(1)));
        return;
      }
      const relay = await openDelta(seal, rid, body);
      await applyDelta(state, seal, tokenKey, planId, rid, relay);
    });
  });
  state.followed.set(rid, { tokenKey, planId, stop });
}

/** A relayed delta into the store; after a gap, the log's deltas, else a delta of its own. */
async function applyDelta(
  state: TierState,
  seal: TokenSeal,
  tokenKey: string,
  planId: string,
  rid: string,
  relay: DeltaRelay,
): Promise<void> {
  const outcome = state.store().applyRelayed(tokenKey, relayedDelta(relay));
  if (outcome !== 'gap') {
    state.stats.relaysApplied += 1;
    remember(state, rid, relay);
    return;
  }
  state.stats.relayGaps += 1;
  if (state.store().peek(tokenKey, planId) === undefined) return;
  await catchUp(state, seal, tokenKey, planId, rid);
  const held = state.store().peek(tokenKey, planId);
  if (held && held.snapshot.serverKnowledge < relay.to) resyncAlone(state, tokenKey, planId, rid);
}

/** Publishes a write's entities on the replica's channel (marked, so they are not a delta). */
async function relayWrite(
  state: TierState,
  tokenKey: string,
  planId: string,
  saved: SavedEntities,
): Promise<void> {
  const seal = state.seals.get(tokenKey);
  if (saved.serverKnowledge === undefined || !seal || !state.link.available) return;
  const rid = ridOf(tokenKey, planId);
  const blob = await sealJson(seal, saved, `write:${rid}`);
  const message = Buffer.concat([state.instanceId, Buffer.of(WRITE_MARK), blob]);
  if (await state.link.publish(keyOf(state, 'r', rid), message)) state.stats.writesRelayed += 1;
}

/**
 * Another instance's write into the replica held here, unless its knowledge shows the replica
 * already has it (a delta brought it, or the message was sent again).
 */
function applyWrite(
  state: TierState,
  tokenKey: string,
  planId: string,
  saved: SavedEntities & { readonly serverKnowledge: number },
): void {
  const held = state.store().peek(tokenKey, planId);
  if (!held || held.snapshot.serverKnowledge >= saved.serverKnowledge) return;
  state.store().applySaved(tokenKey, planId, saved);
  state.stats.writesApplied += 1;
}

/** Keeps the newest relay of a replica and wakes the flights waiting for one. */
function remember(state: TierState, rid: string, relay: DeltaRelay): void {
  const previous = state.latest.get(rid);
  if (!previous || previous.sentAt <= relay.sentAt) state.latest.set(rid, relay);
  state.waiters.wake(rid);
}

/** The logged deltas after the replica's knowledge, applied in order. */
async function catchUp(
  state: TierState,
  seal: TokenSeal,
  tokenKey: string,
  planId: string,
  rid: string,
): Promise<void> {
  const held = state.store().peek(tokenKey, planId);
  if (!held) return;
  const blobs = await state.link.run((redis) =>
    redis.zrangebyscoreBuffer(keyOf(state, 'g', rid), `(${held.snapshot.serverKnowledge}`, '+inf'),
  );
  if (blobs === UNAVAILABLE) return;
  for (const blob of blobs) {
    const relay = await openDelta(seal, rid, blob).catch((error: unknown) => {
      state.onError(error);
      return undefined;
    });
    if (!relay) continue;
    const outcome = state.store().applyRelayed(tokenKey, relayedDelta(relay));
    if (outcome !== 'gap') remember(state, rid, relay);
  }
}

/**
 * The replica fell behind and the log cannot bring it up (Redis was away): one delta of its own,
 * relayed to the others like any.
 */
function resyncAlone(state: TierState, tokenKey: string, planId: string, rid: string): void {
  const token = state.seals.tokenOf(tokenKey);
  if (!token || state.resyncing.has(rid)) return;
  state.resyncing.add(rid);
  state
    .store()
    .read({ token, tokenKey, planId, freshness: { maxAgeMs: 0 } })
    .catch(() => {})
    .finally(() => state.resyncing.delete(rid));
}

/** Writes the replica held here as the snapshot, if the log asks for it. */
function compactSoon(
  state: TierState,
  seal: TokenSeal,
  tokenKey: string,
  planId: string,
  rid: string,
): void {
  if (state.compacting.has(rid)) return;
  state.compacting.add(rid);
  // After the store has committed the answer being published.
  setImmediate(() => {
    const held = state.store().peek(tokenKey, planId);
    const write = held
      ? writeSnapshot(
          state,
          seal,
          rid,
          planExportOf(held.snapshot),
          state.now() - held.ageMs,
          [],
          undefined,
        )
      : Promise.resolve();
    write.catch(state.onError).finally(() => state.compacting.delete(rid));
  });
}

async function writeSnapshot(
  state: TierState,
  seal: TokenSeal,
  rid: string,
  data: PlanExport | undefined,
  sentAt: number,
  aliasKeys: readonly string[],
  flight: { key: string; owner: string } | undefined,
): Promise<void> {
  // Without data (too large to serialize), only the flight is released.
  const blob = data ? await sealJson(seal, { sentAt, data }, `snapshot:${rid}`) : Buffer.alloc(0);
  const tooLarge = data === undefined || blob.length > state.maxSnapshotBytes;
  // Off any request's path: a large snapshot gets the time its bytes take, not just a command's.
  const sent = tooLarge ? 0 : blob.length;
  const timeoutMs = state.commandTimeoutMs + Math.ceil((sent / BULK_BYTES_PER_SECOND) * 1000);
  if (tooLarge) state.stats.snapshotsSkipped += 1;
  const reply = await state.link.script(
    WRITE_SNAPSHOT,
    [
      keyOf(state, 's', rid),
      keyOf(state, 'g', rid),
      flight?.key ?? keyOf(state, 'f', '-'),
      ...aliasKeys.slice(0, 1),
    ],
    [
      // A snapshot too large to keep is still offered as the oldest possible, so the flight
      // is released and nothing is stored.
      tooLarge ? -2 : data.server_knowledge,
      sentAt,
      tooLarge ? '' : blob,
      state.ttlMs,
      flight?.owner ?? '',
      aliasPointer(seal, aliasKeys, rid, sentAt),
    ],
    false,
    timeoutMs,
  );
  if (reply === 1) state.stats.snapshotsWritten += 1;
}

async function warm(
  state: TierState,
  { token, tokenKey, planId }: { token: string; tokenKey: string; planId: string },
): Promise<boolean> {
  if (!state.link.available) return false;
  const seal = state.seals.remember(token, tokenKey);
  const stored = await load(state, seal, planId);
  return stored !== undefined && install(state, tokenKey, planId, stored);
}

function install(
  state: TierState,
  tokenKey: string,
  requested: string,
  stored: StoredSnapshot,
): boolean {
  try {
    const outcome = state.store().applyRelayed(tokenKey, {
      kind: 'full',
      data: stored.data,
      sentAt: stored.sentAt,
      bytes: stored.bytes,
      ...(stored.aliasCheckedAt === undefined
        ? {}
        : { aliases: [requested], aliasCheckedAt: stored.aliasCheckedAt }),
    });
    if (outcome === 'gap') return false;
    const rid = ridOf(tokenKey, stored.data.plan.id);
    for (const delta of stored.deltas) {
      const applied = state.store().applyRelayed(tokenKey, relayedDelta(delta));
      if (applied !== 'gap') remember(state, rid, delta);
    }
    state.stats.warmed += 1;
    return true;
  } catch (error) {
    state.onError(error);
    return false;
  }
}

async function load(
  state: TierState,
  seal: TokenSeal,
  planId: string,
): Promise<StoredSnapshot | undefined> {
  const { tokenKey } = seal;
  const byAlias = PLAN_ALIASES.has(planId);
  const rid = byAlias ? '' : ridOf(tokenKey, planId);
  const aliasKey = keyOf(state, 'a', redisName('alias', tokenKey, planId));
  const reply = await state.link.script(
    LOAD,
    [byAlias ? aliasKey : keyOf(state, 's', rid)],
    [state.link.prefix, byAlias ? 'alias' : 'id', rid],
    true,
  );
  if (reply === UNAVAILABLE || !Array.isArray(reply)) return undefined;
  const [ridBuffer, pointer, , , blob, ...deltaBlobs] = reply as (Buffer | null)[];
  if (!ridBuffer || !blob) return undefined;
  const foundRid = ridBuffer.toString('utf8');
  const checked = pointer ? aliasTime(state, seal, aliasKey, foundRid, pointer) : null;
  if (checked === undefined) {
    state.onRejected('an alias pointer that failed authentication');
    return undefined;
  }
  try {
    return await openSnapshot(seal, {
      rid: foundRid,
      blob,
      deltaBlobs,
      checked,
      // Through an alias, the snapshot found names its replica; else it must be the one asked.
      expected: byAlias ? (data) => ridOf(tokenKey, String(data.plan?.id)) : () => rid,
    });
  } catch (error) {
    state.onError(error);
    return undefined;
  }
}

async function publishDelta(
  state: TierState,
  seal: TokenSeal,
  relay: Omit<DeltaRelay, 'bytes'>,
  flight: { key: string; owner: string },
): Promise<void> {
  const { tokenKey } = seal;
  const planId = relay.data.plan.id;
  const rid = ridOf(tokenKey, planId);
  const bodyText = JSON.stringify(relay);
  const blob = await seal.seal(Buffer.from(bodyText, 'utf8'), `delta:${rid}`);
  remember(state, rid, { ...relay, bytes: bodyText.length });
  const aliasKeys = relay.aliases
    .filter((alias) => alias !== planId)
    .map((alias) => keyOf(state, 'a', redisName('alias', tokenKey, alias)));
  const reply = await state.link.script(
    PUBLISH_DELTA,
    [
      keyOf(state, 'r', rid),
      keyOf(state, 'g', rid),
      keyOf(state, 's', rid),
      flight.key,
      ...aliasKeys.slice(0, 1),
    ],
    [
      state.instanceId,
      relay.to,
      blob,
      state.ttlMs,
      state.maxLogEntries,
      flight.owner,
      aliasPointer(seal, aliasKeys, rid, relay.sentAt),
    ],
  );
  if (reply === UNAVAILABLE || !Array.isArray(reply)) return;
  state.stats.relaysPublished += 1;
  const logged = Number(reply[0]);
  const snapshotKnowledge = reply[1] === null ? undefined : Number(reply[1]);
  if (snapshotKnowledge === undefined || logged >= state.compactAfter) {
    compactSoon(state, seal, tokenKey, planId, rid);
  }
}

async function storeExport(
  state: TierState,
  seal: TokenSeal,
  exported: LoadedExport,
  sentAt: number,
  aliases: readonly string[],
  flight: { key: string; owner: string },
): Promise<void> {
  const { planId } = exported;
  const rid = ridOf(seal.tokenKey, planId);
  const aliasKeys = aliases
    .filter((alias) => alias !== planId)
    .map((alias) => keyOf(state, 'a', redisName('alias', seal.tokenKey, alias)));
  // Off the readers' path: they get their answer before the export is written out.
  await new Promise((resolve) => setImmediate(resolve));
  const fits = exported.bytes <= state.maxSnapshotBytes * SNAPSHOT_COMPRESSION;
  await writeSnapshot(
    state,
    seal,
    rid,
    fits ? exported.data() : undefined,
    sentAt,
    aliasKeys,
    flight,
  );
}

/** Where an alias resolved, and when: `<rid> <time> <tag>`, signed for the (first) alias key. */
function aliasPointer(
  seal: TokenSeal,
  aliasKeys: readonly string[],
  rid: string,
  at: number,
): string {
  const [aliasKey] = aliasKeys;
  return aliasKey === undefined ? '' : signed(seal, `${rid} ${at}`, aliasKey);
}

/**
 * The time an alias pointer says it was resolved (never later than now), as `openSnapshot`
 * takes it; undefined when the pointer is not this token's for that alias and replica.
 */
function aliasTime(
  state: TierState,
  seal: TokenSeal,
  aliasKey: string,
  rid: string,
  pointer: Buffer,
): Buffer | undefined {
  const [pointed, at] = verified(seal, pointer.toString('utf8'), aliasKey)?.split(' ') ?? [];
  const time = Number(at);
  if (pointed !== rid || !Number.isSafeInteger(time)) return undefined;
  return Buffer.from(String(Math.min(time, state.now())));
}

/** The replica store's form of a relayed delta. */
export function relayedDelta(relay: DeltaRelay): RelayedSync {
  return {
    kind: 'delta',
    data: relay.data,
    fromKnowledge: relay.from,
    sentAt: relay.sentAt,
    bytes: relay.bytes,
    aliases: relay.aliases,
  };
}

/** Opens a sealed relayed delta of replica `rid`; throws when it is not one. */
export async function openDelta(seal: TokenSeal, rid: string, blob: Buffer): Promise<DeltaRelay> {
  const opened = await seal.open(blob, `delta:${rid}`);
  const value: unknown = JSON.parse(opened.toString('utf8'));
  if (!isRecord(value) || !isCount(value.from) || !isCount(value.to) || !isTime(value.sentAt)) {
    throw new TypeError('a relayed delta must hold from, to and sentAt');
  }
  const aliases = Array.isArray(value.aliases)
    ? value.aliases.filter((alias): alias is string => typeof alias === 'string')
    : [];
  return {
    from: value.from,
    to: value.to,
    sentAt: value.sentAt,
    aliases,
    data: value.data as PlanExport,
    bytes: opened.length,
  };
}

/** The entity lists a relayed write may carry. */
const SAVED_LISTS = [
  'accounts',
  'categoryGroups',
  'categories',
  'monthCategories',
  'payees',
  'transactions',
  'scheduledTransactions',
] as const;

/** Opens a relayed write of replica `rid`; throws when it is not one. */
export async function openWrite(
  seal: TokenSeal,
  rid: string,
  blob: Buffer,
): Promise<SavedEntities & { readonly serverKnowledge: number }> {
  const value: unknown = JSON.parse((await seal.open(blob, `write:${rid}`)).toString('utf8'));
  if (
    !isRecord(value) ||
    !isCount(value.serverKnowledge) ||
    SAVED_LISTS.some((list) => {
      const rows = value[list];
      return rows !== undefined && (!Array.isArray(rows) || !rows.every(isRecord));
    })
  ) {
    throw new TypeError('a relayed write must hold its knowledge and lists of entities');
  }
  return { ...(value as SavedEntities), serverKnowledge: value.serverKnowledge };
}

/** A snapshot as `LOAD` found it, sealed, with the deltas logged after it. */
export interface SealedSnapshot {
  /** The replica it is stored under. */
  readonly rid: string;
  readonly blob: Buffer;
  readonly deltaBlobs: readonly (Buffer | null)[];
  /** When the alias it was found through was last resolved (epoch ms as text), if any. */
  readonly checked: Buffer | null | undefined;
  /** The replica its data must be of. */
  readonly expected: (data: PlanExport) => string;
}

/** Opens a stored snapshot and its deltas; throws when any is unreadable or not of the replica. */
export async function openSnapshot(
  seal: TokenSeal,
  { rid, blob, deltaBlobs, checked, expected }: SealedSnapshot,
): Promise<StoredSnapshot> {
  const opened = await seal.open(blob, `snapshot:${rid}`);
  const value: unknown = JSON.parse(opened.toString('utf8'));
  if (!isRecord(value) || !isTime(value.sentAt) || !isRecord(value.data)) {
    throw new TypeError('a stored snapshot must hold sentAt and data');
  }
  const data = value.data as PlanExport;
  if (expected(data) !== rid) {
    throw new TypeError('a stored snapshot is not of the replica it is stored under');
  }
  const deltas: DeltaRelay[] = [];
  for (const each of deltaBlobs) {
    if (each) deltas.push(await openDelta(seal, rid, each));
  }
  const checkedAt = checked ? Number(checked.toString('utf8')) : undefined;
  return {
    data,
    sentAt: value.sentAt,
    bytes: opened.length,
    deltas,
    ...(checkedAt !== undefined && Number.isFinite(checkedAt) ? { aliasCheckedAt: checkedAt } : {}),
  };
}

/** Tasks run one after another per replica (relays apply in order); failures go to `onError`. */
export class ReplicaQueues {
  private readonly _chains = new Map<string, Promise<void>>();

  constructor(private readonly _onError: (error: unknown) => void) {}

  /** Runs `task` after every earlier task of the same replica. */
  enqueue(rid: string, task: () => Promise<void>): void {
    const previous = this._chains.get(rid) ?? Promise.resolve();
    const next = previous.then(task).catch(this._onError);
    this._chains.set(rid, next);
    void next.then(() => {
      if (this._chains.get(rid) === next) this._chains.delete(rid);
    });
  }
}

/** Flights waiting for the next delta of a replica, each until it arrives or its time is up. */
export class RelayWaiters {
  private readonly _waiting = new Map<string, Set<() => void>>();

  /** @param _scheduler the timers of the waits. @default real timers */
  constructor(private readonly _scheduler: Scheduler = createSystemScheduler()) {}

  /** Resolves when `wake(rid)` is called, after `ms`, or on `signal`'s abort. */
  next(rid: string, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        timer.cancel();
        signal?.removeEventListener('abort', done);
        this._waiting.get(rid)?.delete(done);
        resolve();
      };
      const timer = this._scheduler.setTimeout(done, Math.max(1, ms));
      signal?.addEventListener('abort', done, { once: true });
      let set = this._waiting.get(rid);
      if (!set) {
        set = new Set();
        this._waiting.set(rid, set);
      }
      set.add(done);
    });
  }

  /** Flights waiting. */
  get size(): number {
    let waiting = 0;
    for (const set of this._waiting.values()) waiting += set.size;
    return waiting;
  }

  /** A delta of `rid` arrived: every flight waiting for one goes on. */
  wake(rid: string): void {
    const set = this._waiting.get(rid);
    if (!set) return;
    this._waiting.delete(rid);
    for (const resolve of set) resolve();
  }

  wakeAll(): void {
    for (const rid of [...this._waiting.keys()]) this.wake(rid);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}
