/**
 * The replicas' shared tier in Redis: relayed deltas (L1 replication) and snapshots (warm start).
 * See README.md here for the mechanism and its cost. This file puts the parts together:
 * `tier-relays.ts` (relays and the delta log), `tier-snapshot.ts` (snapshots, warm installs),
 * `tier-aliases.ts` (alias pointers), `tier-messages.ts` (what is sealed, opened and checked),
 * `tier-state.ts` (options, state, counts, names) and `tier-queues.ts` (relay order, waits).
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

import type { AppliedChange } from '../replica/store.js';
import type { SavedEntities } from '../replica/types.js';
import type { TokenSeal } from './seal.js';
import type { DeltaRelay, StoredSnapshot } from './tier-messages.js';
import { follow, publishDelta, relayWrite, unfollowUnheld } from './tier-relays.js';
import { install, type LoadedExport, load, storeExport, warm } from './tier-snapshot.js';
import { type ReplicaTierOptions, ridOf, type TierStats, tierStateOf } from './tier-state.js';

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
   * @returns false when Redis did not answer (the flight may still be held there)
   */
  publishDelta(
    seal: TokenSeal,
    relay: Omit<DeltaRelay, 'bytes'>,
    flight: { key: string; owner: string },
  ): Promise<boolean>;
  /**
   * After this instance loaded a full export: store it as the snapshot, then release the flight.
   * An export too large for a snapshot is not written out at all (the flight is released).
   * @returns false when Redis did not answer (the flight may still be held there)
   */
  storeExport(
    seal: TokenSeal,
    exported: LoadedExport,
    sentAt: number,
    aliases: readonly string[],
    flight: { key: string; owner: string },
  ): Promise<boolean>;
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
