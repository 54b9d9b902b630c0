/**
 * Progress of a cluster flight (`flights.ts`), as the lease carries it: its holder counts beats
 * while the answer's body keeps arriving (at most one a third of `stallMs`, each written into
 * the lease at once), and an instance waiting on it keeps waiting past `maxWaitMs` while the
 * count moves. A large plan's first export can take minutes; cutting its waiters at a fixed
 * deadline would send the same export again from every instance waiting on it.
 *
 * A holder renews its lease whether its sync moves or not (a hung upstream call still renews), so
 * a renewal alone proves only that the holder lives; the beats prove that bytes arrive. A holder
 * that died stops renewing and its lease passes on (its TTL); one whose sync hangs stops beating
 * and its waiters go alone `stallMs` after the last beat they saw; none waits past `maxLoadWaitMs`.
 * Waiters compare counts they saw themselves, on their own clock: instances' clocks may differ.
 */
import type { Clock } from '../time/clock.js';

export interface ProgressBeats {
  /** A piece of the answer arrived. */
  received(): void;
  /** Beats so far: the progress marker of the holder's lease. */
  count(): number;
  /** The sync ended: no more beats (a write after the release would take the lease again). */
  stop(): void;
}

/** The holder's side: `onBeat` writes the lease with the new count. */
export function progressBeats(options: {
  now: Clock;
  everyMs: number;
  onBeat: () => void;
}): ProgressBeats {
  const { now, everyMs, onBeat } = options;
  let beats = 0;
  let next = Number.NEGATIVE_INFINITY;
  let stopped = false;
  return {
    received() {
      if (stopped || now() < next) return;
      beats += 1;
      next = now() + everyMs;
      onBeat();
    },
    count: () => beats,
    stop() {
      stopped = true;
    },
  };
}

export interface FlightPatience {
  /** The lease as found: true when its holder beat since the last look (the same holder). */
  saw(owner: string, progress: number): boolean;
  /** Time to stop waiting and send the sync alone. */
  exhausted(): boolean;
}

export interface FlightPatienceOptions {
  now: Clock;
  /** The wait for a holder that shows no progress. */
  maxWaitMs: number;
  /** Past `maxWaitMs`, a holder whose count did not move for this long is taken as stalled. */
  stallMs: number;
  /** No wait lasts longer, progress or not. */
  maxLoadWaitMs: number;
  /**
   * Whether progress may extend the wait: for a full export only. A sync that needs a delta
   * gains nothing from another instance's export, and waits `maxWaitMs` at most as before.
   */
  patient: boolean;
}

/** The waiter's side, from the moment its flight starts waiting. */
export function flightPatience(options: FlightPatienceOptions): FlightPatience {
  const { now, maxWaitMs, stallMs, maxLoadWaitMs, patient } = options;
  const start = now();
  let holder: { owner: string; progress: number } | undefined;
  /** When this waiter last saw the holder's count move; never before the first move. */
  let movedAt: number | undefined;
  return {
    saw(owner, progress) {
      if (holder?.owner !== owner) {
        // A new holder (the lease passed on) has shown nothing yet.
        holder = { owner, progress };
        movedAt = undefined;
        return false;
      }
      // Higher only: a genuine older value written again is no progress.
      if (progress <= holder.progress) return false;
      holder.progress = progress;
      movedAt = now();
      return true;
    },
    exhausted() {
      const at = now();
      if (at - start >= Math.max(maxWaitMs, maxLoadWaitMs)) return true;
      if (at - start < maxWaitMs) return false;
      return !patient || movedAt === undefined || at - movedAt >= stallMs;
    },
  };
}
