/**
 * The poller of one (token, plan): keeps the token's replica of the plan fresh while someone is
 * subscribed to it. It does not publish anything itself: every sync lands in the replica store,
 * whose `onApplied` hook turns it into events, so a sync caused by an ordinary query serves the
 * subscribers just as well and the next poll is pushed back accordingly.
 *
 * Each turn:
 * 1. if the replica was synced less than an interval ago (by anyone), wait out the rest;
 * 2. if the token's budget says wait (`PollBudget.waitMs`), wait;
 * 3. if another instance holds the lease of this (token, plan), skip the turn;
 * 4. read the plan through the store with a max-age just under the interval: one delta request,
 *    shared with any sync already in flight (single flight), charged to the poll budget;
 * 5. on a stale answer (429, 5xx, unreachable, or the client's read pause) back off: the
 *    upstream's `Retry-After` when given, else doubling the interval, capped at an hour;
 * 6. on a refusal that will not go away by waiting (401, 403, 404) stop and report it.
 *
 * Backfills: a replay older than the change log needs one delta from an older knowledge
 * (`backfill(from)`). It is this poller's next turn, run at once when the budget allows (the
 * freshness and lease steps do not apply: a subscriber waits for it), asking from the lowest
 * knowledge waiting; its answer also syncs the replica, so the next ordinary poll is pushed back
 * like after any sync. It is charged to the poll budget and backs off like a poll.
 */

import { isUpstreamError } from '../errors/upstream-error.js';
import type { ReplicaStore } from '../replica/types.js';
import type { Scheduler, TimerHandle } from '../time/scheduler.js';
import type { PollBudget } from './budget.js';
import type { PollLeases } from './poll-leases.js';

/** Longest back-off after repeated failures. */
export const MAX_BACKOFF_MS = 3_600_000;

export interface PollerOptions {
  readonly tokenKey: string;
  /** The concrete plan id. */
  readonly planId: string;
  /** The token to poll with (any current subscriber's; they all share the token key). */
  readonly token: () => string;
  readonly replicas: Pick<ReplicaStore, 'read' | 'peek'>;
  readonly budget: PollBudget;
  readonly leases: PollLeases;
  readonly leaseKey: string;
  readonly scheduler: Scheduler;
  /** The current interval between polls (it depends on how many plans the token polls). */
  readonly intervalMs: () => number;
  /** Fetches and stores one delta from `from` (charged to the budget by the caller's meter). */
  readonly backfill: (from: number) => Promise<void>;
  /** The upstream refused for good (401, 403, 404): the poller has stopped. */
  readonly onRefused: (error: unknown) => void;
  /** A poll failed in a way not covered above (logged by the caller); the poller backs off. */
  readonly onError?: (error: unknown) => void;
}

export interface Poller {
  /**
   * Resolves once a delta from `from` or older was fetched and stored (rejects with the refusal
   * when the upstream refuses for good, or when the poller stops first).
   */
  backfill(from: number): Promise<void>;
  stop(): void;
}

interface BackfillWaiter {
  readonly from: number;
  resolve(): void;
  reject(error: unknown): void;
}

export function startPoller(options: PollerOptions): Poller {
  const { tokenKey, planId, replicas, budget, leases, leaseKey, scheduler } = options;
  let timer: TimerHandle | undefined;
  let stopped = false;
  let running = false;
  let failures = 0;
  /** Backfills waiting for a turn. */
  const waiting: BackfillWaiter[] = [];
  /** The backfill in flight: later waiters from a knowledge it covers join it. */
  let inFlight: { readonly from: number; readonly batch: BackfillWaiter[] } | undefined;

  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer?.cancel();
    timer = scheduler.setTimeout(turn, Math.max(0, delayMs));
  };

  /** Clock time before which backfills wait for the scheduled turn (a back-off, the budget). */
  let holdUntil = 0;
  const hold = (delayMs: number) => {
    holdUntil = scheduler.now() + delayMs;
    schedule(delayMs);
  };
  const backOff = (error: unknown, interval: number) => {
    failures += 1;
    const told = isUpstreamError(error) ? error.retryAfterMs : null;
    const doubled = interval * 2 ** Math.min(failures - 1, 16);
    hold(Math.min(MAX_BACKOFF_MS, Math.max(interval, told ?? doubled)));
  };

  /** Private: a lease store that cannot be reached leaves this instance polling on its own. */
  async function holdsLease(interval: number): Promise<boolean> {
    try {
      return await leases.acquire(leaseKey, interval * 2);
    } catch (error) {
      options.onError?.(error);
      return true;
    }
  }

  async function turn(): Promise<void> {
    if (stopped || running) return;
    running = true;
    try {
      await (waiting.length > 0 ? backfillTurn() : pollTurn());
    } finally {
      running = false;
    }
    // Backfills asked for meanwhile go now, unless the budget or a back-off holds them.
    if (waiting.length > 0 && scheduler.now() >= holdUntil) void turn();
  }

  /** Private: a backfill for every subscriber waiting, from the lowest knowledge among them. */
  async function backfillTurn(): Promise<void> {
    const interval = options.intervalMs();
    const batch = waiting.splice(0);
    try {
      const wait = await budget.waitMs(tokenKey);
      if (wait > 0) {
        waiting.unshift(...batch);
        hold(wait);
        return;
      }
      const from = Math.min(...batch.map((waiter) => waiter.from));
      inFlight = { from, batch };
      await options.backfill(from);
      failures = 0;
      for (const waiter of batch) waiter.resolve();
      schedule(interval);
    } catch (error) {
      if (stopped) return;
      if (isRefusal(error)) {
        stopped = true;
        for (const waiter of [...batch, ...waiting.splice(0)]) waiter.reject(error);
        options.onRefused(error);
        return;
      }
      options.onError?.(error);
      waiting.unshift(...batch);
      backOff(error, interval);
    } finally {
      inFlight = undefined;
    }
  }

  async function pollTurn(): Promise<void> {
    const interval = options.intervalMs();
    const held = replicas.peek(tokenKey, planId);
    if (held !== undefined && held.ageMs < interval) {
      schedule(interval - held.ageMs);
      return;
    }
    try {
      const wait = await budget.waitMs(tokenKey);
      if (wait > 0) {
        schedule(wait);
        return;
      }
      if (!(await holdsLease(interval))) {
        schedule(interval);
        return;
      }
      const read = await replicas.read({
        token: options.token(),
        tokenKey,
        planId,
        freshness: { maxAgeMs: Math.max(0, interval - 1) },
        meter: budget.meter(tokenKey),
      });
      if (read.stale) {
        backOff(read.stale.error, interval);
        return;
      }
      failures = 0;
      schedule(interval - read.ageMs);
    } catch (error) {
      if (stopped) return;
      if (isRefusal(error)) {
        stopped = true;
        options.onRefused(error);
        return;
      }
      options.onError?.(error);
      backOff(error, interval);
    }
  }

  schedule(0);
  return {
    backfill(from) {
      if (stopped) return Promise.reject(new Error('The poller has stopped.'));
      return new Promise<void>((resolve, reject) => {
        const waiter = { from, resolve, reject };
        if (inFlight && inFlight.from <= from) {
          inFlight.batch.push(waiter); // the delta in flight covers it
          return;
        }
        waiting.push(waiter);
        // At once, not at the next timer (a subscriber waits for it), unless held.
        if (!running && scheduler.now() >= holdUntil) {
          timer?.cancel();
          void turn();
        }
      });
    },
    stop() {
      stopped = true;
      timer?.cancel();
      const stoppedError = new Error('The poller has stopped.');
      for (const waiter of waiting.splice(0)) waiter.reject(stoppedError);
      void leases.release(leaseKey).catch(() => {});
    },
  };
}

/** Failures that waiting will not cure: the token or its access to the plan is gone. */
export function isRefusal(error: unknown): boolean {
  return (
    isUpstreamError(error) &&
    error.kind === 'http' &&
    (error.status === 401 || error.status === 403 || error.status === 404)
  );
}
