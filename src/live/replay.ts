/**
 * Resuming (see README.md here, "Resume"): what changed after a subscriber's `since`, from the
 * channel's change log when it reaches back that far (no upstream call), else from one delta
 * request sent from `since`.
 */
import type { ResponseData } from '@plans-gateway/rest-contract';
import { rethrowAsGraphQL } from '../contracts/errors.js';
import type { PlanSnapshot, ReplicaStore } from '../replica/types.js';
import type { ChangeLog } from './change-log.js';
import {
  type ChangeMeta,
  isEmptyChange,
  keysOfSource,
  type PlanChange,
  resolveKeys,
} from './changes.js';
import { deltaView } from './delta-view.js';

export interface FetchDeltaRequest {
  readonly token: string;
  readonly planId: string;
  readonly since: number;
}

/** `GET /plans/{planId}?last_knowledge_of_server=since`: replays the change log cannot serve. */
export type FetchDelta = (request: FetchDeltaRequest) => Promise<ResponseData['getPlanById']>;

export interface ReplaySources {
  readonly replicas: Pick<ReplicaStore, 'peek'>;
  readonly fetchDelta: FetchDelta;
}

/** The (token, plan) to replay and its log. */
export interface ReplayTarget {
  readonly tokenKey: string;
  readonly planId: string;
  readonly log: ChangeLog;
}

/** What changed after `since`, for a subscriber of `target`; undefined when nothing. */
export async function replay(
  sources: ReplaySources,
  target: ReplayTarget,
  token: string,
  since: number,
): Promise<PlanChange | undefined> {
  const current = sources.replicas.peek(target.tokenKey, target.planId)?.snapshot;
  if (current === undefined || since >= current.serverKnowledge) return undefined;
  const meta = { planId: target.planId, origin: 'REPLAY', previousServerKnowledge: since } as const;
  const logged = target.log.since(since);
  const change =
    logged !== undefined
      ? resolveKeys(logged, current, { ...meta, serverKnowledge: current.serverKnowledge })
      : await replayFromUpstream(sources.fetchDelta, token, since, current, meta);
  return isEmptyChange(change) ? undefined : change;
}

// Private: the log does not reach back to `since`: one delta from it, resolved over the replica.
async function replayFromUpstream(
  fetchDelta: FetchDelta,
  token: string,
  since: number,
  current: PlanSnapshot,
  meta: Omit<ChangeMeta, 'serverKnowledge'>,
): Promise<PlanChange> {
  const data = await fetchDelta({ token, planId: meta.planId, since }).catch(rethrowAsGraphQL);
  const keys = keysOfSource(
    { kind: 'delta', data, fromKnowledge: since },
    current,
    current.currentMonth(),
  );
  return resolveKeys(keys, deltaView(data.plan, current), {
    ...meta,
    serverKnowledge: data.server_knowledge,
  });
}
