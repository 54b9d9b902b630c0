import type { GatewayConfig } from '../config/config.js';
import { logInternalError } from '../errors/internal-errors.js';
import type { PollBudget } from '../live/budget.js';
import { createReconciler, driftIds, type Reconciler } from '../live/reconciler.js';
import { driftCounts } from '../replica/drift.js';
import type { ReplicaStore } from '../replica/types.js';
import type { Logger } from '../telemetry/logger.js';
import type { GatewayMetrics } from '../telemetry/metrics.js';
import type { Scheduler } from '../time/scheduler.js';
import type { UpstreamClient } from '../upstream/client.js';

export interface GatewayReconcilerOptions {
  config: GatewayConfig;
  replicas: ReplicaStore;
  budget: PollBudget;
  scheduler: Scheduler;
  upstream: Pick<UpstreamClient, 'connectionStats'>;
  metrics: GatewayMetrics;
  logger: Logger | undefined;
}

/**
 * Reconciliation (`config.live.reconcileMs`; none at 0): its comparisons counted in `/metrics`
 * (`gateway_replica_reconciliations_total`, `gateway_replica_drift_total` by kind), and a repair
 * logged as one line with the plan and the ids that differed: never a name or an
 * amount.
 */
export function createGatewayReconciler(options: GatewayReconcilerOptions): Reconciler | undefined {
  const { config, replicas, budget, scheduler, upstream, metrics, logger } = options;
  if (config.live.reconcileMs === 0) return undefined;
  return createReconciler({
    replicas,
    budget,
    scheduler,
    periodMs: config.live.reconcileMs,
    clientsWaiting: () => upstream.connectionStats().waiting > 0,
    onResult({ planId, result }) {
      if (result.outcome !== 'repaired') {
        metrics.reconciled(result.outcome);
        return;
      }
      const counts = driftCounts(result.drift);
      metrics.reconciled('repaired', counts);
      logger?.warn(
        { planId, knowledge: result.knowledge, drift: driftIds(result.drift) },
        'replica drift repaired',
      );
    },
    onError(error, { planId }) {
      metrics.reconciled('error');
      logInternalError(logger, error, `reconciliation of plan ${planId} failed`);
    },
  });
}
