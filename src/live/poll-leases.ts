/**
 * Who polls a (token, plan). In one process the answer is always "this instance": the hub
 * already runs one poller per (token, plan). Across instances a shared implementation (a Redis
 * key set with NX and a TTL, renewed by each poll) lets one poller run in the whole cluster; the
 * others skip their turn and receive the changes through the bus.
 */
export interface PollLeases {
  /**
   * Takes or renews the right to poll `key` for `ttlMs`; false when another holder has it. A
   * holder that dies stops renewing, and the lease passes on once its TTL runs out.
   */
  acquire(key: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up early (the last subscriber left). */
  release(key: string): Promise<void>;
}

/** The single-process leases: every request is granted. */
export function createLocalLeases(): PollLeases {
  return {
    acquire: async () => true,
    release: async () => {},
  };
}
