/**
 * One instance's replica tier as its parts share it: the options with their defaults, the
 * replicas it follows, the newest relay of each (for flights waiting on another instance), and
 * what it has counted. Keys and names of a replica are made here.
 */
import { LRUCache } from 'lru-cache';
import type { ReplicaStore } from '../replica/types.js';
import { type Clock, epochNow } from '../time/clock.js';
import type { Scheduler } from '../time/scheduler.js';
import type { RedisLink } from './redis.js';
import { redisName, type TokenSeals } from './seal.js';
import type { DeltaRelay } from './tier-messages.js';
import { RelayWaiters, ReplicaQueues } from './tier-queues.js';

export interface ReplicaTierOptions {
  link: RedisLink;
  seals: TokenSeals;
  /** 8 bytes naming this instance (to skip its own relays). */
  instanceId: Buffer;
  /** The replica store (created after the tier, since its fetch goes through the tier). */
  store: () => ReplicaStore;
  /** @default epochNow */
  now?: Clock;
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

/** The newest relayed delta of each replica is kept up to this many JSON bytes in all. */
const LATEST_RELAYS_BYTES = 32 * 1024 * 1024;

/** One instance's tier: its settings, the replicas it follows, and what it has counted. */
export interface TierState
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

export function tierStateOf(options: ReplicaTierOptions): TierState {
  const onError = options.onError ?? (() => {});
  return {
    link: options.link,
    seals: options.seals,
    instanceId: options.instanceId,
    store: options.store,
    now: options.now ?? epochNow,
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
export function keyOf(state: TierState, kind: string, name: string): string {
  return `${state.link.prefix}${kind}:${name}`;
}

/** The name of one replica's keys (`rid`): never its token or plan id in clear. */
export function ridOf(tokenKey: string, planId: string): string {
  return redisName('replica', tokenKey, planId);
}

/** Keeps the newest relay of a replica and wakes the flights waiting for one. */
export function remember(state: TierState, rid: string, relay: DeltaRelay): void {
  const previous = state.latest.get(rid);
  if (!previous || previous.sentAt <= relay.sentAt) state.latest.set(rid, relay);
  state.waiters.wake(rid);
}
