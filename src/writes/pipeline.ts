/**
 * The write pipeline: one REST write per mutation, then read-your-writes.
 *
 * 1. Send the write once (the client never retries writes). A refusal the client must handle
 *    becomes a typed result; any other failure a GraphQL error that says whether the write may
 *    have been applied (see `src/errors/write-refusals.ts`).
 * 2. Apply the entities the answer carries to the token's replica, without advancing its
 *    knowledge (`ReplicaStore.applySaved`), drop the REST-cache answers the write changed, and
 *    make this operation's loaders forget the pre-write snapshot. A write addressed through an
 *    alias (`last-used`, `default`) is applied to no replica: which plan it landed in is the
 *    upstream's to say, and its delta sync (step 3, through the alias) brings it.
 * 3. Unless the answer is the write's whole effect (payees, category groups) and was applied,
 *    start one delta sync without waiting for it (sent on the event loop's next turn, once the
 *    answer of a selection that needs nothing it brings is written): this operation's reads of the plan
 *    take what it brings (the loaders are primed with its promise), the token's next operations
 *    wait for it (`settling.ts`), and the saved entities answer from the write's answer at once,
 *    so derived values (account balances, category activity, month totals, the other side of a
 *    transfer) are current wherever they are read, and a selection of the saved entities' own
 *    fields answers after one upstream round trip. A write through an alias waits for its delta,
 *    which alone says which plan the write landed in. If that sync fails (429, 5xx), what waited
 *    for it answers from the applied entities and `extensions.stale` says so.
 *
 * One trip: when the answer's knowledge is exactly one past what the replica shows in full
 * (nothing else happened upstream), a write `src/replica/local-effects.ts` follows has its derived
 * effects computed from the replica and applied with the answer, and step 3 is skipped: the
 * next delta checks them (`src/replica/derived-check.ts`).
 *
 * Cost model: a mutation costs its write plus at most one delta request (none for payee and
 * category group writes by plan id, none when this token holds no replica of the plan yet: then
 * the first read that needs the plan loads it, write included). The delta is a read, so the client retries
 * it on transient failures like any read; the write is never repeated. The next query within
 * max-age costs nothing and shows the write; the next delta confirms it (its knowledge was not
 * advanced, so the delta carries the written entities again and nothing is duplicated or
 * reverted). See README.md.
 */
import {
  type IsoDate,
  type OperationResult,
  type Params,
  PLAN_ALIASES,
} from '@plans-gateway/rest-contract';
import { toGraphQLError } from '../errors/to-graphql.js';
import { isUpstreamError } from '../errors/upstream-error.js';
import { type WriteFailureOptions, writeFailure } from '../errors/write-refusals.js';
import type { PlanReplicas } from '../loaders/create-loaders.js';
import type { Loaders } from '../loaders/loaders.js';
import type { RestCache } from '../loaders/rest-cache.js';
import { type Credentials, requireCredentials } from '../operation/credentials.js';
import type { OperationMeter } from '../operation/meter.js';
import { localEffects } from '../replica/local-effects.js';
import type { DerivedRows, PlanSnapshot, ReplicaStore, SavedEntities } from '../replica/types.js';
import { type Clock, epochNow } from '../time/clock.js';
import { nextTurn } from '../time/next-turn.js';
import type { UpstreamClient } from '../upstream/client.js';
import { localWriteOf, WRITE_EFFECTS, type WriteOperationId } from './effects.js';
import type { IdempotentWrites } from './idempotency.js';
import type { Settling } from './settling.js';

export interface WritePipelineDeps {
  credentials: Credentials | null;
  /** The delta syncs after writes that later reads of the token wait for. */
  settling: Settling;
  upstream: UpstreamClient;
  /** `read` must charge its upstream calls to `meter` (the gateway wraps it). */
  replicas: PlanReplicas & Pick<ReplicaStore, 'applySaved' | 'peek' | 'expire' | 'exactKnowledge'>;
  restCache: RestCache;
  meter: OperationMeter;
  /** This operation's loaders, told to forget or take the post-write snapshot. */
  loaders: Loaders;
  /** Epoch ms; "today" for date rules is its UTC date. @default epochNow */
  now?: Clock;
  /**
   * The operation's deadline: the delta sync after a write gives up waiting when it aborts
   * (the payload then answers stale). The write itself is never cut short: it is sent once and
   * waits for its answer. @default none
   */
  deadline?: () => AbortSignal | undefined;
  /**
   * The request's `Idempotency-Key` and where answers are remembered (idempotency.ts). The n-th
   * write of the operation uses `<key>#<n>`: a replayed request replays each of its writes.
   */
  idempotency?: { readonly key: string; readonly writes: IdempotentWrites } | undefined;
}

/** Every write is plan-scoped: its parameters always hold `planId`. */
export type WriteParams<Op extends WriteOperationId> = Params<Op> & { readonly planId: string };

export interface WriteOutcome<Op extends WriteOperationId> {
  readonly data: OperationResult<Op>;
  /** The concrete plan id when a replica of the plan is held, else the id or alias sent. */
  readonly planId: string;
  /**
   * The replica before the write, and after it (applied, then synced: a promise, for the delta
   * follows the answer), when a replica was held before: what `changes` compares
   * (write-changes.ts), when both are of the same plan.
   */
  readonly replicas?: {
    readonly before: PlanSnapshot;
    readonly after: Promise<PlanSnapshot | undefined>;
  };
  /**
   * The entities the answer carried, with its `server_knowledge` when it gave one: what the
   * payload's `writeCursor` covers (a write through an alias: none, the plan is the upstream's to say).
   */
  readonly saved?: SavedEntities;
}

/** How one write is sent. */
export interface RunOptions extends WriteFailureOptions {
  /**
   * Runs right before the write is sent upstream, and throws to refuse it (a write conflict,
   * `ifUnchangedSince`): a write replayed under its idempotency key answers its remembered
   * answer without it.
   */
  readonly guard?: (() => Promise<void>) | undefined;
}

export interface Writes {
  /** Sends `operationId` once and brings the replica and loaders up to date (see above). */
  run<Op extends WriteOperationId>(
    operationId: Op,
    params: WriteParams<Op>,
    options?: RunOptions,
  ): Promise<WriteOutcome<Op>>;
  /** Today's date (UTC) by the gateway's clock: the reference of the date rules. */
  today(): IsoDate;
  /** The replica this token holds for the plan, whatever its age; never calls the upstream. */
  peek(planId: string): PlanSnapshot | undefined;
}

/** Private: the outcome's `replicas`, when a replica was held before the write. */
function compared(
  before: PlanSnapshot | undefined,
  after: Promise<PlanSnapshot | undefined>,
): Pick<WriteOutcome<WriteOperationId>, 'replicas'> {
  return before ? { replicas: { before, after } } : {};
}

export function createWritePipeline(deps: WritePipelineDeps): Writes {
  const {
    credentials,
    settling,
    upstream,
    replicas,
    restCache,
    meter,
    loaders,
    now = epochNow,
    deadline,
  } = deps;

  const today = (): IsoDate => new Date(now()).toISOString().slice(0, 10);

  /**
   * Private: the delta sync after a write; never rejects: its failure never fails the
   * (successful) write, and fields that needed the plan say why.
   */
  async function syncAfterWrite(
    { token, tokenKey }: Credentials,
    planId: string,
  ): Promise<PlanSnapshot | Error> {
    try {
      const signal = deadline?.();
      const read = await meter.track(
        replicas.read({
          token,
          tokenKey,
          planId,
          freshness: { maxAgeMs: 0, forceSync: true },
          ...(signal ? { signal } : {}),
        }),
      );
      meter.replicaRead(read.ageMs);
      if (read.stale) {
        meter.stale({ source: read.snapshot.planId, reason: read.stale.reason, ageMs: read.ageMs });
      }
      return read.snapshot;
    } catch (error) {
      // No replica to fall back on (it was dropped): fields that need the plan report why.
      return isUpstreamError(error) ? toGraphQLError(error) : new Error('plan sync failed');
    }
  }

  /**
   * Private: the delta sync, without waiting for it. This operation's reads of the plan take its
   * snapshot (they wait for it), later operations of the token wait for it too (`settling`, from
   * now on); fields answered from the write's own answer do not wait at all. It is sent on the
   * next turn of the event loop: an answer that needs nothing it brings is written first (its
   * resolvers and serialization run on this turn), so building and sending the delta's request
   * is not part of the mutation's latency. A field that waits for it only waits that turn longer.
   */
  function settle(creds: Credentials, planId: string): Promise<PlanSnapshot | Error> {
    const synced = nextTurn().then(() => syncAfterWrite(creds, planId));
    settling.add(creds.tokenKey, synced);
    const forLoaders = synced.then((result) =>
      result instanceof Error ? Promise.reject(result) : result,
    );
    // A failure reaches the fields that read the plan; none may be left unhandled.
    forLoaders.catch(() => undefined);
    loaders.prime(planId, forLoaders);
    return synced;
  }

  /** Private: the entities the answer carries; undefined for an answer they cannot be read from. */
  function savedOf<Op extends WriteOperationId>(
    operationId: Op,
    params: WriteParams<Op>,
    data: OperationResult<Op>,
  ): SavedEntities | undefined {
    try {
      return WRITE_EFFECTS[operationId].saved(data, params, `${today().slice(0, 7)}-01`);
    } catch {
      return undefined;
    }
  }

  /** Private: applies the answer; an answer the replica refuses must not fail a write that was done. */
  function applyAnswer(
    tokenKey: string,
    planId: string,
    saved: SavedEntities | undefined,
    derived: DerivedRows | null,
  ): PlanSnapshot | undefined {
    if (saved === undefined) return undefined;
    try {
      return replicas.applySaved(tokenKey, planId, derived ? { ...saved, derived } : saved);
    } catch {
      return undefined;
    }
  }

  /**
   * Private: the write's derived effects computed from the replica, when its answer is exactly
   * one knowledge step past what the replica shows in full (nothing else happened upstream in
   * between) and the local arithmetic covers it; null otherwise (the delta runs).
   */
  function oneStepEffects<Op extends WriteOperationId>(
    tokenKey: string,
    operationId: Op,
    params: WriteParams<Op>,
    data: OperationResult<Op>,
  ): DerivedRows | null {
    const knowledge = (data as { server_knowledge?: unknown }).server_knowledge;
    if (typeof knowledge !== 'number') return null;
    const exact = replicas.exactKnowledge?.(tokenKey, params.planId);
    if (exact === undefined || knowledge !== exact + 1) return null;
    const held = replicas.peek(tokenKey, params.planId)?.snapshot;
    const write = localWriteOf(operationId, params, data, today());
    if (!held || !write) return null;
    try {
      return localEffects(held, write, today());
    } catch {
      return null;
    }
  }

  let writesSent = 0;
  const writeOnce = <Op extends WriteOperationId>(
    operationId: Op,
    params: WriteParams<Op>,
    send: () => Promise<OperationResult<Op>>,
  ): Promise<OperationResult<Op>> => {
    const idempotency = deps.idempotency;
    if (!idempotency) return send();
    writesSent += 1;
    const { tokenKey } = requireCredentials(credentials);
    const fingerprint = JSON.stringify([operationId, params]);
    return idempotency.writes.once(tokenKey, `${idempotency.key}#${writesSent}`, fingerprint, send);
  };

  return {
    async run(operationId, params, options = {}) {
      const creds = requireCredentials(credentials);
      const call = { token: creds.token, tokenKey: creds.tokenKey, meter };
      let before = replicas.peek(creds.tokenKey, params.planId)?.snapshot;
      let data: OperationResult<typeof operationId>;
      try {
        data = await writeOnce(operationId, params, async () => {
          if (options.guard) {
            await options.guard();
            // The guard may have brought a delta: `changes` compares from the replica it left.
            before = replicas.peek(creds.tokenKey, params.planId)?.snapshot;
          }
          return meter.track(upstream.callWithParams(operationId, call, params));
        });
      } catch (error) {
        // The write may have happened: make the next read resync rather than trust the replica.
        if (isUpstreamError(error) && error.outcomeUnknown)
          replicas.expire(creds.tokenKey, params.planId);
        throw writeFailure(error, options);
      }
      const effect = WRITE_EFFECTS[operationId];
      // Through an alias, the upstream chose the plan when it took the write, and the alias may
      // have moved since the gateway last resolved it (another client of the same user can move
      // `last-used` at any time): the answer is applied to no replica, and the delta sync through
      // the alias brings the write into the plan the upstream resolves.
      const viaAlias = PLAN_ALIASES.has(params.planId);
      const saved = viaAlias ? undefined : savedOf(operationId, params, data);
      const derived = viaAlias ? null : oneStepEffects(creds.tokenKey, operationId, params, data);
      const applied = applyAnswer(creds.tokenKey, params.planId, saved, derived);
      const written = saved ? { saved } : {};
      for (const prefix of effect.invalidates) restCache.invalidate(creds.tokenKey, prefix);
      loaders.forget(params.planId);
      if (derived && applied) {
        // One step past the replica, effects applied: the replica shows the whole write. The
        // next delta (poller's or a read's) checks the derived rows.
        loaders.prime(params.planId, applied);
        return {
          data,
          planId: applied.planId,
          ...written,
          ...compared(before, Promise.resolve(applied)),
        };
      }
      const held = applied ?? replicas.peek(creds.tokenKey, params.planId)?.snapshot;
      // A held replica the answer could not be applied to needs the delta even after a complete write.
      if (held === undefined || (effect.complete && applied !== undefined)) {
        const planId = held?.planId ?? params.planId;
        return { data, planId, ...written, ...compared(before, Promise.resolve(applied)) };
      }
      const synced = settle(creds, params.planId);
      const after = synced.then((result) => (result instanceof Error ? applied : result));
      if (!viaAlias) return { data, planId: held.planId, ...written, ...compared(before, after) };
      // Through an alias only the delta says which plan the write landed in: the answer waits.
      const snapshot = await synced;
      const planId = snapshot instanceof Error ? held.planId : snapshot.planId;
      return { data, planId, ...compared(before, after) };
    },
    today,
    peek(planId) {
      return credentials ? replicas.peek(credentials.tokenKey, planId)?.snapshot : undefined;
    },
  };
}
