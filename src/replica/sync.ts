import type { Clock } from '../time/clock.js';
/**
 * Single flight: concurrent reads of one key share one upstream sync.
 *
 * Why: the upstream allows 200 requests per token per hour, and a page load of a GraphQL client
 * often sends several operations at once. Without sharing, fifty operations arriving while the
 * replica is past its max-age would send fifty identical delta requests; with it they send one.
 *
 * The rule that decides whether a read may share a sync in flight: a sync's data is at least as
 * new as the moment its request was sent (`sentAt`), so a read that accepts data up to
 * `maxAgeMs` old joins the flight if `sentAt >= arrival - maxAgeMs`. Otherwise the flight was
 * sent too long before the read arrived to satisfy it, and the read waits for a follow-up sync
 * that starts when the current one ends. Subtle cases:
 *
 * - `max-age=0` (`Cache-Control: no-cache`) asks for data requested no earlier than the read
 *   itself. It joins a flight sent in the same clock millisecond (so a burst of reads that
 *   arrive together still costs one sync), and otherwise waits for the follow-up, because the
 *   request in flight may have been answered before the change the caller wants to see.
 * - There is at most one follow-up per flight, shared by every read that needed it, so a
 *   sustained burst costs at most two syncs per key: the one in flight and the one after it.
 *   Follow-ups are sequential on purpose: a delta needs the knowledge the previous one returns.
 * - Flights settle with an outcome value and never reject, so every waiting read decides for
 *   itself (stale answer or error) from the same result.
 * - A read that gives up (its signal aborts) stops waiting; the flight carries on for the
 *   others and its result is stored, because the upstream request has already been paid for.
 */

export interface SingleFlight<T> {
  /**
   * Joins the flight of `key` when it was sent at or after `notSentBefore`, else the follow-up
   * after it, else starts one: `start(sentAt, followUp)` runs with the clock time of sending,
   * and `followUp` true when the flight waited for an earlier one to land (then readers who
   * arrived before `sentAt` share it).
   */
  run(key: string, notSentBefore: number, start: FlightStart<T>): Promise<T>;
  /** How many flights are in the air (for tests and diagnostics). */
  readonly size: number;
}

export type FlightStart<T> = (sentAt: number, followUp: boolean) => Promise<T>;

interface Flight<T> {
  readonly sentAt: number;
  readonly done: Promise<T>;
  followUp?: Promise<T>;
}

export function createSingleFlight<T>(now: Clock): SingleFlight<T> {
  const flights = new Map<string, Flight<T>>();

  const launch = (key: string, start: FlightStart<T>, followUp: boolean): Promise<T> => {
    const sentAt = now();
    // Start on a microtask so a synchronous throw in `start` becomes a rejection, uniformly.
    const done = Promise.resolve()
      .then(() => start(sentAt, followUp))
      .finally(() => {
        if (flights.get(key) === flight) flights.delete(key);
      });
    const flight: Flight<T> = { sentAt, done };
    flights.set(key, flight);
    return done;
  };

  const join = (
    key: string,
    notSentBefore: number,
    start: FlightStart<T>,
    followUp: boolean,
  ): Promise<T> => {
    const flight = flights.get(key);
    if (!flight) return launch(key, start, followUp);
    if (flight.sentAt >= notSentBefore) return flight.done;
    // Anything in the air once this flight has landed was sent after every read waiting here.
    const next = () => join(key, Number.NEGATIVE_INFINITY, start, true);
    flight.followUp ??= flight.done.then(next, next);
    return flight.followUp;
  };

  return {
    run: (key, notSentBefore, start) => join(key, notSentBefore, start, false),
    get size() {
      return flights.size;
    },
  };
}

/** Waits for `promise` unless `signal` aborts first (then rejects with the signal's reason). */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
