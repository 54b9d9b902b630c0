import type { Clock, ManualClock } from './api.js';

/** The real wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; start it where a test needs "today" to be. */
export function createManualClock(startEpochMs: number): ManualClock {
  if (!Number.isFinite(startEpochMs)) {
    throw new TypeError(
      `createManualClock: startEpochMs must be a finite number, got ${String(startEpochMs)}`,
    );
  }
  let current = startEpochMs;
  return {
    now: () => current,
    set(epochMs: number) {
      if (!Number.isFinite(epochMs))
        throw new TypeError(`ManualClock.set: epochMs must be finite, got ${String(epochMs)}`);
      current = epochMs;
    },
    advance(ms: number) {
      if (!Number.isFinite(ms))
        throw new TypeError(`ManualClock.advance: ms must be finite, got ${String(ms)}`);
      current += ms;
    },
  };
}
