/**
 * Runs the resumes of one client one after the other, never two at once, whichever `resumer`
 * they come from. Two at once (one on start and one on `online`, or a screen's effect run again
 * with a resumer of its own) would ask from the same cursor and apply the same page twice, and
 * a list's `totalCount` would count its new rows twice; one after the other, the second asks
 * from where the first ended.
 *
 * A call of a resumer whose earlier call is still waiting for its turn is answered by that one:
 * it has not asked yet, so it will bring everything this call would (an app that resumes after
 * each sent write and each live event sends one request for a burst of them, not one each).
 */
interface Line {
  /** Settles when the last run queued has. */
  tail: Promise<unknown>;
  /** The run queued last, while it has not started. */
  waiting: { readonly run: () => Promise<unknown>; readonly done: Promise<unknown> } | undefined;
}

const lines = new WeakMap<object, Line>();

export function oneAtATime<T>(client: object, run: () => Promise<T>): () => Promise<T> {
  return () => {
    let line = lines.get(client);
    if (!line) {
      line = { tail: Promise.resolve(), waiting: undefined };
      lines.set(client, line);
    }
    const queued = line;
    if (queued.waiting?.run === run) return queued.waiting.done as Promise<T>;
    const start = () => {
      if (queued.waiting?.done === done) queued.waiting = undefined;
      return run();
    };
    const done: Promise<T> = queued.tail.then(start, start);
    queued.waiting = { run, done };
    queued.tail = done.catch(() => {});
    return done;
  };
}
