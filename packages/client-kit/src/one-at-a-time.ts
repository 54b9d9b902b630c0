/**
 * Runs the resumes of one client one after the other, never two at once, whichever `resumer`
 * they come from. Two at once (one on start and one on `online`, or a screen's effect run again
 * with a resumer of its own) would ask from the same cursor and apply the same page twice, and
 * a list's `totalCount` would count its new rows twice; one after the other, the second asks
 * from where the first ended.
 */
const running = new WeakMap<object, Promise<unknown>>();

export function oneAtATime<T>(client: object, run: () => Promise<T>): () => Promise<T> {
  return () => {
    const next = (running.get(client) ?? Promise.resolve()).then(run, run);
    running.set(
      client,
      next.catch(() => {}),
    );
    return next;
  };
}
