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
 *    run one delta sync right away, inside this operation, so derived values (account balances,
 *    category activity, month totals, the other side of a transfer) are current both in the
 *    payload and in the next query. If that sync fails (429, 5xx), the payload answers from the applied
 *    entities and `extensions.stale` says so.
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
import { type Credentials, unauthenticated } from '../operation/credentials.js';
import type { OperationMeter } from '../operation/meter.js';
import type { PlanSnapshot, ReplicaStore } from '../replica/types.js';
import type { UpstreamClient } from '../upstream/client.js';
import { WRITE_EFFECTS, type WriteOperationId } from './effects.js';

export interface WritePipelineDeps {
  credentials: Credentials | null;
  upstream: UpstreamClient;
  /** `read` must charge its upstream calls to `meter` (the gateway wraps it). */
  replicas: PlanReplicas & Pick<ReplicaStore, 'applySaved' | 'peek' | 'expire'>;
  restCache: RestCache;
  meter: OperationMeter;
  /** This operation's loaders, told to forget or take the post-write snapshot. */
  loaders: Loaders;
  /** Epoch ms; "today" for date rules is its UTC date. @default Date.now */
  now?: () => number;
  /**
   * The operation's deadline: the delta sync after a write gives up waiting when it aborts
   * (the payload then answers stale). The write itself is never cut short: it is sent once and
   * waits for its answer. @default none
   */
  deadline?: () => AbortSignal | undefined;
}

/** Every write is plan-scoped: its parameters always hold `planId`. */
export type WriteParams<Op extends WriteOperationId> = Params<Op> & { readonly planId: string };

export interface WriteOutcome<Op extends WriteOperationId> {
  readonly data: OperationResult<Op>;
  /** The concrete plan id when a replica of the plan is held, else the id or alias sent. */
  readonly planId: string;
  /**
   * The replica after the write and its delta sync (or, when that sync failed, with the write
   * applied); absent when no sync ran (payee and category group writes, or no replica held).
   */
  readonly snapshot?: PlanSnapshot;
  /**
   * The replica before the write and after it (applied, then synced), when both are held and
   * of the same plan: what `changes` compares (write-changes.ts).
   */
  readonly replicas?: { readonly before: PlanSnapshot; readonly after: PlanSnapshot };
}

export interface Writes {
  /** Sends `operationId` once and brings the replica and loaders up to date (see above). */
  run<Op extends WriteOperationId>(
    operationId: Op,
    params: WriteParams<Op>,
    options?: WriteFailureOptions,
  ): Promise<WriteOutcome<Op>>;
  /** Today's date (UTC) by the gateway's clock: the reference of the date rules. */
  today(): IsoDate;
  /** The replica this token holds for the plan, whatever its age; never calls the upstream. */
  peek(planId: string): PlanSnapshot | undefined;
}

export function createWritePipeline(deps: WritePipelineDeps): Writes {
  const {
    credentials,
    upstream,
    replicas,
    restCache,
    meter,
    loaders,
    now = Date.now,
    deadline,
  } = deps;

  function requireCredentials(): Credentials {
    if (!credentials) throw unauthenticated();
    return credentials;
  }

  const today = (): IsoDate => new Date(now()).toISOString().slice(0, 10);

  /** Private: the delta sync after a write; its failure never fails the (successful) write. */
  async function syncAfterWrite(
    { token, tokenKey }: Credentials,
    planId: string,
  ): Promise<PlanSnapshot | undefined> {
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
      loaders.prime(planId, read.snapshot);
      return read.snapshot;
    } catch (error) {
      // No replica to fall back on (it was dropped): fields that need the plan report why.
      loaders.prime(
        planId,
        isUpstreamError(error) ? toGraphQLError(error) : new Error('plan sync failed'),
      );
      return undefined;
    }
  }

  /** Private: applies the answer; an answer the replica refuses must not fail a write that was done. */
  function applyAnswer<Op extends WriteOperationId>(
    tokenKey: string,
    operationId: Op,
    params: WriteParams<Op>,
    data: OperationResult<Op>,
  ): PlanSnapshot | undefined {
    const effect = WRITE_EFFECTS[operationId];
    const currentMonth = `${today().slice(0, 7)}-01`;
    try {
      return replicas.applySaved(tokenKey, params.planId, effect.saved(data, params, currentMonth));
    } catch {
      return undefined;
    }
  }

  return {
    async run(operationId, params, options = {}) {
      const creds = requireCredentials();
      const call = { token: creds.token, meter };
      const before = replicas.peek(creds.tokenKey, params.planId)?.snapshot;
      let data: OperationResult<typeof operationId>;
      try {
        data = await meter.track(upstream.callWithParams(operationId, call, params));
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
      const applied = viaAlias ? undefined : applyAnswer(creds.tokenKey, operationId, params, data);
      for (const prefix of effect.invalidates) restCache.invalidate(creds.tokenKey, prefix);
      loaders.forget(params.planId);
      const held = applied ?? replicas.peek(creds.tokenKey, params.planId)?.snapshot;
      // A held replica the answer could not be applied to needs the delta even after a complete write.
      const sync = held !== undefined && (!effect.complete || applied === undefined);
      const snapshot = sync ? await syncAfterWrite(creds, params.planId) : undefined;
      const planId = snapshot?.planId ?? held?.planId ?? params.planId;
      const after = snapshot ?? applied;
      const compared =
        before && after && before.planId === after.planId ? { replicas: { before, after } } : {};
      return snapshot ? { data, planId, snapshot, ...compared } : { data, planId, ...compared };
    },
    today,
    peek(planId) {
      return credentials ? replicas.peek(credentials.tokenKey, planId)?.snapshot : undefined;
    },
  };
}
