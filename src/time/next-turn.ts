/**
 * Resolves on the event loop's next turn, after the I/O and timers this turn already queued
 * (`setImmediate`): a way to let work started in this tick (sibling resolvers' loads, a socket's
 * pending writes) begin before going on. It is ordering, not time: no clock moves it, so it
 * needs no scheduler.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
