import { type Cluster, createCluster } from '../cluster/cluster.js';
import type { LinkChange } from '../cluster/redis.js';
import type { SharedLedger } from '../cluster/shared-ledger.js';
import type { GatewayConfig } from '../config/config.js';
import { logInternalError } from '../errors/internal-errors.js';
import type { ReplicaStoreOptions } from '../replica/store.js';
import type { Logger } from '../telemetry/logger.js';
import type { Clock } from '../time/clock.js';
import {
  createRequestLedger,
  type RequestLedger,
  type RequestUsage,
} from '../upstream/request-ledger.js';

export interface OwnClusterOptions {
  now: Clock;
  logger?: Logger | undefined;
  /** Told when Redis goes away or comes back (the metrics count it). */
  onAvailability: (available: boolean) => void;
}

/** The cluster the gateway creates (and closes) itself: with `config.redisUrl`, else none. */
export function ownCluster(config: GatewayConfig, options: OwnClusterOptions): Cluster | undefined {
  const { now, logger, onAvailability } = options;
  if (config.redisUrl === undefined) return undefined;
  return createCluster({
    ...config.cluster,
    url: config.redisUrl,
    now,
    onChange: (change) => {
      logClusterChange(logger, change);
      onAvailability(change.available);
    },
    onError: (error) => logInternalError(logger, error, 'cluster message failed'),
    // Someone with write access to Redis wrote it; the instance ignored it and carried on.
    onRejected: (entry) => logger?.warn({ entry }, 'redis entry ignored: forged or sent again'),
  });
}

export interface GatewayLedger {
  /** Where upstream requests are counted. */
  readonly ledger: RequestLedger;
  /** A token's usage: with a cluster, every instance's requests. */
  readonly usage: (tokenKey: string) => RequestUsage | Promise<RequestUsage>;
}

/** With a cluster, `rateLimit` and the poll budget count every instance's requests. */
export function requestLedger(
  config: GatewayConfig,
  cluster: Cluster | undefined,
  now: Clock,
): GatewayLedger {
  const shared: SharedLedger | undefined = cluster?.ledger('calls', config.rateLimit);
  const ledger = shared ?? createRequestLedger({ ...config.rateLimit, now });
  return { ledger, usage: (tokenKey) => shared?.shared(tokenKey) ?? ledger.usage(tokenKey) };
}

/** With a cluster, syncs go through its single flight and stored changes are relayed. */
export function withCluster(
  cluster: Cluster | undefined,
  options: ReplicaStoreOptions,
): ReplicaStoreOptions {
  if (!cluster) return options;
  const { onApplied } = options;
  return {
    ...options,
    fetchPlan: cluster.fetchPlan(options.fetchPlan),
    onApplied: (change) => {
      onApplied?.(change);
      cluster.applied(change);
    },
  };
}

// Private: Redis going away is worth a warning (the instance works alone until it is back).
function logClusterChange(logger: Logger | undefined, change: LinkChange): void {
  if (!logger) return;
  if (!change.available) logger.warn({ reason: change.reason }, 'redis unavailable: working alone');
  else if (change.first) logger.info('redis connected: cooperating with other instances');
  else logger.info('redis back: cooperating again');
}
