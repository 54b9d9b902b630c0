import { setMaxListeners } from 'node:events';
import { OperationDeadlineError } from '../errors/deadline-error.js';
import type { Scheduler, TimerHandle } from '../time/scheduler.js';

/**
 * When a load the operation waits on last received bytes (epoch ms on the gateway's clock), or
 * `undefined` before its first byte.
 */
export type LoadProgress = () => number | undefined;

export interface OperationDeadline {
  /**
   * Aborts with an OperationDeadlineError once the deadline has passed; `undefined` once
   * lifted. Made on first call only: the warm path, which asks the upstream nothing, pays for
   * neither the signal nor its timer.
   */
  signal(): AbortSignal | undefined;
  /**
   * The operation waits on a cold load (a plan export with no replica to answer from instead):
   * while it keeps receiving bytes, the deadline moves (see `coldLoadPatience`). The returned
   * function ends the wait.
   */
  extendWhile(progress: LoadProgress): () => void;
  /** No deadline from now on: a subscription lives as long as its client keeps it. */
  lift(): void;
  /** The operation has answered: its timer goes (a manual scheduler's pending tasks with it). */
  end(): void;
}

/**
 * How long past its deadline an operation waits on a cold load that keeps receiving bytes,
 * derived from the deadline (`OPERATION_DEADLINE_SECONDS`, docs/operating.md): a load silent
 * for `idleMs` (a quarter of the deadline, 5 s by default) is taken as stalled, and none is
 * waited on past `capMs` from the operation's start (three deadlines, 60 s by default).
 */
export function coldLoadPatience(deadlineMs: number): { idleMs: number; capMs: number } {
  return { idleMs: Math.max(1, Math.round(deadlineMs / 4)), capMs: 3 * deadlineMs };
}

/**
 * One operation's deadline, counted from its start. Upstream reads and waits take its signal,
 * so past the deadline an operation answers from what is held (stale) or with
 * UPSTREAM_UNAVAILABLE, while syncs already sent carry on for later readers. An operation
 * waiting on a cold load that is still receiving bytes is the exception: it has nothing to
 * answer from, and the load is not hung, so the deadline moves while bytes arrive, within
 * `coldLoadPatience`.
 *
 * It runs on the gateway's scheduler (real timers in production), so a test with a manual one
 * passes the deadline when it says so: a loaded machine's slow answers never meet it, and a
 * hung request meets it without waiting for real time.
 */
export function createDeadline(deadlineMs: number, scheduler: Scheduler): OperationDeadline {
  const start = scheduler.now();
  const { idleMs, capMs } = coldLoadPatience(deadlineMs);
  const loads = new Set<LoadProgress>();
  let signal: AbortSignal | undefined;
  let timer: TimerHandle | undefined;
  let lifted = false;

  /** Private: the last byte any awaited load received, if any did. */
  const lastProgress = (): number | undefined => {
    let latest: number | undefined;
    for (const progress of loads) {
      const at = progress();
      if (at !== undefined && (latest === undefined || at > latest)) latest = at;
    }
    return latest;
  };

  const expire = (controller: AbortController) => {
    const now = scheduler.now();
    const last = lastProgress();
    const cap = start + capMs;
    if (last !== undefined && now - last < idleMs && now < cap) {
      timer = scheduler.setTimeout(() => expire(controller), Math.min(last + idleMs, cap) - now);
      return;
    }
    controller.abort(new OperationDeadlineError(deadlineMs, last !== undefined));
  };

  return {
    signal() {
      if (lifted || signal) return signal;
      const controller = new AbortController();
      signal = controller.signal;
      // Every upstream request and replica wait of the operation listens on this one signal;
      // the operation limits (breadth, aliases) bound how many.
      setMaxListeners(0, signal);
      const left = Math.max(0, start + deadlineMs - scheduler.now());
      timer = scheduler.setTimeout(() => expire(controller), left);
      return signal;
    },
    extendWhile(progress) {
      if (lifted) return () => {};
      loads.add(progress);
      return () => {
        loads.delete(progress);
      };
    },
    lift() {
      lifted = true;
      signal = undefined;
      loads.clear();
      timer?.cancel();
    },
    end() {
      loads.clear();
      timer?.cancel();
    },
  };
}
