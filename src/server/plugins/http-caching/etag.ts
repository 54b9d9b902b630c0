/**
 * The validator of an answer: its strong ETag, a SHA-256 of its fingerprint and the version of
 * every replica (and the value of every REST answer) it read, and how a request's `If-None-Match`
 * is compared with it. `createRevalidation` remembers, per fingerprint, which replicas an answer
 * read, so that the ETag of a repeated operation is recomputed from them without executing it:
 * re-read under the request's freshness (no upstream call within max-age, one delta past it).
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Dependencies, ReplicaDependency } from '../../../loaders/read-log.js';
import type { OperationMeter } from '../../../operation/meter.js';
import type { ReplicaRead, ReplicaStore } from '../../../replica/types.js';
import type { FreshnessOf, HeadersOf } from '../../freshness.js';
import { byCodeUnits, type Named, sha256 } from './fingerprint.js';

/**
 * Browsers may keep an answer but must ask before reusing it: a write through the gateway changes
 * the next answer at once (read-your-writes), so no age is safe to promise. Revalidation within
 * max-age costs no upstream call. `private`: answers are per token.
 */
export const CACHE_CONTROL = 'private, no-cache';
/** What else an answer depends on besides its URL. */
export const VARY = ['Authorization', 'Accept'];

/** What a remembered answer read, by the plan ids and aliases it asked for. */
interface Remembered {
  readonly plans: readonly string[];
  /** False when it also read REST answers outside the replica: those need the execution. */
  readonly replayable: boolean;
  /**
   * The ETag last computed from the replicas' state (a pure function of the fingerprint and
   * these dependencies): a replay of unchanged replicas compares them instead of hashing again.
   */
  last?: { readonly dependencies: readonly ReplicaDependency[]; readonly etag: string };
}

export interface Revalidation {
  /**
   * Remembers what the answer of `fingerprint` read; its ETag, and whether it can be revalidated
   * (and replayed) without executing: only when it read nothing but replicas.
   */
  remember(fingerprint: string, dependencies: Dependencies): { etag: string; replayable: boolean };
  /**
   * The current ETag of a remembered answer, from the replicas it read, and their ages; null when
   * none is remembered, it read REST answers too, the request has no credentials, or a replica
   * cannot be read fresh (stale, or failing). Without a promise when every replica is within
   * the request's max-age (`ReplicaStore.readFresh`).
   */
  current(
    request: HeadersOf,
    name: Named,
    meter?: OperationMeter,
  ): CurrentTag | null | Promise<CurrentTag | null>;
}

/** The current ETag of a remembered answer, and the ages of the replicas it was read from. */
export interface CurrentTag {
  readonly etag: string;
  readonly ages: number[];
}

export function createRevalidation({
  replicas,
  freshnessOf,
  maxEntries,
}: {
  replicas: Pick<ReplicaStore, 'read' | 'readFresh'>;
  freshnessOf: FreshnessOf;
  maxEntries: number;
}): Revalidation {
  const remembered = new LRUCache<string, Remembered>({ max: maxEntries });
  return {
    remember(fingerprint, dependencies) {
      const etag = etagOf(fingerprint, dependencies);
      const replayable = dependencies.rest.length === 0;
      remembered.set(fingerprint, {
        plans: dependencies.replicas.map((dependency) => dependency.requested),
        replayable,
      });
      return { etag, replayable };
    },
    current(request, { fingerprint, credentials }, meter) {
      const entry = remembered.get(fingerprint);
      if (!entry?.replayable || !credentials) return null;
      const freshness = freshnessOf(request);
      const { token, tokenKey } = credentials;
      const found: Found = { dependencies: [], ages: [] };
      // Replicas within max-age answer at once: no promise while every one of them does.
      if (replicas.readFresh) {
        for (const planId of entry.plans) {
          let read: ReplicaRead | undefined;
          try {
            read = replicas.readFresh({ token, tokenKey, planId, freshness });
          } catch {
            return null;
          }
          if (read === undefined) break;
          if (read.stale) return null;
          note(found, planId, read);
        }
        if (found.ages.length === entry.plans.length) return tagOf(entry, fingerprint, found);
      }
      return readTheRest(entry, fingerprint, found, async (planId) =>
        replicas.read(
          meter
            ? { token, tokenKey, planId, freshness, meter }
            : { token, tokenKey, planId, freshness },
        ),
      );
    },
  };
}

/** Private: what the reads of a revalidation found so far, plan by plan. */
interface Found {
  readonly dependencies: ReplicaDependency[];
  readonly ages: number[];
}

function note(found: Found, planId: string, read: ReplicaRead): void {
  found.ages.push(read.ageMs);
  found.dependencies.push({
    requested: planId,
    planId: read.snapshot.planId,
    version: read.version,
    currentMonth: read.snapshot.currentMonth(),
  });
}

/**
 * Private: the plans not read yet (past the first that was not fresh), each through `read` (no
 * call within max-age, one delta past it); null when one cannot be read fresh.
 */
async function readTheRest(
  entry: Remembered,
  fingerprint: string,
  found: Found,
  read: (planId: string) => Promise<ReplicaRead>,
): Promise<CurrentTag | null> {
  for (const planId of entry.plans.slice(found.ages.length)) {
    let answer: ReplicaRead;
    try {
      answer = await read(planId);
    } catch {
      return null;
    }
    if (answer.stale) return null;
    note(found, planId, answer);
  }
  return tagOf(entry, fingerprint, found);
}

/** Private: the ETag of what was found: the last one again when every replica is as it was. */
function tagOf(entry: Remembered, fingerprint: string, { dependencies, ages }: Found): CurrentTag {
  if (entry.last && sameDependencies(entry.last.dependencies, dependencies))
    return { etag: entry.last.etag, ages };
  const etag = etagOf(fingerprint, { replicas: dependencies, rest: [] });
  entry.last = { dependencies, etag };
  return { etag, ages };
}

/** Private: whether two reads of the same plans found every replica in the same state. */
function sameDependencies(
  a: readonly ReplicaDependency[],
  b: readonly ReplicaDependency[],
): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) {
    const d = a[i]!;
    const e = b[i]!;
    if (
      d.requested !== e.requested ||
      d.planId !== e.planId ||
      d.version !== e.version ||
      d.currentMonth !== e.currentMonth
    )
      return false;
  }
  return true;
}

/** Private: the strong validator of an answer with these dependencies. */
function etagOf(fingerprint: string, { replicas, rest }: Dependencies): string {
  const plans = [...replicas]
    .sort((a, b) => byCodeUnits(a.requested, b.requested))
    .map((d) => [d.requested, d.planId, d.version, d.currentMonth]);
  const answers = [...rest]
    .sort((a, b) => byCodeUnits(a.key, b.key))
    .map((d) => [d.key, sha256(JSON.stringify(d.value) ?? '')]);
  return `"${createHash('sha256')
    .update(JSON.stringify([fingerprint, plans, answers]))
    .digest('base64url')}"`;
}

/**
 * Private: `If-None-Match` uses the weak comparison (RFC 9110 §13.1.2). A tag of a compressed
 * copy (`"…-gzip"`) validates the same answer: the client holds that answer, however encoded.
 */
export function matches(header: string, etag: string): boolean {
  return header
    .split(',')
    .map((tag) =>
      tag
        .trim()
        .replace(/^W\//, '')
        .replace(/-(?:gzip|br|deflate)"$/, '"'),
    )
    .some((tag) => tag === '*' || tag === etag);
}

/** Lower-case names, so later plugins' `set` replaces them (see `addVary`); `Vary` goes there. */
export function headersFor(etag: string): Record<string, string> {
  return { etag, 'cache-control': CACHE_CONTROL };
}
