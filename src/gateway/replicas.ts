import type { ResponseData } from '@plans-gateway/rest-contract';
import { LRUCache } from 'lru-cache';
import type { Cluster } from '../cluster/cluster.js';
import type { GatewayConfig } from '../config/config.js';
import { isUpstreamError, type UpstreamError } from '../errors/upstream-error.js';
import { largestExportBytes } from '../replica/cache.js';
import { PlanBuilder } from '../replica/plan-builder.js';
import { monthOf } from '../replica/plan-state.js';
import {
  type AppliedChange,
  createReplicaStore,
  type FetchPlanRequest,
  type FetchPlanResult,
} from '../replica/store.js';
import type { QueryMeter } from '../replica/transaction-query.js';
import type { ReplicaStore } from '../replica/types.js';
import { assertExportHead } from '../replica/validate.js';
import { classifyFailure } from '../server/failure-policy.js';
import type { GatewayMetrics } from '../telemetry/metrics.js';
import type { UpstreamClient, UpstreamMeter } from '../upstream/client.js';
import { withCluster } from './cluster.js';

export interface GatewayReplicasOptions {
  config: GatewayConfig;
  now: () => number;
  upstream: UpstreamClient;
  metrics: GatewayMetrics;
  cluster?: Cluster | undefined;
  /** Counts the rows replicas visit to answer pages. @default none */
  meter?: QueryMeter | undefined;
  onApplied: (change: AppliedChange) => void;
}

/** The replica store as the gateway reads it: syncing through the upstream, or the cluster's. */
export function createGatewayReplicas(options: GatewayReplicasOptions): ReplicaStore {
  const { config, now, upstream, metrics, cluster, meter, onApplied } = options;
  const store = createReplicaStore(
    withCluster(cluster, {
      maxBytes: config.replicaMaxBytes,
      now,
      classifyFailure,
      ...(meter ? { meter } : {}),
      onApplied,
      fetchPlan: meteredFetchPlan(upstream, metrics, {
        now,
        maxExportBytes: largestExportBytes(config.replicaMaxBytes),
      }),
    }),
  );
  return cluster ? cluster.replicas(store) : store;
}

/**
 * Private: `getPlanById` for the store, counted in the sync metrics. The operation whose read
 * started a sync pays for it: its meter rides along with the read. A full export streams into a
 * `PlanBuilder` as it arrives (never held whole), up to the largest export the replica budget
 * can hold; a delta is read whole (it holds what changed).
 */
function meteredFetchPlan(
  upstream: UpstreamClient,
  metrics: GatewayMetrics,
  { now, maxExportBytes }: { now: () => number; maxExportBytes: number },
) {
  const tooLarge = createTooLargeMemo(now);
  return async (request: FetchPlanRequest): Promise<FetchPlanResult> => {
    const { token, planId, lastKnowledgeOfServer, signal, meter: readMeter } = request;
    let bytes = 0;
    const outer = isUpstreamMeter(readMeter) ? readMeter : undefined;
    const meter: UpstreamMeter = {
      record(call) {
        bytes = call.responseBytes ?? bytes;
        outer?.record(call);
      },
      ...(outer?.trace ? { trace: outer.trace.bind(outer) } : {}),
    };
    const kind = lastKnowledgeOfServer === undefined ? 'export' : 'delta';
    const call = { token, meter, ...(signal ? { signal } : {}) };
    try {
      if (lastKnowledgeOfServer !== undefined) {
        const data = await upstream.getPlanById(call, { planId, lastKnowledgeOfServer });
        metrics.replicaSync(kind, 'ok');
        return { data, bytes };
      }
      tooLarge.check(request.tokenKey, planId);
      let builder: PlanBuilder | undefined;
      const head = await tooLarge.note(
        request.tokenKey,
        planId,
        upstream.stream(
          'getPlanById',
          call,
          {
            at: ['plan'],
            open() {
              // A retried read starts over with a new builder.
              const started = new PlanBuilder({ currentMonth: monthOf(now()) });
              builder = started;
              return (collection, rows) => started.add(collection, rows);
            },
            maxBytes: maxExportBytes,
            setting: 'REPLICA_MAX_MB',
          },
          { planId },
        ),
      );
      const built = builder!.finish(head);
      metrics.replicaSync(kind, 'ok');
      return { data: exportHeadOf(head), built, bytes };
    } catch (error) {
      metrics.replicaSync(kind, 'error');
      throw error;
    }
  };
}

/** How long an export found too large is not asked for again. */
const TOO_LARGE_MS = 10 * 60_000;

/**
 * Private: exports found larger than the replica budget allows, per (token key, requested id).
 * Too large is deterministic: asking again would download the same bytes only to fail the same
 * way, so for a while later loads fail at once with the same error (it names the setting to
 * raise; raising it means a restart, which forgets this).
 */
function createTooLargeMemo(now: () => number) {
  const failures = new LRUCache<string, { error: UpstreamError; at: number }>({ max: 10_000 });
  const keyOf = (tokenKey: string, planId: string) => `${tokenKey.length}:${tokenKey}/${planId}`;
  return {
    check(tokenKey: string, planId: string): void {
      const failure = failures.get(keyOf(tokenKey, planId));
      if (failure === undefined) return;
      if (now() - failure.at >= TOO_LARGE_MS) failures.delete(keyOf(tokenKey, planId));
      else throw failure.error;
    },
    async note<T>(tokenKey: string, planId: string, read: Promise<T>): Promise<T> {
      try {
        return await read;
      } catch (error) {
        if (isUpstreamError(error) && error.kind === 'too_large') {
          failures.set(keyOf(tokenKey, planId), { error, at: now() });
        }
        throw error;
      }
    },
  };
}

/**
 * Private: the streamed export's `data` as the store sees it: plan-level fields and knowledge,
 * collections empty (its rows are in the built replica).
 */
function exportHeadOf(head: unknown): ResponseData['getPlanById'] {
  assertExportHead(head);
  return head;
}

function isUpstreamMeter(value: unknown): value is UpstreamMeter {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as UpstreamMeter).record === 'function'
  );
}
