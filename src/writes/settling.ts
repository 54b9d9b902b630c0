/**
 * The delta syncs that follow writes, while they run. A mutation answers as soon as its write
 * is answered when its selection needs nothing the delta brings (see pipeline.ts); the delta then
 * settles the replica (balances, activity, month totals, the other side of a transfer) without
 * holding the answer. Until it has, a later operation of the same token that reads a plan waits
 * for it, so what a client reads after a mutation's answer shows every effect of the write
 * (read-your-writes), as when the mutation waited itself. By token rather than by plan: a read
 * through an alias (`last-used`) names the plan only once it is read, and writes are rare.
 */
export interface Settling {
  /** Plan reads of this token wait for `done` (which never rejects) from now on. */
  add(tokenKey: string, done: Promise<unknown>): void;
  /** What a plan read of this token must wait for first; undefined when nothing is settling. */
  wait(tokenKey: string): Promise<void> | undefined;
  /** Resolves once every delta started so far has settled. */
  idle(): Promise<void>;
}

export function createSettling(): Settling {
  const settling = new Map<string, Promise<void>>();
  return {
    add(tokenKey, done) {
      const before = settling.get(tokenKey);
      const all: Promise<void> = Promise.all([before, done]).then(() => {
        if (settling.get(tokenKey) === all) settling.delete(tokenKey);
      });
      settling.set(tokenKey, all);
    },
    wait: (tokenKey) => settling.get(tokenKey),
    idle: () => Promise.all(settling.values()).then(() => undefined),
  };
}
