/**
 * The gateway's webhooks (src/webhooks), when the operator gave their key: the SQLite store at
 * its path (or Redis, shared, with `REDIS_URL`), and feeds that run their `planChanged`
 * subscription through this gateway's admission path (`prepareOperation`), like any other
 * transport. Without the key, a registry that answers WEBHOOKS_DISABLED. What is said to the
 * operator: one error when WEBHOOK_KEY does not open the store, and a warning at start and at each
 * reconnection when Redis keeps nothing across its own restart.
 */
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Dispatcher } from 'undici';
import { bearer } from '../admission/presented.js';
import type { GatewayConfig } from '../config/config.js';
import { logInternalError } from '../errors/internal-errors.js';
import type { Scheduler } from '../live/scheduler.js';
import { type OperationRunner, prepareOperation } from '../server/run-operation.js';
import type { Logger } from '../telemetry/logger.js';
import type { FeedSubscribe } from '../webhooks/feeds.js';
import { FEED_DOCUMENT } from '../webhooks/payload.js';
import { createRedisWebhookStore, persistenceOf } from '../webhooks/redis-store.js';
import { createSqliteWebhookStore } from '../webhooks/sqlite-store.js';
import {
  createWebhooks,
  disabledWebhooks,
  type WebhookRegistry,
  type Webhooks,
} from '../webhooks/webhooks.js';

export interface GatewayWebhooks {
  readonly registry: WebhookRegistry;
  readonly running: Webhooks | undefined;
  /** Opens the stored endpoints' feeds (once the gateway exists). */
  start(): void;
}

export function createGatewayWebhooks(parts: {
  config: GatewayConfig;
  scheduler: Scheduler;
  gateway: () => OperationRunner;
  logger: Logger | undefined;
  dispatcher: Dispatcher | undefined;
}): GatewayWebhooks {
  const { config, scheduler, gateway, logger } = parts;
  const settings = config.webhooks;
  if (!settings) return { registry: disabledWebhooks(), running: undefined, start() {} };
  const onError = (error: unknown) => logInternalError(logger, error, 'webhooks');
  const subscribe: FeedSubscribe = async ({ token, planId, since }) => {
    const prepared = await prepareOperation(gateway(), {
      query: FEED_DOCUMENT,
      variables: { planId, since: since ?? null },
      operationName: 'WebhookFeed',
      presented: bearer(token),
      path: '/webhooks',
      // The gateway's own document: it runs under TRUSTED_DOCUMENTS_ONLY like the MCP tools.
      own: true,
    });
    if (!prepared.ok) return { errors: [...prepared.errors] };
    return prepared.subscribe();
  };
  // Several instances share endpoints and the outbox in Redis; one alone keeps them in SQLite.
  const redis = config.redisUrl ? redisClient(config.redisUrl) : undefined;
  if (redis && logger) warnWithoutPersistence(redis, logger);
  const running = createWebhooks({
    config: settings,
    records: redis
      ? createRedisWebhookStore(redis, config.cluster.keyPrefix)
      : createSqliteWebhookStore(settings.databasePath),
    scheduler,
    subscribe,
    onError,
    onKeyRefused: (error) => logger?.error({ setting: 'WEBHOOK_KEY' }, error.message),
    ...(parts.dispatcher ? { dispatcher: parts.dispatcher } : {}),
  });
  return {
    registry: running,
    running,
    start: () => void running.start().catch(onError),
  };
}

/**
 * Private: a Redis client for the shared store, loaded only when `REDIS_URL` is set, so a single
 * instance never loads ioredis (test/cli/build.test.ts); synchronous, since the store is made
 * with the gateway.
 */
function redisClient(url: string): Redis {
  const { Redis: Client } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  return new Client(url);
}

/**
 * Private: with webhooks in Redis, a Redis that keeps nothing on disk loses every endpoint and
 * its outbox when it restarts. Said at start and whenever the connection is (re)made, since a
 * Redis that came back may be another one.
 */
function warnWithoutPersistence(redis: Redis, logger: Logger): void {
  redis.on('ready', () => {
    void persistenceOf(redis).then((kept) => {
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
  });
}
