import { setMaxListeners } from 'node:events';

/** The operation's deadline passed before the upstream answered what it waited for. */
export class OperationDeadlineError extends Error {
  override readonly name = 'OperationDeadlineError';
  constructor(readonly deadlineMs: number) {
    super(`The upstream did not answer within the operation's deadline of ${deadlineMs / 1000} s.`);
  }
}

/**
 * One operation's deadline, counted from its start: `signal()` aborts with an
 * OperationDeadlineError once `deadlineMs` has passed. Upstream reads and waits take it, so
 * past the deadline an operation answers from what is held (stale) or with
 * UPSTREAM_UNAVAILABLE, while syncs already sent carry on for later readers. The signal and
 * its timer are made on first use only: the warm path, which asks the upstream nothing, pays
 * for neither.
 */
export function createDeadline(
  deadlineMs: number,
  now: () => number = performance.now.bind(performance),
): () => AbortSignal {
  const start = now();
  let signal: AbortSignal | undefined;
  return () => {
    if (signal) return signal;
    const controller = new AbortController();
    signal = controller.signal;
    // Every upstream request and replica wait of the operation listens on this one signal; the
    // operation limits (breadth, aliases) bound how many.
    setMaxListeners(0, signal);
    const left = Math.max(0, start + deadlineMs - now());
    setTimeout(() => controller.abort(new OperationDeadlineError(deadlineMs)), left).unref();
    return signal;
  };
}
