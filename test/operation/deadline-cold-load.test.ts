/**
 * The operation deadline and cold loads (issue 34): an operation waiting on a plan export that
 * keeps receiving bytes is not cut at the deadline; one that stalls for a quarter of it, or
 * outlives three deadlines, is, with a message saying the load goes on.
 */
import { createManualClock } from '@plans-gateway/sandbox';
import { describe, expect, it } from 'vitest';
import { OperationDeadlineError } from '../../src/errors/deadline-error.js';
import { coldLoadPatience, createDeadline } from '../../src/operation/deadline.js';
import { createManualScheduler } from '../../src/time/scheduler.js';

const DEADLINE = 1_000;

function started() {
  const clock = createManualClock(0);
  const scheduler = createManualScheduler(clock);
  const deadline = createDeadline(DEADLINE, scheduler);
  const signal = deadline.signal()!;
  let lastByte: number | undefined;
  const load = {
    byte: () => {
      lastByte = clock.now();
    },
    progress: () => lastByte,
  };
  return { scheduler, deadline, signal, load };
}

/** Moves the clock by `ms` in `step`s, the load receiving a byte after each step. */
async function receiving(
  scheduler: ReturnType<typeof createManualScheduler>,
  byte: () => void,
  ms: number,
  step = 100,
) {
  for (let moved = 0; moved < ms; moved += step) {
    await scheduler.advance(step);
    byte();
  }
}

describe('the operation deadline with a cold load', () => {
  it('derives its patience from the deadline', () => {
    expect(coldLoadPatience(20_000)).toEqual({ idleMs: 5_000, capMs: 60_000 });
  });

  it('aborts at the deadline when the operation waits on no load', async () => {
    const { scheduler, signal } = started();
    await scheduler.advance(DEADLINE - 1);
    expect(signal.aborted).toBe(false);
    await scheduler.advance(1);
    expect(signal.reason).toBeInstanceOf(OperationDeadlineError);
    expect((signal.reason as OperationDeadlineError).loading).toBe(false);
  });

  it('aborts at the deadline when the load awaited has received nothing yet', async () => {
    const { scheduler, deadline, signal, load } = started();
    deadline.extendWhile(load.progress);
    await scheduler.advance(DEADLINE);
    expect(signal.aborted).toBe(true);
  });

  it('waits on while bytes keep arriving, then aborts once they stop for idleMs', async () => {
    const { scheduler, deadline, signal, load } = started();
    deadline.extendWhile(load.progress);
    await receiving(scheduler, load.byte, 2 * DEADLINE);
    expect(signal.aborted).toBe(false);
    const { idleMs } = coldLoadPatience(DEADLINE);
    await scheduler.advance(idleMs - 1);
    expect(signal.aborted).toBe(false);
    await scheduler.advance(1);
    expect(signal.aborted).toBe(true);
    const reason = signal.reason as OperationDeadlineError;
    expect(reason.loading).toBe(true);
    expect(reason.message).toMatch(/the load goes on/);
  });

  it('never waits past capMs from the start, bytes or not', async () => {
    const { scheduler, deadline, signal, load } = started();
    deadline.extendWhile(load.progress);
    const { capMs } = coldLoadPatience(DEADLINE);
    await receiving(scheduler, load.byte, capMs - 100);
    expect(signal.aborted).toBe(false);
    await receiving(scheduler, load.byte, 100);
    expect(signal.aborted).toBe(true);
  });

  it('stops extending once the wait is released or the operation has answered', async () => {
    const { scheduler, deadline, signal, load } = started();
    const release = deadline.extendWhile(load.progress);
    await receiving(scheduler, load.byte, DEADLINE - 100);
    release();
    await receiving(scheduler, load.byte, 100);
    expect(signal.aborted).toBe(true);

    const other = started();
    other.deadline.extendWhile(other.load.progress);
    other.deadline.end();
    await receiving(other.scheduler, other.load.byte, 4 * DEADLINE);
    expect(other.signal.aborted).toBe(false);
  });
});
