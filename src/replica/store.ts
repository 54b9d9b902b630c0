/**
 * `createReplicaStore(options)`: per-token plan replicas kept fresh with delta requests.
 *
 * Keys are (tokenKey, resolved plan id); the raw token only travels to `fetchPlan`, so one
 * token's replica can never answer another token, not even through an alias. A read costs no
 * call within max-age, one delta request past it, a full export when cold or evicted.
 *
 * Plan aliases (`last-used`, `default`, or any id the upstream answers under another id) are
 * remembered per token key with the time they were last checked; they count as fresh only as
 * long as the replica does. Refreshing an alias sends the delta request to the alias with the
 * knowledge of the plan it pointed to; if the answer is another plan, the alias moved, the
 * answer is useless as a delta (it is relative to the old plan's knowledge), and the new plan is
 * loaded instead (by delta when this token already holds it, else in full).
 *
 * Merging, writes and ordering. Three things can change a replica while requests are in flight:
 * syncs of the same plan through different names (an alias and the concrete id), writes the
 * gateway applies at once (read-your-writes), and the eviction of the replica. The rules:
 *
 * 1. Monotonic knowledge: an answer whose `server_knowledge` is lower than the replica's is
 *    older than what the replica holds; it is dropped (the replica counts as synced at its
 *    request time, since it is at least that new). A delta asked from knowledge K ≤ the
 *    replica's and answered at K' ≥ the replica's covers every change in between, so merging
 *    it is exact however the two syncs interleaved.
 * 2. A write applied before a sync request was sent is reflected in that sync's answer (the
 *    upstream had already answered the write), so the answer wins and the write is forgotten.
 * 3. A write applied while a sync was in flight may or may not be in its answer. If the write's
 *    response carried `server_knowledge` Kw, the answer's K' says which: K' ≥ Kw includes the
 *    write (the answer wins); otherwise the answer predates it, so the write is re-applied on
 *    top and stays pending, and the next delta (asked from K' < Kw) brings it back. Without Kw
 *    (account and scheduled transaction writes do not return one) the write is re-applied and
 *    the next delta is asked from the older knowledge this one was asked from (a full export:
 *    from 0), which costs no extra request and is certain to carry the entity again.
 * 4. A delta that would land on a replica evicted meanwhile has nothing to merge into: the plan
 *    is loaded in full instead. A `clear()` during a flight discards its answer (its readers
 *    still get it).
 * 5. Knowledge going backwards. Rule 1 trusts the upstream's knowledge to only grow; one
 *    inflated answer (17 → 1017) or a restore from backup breaks that, and the replica would
 *    drop every later answer as older. So an answer is taken as proof that the knowledge went
 *    back when it is lower than the knowledge the delta was asked from, or lower than the
 *    replica's and its request was sent after the replica's data was stored (a request sent
 *    later must see at least as much). Then the replica is suspect (no read takes it as fresh;
 *    it answers only as stale while the upstream fails) and the plan is loaded in full at
 *    once, in the same flight, replacing the replica whatever its knowledge. (A restore
 *    followed by enough writes to pass the replica's knowledge before the next sync cannot be
 *    told from ordinary progress; nothing in the protocol shows it.)
 * 6. Relayed answers (a cluster of gateways, see src/cluster): `fetchPlan` may hand back the
 *    answer to a request another instance sent (`sentAt`, `relayed`), and `applyRelayed` stores
 *    one no reader asked for. An answer sent before this instance's flight cannot vouch for a
 *    write applied here meanwhile: only its knowledge can (rule 3 without the epoch). Ages count
 *    from its own `sentAt`. A relayed answer at the knowledge the replica already has brings
 *    nothing new and is not merged again; one lower than the replica's is older, never a sign of
 *    knowledge going back (rule 5 judges this instance's own requests only).
 *
 * Failures: when `classifyFailure` names a reason (rate limited, upstream error or down) and a
 * replica is held, the read is answered from it with `stale: { reason, error }` and its age.
 * Anything else (401, 403, 404, a malformed body...) is rethrown untouched, and the replica of
 * that key is dropped, so a revoked token or a deleted plan stops being served. `forgetToken`
 * drops every replica and alias of a token the upstream refused (any request's 401), and keeps
 * syncs already in flight for it from storing their answers.
 */
import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { PLAN_ALIASES } from '../ids.js';
import type { IsoDate, ResponseData } from '../upstream/types.js';
import {
  createReplicaCache,
  type PendingWrite,
  type ReplicaEntry,
  replicaKey,
  sizeAfterChange,
  sizeOfFull,
} from './cache.js';
import { buildPlanState, mergePlanDelta } from './delta.js';
import { monthOf, type PlanState } from './plan-state.js';
import { applySavedEntities } from './saved.js';
import { createPlanSnapshot } from './snapshot.js';
import { abortable, createSingleFlight } from './sync.js';
import type { QueryMeter } from './transaction-query.js';
import type {
  PlanSnapshot,
  ReplicaRead,
  ReplicaReadRequest,
  ReplicaStore,
  SavedEntities,
  StaleReason,
} from './types.js';
import { assertPlanExport, ReplicaDataError } from './validate.js';

export interface FetchPlanRequest {
  readonly token: string;
  readonly tokenKey: string;
  /** A concrete id or an alias, as the caller named the plan. */
  readonly planId: string;
  /** Present for a delta request; absent for a full export. */
  readonly lastKnowledgeOfServer?: number;
  readonly signal?: AbortSignal;
  /** The `meter` of the read that started this sync, as it gave it. */
  readonly meter?: unknown;
  /**
   * Epoch ms: an answer to any upstream request sent at or after this time satisfies every
   * reader of this sync, so a cluster may hand back another instance's answer instead of calling.
   */
  readonly notSentBefore: number;
}

export interface FetchPlanResult {
  readonly data: ResponseData['getPlanById'];
  /** Size of the response body in bytes; feeds the memory estimate. */
  readonly bytes: number;
  /** When the request that produced `data` was sent, if before this sync (another instance's). */
  readonly sentAt?: number;
  /** The answer came from another gateway instance (see rule 6). */
  readonly relayed?: boolean;
}

/** What changed a replica: a sync's answer, or the entities of a write applied at once. */
export type ReplicaChangeSource =
  | {
      readonly kind: 'full' | 'delta';
      readonly data: ResponseData['getPlanById'];
      /** The knowledge a delta was asked from (what it covers starts after it). */
      readonly fromKnowledge?: number;
    }
  | { readonly kind: 'write'; readonly saved: SavedEntities };

/** One change stored in a replica, as `onApplied` observers receive it. */
export interface AppliedChange {
  readonly tokenKey: string;
  /** The concrete plan id. */
  readonly planId: string;
  readonly source: ReplicaChangeSource;
  /** The replica before the change, when one was held. */
  readonly previous?: PlanSnapshot;
  readonly snapshot: PlanSnapshot;
  /** Another gateway instance fetched it (rule 6): this one must not relay it again. */
  readonly relayed?: boolean;
}

export interface ReplicaStoreOptions {
  /** `GET /plans/{planId}` with `last_knowledge_of_server` when given (the getPlanById call). */
  fetchPlan: (request: FetchPlanRequest) => Promise<FetchPlanResult>;
  /**
   * Whether a failed fetch may be answered from an existing replica: a reason for 429, 5xx,
   * network errors and timeouts; null for anything else (never served stale).
   */
  classifyFailure: (error: unknown) => StaleReason | null;
  /**
   * Budget of estimated heap bytes across all replicas of all tokens.
   * @default 268435456 (256 MiB)
   */
  maxBytes?: number;
  /** Clock in epoch milliseconds. @default Date.now */
  now?: () => number;
  /** Counts rows visited by `transactions()` on every snapshot; for tests and diagnostics. */
  meter?: QueryMeter;
  /**
   * Observer of every change stored (live updates publish from it). Called synchronously after
   * the store; a throwing observer never fails the read or write that caused the change.
   * @default none
   */
  onApplied?: (change: AppliedChange) => void;
}

export const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;
/** Pending writes kept per replica between syncs; the oldest go first beyond this. */
const MAX_PENDING_WRITES = 1000;

type SyncKind = 'delta' | 'full';
type Outcome =
  | { readonly ok: true; readonly entry: ReplicaEntry; readonly kind: SyncKind }
  | {
      readonly ok: false;
      readonly error: unknown;
      readonly reason: StaleReason | null;
      readonly kind: SyncKind;
    };

interface Resolution {
  readonly planId: string;
  readonly checkedAt: number;
}

export function createReplicaStore(options: ReplicaStoreOptions): ReplicaStore {
  const {
    fetchPlan,
    classifyFailure,
    maxBytes = DEFAULT_MAX_BYTES,
    now = Date.now,
    meter,
    onApplied,
  } = options;
  if (typeof fetchPlan !== 'function')
    throw new TypeError('ReplicaStoreOptions.fetchPlan must be a function');
  if (typeof classifyFailure !== 'function') {
    throw new TypeError('ReplicaStoreOptions.classifyFailure must be a function');
  }
  if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) {
    throw new RangeError(
      `ReplicaStoreOptions.maxBytes must be a positive integer, got ${String(maxBytes)}`,
    );
  }

  /** Requested-id key → the plan it resolved to; only for ids that differ from their plan's. */
  const resolutions = new Map<string, Resolution>();
  /** Replica key → the requested-id keys resolving to it, to forget them with the replica. */
  const resolvedFrom = new Map<string, Set<string>>();
  /** Writes applied while no replica was held but a sync of that token was in flight. */
  const orphanWrites = new Map<string, Map<string, PendingWrite[]>>();
  const activeFlights = new Map<string, number>();
  const flights = createSingleFlight<Outcome>(now);
  let writeEpoch = 0;
  /** Write epochs restart with the process; this keeps versions naming them from repeating. */
  const instance = randomUUID().slice(0, 8);
  let generation = 0;
  /** Counts syncs as they start; `forgotten` compares with it. */
  let syncSequence = 0;
  /** Token key → `syncSequence` when its replicas were forgotten (after a 401). */
  const forgotten = new LRUCache<string, number>({ max: 10_000 });
  // One controller per flight, not one signal shared by all: every request listens on its
  // signal, and twenty hung syncs on one signal would trip MaxListenersExceededWarning.
  const inFlight = new Set<AbortController>();

  const cache = createReplicaCache({
    maxBytes,
    onRemove: (key) => forgetResolutionsOf(key),
  });

  function forgetResolutionsOf(key: string): void {
    for (const from of resolvedFrom.get(key) ?? []) resolutions.delete(from);
    resolvedFrom.delete(key);
  }

  function remember(tokenKey: string, requested: string, planId: string, checkedAt: number): void {
    const from = replicaKey(tokenKey, requested);
    const previous = resolutions.get(from);
    if (previous) resolvedFrom.get(replicaKey(tokenKey, previous.planId))?.delete(from);
    const to = replicaKey(tokenKey, planId);
    resolutions.set(from, { planId, checkedAt });
    let set = resolvedFrom.get(to);
    if (!set) {
      set = new Set();
      resolvedFrom.set(to, set);
    }
    set.add(from);
  }

  /** Private: the replica a requested id currently points at, without touching recency. */
  function lookup(tokenKey: string, requested: string) {
    const resolution = resolutions.get(replicaKey(tokenKey, requested));
    const planId = resolution?.planId ?? (PLAN_ALIASES.has(requested) ? undefined : requested);
    const key = planId === undefined ? undefined : replicaKey(tokenKey, planId);
    return { resolution, planId, key, entry: key === undefined ? undefined : cache.peek(key) };
  }

  function makeEntry(
    planId: string,
    state: PlanState,
    fields: Omit<ReplicaEntry, 'planId' | 'state' | 'snapshot'>,
  ): ReplicaEntry {
    return { planId, state, snapshot: createPlanSnapshot(state, { now, meter }), ...fields };
  }

  function takeOrphanWrites(tokenKey: string, planId: string): PendingWrite[] {
    const byPlan = orphanWrites.get(tokenKey);
    const writes = byPlan?.get(planId) ?? [];
    byPlan?.delete(planId);
    return writes;
  }

  /** Private: tells the observer; its failures stay its own. */
  function notify(change: AppliedChange): void {
    try {
      onApplied?.(change);
    } catch {
      // An observer must never turn a stored change into a failed read or write.
    }
  }

  /** Private: stores a sync's answer under the rules of the header comment; returns the entry. */
  function commit(
    tokenKey: string,
    result: FetchPlanResult,
    kind: SyncKind,
    requestKnowledge: number | undefined,
    sentAt: number,
    epochAtSend: number,
    mayStore: () => boolean,
    replace: boolean,
  ): ReplicaEntry {
    const data = result.data;
    const planId = data.plan.id;
    const key = replicaKey(tokenKey, planId);
    const current = cache.peek(key);
    const currentMonth: IsoDate = monthOf(now());
    const pending = [...(current?.pending ?? []), ...takeOrphanWrites(tokenKey, planId)];
    const relayed = result.relayed === true;

    if (
      !replace &&
      current &&
      (data.server_knowledge < current.state.serverKnowledge ||
        (relayed && data.server_knowledge === current.state.serverKnowledge))
    ) {
      const kept = { ...current, syncedAt: Math.max(current.syncedAt, sentAt) };
      if (mayStore()) cache.set(key, kept);
      return kept;
    }

    let state =
      kind === 'full' || !current
        ? buildPlanState(data, { currentMonth })
        : mergePlanDelta(current.state, data, { currentMonth });
    const survivors = pending.filter(
      (write) =>
        write.epoch > epochAtSend &&
        !(write.knowledge !== undefined && data.server_knowledge >= write.knowledge),
    );
    for (const write of survivors) state = applySavedEntities(state, write.saved, { currentMonth });
    const unsure = survivors.some((write) => write.knowledge === undefined);
    const nextKnowledge = unsure
      ? Math.min(requestKnowledge ?? 0, data.server_knowledge)
      : data.server_knowledge;
    const size =
      kind === 'full' || !current
        ? sizeOfFull(state, result.bytes)
        : sizeAfterChange(current, state);
    // A sync sent before an `expire` cannot vouch for what happened after it.
    const stillExpired =
      current?.expiredAtEpoch !== undefined && epochAtSend < current.expiredAtEpoch
        ? { expiredAtEpoch: current.expiredAtEpoch }
        : {};
    const entry = makeEntry(planId, state, {
      ...stillExpired,
      // Only a full load in the same flight clears it (see knowledgeWentBack).
      ...(current?.suspect && !replace ? { suspect: true } : {}),
      committedSequence: syncSequence,
      syncedAt: replace ? sentAt : Math.max(current?.syncedAt ?? sentAt, sentAt),
      nextKnowledge,
      pending: survivors,
      ...size,
    });
    if (mayStore() && cache.set(key, entry)) {
      notify({
        tokenKey,
        planId,
        source: {
          kind: kind === 'full' || !current ? 'full' : 'delta',
          data,
          ...(requestKnowledge === undefined ? {} : { fromKnowledge: requestKnowledge }),
        },
        ...(current ? { previous: current.snapshot } : {}),
        snapshot: entry.snapshot,
        ...(relayed ? { relayed } : {}),
      });
    }
    return entry;
  }

  /**
   * Private: whether an answer shows the upstream's knowledge going backwards (rule 5 of the
   * header comment). If so, the held replica is marked suspect at once: until a full load
   * replaces it, it answers no read as fresh, only as stale when a sync fails.
   */
  function knowledgeWentBack(
    tokenKey: string,
    planId: string,
    result: FetchPlanResult,
    kind: SyncKind,
    requestKnowledge: number | undefined,
    sequence: number,
  ): boolean {
    const key = replicaKey(tokenKey, planId);
    const held = cache.peek(key);
    const answered = result.data.server_knowledge;
    const wentBack =
      (kind === 'delta' && requestKnowledge !== undefined && answered < requestKnowledge) ||
      (held !== undefined &&
        answered < held.state.serverKnowledge &&
        sequence > held.committedSequence);
    if (wentBack && held && !held.suspect) cache.set(key, { ...held, suspect: true });
    return wentBack;
  }

  /** Private: one flight: the upstream calls for a requested id, and the commit. */
  async function sync(
    request: ReplicaReadRequest,
    sentAt: number,
    notSentBefore: number,
  ): Promise<Outcome> {
    const { token, tokenKey, planId: requested } = request;
    const epochAtSend = writeEpoch;
    const generationAtSend = generation;
    const sequence = ++syncSequence;
    // A `clear()`, or a 401 for this token, after this flight left: its answer is not kept.
    const mayStore = () =>
      generationAtSend === generation && (forgotten.get(tokenKey) ?? -1) < sequence;
    const controller = new AbortController();
    inFlight.add(controller);
    const signal = controller.signal;
    const base = lookup(tokenKey, requested).entry;
    let kind: SyncKind = base ? 'delta' : 'full';
    activeFlights.set(tokenKey, (activeFlights.get(tokenKey) ?? 0) + 1);
    const fetchFor = async (
      planId: string,
      knowledge: number | undefined,
      notBefore = notSentBefore,
    ): Promise<FetchPlanResult> => {
      const result = await fetchPlan({
        token,
        tokenKey,
        planId,
        ...(knowledge === undefined ? {} : { lastKnowledgeOfServer: knowledge }),
        ...(request.meter === undefined ? {} : { meter: request.meter }),
        signal,
        notSentBefore: notBefore,
      });
      assertPlanExport(result?.data);
      return result;
    };
    try {
      let knowledge = base?.nextKnowledge;
      let result = await fetchFor(requested, knowledge);
      const resolved = result.data.plan.id;
      if (base && resolved !== base.planId) {
        // The alias moved: this answer is relative to another plan's knowledge.
        knowledge = lookup(tokenKey, resolved).entry?.nextKnowledge;
        kind = knowledge === undefined ? 'full' : 'delta';
        result = await fetchFor(resolved, knowledge);
      }
      if (kind === 'delta' && !cache.peek(replicaKey(tokenKey, resolved))) {
        // Evicted while in flight: nothing to merge the delta into.
        kind = 'full';
        knowledge = undefined;
        result = await fetchFor(resolved, undefined);
      }
      if (result.data.plan.id !== resolved) {
        throw new ReplicaDataError('data.plan.id', `the plan id ${resolved}`, result.data.plan.id);
      }
      // Rule 6: another instance's answer may be older than this replica; that is no regression.
      const replace =
        result.relayed !== true &&
        knowledgeWentBack(tokenKey, resolved, result, kind, knowledge, sequence);
      if (replace) {
        kind = 'full';
        knowledge = undefined;
        // From the upstream itself: what other instances hold may be of the old timeline.
        result = await fetchFor(resolved, undefined, Number.POSITIVE_INFINITY);
        if (result.data.plan.id !== resolved) {
          throw new ReplicaDataError(
            'data.plan.id',
            `the plan id ${resolved}`,
            result.data.plan.id,
          );
        }
      }
      // Rule 6: an answer sent before this flight vouches for no write applied since.
      const answeredEarlier = result.sentAt !== undefined && result.sentAt < sentAt;
      const entry = commit(
        tokenKey,
        result,
        kind,
        knowledge,
        answeredEarlier ? (result.sentAt as number) : sentAt,
        answeredEarlier ? -1 : epochAtSend,
        mayStore,
        replace,
      );
      if (requested !== resolved && mayStore() && cache.peek(replicaKey(tokenKey, resolved))) {
        remember(tokenKey, requested, resolved, sentAt);
      }
      return { ok: true, entry, kind };
    } catch (error) {
      const reason = classifyFailure(error);
      if (reason === null && mayStore()) {
        const { key } = lookup(tokenKey, requested);
        if (key !== undefined) cache.delete(key);
        resolutions.delete(replicaKey(tokenKey, requested));
      }
      return { ok: false, error, reason, kind };
    } finally {
      inFlight.delete(controller);
      const left = (activeFlights.get(tokenKey) ?? 1) - 1;
      if (left > 0) activeFlights.set(tokenKey, left);
      else {
        activeFlights.delete(tokenKey);
        orphanWrites.delete(tokenKey);
      }
    }
  }

  function answer(entry: ReplicaEntry, sync: ReplicaRead['sync'], at: number): ReplicaRead {
    return {
      snapshot: entry.snapshot,
      ageMs: Math.max(0, at - entry.syncedAt),
      sync,
      version: versionOf(entry),
    };
  }

  /** Private: knowledge alone unless unconfirmed writes sit on top (epochs are this store's). */
  function versionOf(entry: ReplicaEntry): string {
    const knowledge = String(entry.snapshot.serverKnowledge);
    if (entry.pending.length === 0) return knowledge;
    return `${knowledge}+${instance}.${entry.pending.map((write) => write.epoch).join('.')}`;
  }

  return {
    async read(request) {
      assertReadRequest(request);
      const { tokenKey, planId: requested, signal } = request;
      const maxAge = request.freshness.maxAgeMs;
      const arrival = now();
      const held = lookup(tokenKey, requested);
      const forceSync = request.freshness.forceSync === true;
      const fresh =
        !forceSync &&
        held.entry !== undefined &&
        held.entry.expiredAtEpoch === undefined &&
        !held.entry.suspect &&
        arrival - held.entry.syncedAt <= maxAge &&
        (held.resolution === undefined || arrival - held.resolution.checkedAt <= maxAge);
      if (fresh && held.key !== undefined) {
        const entry = cache.get(held.key) ?? held.entry!;
        return answer(entry, 'none', arrival);
      }

      let outcome: Outcome;
      try {
        signal?.throwIfAborted();
        outcome = await abortable(
          // A forced sync joins no flight already in the air: only its follow-up, sent after it lands.
          flights.run(
            replicaKey(tokenKey, requested),
            forceSync ? Number.POSITIVE_INFINITY : arrival - maxAge,
            // A flight started later than this read (a follow-up, or a forced sync) is shared by
            // readers that need data sent no earlier than its own start.
            (sentAt) =>
              sync(request, sentAt, forceSync || sentAt > arrival ? sentAt : arrival - maxAge),
          ),
          signal,
        );
      } catch (error) {
        // The reader gave up waiting (its deadline): the flight carries on for others, and the
        // reader may answer from what is held, as for a failure of the same class.
        if (!signal?.aborted) throw error;
        const kind: SyncKind = held.entry ? 'delta' : 'full';
        outcome = { ok: false, error: signal.reason, reason: classifyFailure(signal.reason), kind };
      }
      if (outcome.ok) {
        cache.get(replicaKey(tokenKey, outcome.entry.planId));
        return answer(outcome.entry, outcome.kind, now());
      }
      const fallback = outcome.reason === null ? undefined : lookup(tokenKey, requested).entry;
      if (outcome.reason === null || fallback === undefined) throw outcome.error;
      return {
        ...answer(fallback, outcome.kind, now()),
        stale: { reason: outcome.reason, error: outcome.error },
      };
    },

    applySaved(tokenKey, planId, saved) {
      assertKey('tokenKey', tokenKey);
      assertKey('planId', planId);
      if (typeof saved !== 'object' || saved === null) {
        throw new TypeError(`applySaved: saved must be an object, got ${String(saved)}`);
      }
      writeEpoch += 1;
      const knowledge = saved.serverKnowledge;
      if (knowledge !== undefined && (!Number.isSafeInteger(knowledge) || knowledge < 0)) {
        throw new RangeError(
          `SavedEntities.serverKnowledge must be a non-negative integer, got ${String(knowledge)}`,
        );
      }
      const write: PendingWrite = { saved, epoch: writeEpoch, knowledge };
      const held = lookup(tokenKey, planId);
      if (!held.entry || held.key === undefined) {
        // No replica yet; if one is loading, replay the write onto it when it lands.
        if (held.planId !== undefined && activeFlights.has(tokenKey)) {
          let byPlan = orphanWrites.get(tokenKey);
          if (!byPlan) {
            byPlan = new Map();
            orphanWrites.set(tokenKey, byPlan);
          }
          const list = byPlan.get(held.planId) ?? [];
          list.push(write);
          byPlan.set(held.planId, list.slice(-MAX_PENDING_WRITES));
        }
        return undefined;
      }
      const current = held.entry;
      const state = applySavedEntities(current.state, saved, { currentMonth: monthOf(now()) });
      const entry = makeEntry(current.planId, state, {
        ...(current.expiredAtEpoch === undefined ? {} : { expiredAtEpoch: current.expiredAtEpoch }),
        ...(current.suspect ? { suspect: true } : {}),
        committedSequence: current.committedSequence,
        syncedAt: current.syncedAt,
        nextKnowledge: current.nextKnowledge,
        pending: [...current.pending, write].slice(-MAX_PENDING_WRITES),
        ...sizeAfterChange(current, state),
      });
      if (cache.set(held.key, entry)) {
        notify({
          tokenKey,
          planId: current.planId,
          source: { kind: 'write', saved },
          previous: current.snapshot,
          snapshot: entry.snapshot,
        });
      }
      return entry.snapshot;
    },

    peek(tokenKey, planId) {
      const { entry } = lookup(tokenKey, planId);
      return entry ? answer(entry, 'none', now()) : undefined;
    },

    applyRelayed(tokenKey, relayed) {
      assertKey('tokenKey', tokenKey);
      assertPlanExport(relayed?.data);
      const planId = relayed.data.plan.id;
      const key = replicaKey(tokenKey, planId);
      const current = cache.peek(key);
      if (relayed.kind === 'delta') {
        const from = relayed.fromKnowledge;
        if (!current || from === undefined || from > current.state.serverKnowledge) return 'gap';
      }
      // Not for a token forgotten since the last sync started here (a 401 meanwhile).
      const sequence = syncSequence;
      const generationNow = generation;
      const mayStore = () =>
        generationNow === generation && (forgotten.get(tokenKey) ?? -1) < sequence;
      if (!mayStore()) return 'gap';
      const knowledgeBefore = current?.state.serverKnowledge;
      const entry = commit(
        tokenKey,
        { data: relayed.data, bytes: relayed.bytes, sentAt: relayed.sentAt, relayed: true },
        relayed.kind,
        relayed.fromKnowledge,
        relayed.sentAt,
        -1,
        mayStore,
        false,
      );
      if (!cache.peek(key)) return 'gap';
      for (const alias of relayed.aliases ?? []) {
        if (alias !== planId) {
          remember(tokenKey, alias, planId, relayed.aliasCheckedAt ?? relayed.sentAt);
        }
      }
      return knowledgeBefore === undefined || entry.state.serverKnowledge > knowledgeBefore
        ? 'applied'
        : 'kept';
    },

    expire(tokenKey, planId) {
      const { key, entry } = lookup(tokenKey, planId);
      if (key === undefined || entry === undefined) return;
      writeEpoch += 1;
      cache.set(key, { ...entry, expiredAtEpoch: writeEpoch });
    },

    forgetToken(tokenKey) {
      assertKey('tokenKey', tokenKey);
      forgotten.set(tokenKey, syncSequence);
      const prefix = replicaKey(tokenKey, '');
      for (const key of cache.keys()) if (key.startsWith(prefix)) cache.delete(key);
      for (const key of [...resolutions.keys()])
        if (key.startsWith(prefix)) resolutions.delete(key);
      orphanWrites.delete(tokenKey);
    },

    stats: () => cache.stats(),

    clear() {
      generation += 1;
      const reason = new Error('The replica store was cleared');
      for (const controller of inFlight) controller.abort(reason);
      inFlight.clear();
      cache.clear();
      resolutions.clear();
      resolvedFrom.clear();
      orphanWrites.clear();
    },
  };
}

/** Private: rejects a read request the caller got wrong, naming the field. */
function assertReadRequest(request: ReplicaReadRequest): void {
  if (typeof request !== 'object' || request === null) {
    throw new TypeError(`ReplicaReadRequest must be an object, got ${String(request)}`);
  }
  if (typeof request.token !== 'string' || request.token === '') {
    throw new TypeError('ReplicaReadRequest.token must be a non-empty string');
  }
  assertKey('tokenKey', request.tokenKey);
  assertKey('planId', request.planId);
  const maxAge: unknown = request.freshness?.maxAgeMs;
  if (typeof maxAge !== 'number' || Number.isNaN(maxAge) || maxAge < 0) {
    throw new RangeError(
      `ReplicaReadRequest.freshness.maxAgeMs must be a non-negative number, got ${String(maxAge)}`,
    );
  }
}

function assertKey(field: string, value: unknown): void {
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(
      `${field} must be a non-empty string, got ${JSON.stringify(value) ?? String(value)}`,
    );
  }
}
