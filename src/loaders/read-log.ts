import type { ReplicaRead } from '../replica/types.js';
import type { RestCacheRead } from './rest-cache.js';

/** A plan replica an answer read, and which version of it. */
export interface ReplicaDependency {
  /** The id or alias the operation asked for (`last-used` is read again as `last-used`). */
  readonly requested: string;
  /** The plan it resolved to. */
  readonly planId: string;
  readonly version: string;
  /** Answers naming `current` follow the replica's clock into the next month. */
  readonly currentMonth: string;
}

/** A short-lived REST answer an answer read (user, plan list, money movements). */
export interface RestDependency {
  readonly key: string;
  readonly value: unknown;
}

export interface Dependencies {
  readonly replicas: readonly ReplicaDependency[];
  readonly rest: readonly RestDependency[];
}

/**
 * What one operation read, for HTTP caching: an answer is determined by the token, the document,
 * the variables and these dependencies. Read-only for resolvers; the gateway's loaders feed it.
 */
export interface ReadLog {
  replica(requested: string, read: ReplicaRead): void;
  rest<T>(key: string, read: RestCacheRead<T>): void;
  /** The answer depends on something that has no version (the rate limit counter). */
  volatile(): void;
  /** Null when the answer cannot be revalidated: volatile, or partly served stale. */
  dependencies(): Dependencies | null;
}

export function createReadLog(): ReadLog {
  const replicas = new Map<string, ReplicaDependency>();
  const rest = new Map<string, RestDependency>();
  let validatable = true;
  return {
    replica(requested, read) {
      if (read.stale) validatable = false;
      replicas.set(requested, {
        requested,
        planId: read.snapshot.planId,
        version: read.version,
        currentMonth: read.snapshot.currentMonth(),
      });
    },
    rest(key, read) {
      if (read.stale) validatable = false;
      rest.set(key, { key, value: read.value });
    },
    volatile() {
      validatable = false;
    },
    dependencies: () =>
      validatable ? { replicas: [...replicas.values()], rest: [...rest.values()] } : null,
  };
}
