/**
 * The tier's bookkeeping in this process: relays of one replica apply one after another, and
 * flights wait for the next relay of a replica (woken by it, or when their time is up).
 */
import { createSystemScheduler, type Scheduler } from '../time/scheduler.js';

/** Tasks run one after another per replica (relays apply in order); failures go to `onError`. */
export class ReplicaQueues {
  private readonly _chains = new Map<string, Promise<void>>();

  constructor(private readonly _onError: (error: unknown) => void) {}

  /** Runs `task` after every earlier task of the same replica. */
  enqueue(rid: string, task: () => Promise<void>): void {
    const previous = this._chains.get(rid) ?? Promise.resolve();
    const next = previous.then(task).catch(this._onError);
    this._chains.set(rid, next);
    void next.then(() => {
      if (this._chains.get(rid) === next) this._chains.delete(rid);
    });
  }
}

/** Flights waiting for the next delta of a replica, each until it arrives or its time is up. */
export class RelayWaiters {
  private readonly _waiting = new Map<string, Set<() => void>>();

  /** @param _scheduler the timers of the waits. @default real timers */
  constructor(private readonly _scheduler: Scheduler = createSystemScheduler()) {}

  /** Resolves when `wake(rid)` is called, after `ms`, or on `signal`'s abort. */
  next(rid: string, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        timer.cancel();
        signal?.removeEventListener('abort', done);
        this._waiting.get(rid)?.delete(done);
        resolve();
      };
      const timer = this._scheduler.setTimeout(done, Math.max(1, ms));
      signal?.addEventListener('abort', done, { once: true });
      let set = this._waiting.get(rid);
      if (!set) {
        set = new Set();
        this._waiting.set(rid, set);
      }
      set.add(done);
    });
  }

  /** Flights waiting. */
  get size(): number {
    let waiting = 0;
    for (const set of this._waiting.values()) waiting += set.size;
    return waiting;
  }

  /** A delta of `rid` arrived: every flight waiting for one goes on. */
  wake(rid: string): void {
    const set = this._waiting.get(rid);
    if (!set) return;
    this._waiting.delete(rid);
    for (const resolve of set) resolve();
  }

  wakeAll(): void {
    for (const rid of [...this._waiting.keys()]) this.wake(rid);
  }
}
