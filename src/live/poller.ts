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
 */
import type { ReplicaStore } from '../replica/types.js';
import { isUpstreamError } from '../upstream/errors.js';
import type { PollBudget } from './budget.js';
import type { PollLeases } from './leases.js';
import type { Scheduler, TimerHandle } from './scheduler.js';

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
  /** The upstream refused for good (401, 403, 404): the poller has stopped. */
  readonly onRefused: (error: unknown) => void;
  /** A poll failed in a way not covered above (logged by the caller); the poller backs off. */
  readonly onError?: (error: unknown) => void;
}

export interface Poller {
  stop(): void;
}

export function startPoller(options: PollerOptions): Poller {
  const { tokenKey, planId, replicas, budget, leases, leaseKey, scheduler } = options;
  let timer: TimerHandle | undefined;
  let stopped = false;
  let failures = 0;

  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = scheduler.setTimeout(turn, Math.max(0, delayMs));
  };

  const backOff = (error: unknown, interval: number) => {
    failures += 1;
    const told = isUpstreamError(error) ? error.retryAfterMs : null;
    const doubled = interval * 2 ** Math.min(failures - 1, 16);
    schedule(Math.min(MAX_BACKOFF_MS, Math.max(interval, told ?? doubled)));
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
    if (stopped) return;
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
    stop() {
      stopped = true;
      timer?.cancel();
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
