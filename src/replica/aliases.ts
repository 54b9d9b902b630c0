/**
 * Alias resolution: which plan a requested id (`last-used`, `default`, or any id the upstream
 * answered under another id) pointed to, per token key, and when that was last checked. Only ids
 * that differ from their plan's are kept; each is forgotten with the replica it points to.
 */
import { PLAN_ALIASES } from '@plans-gateway/rest-contract';
import { type ReplicaCache, type ReplicaEntry, replicaKey } from './cache.js';

export interface Resolution {
  readonly planId: string;
  readonly checkedAt: number;
}

/** The replica a requested id points at, as `lookupReplica` finds it. */
export interface HeldReplica {
  readonly resolution: Resolution | undefined;
  /** The concrete plan id; undefined for an alias not resolved yet. */
  readonly planId: string | undefined;
  /** The replica's cache key, when the plan id is known. */
  readonly key: string | undefined;
  readonly entry: ReplicaEntry | undefined;
}

export class AliasTable {
  /** Requested-id key → the plan it resolved to. */
  private readonly _resolutions = new Map<string, Resolution>();
  /** Replica key → the requested-id keys resolving to it, to forget them with the replica. */
  private readonly _resolvedFrom = new Map<string, Set<string>>();

  get(tokenKey: string, requested: string): Resolution | undefined {
    return this._resolutions.get(replicaKey(tokenKey, requested));
  }

  /** The plan id `requested` names: its resolution's, else itself unless it is an alias. */
  planIdOf(tokenKey: string, requested: string): string | undefined {
    const resolution = this.get(tokenKey, requested);
    return resolution?.planId ?? (PLAN_ALIASES.has(requested) ? undefined : requested);
  }

  remember(tokenKey: string, requested: string, planId: string, checkedAt: number): void {
    const from = replicaKey(tokenKey, requested);
    const previous = this._resolutions.get(from);
    if (previous) this._resolvedFrom.get(replicaKey(tokenKey, previous.planId))?.delete(from);
    const to = replicaKey(tokenKey, planId);
    this._resolutions.set(from, { planId, checkedAt });
    let set = this._resolvedFrom.get(to);
    if (!set) {
      set = new Set();
      this._resolvedFrom.set(to, set);
    }
    set.add(from);
  }

  /** Forgets one requested id's resolution (its plan failed for good). */
  forget(tokenKey: string, requested: string): void {
    this._resolutions.delete(replicaKey(tokenKey, requested));
  }

  /** Forgets every requested id resolving to the replica of `key` (it left the cache). */
  forgetReplica(key: string): void {
    for (const from of this._resolvedFrom.get(key) ?? []) this._resolutions.delete(from);
    this._resolvedFrom.delete(key);
  }

  /** Forgets every resolution of a token. */
  forgetToken(tokenKey: string): void {
    const prefix = replicaKey(tokenKey, '');
    for (const key of [...this._resolutions.keys()]) {
      if (key.startsWith(prefix)) this._resolutions.delete(key);
    }
  }

  clear(): void {
    this._resolutions.clear();
    this._resolvedFrom.clear();
  }
}

/** The replica a requested id currently points at, without touching recency. */
export function lookupReplica(
  aliases: AliasTable,
  cache: Pick<ReplicaCache, 'peek'>,
  tokenKey: string,
  requested: string,
): HeldReplica {
  const resolution = aliases.get(tokenKey, requested);
  // As `planIdOf`, from the resolution just read (every replay reads through here).
  const planId = resolution?.planId ?? (PLAN_ALIASES.has(requested) ? undefined : requested);
  const key = planId === undefined ? undefined : replicaKey(tokenKey, planId);
  return { resolution, planId, key, entry: key === undefined ? undefined : cache.peek(key) };
}
