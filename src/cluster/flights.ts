/**
 * Cluster-wide single flight: one upstream sync per (token, plan) at a time across instances.
 * It wraps the replica store's `fetchPlan`, below the store's own single flight, so it only
 * sees syncs the store decided to send.
 *
 * 1. Take the flight lease `f:<digest>` (owner id, TTL `leaseMs`, renewed while the sync runs,
 *    with a progress marker the holder moves while an export's body arrives: `flight-progress.ts`).
 *    The same script answers "paused" when another instance's read of the token failed with a
 *    429 or 5xx lately: the read fails at once with that failure (the replica answers stale), as
 *    the upstream client's own read pause does on one instance.
 * 2. Holding the lease: use another instance's answer if one arrived meanwhile that satisfies
 *    the readers (sent at or after `notSentBefore`), else call the upstream; relay the delta
 *    (or store the export as the snapshot) and release the lease in the same round trip.
 * 3. Lease held elsewhere: wait for that instance's relay (woken by it), at most `recheckMs`,
 *    then go to 1 (a holder that died stops renewing and its lease passes). A cold replica
 *    instead looks every `pollMs` for the snapshot the holder stores. After `maxWaitMs` the sync
 *    goes alone, unless it is an export and the holder's marker moved within `stallMs`: a large
 *    plan's first export outlasts `maxWaitMs`, and sending it again would spend what the single
 *    flight saves. No wait outlasts `maxLoadWaitMs`. Each move seen is passed on as the sync's
 *    own progress (`onProgress`), so its readers wait on it as on a load of their own. The
 *    re-check is what bounds a wait when Redis hangs meanwhile: it times out
 *    (`commandTimeoutMs`) and takes the link down, which wakes every waiting flight.
 *
 * Leases and pauses are authenticated with the token's key (`redis-leases.ts`, `seal.ts`): a lease
 * that fails authentication or outlived its end is taken over, a pause that does not open or
 * outlived its end is deleted; both are reported and neither holds a sync back.
 *
 * Without Redis (or when a command fails) every step falls back to calling the upstream.
 */

import { isUpstreamError, UpstreamError } from '../errors/upstream-error.js';
import { renewLease } from '../live/lease-renewal.js';
import { createPlanSnapshot } from '../replica/snapshot.js';
import type { FetchPlanRequest, FetchPlanResult } from '../replica/store.js';
import type { ReplicaStore } from '../replica/types.js';
import { type Clock, epochNow } from '../time/clock.js';
import { createSystemScheduler, type Scheduler } from '../time/scheduler.js';
import { flightPatience, progressBeats } from './flight-progress.js';
import { planExportOf } from './plan-export.js';
import { luaScript, type RedisLink, UNAVAILABLE } from './redis.js';
import {
  ACQUIRE,
  CLOCK_SLACK_MS,
  judgeLease,
  leaseValue,
  OWNED,
  RELEASE,
  replyText,
  TAKE,
  voidLease,
} from './redis-leases.js';
import type { ReplicaTier } from './replica-tier.js';
import { openJson, redisName, sealJson, type TokenSeal, type TokenSeals } from './seal.js';

type FetchPlan = (request: FetchPlanRequest) => Promise<FetchPlanResult>;

export interface ClusterFlightsOptions {
  link: RedisLink;
  tier: ReplicaTier;
  seals: TokenSeals;
  store: () => ReplicaStore;
  /** This instance's id; each flight's owner id starts with it. */
  owner: string;
  /** @default epochNow */
  now?: Clock;
  /** Timers of the waits. @default real timers */
  scheduler?: Scheduler;
  /** Lease of one sync, renewed every third of it while the sync runs. @default 5_000 */
  leaseMs?: number;
  /**
   * Longest wait for another instance's sync that shows no progress before sending one's own.
   * @default 30_000
   */
  maxWaitMs?: number;
  /**
   * Past `maxWaitMs`, an export waits on while the holder's progress marker moved within this
   * long (it moves at most every third of it while the answer's body arrives). @default 5_000
   */
  stallMs?: number;
  /** Longest wait for another instance's sync, progress or not. @default 300_000 */
  maxLoadWaitMs?: number;
  /** How often a cold flight checks the lease while another instance loads the plan. @default 50 */
  pollMs?: number;
  /**
   * Longest wait for another instance's relay before the lease is checked again (the link's
   * command timeout: a Redis that hangs meanwhile ends the wait within twice that). @default 1_000
   */
  recheckMs?: number;
  /** Told of a failure off any request's path (writing a snapshot). @default nothing */
  onError?: (error: unknown) => void;
  /** A lease or pause that failed authentication or outlived its end (logged by the caller). */
  onRejected?: (what: string) => void;
}

/**
 * ARGV: owner, lease value, TTL, a pause judged void, a lease judged void ('' for none).
 * ['paused', ms left, sealed failure] | ['ok'] | ['held', ms left, lease value]
 */
const TAKE_FLIGHT = luaScript(`${TAKE}
local pause = redis.call('GET', KEYS[2])
if pause and pause ~= ARGV[4] then return { 'paused', redis.call('PTTL', KEYS[2]), pause } end
if pause then redis.call('DEL', KEYS[2]) end
local taken = take(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[5])
if taken == 1 then return { 'ok' } end
return { 'held', redis.call('PTTL', KEYS[1]), taken }
`);

/** Pauses the token's reads cluster-wide and releases the flight. */
const FAIL_FLIGHT = luaScript(`${OWNED}
if tonumber(ARGV[3]) > 0 then redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3]) end
if owned(redis.call('GET', KEYS[1]), ARGV[1]) then redis.call('DEL', KEYS[1]) end
return 1
`);

/**
 * Unanswered flights remembered for release at most: only flights with a round trip in flight
 * when Redis stops answering, or led across that moment, are (a link found down takes no new
 * flight), so a few; the bound is for safety.
 */
const MAX_UNANSWERED = 1_000;

/** Void leases or pauses met by one flight before it stops taking them over and goes alone. */
const MAX_VOID_ENTRIES = 2;

/** The read pause after a failure, as `read-backoff.ts` has it: Retry-After, else 30 s / 5 s. */
const PAUSE_RATE_LIMITED_MS = 30_000;
const PAUSE_FAILURE_MS = 5_000;
const PAUSE_MAX_MS = 600_000;

export function clusterFetchPlan(fetchPlan: FetchPlan, options: ClusterFlightsOptions): FetchPlan {
  const {
    link,
    tier,
    seals,
    store,
    owner,
    now = epochNow,
    scheduler = createSystemScheduler(now),
    leaseMs = 5_000,
    maxWaitMs = 30_000,
    stallMs = 5_000,
    maxLoadWaitMs = 300_000,
    pollMs = 50,
    recheckMs = 1_000,
    onRejected = () => {},
    onError = () => {},
  } = options;
  let sequence = 0;
  const realTime = createSystemScheduler();
  const leaseOf = (seal: TokenSeal, flight: { key: string; owner: string }, progress = 0) =>
    leaseValue(seal, flight.key, flight.owner, now() + leaseMs, progress);
  /**
   * Flights whose lease Redis may hold with nobody to release it: a `TAKE_FLIGHT` that got no
   * answer in time (the sync went on alone, but a Redis that hung runs what waited once it
   * resumes), and a flight led here whose releasing round trip (the relay, the snapshot, the
   * release) found the link down or got no answer. Every sync of the plan, here or elsewhere,
   * would wait on that lease until it expires. Each is released, if its owner still holds it,
   * as soon as the link is back.
   */
  const unanswered = new Map<string, { key: string; owner: string }>();
  const owe = (flight: { key: string; owner: string }) => {
    if (unanswered.size < MAX_UNANSWERED) unanswered.set(flight.owner, flight);
  };
  /** Releases the flight, or remembers it for the link's return when Redis does not answer. */
  const releaseFlight = (flight: { key: string; owner: string }) =>
    void link.script(RELEASE, [flight.key], [flight.owner]).then((reply) => {
      if (reply === UNAVAILABLE) owe(flight);
    });
  link.onAvailable(() => {
    const owed = [...unanswered.values()];
    unanswered.clear();
    for (const flight of owed) releaseFlight(flight);
  });

  /** Private: another instance's answer that satisfies this sync, if one arrived. */
  function reusable(request: FetchPlanRequest, planId: string): FetchPlanResult | undefined {
    const known = request.lastKnowledgeOfServer;
    if (known === undefined) return undefined;
    const relay = tier.latest(request.tokenKey, planId);
    // Never older than what the sync asks from (that would look like knowledge going back).
    if (!relay || relay.sentAt < request.notSentBefore || relay.to < known) return undefined;
    const held = store().peek(request.tokenKey, planId)?.snapshot.serverKnowledge ?? -1;
    // Mergeable onto what the sync asked from, or already merged into the replica.
    if (relay.from > known && held < relay.to) return undefined;
    return { data: relay.data, bytes: relay.bytes, sentAt: relay.sentAt, relayed: true };
  }

  async function lead(
    request: FetchPlanRequest,
    seal: TokenSeal,
    planId: string,
    flight: { key: string; owner: string },
    pauseKey: string,
  ): Promise<FetchPlanResult> {
    const release = () => releaseFlight(flight);
    const reused = reusable(request, planId);
    if (reused) {
      release();
      return reused;
    }
    if (request.lastKnowledgeOfServer === undefined) {
      const stored = await tier.load(seal, request.planId);
      // An older snapshot (a load that outlasted max-age, waited on since it began) is still
      // a base: the store follows it with a delta, where a second export would cost minutes.
      if (
        stored &&
        (stored.sentAt >= request.notSentBefore || request.olderBase === true) &&
        tier.install(request.tokenKey, request.planId, stored)
      ) {
        release();
        // Installed with the deltas after it; the store keeps that (it is as new or newer).
        return { data: stored.data, bytes: stored.bytes, sentAt: stored.sentAt, relayed: true };
      }
    }
    // The sync goes on whatever a renewal answers: the lease only tells other instances to wait
    // for its relay. Every write carries the beats so far.
    const renew = () =>
      link.script(
        ACQUIRE,
        [flight.key],
        [flight.owner, leaseOf(seal, flight, beats.count()), leaseMs, ''],
      );
    // Beats count on the gateway's clock, as waiters count a stall on theirs, and are written at
    // once: renewals come on real time, at the lease's pace, not the stall's.
    const beats = progressBeats({
      now,
      everyMs: Math.max(1, Math.floor(stallMs / 3)),
      onBeat: () => void renew(),
    });
    // Real time, as Redis counts the lease's TTL.
    const renewal = renewLease({
      scheduler: realTime,
      everyMs: Math.max(1, Math.floor(leaseMs / 3)),
      renew: async () => {
        await renew();
        return true;
      },
    });
    let renewing = true;
    const sentAt = now();
    const onProgress = () => {
      request.onProgress?.();
      beats.received();
    };
    try {
      const result = await fetchPlan({ ...request, onProgress }).finally(() => beats.stop());
      const resolved = result.data.plan.id;
      const aliases = request.planId === resolved ? [] : [request.planId];
      const from = request.lastKnowledgeOfServer;
      if (from === undefined) {
        // Stored in the background (the lease held meanwhile): the readers need not wait for it.
        renewing = false;
        const { built, data, bytes } = result;
        void tier
          .storeExport(
            seal,
            {
              planId: resolved,
              bytes,
              // A streamed export is written back from the replica it built.
              data: built ? () => planExportOf(createPlanSnapshot(built, { now })) : () => data,
            },
            sentAt,
            aliases,
            flight,
          )
          .then(
            (answered) => {
              if (!answered) owe(flight);
            },
            (error: unknown) => {
              onError(error);
              release();
            },
          )
          .finally(() => renewal.stop());
      } else if (resolved === planId) {
        const answered = await tier.publishDelta(
          seal,
          { from, to: result.data.server_knowledge, sentAt, aliases, data: result.data },
          flight,
        );
        if (!answered) owe(flight);
      } else {
        // The alias moved: this answer is relative to another plan's knowledge, no delta of it.
        release();
      }
      return result;
    } catch (error) {
      await pauseAfter(error, seal, flight, pauseKey);
      throw error;
    } finally {
      if (renewing) renewal.stop();
    }
  }

  /** Private: a read failure that will recur for a while pauses the token's reads everywhere. */
  async function pauseAfter(
    error: unknown,
    seal: TokenSeal,
    flight: { key: string; owner: string },
    pauseKey: string,
  ): Promise<void> {
    const pause =
      isUpstreamError(error) && error.retryable && error.attempts > 0
        ? Math.min(
            PAUSE_MAX_MS,
            error.retryAfterMs ?? (error.status === 429 ? PAUSE_RATE_LIMITED_MS : PAUSE_FAILURE_MS),
          )
        : 0;
    const blob =
      pause > 0 && isUpstreamError(error)
        ? await sealJson(
            seal,
            {
              message: error.message,
              status: error.status,
              kind: error.kind,
              upstream: error.upstream,
              // Its own end: written again later, it pauses nothing.
              until: now() + pause,
            },
            pauseKey,
          )
        : '';
    const reply = await link.script(
      FAIL_FLIGHT,
      [flight.key, pauseKey],
      [flight.owner, blob, pause],
    );
    if (reply === UNAVAILABLE) owe(flight);
  }

  /**
   * Private: the failure another instance met, repeated here without a request; undefined when
   * the pause is void (it does not open with the token, or it outlived its end).
   */
  async function pausedError(
    seal: TokenSeal,
    blob: Buffer,
    pttl: number,
    pauseKey: string,
  ): Promise<UpstreamError | undefined> {
    const failure = await openJson(seal, blob, pauseKey).catch(() => undefined);
    if (typeof failure !== 'object' || failure === null) return undefined;
    const { message, status, kind, upstream, until } = failure as Record<string, unknown>;
    if (kind !== 'http' && kind !== 'network' && kind !== 'timeout' && kind !== 'malformed') {
      return undefined;
    }
    if (typeof until !== 'number' || until + CLOCK_SLACK_MS < now()) return undefined;
    const leftMs = Math.max(1, Math.min(pttl, until - now()));
    return new UpstreamError({
      message: `${String(message)} (not sent: another gateway instance met this failure; reads of this token pause for ${Math.ceil(leftMs / 1000)} s more)`,
      operationId: 'getPlanById',
      method: 'GET',
      status: typeof status === 'number' ? status : null,
      kind,
      upstream: isRestError(upstream) ? upstream : null,
      retryable: true,
      outcomeUnknown: false,
      attempts: 0,
      retryAfterMs: leftMs,
    });
  }

  return async function fetchThroughCluster(request) {
    const { token, tokenKey, signal } = request;
    const seal = seals.remember(token, tokenKey);
    if (!link.available) return fetchPlan(request);
    const held = store().peek(tokenKey, request.planId);
    const planId = held?.snapshot.planId ?? request.planId;
    sequence += 1;
    const flight = {
      key: `${link.prefix}f:${redisName('flight', tokenKey, planId)}`,
      owner: `${owner}.${sequence}`,
    };
    const pauseKey = `${link.prefix}p:${redisName('pause', tokenKey)}`;
    const patience = flightPatience({
      now,
      maxWaitMs,
      stallMs,
      maxLoadWaitMs,
      patient: request.lastKnowledgeOfServer === undefined,
    });
    /** A pause and a lease judged void, replaced by the next attempt. */
    const ignoring: { pause: Buffer; lease: string; count: number } = {
      pause: Buffer.alloc(0),
      lease: '',
      count: 0,
    };
    for (;;) {
      signal?.throwIfAborted();
      const reused = reusable(request, planId);
      if (reused) return reused;
      const reply = await link.script(
        TAKE_FLIGHT,
        [flight.key, pauseKey],
        [flight.owner, leaseOf(seal, flight), leaseMs, ignoring.pause, ignoring.lease],
        true,
      );
      if (reply === UNAVAILABLE) {
        owe(flight);
        return fetchPlan(request);
      }
      if (!Array.isArray(reply)) return fetchPlan(request);
      const [state, left, value] = reply as unknown[];
      const verdict = replyText(state);
      const leftMs = Math.max(1, typeof left === 'number' ? left : Number(String(left ?? 0)));
      if (verdict === 'ok') return lead(request, seal, planId, flight, pauseKey);
      if (verdict === 'paused') {
        const blob = Buffer.isBuffer(value) ? value : Buffer.from(String(value));
        const error = await pausedError(seal, blob, leftMs, pauseKey);
        if (error) throw error;
        onRejected('a read pause that failed authentication or outlived its end');
        ignoring.pause = blob;
      } else {
        const lease = judgeLease(seal, flight.key, replyText(value), now());
        if (lease.kind !== 'held') {
          onRejected(voidLease('a flight lease', lease));
          ignoring.lease = replyText(value);
        } else {
          // Its readers wait on the holder's load as on one of their own.
          if (patience.saw(lease.owner, lease.progress)) request.onProgress?.();
          if (patience.exhausted()) return fetchPlan(request);
          if (held) {
            await tier.nextRelay(tokenKey, planId, Math.min(leftMs, leaseMs, recheckMs), signal);
          } else {
            await sleep(scheduler, Math.min(leftMs, pollMs), signal);
          }
          continue;
        }
      }
      // Void entries are taken over once or twice; someone who keeps writing them gets nothing
      // more than a sync sent alone.
      ignoring.count += 1;
      if (ignoring.count > MAX_VOID_ENTRIES) return fetchPlan(request);
    }
  };
}

function isRestError(value: unknown): value is NonNullable<UpstreamError['upstream']> {
  if (typeof value !== 'object' || value === null) return false;
  const { status, id, name, detail } = value as Record<string, unknown>;
  return (
    typeof status === 'number' &&
    typeof id === 'string' &&
    typeof name === 'string' &&
    typeof detail === 'string'
  );
}

function sleep(scheduler: Scheduler, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      timer.cancel();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = scheduler.setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
