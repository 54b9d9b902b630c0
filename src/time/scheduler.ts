/**
 * The gateway's timers: a clock and one-shot timers behind one interface, so tests and the
 * benchmark can run a simulated hour of polling, leases, sessions and deliveries in
 * milliseconds with a manual scheduler, while production uses the real timers. One gateway
 * makes one (`createGateway`), and every part with timers of its own takes it.
 */
import { type Clock, epochNow } from './clock.js';

/** A pending task; `cancel` is idempotent. */
export interface TimerHandle {
  cancel(): void;
}

export interface Scheduler {
  /** Epoch milliseconds. */
  readonly now: Clock;
  /**
   * Runs `task` once, `ms` from now (negative counts as 0). A manual scheduler waits for the
   * promise a task returns before it moves the clock further.
   */
  setTimeout(task: () => void | Promise<void>, ms: number): TimerHandle;
}

/**
 * Real timers. They are unref'd: a poll timer alone never keeps a process alive (the HTTP
 * server does, and `close()` cancels them anyway).
 */
export function createSystemScheduler(now: Clock = epochNow): Scheduler {
  return {
    now,
    setTimeout(task, ms) {
      const timer = setTimeout(
        () => {
          void Promise.resolve()
            .then(task)
            .catch(() => {
              // Tasks handle their own failures; nothing may escape as an unhandled rejection.
            });
        },
        Math.max(0, ms),
      );
      timer.unref();
      return { cancel: () => clearTimeout(timer) };
    },
  };
}

/** A clock the manual scheduler can move (the sandbox's `createManualClock` is one). */
export interface SettableClock {
  readonly now: Clock;
  set(epochMs: number): void;
}

export interface ManualScheduler extends Scheduler {
  /**
   * Moves the clock forward by `ms`, running every task that falls due on the way in time order,
   * each at its due time, and waiting for each one's promise before going on.
   */
  advance(ms: number): Promise<void>;
  /** Tasks waiting to run. */
  pending(): number;
}

/** Runaway guard: tasks that keep rescheduling themselves at the same instant. */
const MAX_TASKS_PER_ADVANCE = 1_000_000;

interface ManualTimer {
  readonly at: number;
  readonly seq: number;
  readonly task: () => void | Promise<void>;
  cancelled: boolean;
}

export function createManualScheduler(clock: SettableClock): ManualScheduler {
  let timers: ManualTimer[] = [];
  let seq = 0;
  let advancing = false;

  // Private: the earliest live timer due at or before `until`, in (time, creation) order.
  function nextDue(until: number): ManualTimer | undefined {
    timers = timers.filter((timer) => !timer.cancelled);
    let best: ManualTimer | undefined;
    for (const timer of timers) {
      if (timer.at > until) continue;
      if (!best || timer.at < best.at || (timer.at === best.at && timer.seq < best.seq)) {
        best = timer;
      }
    }
    return best;
  }

  return {
    now: () => clock.now(),
    setTimeout(task, ms) {
      const timer: ManualTimer = {
        at: clock.now() + Math.max(0, ms),
        seq: seq++,
        task,
        cancelled: false,
      };
      timers.push(timer);
      return {
        cancel() {
          timer.cancelled = true;
        },
      };
    },
    async advance(ms) {
      if (!Number.isFinite(ms) || ms < 0) {
        throw new RangeError(
          `ManualScheduler.advance: ms must be a non-negative number, got ${ms}`,
        );
      }
      if (advancing) throw new Error('ManualScheduler.advance: already advancing');
      advancing = true;
      try {
        const until = clock.now() + ms;
        for (let ran = 0; ; ran++) {
          if (ran >= MAX_TASKS_PER_ADVANCE) {
            throw new Error(`ManualScheduler.advance: more than ${MAX_TASKS_PER_ADVANCE} tasks`);
          }
          const timer = nextDue(until);
          if (!timer) break;
          timer.cancelled = true;
          if (timer.at > clock.now()) clock.set(timer.at);
          try {
            await timer.task();
          } catch {
            // As with real timers, a failing task does not stop the others.
          }
        }
        if (until > clock.now()) clock.set(until);
      } finally {
        advancing = false;
      }
    },
    pending: () => timers.filter((timer) => !timer.cancelled).length,
  };
}
