import type { Cluster } from '../cluster/cluster.js';
import type { GatewayConfig } from '../config/config.js';
import {
  type AppliedChange,
  createReplicaStore,
  type FetchPlanRequest,
  type FetchPlanResult,
} from '../replica/store.js';
import type { QueryMeter } from '../replica/transaction-query.js';
import type { ReplicaStore } from '../replica/types.js';
import type { GatewayMetrics } from '../telemetry/metrics.js';
import type { UpstreamClient, UpstreamMeter } from '../upstream/client.js';
import { classifyFailure } from './failure-policy.js';
import { withCluster } from './gateway-cluster.js';

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
      fetchPlan: meteredFetchPlan(upstream, metrics),
    }),
  );
  return cluster ? cluster.replicas(store) : store;
}

/**
 * Private: `getPlanById` for the store, counted in the sync metrics. The operation whose read
 * started a sync pays for it: its meter rides along with the read.
 */
function meteredFetchPlan(upstream: UpstreamClient, metrics: GatewayMetrics) {
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
    try {
      const data = await upstream.getPlanById(
        { token, meter, ...(signal ? { signal } : {}) },
        { planId, ...(lastKnowledgeOfServer === undefined ? {} : { lastKnowledgeOfServer }) },
      );
      metrics.replicaSync(kind, 'ok');
      return { data, bytes };
    } catch (error) {
      metrics.replicaSync(kind, 'error');
      throw error;
    }
  };
}

function isUpstreamMeter(value: unknown): value is UpstreamMeter {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as UpstreamMeter).record === 'function'
  );
}
