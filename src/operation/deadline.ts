import { setMaxListeners } from 'node:events';
import { OperationDeadlineError } from '../errors/deadline-error.js';
import type { Scheduler, TimerHandle } from '../time/scheduler.js';

export interface OperationDeadline {
  /**
   * Aborts with an OperationDeadlineError once the deadline has passed; `undefined` once
   * lifted. Made on first call only: the warm path, which asks the upstream nothing, pays for
   * neither the signal nor its timer.
   */
  signal(): AbortSignal | undefined;
  /** No deadline from now on: a subscription lives as long as its client keeps it. */
  lift(): void;
  /** The operation has answered: its timer goes (a manual scheduler's pending tasks with it). */
  end(): void;
}

/**
 * One operation's deadline, counted from its start. Upstream reads and waits take its signal,
 * so past the deadline an operation answers from what is held (stale) or with
 * UPSTREAM_UNAVAILABLE, while syncs already sent carry on for later readers.
 *
 * It runs on the gateway's scheduler (real timers in production), so a test with a manual one
 * passes the deadline when it says so: a loaded machine's slow answers never meet it, and a
 * hung request meets it without waiting for real time.
 */
export function createDeadline(deadlineMs: number, scheduler: Scheduler): OperationDeadline {
  const start = scheduler.now();
  let signal: AbortSignal | undefined;
  let timer: TimerHandle | undefined;
  let lifted = false;
  return {
    signal() {
      if (lifted || signal) return signal;
      const controller = new AbortController();
      signal = controller.signal;
      // Every upstream request and replica wait of the operation listens on this one signal;
      // the operation limits (breadth, aliases) bound how many.
      setMaxListeners(0, signal);
      const left = Math.max(0, start + deadlineMs - scheduler.now());
      timer = scheduler.setTimeout(
        () => controller.abort(new OperationDeadlineError(deadlineMs)),
        left,
      );
      return signal;
    },
    lift() {
      lifted = true;
      signal = undefined;
      timer?.cancel();
    },
    end() {
      timer?.cancel();
    },
  };
}
