/**
 * Fair sharing of the upstream connections between tokens.
 *
 * Why: the client's pool has a few connections (10) for every tenant of the gateway, and
 * undici queues requests first come, first served. One tenant whose requests hang upstream
 * (or who simply sends many) would hold every connection, and everyone else's reads and writes
 * would wait behind it until its requests time out. So each request takes a slot before it is
 * sent and gives it back once its answer is read: there are as many slots as connections, a
 * token holds at most `perKey` of them, and when a slot frees up, tokens with requests waiting
 * take turns (round robin), so a token with one request waiting goes before the tenth request
 * of a busy one.
 */

export interface FairShareOptions {
  /** Slots in all: the pool's connections. */
  slots: number;
  /** Most slots one key holds at once. */
  perKey: number;
}

/** Gives the slot back; calling it again does nothing. */
export type Release = () => void;

export interface FairShare {
  /**
   * A slot for `key`, at once when one is free and `key` holds fewer than its share, else when
   * its turn comes; rejects with `signal.reason` if `signal` aborts first.
   */
  acquire(key: string, signal?: AbortSignal): Promise<Release>;
  /** Slots in use and requests waiting, for tests and diagnostics. */
  stats(): { inUse: number; waiting: number };
}

interface Waiter {
  grant(release: Release): void;
}

export function createFairShare({ slots, perKey }: FairShareOptions): FairShare {
  if (!Number.isSafeInteger(slots) || slots <= 0)
    throw new RangeError(`createFairShare: slots must be a positive integer, got ${slots}`);
  if (!Number.isSafeInteger(perKey) || perKey <= 0)
    throw new RangeError(`createFairShare: perKey must be a positive integer, got ${perKey}`);
  let inUse = 0;
  const held = new Map<string, number>();
  /** Keys with requests waiting, in turn order; each key's waiters in arrival order. */
  const waiting = new Map<string, Waiter[]>();

  function take(key: string): Release {
    inUse += 1;
    held.set(key, (held.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      inUse -= 1;
      const left = (held.get(key) ?? 1) - 1;
      if (left > 0) held.set(key, left);
      else held.delete(key);
      dispatch();
    };
  }

  // Private: hands free slots to waiting keys in turn; a key served goes to the back.
  function dispatch(): void {
    let passes = waiting.size;
    while (inUse < slots && passes > 0) {
      const next = waiting.entries().next();
      if (next.done) return;
      const [key, queue] = next.value;
      waiting.delete(key);
      if ((held.get(key) ?? 0) < perKey) {
        const waiter = queue.shift()!;
        waiter.grant(take(key));
        passes = waiting.size + (queue.length > 0 ? 1 : 0);
      } else {
        passes -= 1;
      }
      if (queue.length > 0) waiting.set(key, queue);
    }
  }

  return {
    acquire(key, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (inUse < slots && (held.get(key) ?? 0) < perKey && !waiting.has(key))
        return Promise.resolve(take(key));
      return new Promise<Release>((resolve, reject) => {
        const waiter: Waiter = {
          grant(release) {
            signal?.removeEventListener('abort', onAbort);
            resolve(release);
          },
        };
        const onAbort = () => {
          const queue = waiting.get(key);
          const at = queue?.indexOf(waiter) ?? -1;
          if (queue && at >= 0) {
            queue.splice(at, 1);
            if (queue.length === 0) waiting.delete(key);
          }
          reject(signal?.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        const queue = waiting.get(key);
        if (queue) queue.push(waiter);
        else waiting.set(key, [waiter]);
        dispatch();
      });
    },
    stats: () => ({
      inUse,
      waiting: [...waiting.values()].reduce((sum, queue) => sum + queue.length, 0),
    }),
  };
}
