import type { Cluster } from '../cluster/cluster.js';
import type { GatewayConfig } from '../config/config.js';
import { classifyFailure } from '../errors/failure-policy.js';
import { type AppliedChange, createReplicaStore } from '../replica/store.js';
import type { QueryMeter } from '../replica/transaction-query.js';
import type { ReplicaStore } from '../replica/types.js';
import { createPlanFetch } from '../replica-fetch/plan-fetch.js';
import type { Logger } from '../telemetry/logger.js';
import type { GatewayMetrics } from '../telemetry/metrics.js';
import type { Clock } from '../time/clock.js';
import type { UpstreamClient } from '../upstream/client.js';
import { withCluster } from './cluster.js';

export interface GatewayReplicasOptions {
  config: GatewayConfig;
  now: Clock;
  upstream: UpstreamClient;
  metrics: GatewayMetrics;
  cluster?: Cluster | undefined;
  /** Counts the rows replicas visit to answer pages. @default none */
  meter?: QueryMeter | undefined;
  onApplied: (change: AppliedChange) => void;
  /** Every read answered, with the token and the concrete plan it read (the reconciler's list). */
  onRead?: (token: string, tokenKey: string, planId: string) => void;
  /** Where a one-trip write's drift is logged (counts by kind, never ids or amounts). */
  logger?: Logger | undefined;
}

/** The replica store as the gateway reads it: syncing through the upstream, or the cluster's. */
export function createGatewayReplicas(options: GatewayReplicasOptions): ReplicaStore {
  const { config, now, upstream, metrics, cluster, meter, onApplied, onRead, logger } = options;
  const store = createReplicaStore(
    withCluster(cluster, {
      maxBytes: config.replicaMaxBytes,
      now,
      classifyFailure,
      ...(meter ? { meter } : {}),
      onApplied,
      onDerivedChecked: (drift) => {
        metrics.localEffectsChecked(drift);
        if (Object.keys(drift).length > 0) logger?.warn({ drift }, 'one-trip write drift repaired');
      },
      fetchPlan: createPlanFetch({
        upstream,
        maxBytes: config.replicaMaxBytes,
        now,
        onSync: (kind, result) => metrics.replicaSync(kind, result),
      }),
    }),
  );
  const served = cluster ? cluster.replicas(store) : store;
  if (!onRead) return served;
  const { readFresh } = served;
  return {
    ...served,
    async read(request) {
      const answer = await served.read(request);
      onRead(request.token, request.tokenKey, answer.snapshot.planId);
      return answer;
    },
    ...(readFresh
      ? {
          readFresh(request) {
            const answer = readFresh(request);
            if (answer) onRead(request.token, request.tokenKey, answer.snapshot.planId);
            return answer;
          },
        }
      : {}),
  };
}
