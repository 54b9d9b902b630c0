import { setMaxListeners } from 'node:events';
import { OperationDeadlineError } from '../errors/deadline-error.js';
import { type Clock, monotonicNow } from '../time/clock.js';

export interface OperationDeadline {
  /**
   * Aborts with an OperationDeadlineError once the deadline has passed; `undefined` once
   * lifted. Made on first call only: the warm path, which asks the upstream nothing, pays for
   * neither the signal nor its timer.
   */
  signal(): AbortSignal | undefined;
  /** No deadline from now on: a subscription lives as long as its client keeps it. */
  lift(): void;
}

/**
 * One operation's deadline, counted from its start. Upstream reads and waits take its signal,
 * so past the deadline an operation answers from what is held (stale) or with
 * UPSTREAM_UNAVAILABLE, while syncs already sent carry on for later readers.
 */
export function createDeadline(deadlineMs: number, now: Clock = monotonicNow): OperationDeadline {
  const start = now();
  let signal: AbortSignal | undefined;
  let timer: NodeJS.Timeout | undefined;
  let lifted = false;
  return {
    signal() {
      if (lifted || signal) return signal;
      const controller = new AbortController();
      signal = controller.signal;
      // Every upstream request and replica wait of the operation listens on this one signal;
      // the operation limits (breadth, aliases) bound how many.
      setMaxListeners(0, signal);
      const left = Math.max(0, start + deadlineMs - now());
      timer = setTimeout(() => controller.abort(new OperationDeadlineError(deadlineMs)), left);
      timer.unref();
      return signal;
    },
    lift() {
      lifted = true;
      signal = undefined;
      clearTimeout(timer);
    },
  };
}
