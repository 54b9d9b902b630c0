/**
 * The gateway's webhooks, when the operator gave their key: the registry (src/webhooks) over the
 * SQLite store at its path (or, with a cluster, Redis through the cluster's one link), and the
 * transport that sends them (src/deliveries), whose feeds run through this gateway's admission
 * path. Without the key, a registry that answers WEBHOOKS_DISABLED. What is said to the
 * operator: one error when WEBHOOK_KEY does not open the store, and a warning at start and each
 * time the link comes back when Redis keeps nothing across its own restart.
 */
import type { Dispatcher } from 'undici';
import type { Cluster } from '../cluster/cluster.js';
import type { RedisLink } from '../cluster/redis.js';
import type { GatewayConfig } from '../config/config.js';
import { createSealer } from '../crypto/sealer.js';
import { createWebhookDeliveries } from '../deliveries/deliveries.js';
import { logInternalError } from '../errors/internal-errors.js';
import { type OperationRunner, prepareOperation } from '../server/run-operation.js';
import type { Logger } from '../telemetry/logger.js';
import type { Scheduler } from '../time/scheduler.js';
import { createRedisWebhookStore, watchPersistence } from '../webhooks/redis-store.js';
import {
  createWebhookRegistry,
  disabledWebhooks,
  type WebhookRegistry,
} from '../webhooks/registry.js';
import { createSqliteWebhookStore } from '../webhooks/sqlite-store.js';
import { type FeedKey, WebhookStoreUnavailableError } from '../webhooks/store.js';

/** Webhooks on (`config.webhooks`): the registry, and the feeds and deliveries it has open. */
export interface Webhooks extends WebhookRegistry {
  /** The (token key, plan) feeds open on this instance. */
  openFeeds(): FeedKey[];
}

export interface GatewayWebhooks {
  readonly registry: WebhookRegistry;
  readonly running: Webhooks | undefined;
  /** Opens the stored endpoints' feeds (once the gateway exists). */
  start(): void;
  close(): Promise<void>;
}

export function createGatewayWebhooks(parts: {
  config: GatewayConfig;
  /** With one, endpoints and the outbox are kept in its Redis, through its link. */
  cluster: Cluster | undefined;
  scheduler: Scheduler;
  gateway: () => OperationRunner;
  logger: Logger | undefined;
  dispatcher: Dispatcher | undefined;
}): GatewayWebhooks {
  const { config, scheduler, gateway, logger } = parts;
  const settings = config.webhooks;
  if (!settings) {
    return { registry: disabledWebhooks(), running: undefined, start() {}, close: async () => {} };
  }
  const onError = (error: unknown) => {
    // Redis away or hanging: the link says so once ("redis unavailable"), and the webhooks retry.
    if (error instanceof WebhookStoreUnavailableError) return;
    logInternalError(logger, error, 'webhooks');
  };
  // Several instances share endpoints and the outbox in Redis; one alone keeps them in SQLite.
  const link = parts.cluster?.link;
  const stopWarning = link && logger ? warnWithoutPersistence(link, logger) : () => {};
  const registry = createWebhookRegistry({
    config: settings,
    records: link
      ? createRedisWebhookStore({
          link,
          // Leases and claims are signed with the operator's key (only instances holding it
          // may hold a feed or an endpoint's queue).
          signer: createSealer(settings.key).signer,
          now: scheduler.now,
          onRejected: (entry) =>
            logger?.warn({ entry }, 'redis entry ignored: forged or sent again'),
        })
      : createSqliteWebhookStore(settings.databasePath),
    scheduler,
    onError,
    onKeyRefused: (error) => logger?.error({ setting: 'WEBHOOK_KEY' }, error.message),
  });
  const deliveries = createWebhookDeliveries({
    config: settings,
    registry,
    admission: (call) => prepareOperation(gateway(), call),
    scheduler,
    onError,
    ...(parts.dispatcher ? { dispatcher: parts.dispatcher } : {}),
  });
  return {
    registry,
    running: { ...registry, openFeeds: deliveries.openFeeds },
    start: () => void deliveries.start().catch(onError),
    close: async () => {
      stopWarning();
      await deliveries.close();
      await registry.close();
    },
  };
}

/**
 * Private: with webhooks in Redis, a Redis that keeps nothing on disk loses every endpoint and
 * its outbox when it restarts. Said at start and whenever the connection is (re)made, since a
 * Redis that came back may be another one.
 */
function warnWithoutPersistence(link: RedisLink, logger: Logger): () => void {
  return watchPersistence(link, (kept) => {
    if (kept === undefined) {
      logger.warn(
        'webhooks: could not tell whether Redis persists (CONFIG and INFO refused): without AOF or RDB, a restart of Redis loses every webhook endpoint and its outbox',
      );
    } else if (!kept.aof && !kept.rdb) {
      logger.warn(
        { redisPersistence: 'none' },
        'webhooks: Redis has neither AOF nor RDB persistence: a restart of Redis loses every webhook endpoint and its outbox; run it with appendonly yes',
      );
    } else {
      const kinds = [kept.aof ? 'AOF' : '', kept.rdb ? 'RDB' : ''].filter(Boolean).join(' and ');
      logger.info({ redisPersistence: kinds }, `webhooks: Redis persists with ${kinds}`);
    }
  });
}
