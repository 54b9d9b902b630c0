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
 *    knowledge going back (rule 5 judges this instance's own requests only). A live replay's
 *    `backfill` (a delta from below the replica's knowledge, through `fetchPlan`) is stored the
 *    same way: no reader asked for it.
 *
 * Failures: when `classifyFailure` names a reason (rate limited, upstream error or down) and a
 * replica is held, the read is answered from it with `stale: { reason, error }` and its age.
 * Anything else (401, 403, 404, a malformed body...) is rethrown untouched, and the replica of
 * that key is dropped, so a revoked token or a deleted plan stops being served. `forgetToken`
 * drops every replica and alias of a token the upstream refused (any request's 401), and keeps
 * syncs already in flight for it from storing their answers.
 */
import { randomUUID } from 'node:crypto';
import type { IsoDate } from '@plans-gateway/rest-contract';
import { LRUCache } from 'lru-cache';
import { type Clock, epochNow } from '../time/clock.js';
import { AliasTable, type HeldReplica, lookupReplica } from './aliases.js';
import {
  createReplicaCache,
  type PendingWrite,
  type ReplicaCache,
  type ReplicaEntry,
  replicaKey,
  sizeAfterChange,
  sizeOfFull,
} from './cache.js';
import { buildPlanState, mergePlanDelta } from './delta.js';
import { checkDerived } from './derived-check.js';
import { compareDigests, digestPlan, hasDrift } from './drift.js';
import { nextKnowledgeAfter, OrphanWrites, withWrite, writesNotIn } from './pending-writes.js';
import { monthOf, type PlanState } from './plan-state.js';
import { applySavedEntities } from './saved.js';
import { createPlanSnapshot } from './snapshot.js';
import { abortable, createSingleFlight, type SingleFlight } from './sync.js';
import type { QueryMeter } from './transaction-query.js';
import type {
  BackfillRequest,
  DriftKind,
  PlanExport,
  PlanSnapshot,
  ReconcileRequest,
  ReconcileResult,
  RelayedSync,
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
  /**
   * Told as a full export's body arrives (each piece read): readers waiting on a cold load keep
   * waiting past their deadline while it does (`ReplicaReadRequest.onColdLoad`). @default none
   */
  readonly onProgress?: () => void;
  /** The `meter` of the read that started this sync, as it gave it. */
  readonly meter?: unknown;
  /**
   * Epoch ms: an answer to any upstream request sent at or after this time satisfies every
   * reader of this sync, so a cluster may hand back another instance's answer instead of calling.
   */
  readonly notSentBefore: number;
  /**
   * A full load that may start from another instance's export sent before `notSentBefore` (a
   * cluster's stored snapshot): the store then syncs once more, a delta from it, for the readers
   * it does not satisfy. Never set for a forced sync, a follow-up, or a load that must come from
   * the upstream itself. @default false
   */
  readonly olderBase?: boolean;
}

export interface FetchPlanResult {
  /**
   * The answer's `data`. With `built`, only its plan-level fields and knowledge: its collections
   * are empty, their rows being in `built`.
   */
  readonly data: PlanExport;
  /** A full export already built into a replica as it streamed in (`PlanBuilder`). */
  readonly built?: PlanState;
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
      readonly data: PlanExport;
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
  /** Clock in epoch milliseconds. @default epochNow */
  now?: Clock;
  /** Counts rows visited by `transactions()` on every snapshot; for tests and diagnostics. */
  meter?: QueryMeter;
  /**
   * Observer of every change stored (live updates publish from it). Called synchronously after
   * the store; a throwing observer never fails the read or write that caused the change.
   * @default none
   */
  onApplied?: (change: AppliedChange) => void;
  /**
   * Told when a delta confirmed writes whose derived rows the gateway computed itself
   * (`SavedEntities.derived`): the rows found different by kind (empty: they agreed). The
   * delta's rows win either way. @default none
   */
  onDerivedChecked?: (drift: Partial<Record<DriftKind, number>>) => void;
}

export const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;

type SyncKind = 'delta' | 'full';
type Outcome =
  | { readonly ok: true; readonly entry: ReplicaEntry; readonly kind: SyncKind }
  | {
      readonly ok: false;
      readonly error: unknown;
      readonly reason: StaleReason | null;
      readonly kind: SyncKind;
    };

/** Everything one store holds; the parts below take it explicitly. */
interface StoreState {
  readonly fetchPlan: ReplicaStoreOptions['fetchPlan'];
  readonly classifyFailure: ReplicaStoreOptions['classifyFailure'];
  readonly now: Clock;
  readonly meter: QueryMeter | undefined;
  readonly onApplied: ReplicaStoreOptions['onApplied'];
  readonly onDerivedChecked: ReplicaStoreOptions['onDerivedChecked'];
  readonly cache: ReplicaCache;
  readonly aliases: AliasTable;
  readonly orphans: OrphanWrites;
  readonly flights: SingleFlight<Outcome>;
  /** Write epochs restart with the process; this keeps versions naming them from repeating. */
  readonly instance: string;
  /** Token key → `syncSequence` when its replicas were forgotten (after a 401). */
  readonly forgotten: LRUCache<string, number>;
  // One controller per flight, not one signal shared by all: every request listens on its
  // signal, and twenty hung syncs on one signal would trip MaxListenersExceededWarning.
  readonly inFlight: Set<AbortController>;
  /** When the flight of each key last received bytes of a full export (`onProgress`). */
  readonly progress: Map<string, number>;
  /** Counts applied writes and expiries; compared with the epoch a sync was sent at. */
  writeEpoch: number;
  /** Counts `clear()` calls: a flight sent before one stores nothing. */
  generation: number;
  /** Counts syncs as they start; `forgotten` compares with it. */
  syncSequence: number;
}

export function createReplicaStore(options: ReplicaStoreOptions): ReplicaStore {
  const store = createStoreState(options);
  return {
    read: (request) => readReplica(store, request),
    readFresh: (request) => readFresh(store, request, store.now()),
    applySaved: (tokenKey, planId, saved) => applySaved(store, tokenKey, planId, saved),
    exactKnowledge(tokenKey, planId) {
      const { entry } = lookupReplica(store.aliases, store.cache, tokenKey, planId);
      return entry ? exactKnowledgeOf(entry) : undefined;
    },
    peek(tokenKey, planId) {
      const { entry } = lookupReplica(store.aliases, store.cache, tokenKey, planId);
      return entry ? answerFrom(store, entry, 'none', store.now()) : undefined;
    },
    applyRelayed: (tokenKey, relayed) => applyRelayed(store, tokenKey, relayed),
    backfill: (request) => backfill(store, request),
    reconcile: (request) => reconcile(store, request),
    expire: (tokenKey, planId) => expire(store, tokenKey, planId),
    forgetToken: (tokenKey) => forgetToken(store, tokenKey),
    stats: () => store.cache.stats(),
    clear: () => clearStore(store),
  };
}

function createStoreState(options: ReplicaStoreOptions): StoreState {
  const {
    fetchPlan,
    classifyFailure,
    maxBytes = DEFAULT_MAX_BYTES,
    now = epochNow,
    meter,
    onApplied,
    onDerivedChecked,
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
  const aliases = new AliasTable();
  return {
    fetchPlan,
    classifyFailure,
    now,
    meter,
    onApplied,
    onDerivedChecked,
    cache: createReplicaCache({ maxBytes, onRemove: (key) => aliases.forgetReplica(key) }),
    aliases,
    orphans: new OrphanWrites(),
    flights: createSingleFlight<Outcome>(now),
    instance: randomUUID().slice(0, 8),
    forgotten: new LRUCache<string, number>({ max: 10_000 }),
    inFlight: new Set(),
    progress: new Map(),
    writeEpoch: 0,
    generation: 0,
    syncSequence: 0,
  };
}

/**
 * Private: whether an answer may still be stored: not after a `clear()`, nor for a token
 * forgotten (a 401) since sync number `sequence` started.
 */
function mayStoreFor(store: StoreState, tokenKey: string, sequence: number): () => boolean {
  const generationAtStart = store.generation;
  return () =>
    generationAtStart === store.generation && (store.forgotten.get(tokenKey) ?? -1) < sequence;
}

function makeEntry(
  store: Pick<StoreState, 'now' | 'meter'>,
  planId: string,
  state: PlanState,
  fields: Omit<ReplicaEntry, 'planId' | 'state' | 'snapshot'>,
): ReplicaEntry {
  const snapshot = createPlanSnapshot(state, { now: store.now, meter: store.meter });
  return { planId, state, snapshot, ...fields };
}

/** Private: tells the observer; its failures stay its own. */
function notify(onApplied: ReplicaStoreOptions['onApplied'], change: AppliedChange): void {
  try {
    onApplied?.(change);
  } catch {
    // An observer must never turn a stored change into a failed read or write.
  }
}

// ---------------------------------------------------------------------------------------------
// Read planning: fresh enough as held, or which flight to join

/** Private: whether the held replica answers the read without any upstream call. */
function isFresh(held: HeldReplica, request: ReplicaReadRequest, arrival: number): boolean {
  const oldest = oldestAccepted(request, arrival);
  return (
    request.freshness.forceSync !== true &&
    held.entry !== undefined &&
    held.entry.expiredAtEpoch === undefined &&
    !held.entry.suspect &&
    held.entry.syncedAt >= oldest &&
    (held.resolution === undefined || held.resolution.checkedAt >= oldest)
  );
}

/**
 * Private: the oldest sync a read accepts: its max-age before the arrival of the request it
 * answers (`freshness.asOf`), else before its own arrival; never a time still to come.
 */
function oldestAccepted(request: ReplicaReadRequest, arrival: number): number {
  const { asOf, maxAgeMs } = request.freshness;
  return Math.min(asOf ?? arrival, arrival) - maxAgeMs;
}

/** Private: the held replica when it answers `request` with no upstream call (as `read` would). */
function readFresh(
  store: StoreState,
  request: ReplicaReadRequest,
  arrival: number,
): ReplicaRead | undefined {
  assertReadRequest(request);
  const held = lookupReplica(store.aliases, store.cache, request.tokenKey, request.planId);
  if (!isFresh(held, request, arrival) || held.key === undefined) return undefined;
  const entry = store.cache.get(held.key) ?? held.entry!;
  return answerFrom(store, entry, 'none', arrival);
}

async function readReplica(store: StoreState, request: ReplicaReadRequest): Promise<ReplicaRead> {
  const arrival = store.now();
  const fresh = readFresh(store, request, arrival);
  if (fresh !== undefined) return fresh;
  const { tokenKey, planId: requested } = request;
  const held = lookupReplica(store.aliases, store.cache, tokenKey, requested);
  const outcome = await awaitSync(store, request, arrival, held.entry ? 'delta' : 'full');
  if (outcome.ok) {
    store.cache.get(replicaKey(tokenKey, outcome.entry.planId));
    return answerFrom(store, outcome.entry, outcome.kind, store.now());
  }
  const fallback =
    outcome.reason === null
      ? undefined
      : lookupReplica(store.aliases, store.cache, tokenKey, requested).entry;
  if (outcome.reason === null || fallback === undefined) throw outcome.error;
  return {
    ...answerFrom(store, fallback, outcome.kind, store.now()),
    stale: { reason: outcome.reason, error: outcome.error },
  };
}

/**
 * Private: the outcome of the flight this read joins or starts. A reader that gives up waiting
 * (its deadline) gets a failure of its abort reason's class; the flight carries on for others.
 */
async function awaitSync(
  store: StoreState,
  request: ReplicaReadRequest,
  arrival: number,
  kindIfAborted: SyncKind,
): Promise<Outcome> {
  const { signal } = request;
  const key = replicaKey(request.tokenKey, request.planId);
  const oldest = oldestAccepted(request, arrival);
  const forceSync = request.freshness.forceSync === true;
  // A follow-up, or a forced sync, is shared by readers that need data sent no earlier than its
  // own start. A flight this read starts at once needs only what the read asks, however the
  // clock ticked since it arrived: the cluster may answer it with an export or delta another
  // instance sent within max-age (flights.ts).
  const start = (sentAt: number, followUp: boolean) =>
    forceSync || followUp
      ? runSync(store, request, sentAt, sentAt)
      : runSync(store, request, sentAt, oldest, { olderBase: true });
  // No replica to answer from if the wait is cut: the operation waits on while the load it is
  // waiting for keeps receiving (its deadline says how long); the key's flight, whichever it is.
  const release =
    kindIfAborted === 'full' ? request.onColdLoad?.(() => store.progress.get(key)) : undefined;
  try {
    signal?.throwIfAborted();
    // A forced sync joins no flight already in the air: only its follow-up, sent after it lands.
    const outcome = await abortable(
      store.flights.run(key, forceSync ? Number.POSITIVE_INFINITY : oldest, start),
      signal,
    );
    if (!outcome.ok || forceSync || outcome.entry.syncedAt >= oldest) return outcome;
    // Joined a flight another read started, answered with another instance's data as old as
    // that read allowed but older than this one does: one more sync, sent after this read.
    return await abortable(
      store.flights.run(key, Number.POSITIVE_INFINITY, (sentAt) =>
        runSync(store, request, sentAt, sentAt),
      ),
      signal,
    );
  } catch (error) {
    if (!signal?.aborted) throw error;
    const reason = store.classifyFailure(signal.reason);
    return { ok: false, error: signal.reason, reason, kind: kindIfAborted };
  } finally {
    release?.();
  }
}

function answerFrom(
  store: Pick<StoreState, 'instance'>,
  entry: ReplicaEntry,
  sync: ReplicaRead['sync'],
  at: number,
): ReplicaRead {
  return {
    snapshot: entry.snapshot,
    ageMs: Math.max(0, at - entry.syncedAt),
    sync,
    version: versionOf(entry, store.instance),
  };
}

/** Private: knowledge alone unless unconfirmed writes sit on top (epochs are this store's). */
function versionOf(entry: ReplicaEntry, instance: string): string {
  const knowledge = String(entry.snapshot.serverKnowledge);
  if (entry.pending.length === 0) return knowledge;
  return `${knowledge}+${instance}.${entry.pending.map((write) => write.epoch).join('.')}`;
}

// ---------------------------------------------------------------------------------------------
// One flight: the upstream calls for a requested id, and the commit

/** A sync's answer with what the rules of the header comment judge it by. */
interface SyncAnswer {
  readonly result: FetchPlanResult;
  readonly kind: SyncKind;
  /** The knowledge a delta was asked from; undefined for a full export. */
  readonly requestKnowledge: number | undefined;
  /** When the request that produced it was sent. */
  readonly sentAt: number;
  /** The write epoch at that time: later writes may be missing from the answer. */
  readonly epochAtSend: number;
  /** A full load after the knowledge went back: it replaces the replica (rule 5). */
  readonly replace: boolean;
}

/** The kind a flight has reached, read when it fails. */
interface FlightProgress {
  kind: SyncKind;
}

type FetchFor = (
  planId: string,
  knowledge: number | undefined,
  notSentBefore?: number,
) => Promise<FetchPlanResult>;

async function runSync(
  store: StoreState,
  request: ReplicaReadRequest,
  sentAt: number,
  notSentBefore: number,
  { olderBase = false } = {},
): Promise<Outcome> {
  const { tokenKey, planId: requested } = request;
  const epochAtSend = store.writeEpoch;
  // A `clear()`, or a 401 for this token, after this flight left: its answer is not kept.
  const sequence = ++store.syncSequence;
  const mayStore = mayStoreFor(store, tokenKey, sequence);
  const controller = new AbortController();
  store.inFlight.add(controller);
  const base = lookupReplica(store.aliases, store.cache, tokenKey, requested).entry;
  const progress: FlightProgress = { kind: base ? 'delta' : 'full' };
  store.orphans.flightStarted(tokenKey);
  const key = replicaKey(tokenKey, requested);
  const onProgress = () => {
    store.progress.set(key, store.now());
  };
  const fetchFor = fetcherFor(store.fetchPlan, request, controller.signal, notSentBefore, {
    onProgress,
    olderBase,
  });
  try {
    const fetched = await fetchAnswer(store, fetchFor, request, base, sequence, progress);
    const entry = commitAnswer(
      store,
      tokenKey,
      { ...fetched, ...sendStampOf(fetched.result, sentAt, epochAtSend) },
      mayStore,
    );
    const resolved = fetched.result.data.plan.id;
    if (requested !== resolved && mayStore() && store.cache.peek(replicaKey(tokenKey, resolved))) {
      store.aliases.remember(tokenKey, requested, resolved, sentAt);
    }
    return { ok: true, entry, kind: fetched.kind };
  } catch (error) {
    return failedSync(store, request, error, progress.kind, mayStore);
  } finally {
    store.inFlight.delete(controller);
    store.orphans.flightEnded(tokenKey);
    store.progress.delete(key);
  }
}

/** Private: `fetchPlan` for this flight's token, meter and signal, its answer validated. */
function fetcherFor(
  fetchPlan: ReplicaStoreOptions['fetchPlan'],
  request: ReplicaReadRequest,
  signal: AbortSignal,
  notSentBefore: number,
  { olderBase, ...watch }: Pick<FetchPlanRequest, 'onProgress' | 'olderBase'> = {},
): FetchFor {
  return async (planId, knowledge, notBefore = notSentBefore) => {
    const result = await fetchPlan({
      token: request.token,
      tokenKey: request.tokenKey,
      planId,
      ...(knowledge === undefined ? {} : { lastKnowledgeOfServer: knowledge }),
      // Only as the read asked it: a load that must come from the upstream itself asks later.
      ...(olderBase && notBefore === notSentBefore ? { olderBase } : {}),
      ...watch,
      ...(request.meter === undefined ? {} : { meter: request.meter }),
      signal,
      notSentBefore: notBefore,
    });
    assertPlanExport(result?.data);
    return result;
  };
}

/**
 * Private: asks for the requested id, then again when the first answer cannot be merged: the
 * alias moved to another plan, the replica was evicted meanwhile (rule 4), or the knowledge
 * went back (rule 5, then a full load straight from the upstream).
 */
async function fetchAnswer(
  store: StoreState,
  fetchFor: FetchFor,
  request: ReplicaReadRequest,
  base: ReplicaEntry | undefined,
  sequence: number,
  progress: FlightProgress,
): Promise<Omit<SyncAnswer, 'sentAt' | 'epochAtSend'>> {
  const { tokenKey } = request;
  let knowledge = base?.nextKnowledge;
  let result = await fetchFor(request.planId, knowledge);
  const resolved = result.data.plan.id;
  if (base && resolved !== base.planId) {
    // The alias moved: this answer is relative to another plan's knowledge.
    knowledge = lookupReplica(store.aliases, store.cache, tokenKey, resolved).entry?.nextKnowledge;
    progress.kind = knowledge === undefined ? 'full' : 'delta';
    result = await fetchFor(resolved, knowledge);
  }
  if (progress.kind === 'delta' && !store.cache.peek(replicaKey(tokenKey, resolved))) {
    // Evicted while in flight: nothing to merge the delta into.
    progress.kind = 'full';
    knowledge = undefined;
    result = await fetchFor(resolved, undefined);
  }
  assertAnsweredFor(result, resolved);
  // Rule 6: another instance's answer may be older than this replica; that is no regression.
  const replace =
    result.relayed !== true &&
    knowledgeWentBack(store.cache, tokenKey, result, progress.kind, knowledge, sequence);
  if (replace) {
    progress.kind = 'full';
    knowledge = undefined;
    // From the upstream itself: what other instances hold may be of the old timeline.
    result = await fetchFor(resolved, undefined, Number.POSITIVE_INFINITY);
    assertAnsweredFor(result, resolved);
  }
  return { result, kind: progress.kind, requestKnowledge: knowledge, replace };
}

function assertAnsweredFor(result: FetchPlanResult, planId: string): void {
  if (result.data.plan.id !== planId) {
    throw new ReplicaDataError('data.plan.id', `the plan id ${planId}`, result.data.plan.id);
  }
}

/**
 * Private: when and at which write epoch the answer was sent (rule 6): an answer sent before
 * this flight (another instance's) vouches for no write applied since (epoch -1), and its age
 * counts from its own sending.
 */
function sendStampOf(
  result: FetchPlanResult,
  sentAt: number,
  epochAtSend: number,
): Pick<SyncAnswer, 'sentAt' | 'epochAtSend'> {
  return result.sentAt !== undefined && result.sentAt < sentAt
    ? { sentAt: result.sentAt, epochAtSend: -1 }
    : { sentAt, epochAtSend };
}

/**
 * Private: a failed flight. A failure no stale answer may cover (401, 404, malformed...) drops
 * the replica and the requested id's resolution, so a revoked token or deleted plan stops being
 * served.
 */
function failedSync(
  store: StoreState,
  request: ReplicaReadRequest,
  error: unknown,
  kind: SyncKind,
  mayStore: () => boolean,
): Outcome {
  const reason = store.classifyFailure(error);
  if (reason === null && mayStore()) {
    const { key } = lookupReplica(store.aliases, store.cache, request.tokenKey, request.planId);
    if (key !== undefined) store.cache.delete(key);
    store.aliases.forget(request.tokenKey, request.planId);
  }
  return { ok: false, error, reason, kind };
}

// ---------------------------------------------------------------------------------------------
// Sync outcomes: how an answer becomes the next replica

/**
 * Private: whether an answer shows the upstream's knowledge going backwards (rule 5 of the
 * header comment). If so, the held replica is marked suspect at once: until a full load
 * replaces it, it answers no read as fresh, only as stale when a sync fails.
 */
function knowledgeWentBack(
  cache: ReplicaCache,
  tokenKey: string,
  result: FetchPlanResult,
  kind: SyncKind,
  requestKnowledge: number | undefined,
  sequence: number,
): boolean {
  const key = replicaKey(tokenKey, result.data.plan.id);
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

/**
 * Private: rule 1 (and 6): an answer older than the replica, or a relayed one at its knowledge,
 * brings nothing to merge.
 */
function bringsNothingNew(current: ReplicaEntry, answered: number, relayed: boolean): boolean {
  const held = current.state.serverKnowledge;
  return answered < held || (relayed && answered === held);
}

/** Private: stores a sync's answer under the rules of the header comment; returns the entry. */
function commitAnswer(
  store: StoreState,
  tokenKey: string,
  answer: SyncAnswer,
  mayStore: () => boolean,
): ReplicaEntry {
  const { data } = answer.result;
  const planId = data.plan.id;
  const key = replicaKey(tokenKey, planId);
  const current = store.cache.peek(key);
  const currentMonth: IsoDate = monthOf(store.now());
  const pending = [...(current?.pending ?? []), ...store.orphans.take(tokenKey, planId)];
  const relayed = answer.result.relayed === true;

  if (!answer.replace && current && bringsNothingNew(current, data.server_knowledge, relayed)) {
    // It is at least as new as its request, so the replica counts as synced then.
    const kept = { ...current, syncedAt: Math.max(current.syncedAt, answer.sentAt) };
    if (mayStore()) store.cache.set(key, kept);
    return kept;
  }
  const entry = entryFromAnswer(store, current, pending, answer, currentMonth);
  if (mayStore() && store.cache.set(key, entry)) {
    notify(store.onApplied, {
      tokenKey,
      planId,
      source: {
        kind: answer.kind === 'full' || !current ? 'full' : 'delta',
        data,
        ...(answer.requestKnowledge === undefined
          ? {}
          : { fromKnowledge: answer.requestKnowledge }),
      },
      ...(current ? { previous: current.snapshot } : {}),
      snapshot: entry.snapshot,
      ...(relayed ? { relayed } : {}),
    });
  }
  return entry;
}

/**
 * Private: the replica an answer makes: built or merged, with the writes it may not include
 * applied on top (rules 2 and 3), an expiry it cannot vouch for kept, and a suspect mark kept
 * unless it replaces the replica.
 */
function entryFromAnswer(
  store: StoreState,
  current: ReplicaEntry | undefined,
  pending: readonly PendingWrite[],
  answer: SyncAnswer,
  currentMonth: IsoDate,
): ReplicaEntry {
  const { data, bytes } = answer.result;
  const { sentAt, replace } = answer;
  const rebuilt = answer.kind === 'full' || !current;
  let state = rebuilt
    ? (answer.result.built ?? buildPlanState(data, { currentMonth }))
    : mergePlanDelta(current.state, data, { currentMonth });
  const survivors = writesNotIn(pending, answer.epochAtSend, data.server_knowledge);
  if (!rebuilt) state = checkedDerived(store, current.state, state, data, pending, survivors);
  for (const write of survivors) state = applySavedEntities(state, write.saved, { currentMonth });
  const size = rebuilt ? sizeOfFull(state, bytes) : sizeAfterChange(current, state);
  // A sync sent before an `expire` cannot vouch for what happened after it.
  const stillExpired =
    current?.expiredAtEpoch !== undefined && answer.epochAtSend < current.expiredAtEpoch
      ? { expiredAtEpoch: current.expiredAtEpoch }
      : {};
  return makeEntry(store, data.plan.id, state, {
    ...stillExpired,
    // Only a full load in the same flight clears it (see knowledgeWentBack).
    ...(current?.suspect && !replace ? { suspect: true } : {}),
    committedSequence: store.syncSequence,
    syncedAt: replace ? sentAt : Math.max(current?.syncedAt ?? sentAt, sentAt),
    nextKnowledge: nextKnowledgeAfter(survivors, answer.requestKnowledge, data.server_knowledge),
    pending: survivors,
    ...size,
  });
}

/**
 * Private: the merged state with the derived rows of the writes this delta confirms checked
 * (derived-check.ts): those it did not carry put back, drift told to `onDerivedChecked`.
 */
function checkedDerived(
  store: Pick<StoreState, 'now' | 'onDerivedChecked'>,
  held: PlanState,
  merged: PlanState,
  data: PlanExport,
  pending: readonly PendingWrite[],
  survivors: readonly PendingWrite[],
): PlanState {
  const confirmed = pending
    .filter((write) => !survivors.includes(write))
    .map((write) => ({
      knowledge: write.knowledge,
      ...(write.saved.derived ? { derived: write.saved.derived } : {}),
    }));
  const check = checkDerived(held, data, confirmed);
  if (!check) return merged;
  try {
    store.onDerivedChecked?.(check.drift);
  } catch {
    // An observer's failure is its own.
  }
  const previous = { ...check.restore, previous: check.restore };
  return applySavedEntities(
    merged,
    { derived: previous },
    {
      currentMonth: monthOf(store.now()),
    },
  );
}

/**
 * Private: the knowledge whose every effect the replica shows (`ReplicaStore.exactKnowledge`).
 */
function exactKnowledgeOf(entry: ReplicaEntry): number | undefined {
  if (entry.suspect || entry.expiredAtEpoch !== undefined) return undefined;
  let knowledge = entry.state.serverKnowledge;
  for (const write of entry.pending) {
    if (!write.saved.derived || write.knowledge !== knowledge + 1) return undefined;
    knowledge = write.knowledge;
  }
  return knowledge;
}

// ---------------------------------------------------------------------------------------------
// Writes, relayed answers, expiry and forgetting

function applySaved(
  store: StoreState,
  tokenKey: string,
  planId: string,
  saved: SavedEntities,
): PlanSnapshot | undefined {
  assertKey('tokenKey', tokenKey);
  assertKey('planId', planId);
  if (typeof saved !== 'object' || saved === null) {
    throw new TypeError(`applySaved: saved must be an object, got ${String(saved)}`);
  }
  store.writeEpoch += 1;
  const write = pendingWriteOf(saved, store.writeEpoch);
  const held = lookupReplica(store.aliases, store.cache, tokenKey, planId);
  if (!held.entry || held.key === undefined) {
    // No replica yet; if one is loading, replay the write onto it when it lands.
    if (held.planId !== undefined) store.orphans.park(tokenKey, held.planId, write);
    return undefined;
  }
  const current = held.entry;
  const entry = entryWithWrite(store, current, write);
  if (store.cache.set(held.key, entry)) {
    notify(store.onApplied, {
      tokenKey,
      planId: current.planId,
      source: { kind: 'write', saved },
      previous: current.snapshot,
      snapshot: entry.snapshot,
    });
  }
  return entry.snapshot;
}

/** Private: a write as it waits for a sync to confirm it; rejects a malformed knowledge. */
function pendingWriteOf(saved: SavedEntities, epoch: number): PendingWrite {
  const knowledge = saved.serverKnowledge;
  if (knowledge !== undefined && (!Number.isSafeInteger(knowledge) || knowledge < 0)) {
    throw new RangeError(
      `SavedEntities.serverKnowledge must be a non-negative integer, got ${String(knowledge)}`,
    );
  }
  return { saved, epoch, knowledge };
}

/** Private: the replica with a write on top, pending until a sync confirms it. */
function entryWithWrite(
  store: Pick<StoreState, 'now' | 'meter'>,
  current: ReplicaEntry,
  write: PendingWrite,
): ReplicaEntry {
  const state = applySavedEntities(current.state, write.saved, {
    currentMonth: monthOf(store.now()),
  });
  return makeEntry(store, current.planId, state, {
    ...(current.expiredAtEpoch === undefined ? {} : { expiredAtEpoch: current.expiredAtEpoch }),
    ...(current.suspect ? { suspect: true } : {}),
    committedSequence: current.committedSequence,
    syncedAt: current.syncedAt,
    nextKnowledge: current.nextKnowledge,
    pending: withWrite(current.pending, write),
    ...sizeAfterChange(current, state),
  });
}

function applyRelayed(
  store: StoreState,
  tokenKey: string,
  relayed: RelayedSync,
): 'applied' | 'kept' | 'gap' {
  assertKey('tokenKey', tokenKey);
  assertPlanExport(relayed?.data);
  const planId = relayed.data.plan.id;
  const key = replicaKey(tokenKey, planId);
  const current = store.cache.peek(key);
  if (relayed.kind === 'delta') {
    const from = relayed.fromKnowledge;
    if (!current || from === undefined || from > current.state.serverKnowledge) return 'gap';
  }
  // Not for a token forgotten since the last sync started here (a 401 meanwhile).
  const mayStore = mayStoreFor(store, tokenKey, store.syncSequence);
  if (!mayStore()) return 'gap';
  const knowledgeBefore = current?.state.serverKnowledge;
  const entry = commitAnswer(
    store,
    tokenKey,
    {
      result: { data: relayed.data, bytes: relayed.bytes, sentAt: relayed.sentAt, relayed: true },
      kind: relayed.kind,
      requestKnowledge: relayed.fromKnowledge,
      sentAt: relayed.sentAt,
      epochAtSend: -1,
      replace: false,
    },
    mayStore,
  );
  if (!store.cache.peek(key)) return 'gap';
  for (const alias of relayed.aliases ?? []) {
    if (alias !== planId) {
      store.aliases.remember(tokenKey, alias, planId, relayed.aliasCheckedAt ?? relayed.sentAt);
    }
  }
  return knowledgeBefore === undefined || entry.state.serverKnowledge > knowledgeBefore
    ? 'applied'
    : 'kept';
}

/**
 * Private: a delta from an older knowledge, through the one fetch path. Only an answer to its
 * own request serves it: another instance's (`notSentBefore`) is relative to that instance's
 * replica, and need not hold what changed after `since`. Stored as `applyRelayed` stores one.
 */
async function backfill(store: StoreState, request: BackfillRequest): Promise<void> {
  const { token, tokenKey, planId, since, meter, beforeMerge } = request;
  assertKey('tokenKey', tokenKey);
  assertKey('planId', planId);
  if (!Number.isSafeInteger(since) || since < 0) {
    throw new RangeError(
      `BackfillRequest.since must be a non-negative integer, got ${String(since)}`,
    );
  }
  const sentAt = store.now();
  const result = await store.fetchPlan({
    token,
    tokenKey,
    planId,
    lastKnowledgeOfServer: since,
    ...(meter === undefined ? {} : { meter }),
    notSentBefore: Number.POSITIVE_INFINITY,
  });
  assertPlanExport(result?.data);
  beforeMerge?.(
    result.data,
    lookupReplica(store.aliases, store.cache, tokenKey, planId).entry?.snapshot,
  );
  applyRelayed(store, tokenKey, {
    kind: 'delta',
    data: result.data,
    fromKnowledge: since,
    sentAt: result.sentAt ?? sentAt,
    bytes: result.bytes,
  });
}

/**
 * Private: a full export compared with the held replica (`ReplicaStore.reconcile`). Compared only
 * at one knowledge and with no unconfirmed write on top: then every difference is drift (a change
 * no delta brought), and the export, the truth at that knowledge, replaces the replica as a full
 * load in place would (rule 5's `replace`, without the suspicion).
 */
async function reconcile(store: StoreState, request: ReconcileRequest): Promise<ReconcileResult> {
  const { token, tokenKey, planId, meter, signal } = request;
  assertKey('tokenKey', tokenKey);
  assertKey('planId', planId);
  const key = replicaKey(tokenKey, planId);
  if (!store.cache.peek(key)) return { outcome: 'skipped', reason: 'not-held' };
  const sequence = ++store.syncSequence;
  const mayStore = mayStoreFor(store, tokenKey, sequence);
  const epochAtSend = store.writeEpoch;
  const sentAt = store.now();
  const result = await store.fetchPlan({
    token,
    tokenKey,
    planId,
    ...(meter === undefined ? {} : { meter }),
    ...(signal === undefined ? {} : { signal }),
    // The upstream's own answer: another instance's replica may have drifted the same way.
    notSentBefore: Number.POSITIVE_INFINITY,
  });
  assertPlanExport(result?.data);
  assertAnsweredFor(result, planId);
  const exported =
    result.built ?? buildPlanState(result.data, { currentMonth: monthOf(store.now()) });
  const knowledge = result.data.server_knowledge;
  let held = store.cache.peek(key);
  if (held && held.state.serverKnowledge < knowledge) {
    // Behind the export: ordinary changes would show as drift. One delta first, as a read.
    await readReplica(store, {
      token,
      tokenKey,
      planId,
      freshness: { maxAgeMs: 0, forceSync: true },
      ...(meter === undefined ? {} : { meter }),
      ...(signal === undefined ? {} : { signal }),
    });
    held = store.cache.peek(key);
  }
  if (!held) return { outcome: 'skipped', reason: 'not-held' };
  if (held.state.serverKnowledge !== knowledge) return { outcome: 'skipped', reason: 'moved' };
  if (held.pending.length > 0 || held.expiredAtEpoch !== undefined) {
    return { outcome: 'skipped', reason: 'unconfirmed-writes' };
  }
  const drift = compareDigests(digestPlan(held.state), digestPlan(exported));
  if (!hasDrift(drift)) return { outcome: 'clean', drift, knowledge, bytes: result.bytes };
  commitAnswer(
    store,
    tokenKey,
    {
      result: { ...result, built: exported },
      kind: 'full',
      requestKnowledge: undefined,
      ...sendStampOf(result, sentAt, epochAtSend),
      replace: true,
    },
    mayStore,
  );
  return { outcome: 'repaired', drift, knowledge, bytes: result.bytes };
}

function expire(store: StoreState, tokenKey: string, planId: string): void {
  const { key, entry } = lookupReplica(store.aliases, store.cache, tokenKey, planId);
  if (key === undefined || entry === undefined) return;
  store.writeEpoch += 1;
  store.cache.set(key, { ...entry, expiredAtEpoch: store.writeEpoch });
}

function forgetToken(store: StoreState, tokenKey: string): void {
  assertKey('tokenKey', tokenKey);
  store.forgotten.set(tokenKey, store.syncSequence);
  const prefix = replicaKey(tokenKey, '');
  for (const key of store.cache.keys()) if (key.startsWith(prefix)) store.cache.delete(key);
  store.aliases.forgetToken(tokenKey);
  store.orphans.dropToken(tokenKey);
}

function clearStore(store: StoreState): void {
  store.generation += 1;
  const reason = new Error('The replica store was cleared');
  for (const controller of store.inFlight) controller.abort(reason);
  store.inFlight.clear();
  store.cache.clear();
  store.aliases.clear();
  store.orphans.clear();
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
