/**
 * How long a flight waits on another instance's sync (`flight-progress.ts`), on a clock moved by
 * hand: past `maxWaitMs` only while the holder's beats keep coming, never past `maxLoadWaitMs`.
 * The two instances over a real Redis are in flight-progress.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  type FlightPatienceOptions,
  flightPatience,
  progressBeats,
} from '../../src/cluster/flight-progress.js';

function patienceAt(options: Partial<FlightPatienceOptions> = {}) {
  let at = 0;
  const patience = flightPatience({
    now: () => at,
    maxWaitMs: 1_000,
    stallMs: 300,
    maxLoadWaitMs: 5_000,
    patient: true,
    ...options,
  });
  return {
    patience,
    moveTo(ms: number) {
      at = ms;
    },
  };
}

describe('flightPatience', () => {
  it('waits maxWaitMs on a holder that shows no progress', () => {
    const { patience, moveTo } = patienceAt();
    expect(patience.saw('a.1', 4)).toBe(false);
    moveTo(999);
    expect(patience.saw('a.1', 4)).toBe(false);
    expect(patience.exhausted()).toBe(false);
    moveTo(1_000);
    expect(patience.exhausted()).toBe(true);
  });

  it('waits on while the beats keep coming, and goes stallMs after the last one', () => {
    const { patience, moveTo } = patienceAt();
    patience.saw('a.1', 4);
    for (let at = 200; at <= 3_000; at += 200) {
      moveTo(at);
      expect(patience.saw('a.1', at / 200 + 4)).toBe(true);
      expect(patience.exhausted()).toBe(false);
    }
    moveTo(3_299);
    expect(patience.saw('a.1', 19)).toBe(false);
    expect(patience.exhausted()).toBe(false);
    moveTo(3_300);
    expect(patience.exhausted()).toBe(true);
  });

  it('goes at maxLoadWaitMs, progress or not', () => {
    const { patience, moveTo } = patienceAt();
    patience.saw('a.1', 0);
    for (let at = 100; at < 5_000; at += 100) {
      moveTo(at);
      patience.saw('a.1', at);
      expect(patience.exhausted()).toBe(false);
    }
    moveTo(5_000);
    expect(patience.saw('a.1', 5_000)).toBe(true);
    expect(patience.exhausted()).toBe(true);
  });

  it('counts no progress from a new holder until its own beats move, nor from an older value', () => {
    const { patience, moveTo } = patienceAt();
    patience.saw('a.1', 4);
    moveTo(900);
    expect(patience.saw('a.1', 5)).toBe(true);
    // The lease passed on: the new holder's count is its own.
    moveTo(1_100);
    expect(patience.saw('b.7', 9)).toBe(false);
    expect(patience.exhausted()).toBe(true);
    // A genuine older value written again moves nothing.
    const other = patienceAt();
    other.patience.saw('a.1', 6);
    other.moveTo(900);
    expect(other.patience.saw('a.1', 5)).toBe(false);
    other.moveTo(1_000);
    expect(other.patience.exhausted()).toBe(true);
  });

  it('keeps a sync that needs a delta to maxWaitMs', () => {
    const { patience, moveTo } = patienceAt({ patient: false });
    patience.saw('a.1', 0);
    moveTo(900);
    patience.saw('a.1', 1);
    moveTo(1_000);
    expect(patience.saw('a.1', 2)).toBe(true);
    expect(patience.exhausted()).toBe(true);
  });
});

describe('progressBeats', () => {
  it('beats at most once every everyMs while pieces arrive, and never after stop', () => {
    let at = 0;
    let written = 0;
    const beats = progressBeats({ now: () => at, everyMs: 100, onBeat: () => written++ });
    beats.received();
    beats.received();
    expect([beats.count(), written]).toEqual([1, 1]);
    at = 99;
    beats.received();
    expect(beats.count()).toBe(1);
    at = 100;
    beats.received();
    expect([beats.count(), written]).toEqual([2, 2]);
    beats.stop();
    at = 1_000;
    beats.received();
    expect([beats.count(), written]).toEqual([2, 2]);
  });
});
