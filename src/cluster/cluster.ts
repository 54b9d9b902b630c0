/**
 * `createCluster(options)`: what one gateway instance needs to cooperate with the others through
 * Redis, as the seams `createGateway` already has (see README.md here):
 *
 * - `ledger(kind)`: the request ledger every instance counts in (`rateLimit`, the poll budget);
 * - `fetchPlan(inner)`: one sync per (token, plan) in the cluster, its delta relayed;
 * - `replicas(store)`: the store as the gateway reads it, a cold read warming from the snapshot
 *   tier first; within max-age nothing here is touched;
 * - `applied`: the store's observer (follows the relays of every replica held here);
 * - `leases` and `bus`: the live updates' poll leases and event target;
 * - `restEntries`: the REST cache's shared tier.
 *
 * Nothing here throws because Redis is away: each part falls back to this instance alone, and
 * nothing waits on Redis longer than `commandTimeoutMs` per round trip (see README.md here,
 * "Redis away"). Nothing read from Redis is trusted unless the token's key sealed or signed it.
 */
import { randomBytes } from 'node:crypto';
import { PLAN_ALIASES } from '@plans-gateway/rest-contract';
import { type ClusterConfig, DEFAULT_CLUSTER } from '../config/config.js';
import { createLiveBus, type LiveBus } from '../live/live-bus.js';
import type { PollLeases } from '../live/poll-leases.js';
import type { SharedRestEntries } from '../loaders/rest-cache.js';
import type { AppliedChange, FetchPlanRequest, FetchPlanResult } from '../replica/store.js';
import type { ReplicaReadRequest, ReplicaStore, SavedEntities } from '../replica/types.js';
import { type Clock, epochNow } from '../time/clock.js';
import { createSystemScheduler, type Scheduler } from '../time/scheduler.js';
import { ClusterEventTarget } from './event-target.js';
import { clusterFetchPlan } from './flights.js';
import { createSharedIdempotency, type SharedIdempotency } from './idempotency-store.js';
import { createRedisLink, type LinkChange, type RedisLink, type RedisLinkStats } from './redis.js';
import { createRedisPollLeases } from './redis-leases.js';
import { createReplicaTier, type ReplicaTier } from './replica-tier.js';
import { createSharedRestEntries } from './rest-entries.js';
import { TokenSeals } from './seal.js';
import { createSharedLedger, type SharedLedger } from './shared-ledger.js';
import type { TierStats } from './tier-state.js';

type FetchPlan = (request: FetchPlanRequest) => Promise<FetchPlanResult>;

export interface ClusterOptions extends Partial<ClusterConfig> {
  /** `redis://` or `rediss://` URL of the Redis (or Valkey) every instance shares. */
  url: string;
  /** @default epochNow */
  now?: Clock;
  /**
   * Timers of the command deadline, the link's probe and the waits for other instances' relays
   * (tests use a manual one). @default real timers on `now`
   */
  scheduler?: Scheduler;
  /** The link went down (the instance works alone) or came back: log it, count it. */
  onChange?: (change: LinkChange) => void;
  /** Unexpected failures (unreadable relays, failed installs); the instance carries on. */
  onError?: (error: unknown) => void;
  /**
   * An entry found in Redis failed authentication (or outlived its sealed end) and was ignored:
   * someone with write access to Redis wrote it. Log it; the instance carries on.
   */
  onRejected?: (what: string) => void;
}

export interface ClusterStats extends RedisLinkStats, TierStats {
  /** Redis unavailable: this instance is working alone. */
  readonly degraded: boolean;
  /** Leases, pauses, ledger entries, alias pointers and end messages ignored: forged or sent again. */
  readonly rejected: number;
}

export interface Cluster {
  /** This instance's id in Redis (random per process). */
  readonly instanceId: string;
  readonly link: RedisLink;
  /** Resolves true once connected, false after `timeoutMs` (the instance then starts alone). */
  ready(timeoutMs: number): Promise<boolean>;
  /** A request ledger counted across instances; `kind` names what it counts (`calls`, `polls`). */
  ledger(kind: string, options: { limit: number; windowMs: number }): SharedLedger;
  readonly leases: PollLeases;
  readonly bus: LiveBus;
  /** The REST cache's shared tier (user, plan list, money movements). */
  readonly restEntries: SharedRestEntries;
  /** Answers of writes sent with an `Idempotency-Key`, sealed per token (idempotency-store.ts). */
  readonly idempotency: SharedIdempotency;
  /** Notes a request's token, so this instance can open what other instances seal for it. */
  remember(token: string, tokenKey: string): void;
  fetchPlan(inner: FetchPlan): FetchPlan;
  /** Binds the store (once): the returned view warms cold reads from the snapshot tier. */
  replicas(store: ReplicaStore): ReplicaStore;
  /** The replica store's `onApplied` observer. */
  applied(change: AppliedChange): void;
  stats(): ClusterStats;
  close(): Promise<void>;
}

export function createCluster(options: ClusterOptions): Cluster {
  const {
    url,
    now = epochNow,
    scheduler = createSystemScheduler(now),
    onChange,
    onError = () => {},
    keyPrefix = DEFAULT_CLUSTER.keyPrefix,
    snapshotTtlMs = DEFAULT_CLUSTER.snapshotTtlMs,
    maxSnapshotBytes = DEFAULT_CLUSTER.maxSnapshotBytes,
    flightLeaseMs = DEFAULT_CLUSTER.flightLeaseMs,
    flightMaxWaitMs = DEFAULT_CLUSTER.flightMaxWaitMs,
    flightStallMs = DEFAULT_CLUSTER.flightStallMs,
    flightMaxLoadWaitMs = DEFAULT_CLUSTER.flightMaxLoadWaitMs,
    commandTimeoutMs = DEFAULT_CLUSTER.commandTimeoutMs,
  } = options;
  const id = randomBytes(8);
  const instanceId = id.toString('base64url');
  const link = createRedisLink({
    url,
    prefix: keyPrefix,
    commandTimeoutMs,
    scheduler,
    ...(onChange ? { onChange } : {}),
  });
  const seals = new TokenSeals();
  let rejected = 0;
  const onRejected = (what: string) => {
    rejected += 1;
    options.onRejected?.(what);
  };
  const binding = bindOnce<ReplicaStore>('replicas(store)');
  const store = binding.get;
  const tier: ReplicaTier = createReplicaTier({
    link,
    seals,
    instanceId: id,
    store,
    now,
    scheduler,
    ttlMs: snapshotTtlMs,
    maxSnapshotBytes,
    commandTimeoutMs,
    onError,
    onRejected,
  });
  const restEntries = createSharedRestEntries({
    link,
    seals,
    instanceId: id,
    ttlMs: snapshotTtlMs,
    onError,
  });

  return {
    instanceId,
    link,
    ready: (timeoutMs) => link.ready(timeoutMs),
    ledger: (kind, { limit, windowMs }) =>
      createSharedLedger({ link, seals, kind, instanceId, limit, windowMs, now, onRejected }),
    leases: createRedisPollLeases({ link, owner: instanceId, seals, now, onRejected }),
    bus: createLiveBus(
      new ClusterEventTarget({ link, seals, instanceId: id, onError, onRejected, now }),
    ),
    restEntries,
    idempotency: createSharedIdempotency({ link, seals, instanceId, now, onError }),
    remember: (token, tokenKey) => void seals.remember(token, tokenKey),
    fetchPlan: (inner) =>
      clusterFetchPlan(inner, {
        link,
        tier,
        seals,
        store,
        owner: instanceId,
        now,
        scheduler,
        leaseMs: flightLeaseMs,
        maxWaitMs: flightMaxWaitMs,
        stallMs: flightStallMs,
        maxLoadWaitMs: flightMaxLoadWaitMs,
        recheckMs: commandTimeoutMs,
        onRejected,
        onError,
      }),
    replicas: (inner) =>
      warmingReplicas(binding.bind(inner), {
        link,
        seals,
        warm: singleWarmUp(tier, onError),
        relayWrite: tier.relayWrite,
      }),
    applied: (change) => tier.observe(change),
    stats: () => ({ ...link.stats(), ...tier.stats(), degraded: !link.available, rejected }),
    async close() {
      tier.close();
      restEntries.close();
      await link.close();
    },
  };
}

/** A value given once, read by parts created before it (the store, built after the cluster). */
export interface Binding<T> {
  /** Gives the value; a second call throws. Returns it. */
  bind(value: T): T;
  /** The value; throws before `bind`. */
  get(): T;
}

/** `what` names the call that binds, for the errors of a missing or repeated one. */
export function bindOnce<T>(what: string): Binding<T> {
  let bound: T | undefined;
  return {
    bind(value) {
      if (bound) throw new Error(`createCluster: ${what} was already called`);
      bound = value;
      return value;
    },
    get() {
      if (!bound) throw new Error(`createCluster: ${what} must be called before use`);
      return bound;
    },
  };
}

/** Warms the replica a read asks for from the snapshot tier; true when it installed one. */
export type WarmUp = (request: ReplicaReadRequest) => Promise<boolean>;

/**
 * Cold reads of one replica share one warm-up. A failed warm-up is reported and counts as a
 * miss: the read then goes to the upstream as it would without a cluster.
 */
export function singleWarmUp(
  tier: Pick<ReplicaTier, 'warm'>,
  onError: (error: unknown) => void,
): WarmUp {
  const warming = new Map<string, Promise<boolean>>();
  return (request) => {
    const key = `${request.tokenKey}/${request.planId}`;
    let warm = warming.get(key);
    if (!warm) {
      warm = tier
        .warm(request)
        .catch((error: unknown) => {
          onError(error);
          return false;
        })
        .finally(() => warming.delete(key));
      warming.set(key, warm);
    }
    return warm;
  };
}

export interface WarmingParts {
  readonly link: Pick<RedisLink, 'available'>;
  readonly seals: { remember(token: string, tokenKey: string): void };
  readonly warm: WarmUp;
  /** Tells the other instances of a write applied through this one (`ReplicaTier.relayWrite`). */
  readonly relayWrite: (tokenKey: string, planId: string, saved: SavedEntities) => void;
}

/**
 * The store as the gateway reads and writes it: every read notes its token (to open what other
 * instances seal for it), and a read of a replica not held here waits for a warm-up first while
 * Redis is up; every write the pipeline applies goes to the other instances too, whether or not
 * a replica is held here (the pipeline then syncs no delta, so nothing else would carry it).
 * Within max-age nothing here is touched.
 */
export function warmingReplicas(
  inner: ReplicaStore,
  { link, seals, warm, relayWrite }: WarmingParts,
): ReplicaStore {
  return {
    ...inner,
    async read(request) {
      seals.remember(request.token, request.tokenKey);
      if (link.available && inner.peek(request.tokenKey, request.planId) === undefined) {
        await warm(request);
      }
      return inner.read(request);
    },
    // A fresh replica is held here: no warm-up to wait for, but the token is noted all the same.
    ...(inner.readFresh
      ? {
          readFresh(request) {
            seals.remember(request.token, request.tokenKey);
            return inner.readFresh!(request);
          },
        }
      : {}),
    applySaved(tokenKey, planId, saved) {
      const snapshot = inner.applySaved(tokenKey, planId, saved);
      const concrete = snapshot?.planId ?? (PLAN_ALIASES.has(planId) ? undefined : planId);
      if (concrete !== undefined) relayWrite(tokenKey, concrete, saved);
      return snapshot;
    },
  };
}
