import type { AdmittedCost } from '../admission/admission.js';
import type { Cluster } from '../cluster/cluster.js';
import type { GatewayConfig } from '../config/config.js';
import type { LiveHub } from '../live/hub.js';
import { createLoaders } from '../loaders/create-loaders.js';
import { createReadLog, type ReadLog } from '../loaders/read-log.js';
import type { RestCache } from '../loaders/rest-cache.js';
import { type Credentials, requireCredentials } from '../operation/credentials.js';
import { createDeadline } from '../operation/deadline.js';
import { createOperationMeter } from '../operation/meter.js';
import type { OperationTracer } from '../operation/tracer.js';
import type { ReplicaStore } from '../replica/types.js';
import type { GatewayContext } from '../schema/context.js';
import type { Clock } from '../time/clock.js';
import type { UpstreamClient } from '../upstream/client.js';
import type { RequestUsage } from '../upstream/request-ledger.js';
import type { WebhookRegistry } from '../webhooks/registry.js';
import type { IdempotentWrites } from '../writes/idempotency.js';
import { createWritePipeline } from '../writes/pipeline.js';
import type { Settling } from '../writes/settling.js';
import type { FreshnessOf } from './freshness.js';
import type { RequestIds } from './plugins/use-request-id.js';

export interface OperationContextDeps {
  config: GatewayConfig;
  now: Clock;
  upstream: UpstreamClient;
  replicas: ReplicaStore;
  restCache: RestCache;
  live: LiveHub;
  /** A token's upstream usage (with a cluster: every instance's). */
  usage: (tokenKey: string) => RequestUsage | Promise<RequestUsage>;
  requestIds: RequestIds;
  cluster?: Cluster | undefined;
  tracer?: OperationTracer | undefined;
  webhooks: WebhookRegistry;
  /** The delta syncs after writes, which later reads of the same token wait for. */
  settling: Settling;
  /** The request's freshness, decided once per request (the answer cache asks it too). */
  freshnessOf: FreshnessOf;
  /** Answers of writes sent with an `Idempotency-Key` header, per caller. @default none kept */
  idempotentWrites?: IdempotentWrites | undefined;
}

/**
 * What a transport hands yoga for one operation: its request, and the credentials admission made
 * for it (`useAdmission` puts them there over HTTP; WebSocket and `run-operation.ts` pass them to
 * `getEnveloped`). Missing credentials are no credentials: what needs them fails with
 * UNAUTHENTICATED.
 */
export interface OperationInitialContext {
  readonly request: Request;
  readonly credentials?: Credentials | null;
  /** The price admission made (`useAdmission` over HTTP); read by extensions.cost and the log. */
  readonly admittedCost?: AdmittedCost | null;
}

/**
 * yoga's `context` factory: each operation gets its own loaders, meter, deadline, read log and
 * write pipeline over the gateway's shared stores, so nothing one operation memoises reaches
 * another. It takes the operation's credentials as admission made them.
 */
export function operationContext(deps: OperationContextDeps) {
  const {
    config,
    now,
    upstream,
    replicas,
    restCache,
    live,
    usage,
    requestIds,
    cluster,
    tracer,
    settling,
    freshnessOf,
    idempotentWrites,
  } = deps;
  const { webhooks } = deps;
  return ({ request, credentials = null }: OperationInitialContext): GatewayContext => {
    if (credentials) cluster?.remember(credentials.token, credentials.tokenKey);
    const freshness = freshnessOf(request);
    const span = tracer?.startOperation(request);
    const meter = createOperationMeter(span ? { span } : {});
    const deadline = createDeadline(config.operationDeadlineMs, live.scheduler);
    const reads = createReadLog();
    const meteredReplicas = {
      // A cold load still receiving bytes holds the deadline back (`extendWhile`).
      read: (read: Parameters<ReplicaStore['read']>[0]) =>
        replicas.read({ ...read, meter, onColdLoad: deadline.extendWhile }),
    };
    const loaders = createLoaders({
      credentials,
      freshness,
      upstream,
      replicas: {
        read: async (read) => {
          // A write's delta still settling: read what it brings (read-your-writes).
          const pending = credentials && settling.wait(credentials.tokenKey);
          if (pending) await pending;
          const answer = await meteredReplicas.read(read);
          reads.replica(read.planId, answer);
          return answer;
        },
      },
      restCache: loggedRestCache(restCache, reads),
      meter,
      deadline: deadline.signal,
      coldPlans: {
        max: config.limits.aliases,
        holds: (tokenKey, planId) => replicas.peek(tokenKey, planId) !== undefined,
      },
    });
    const writes = createWritePipeline({
      credentials,
      settling,
      upstream,
      replicas: {
        ...meteredReplicas,
        applySaved: replicas.applySaved,
        peek: replicas.peek,
        expire: replicas.expire,
        ...(replicas.exactKnowledge ? { exactKnowledge: replicas.exactKnowledge } : {}),
      },
      restCache,
      meter,
      loaders,
      now,
      deadline: deadline.signal,
      idempotency: idempotencyOf(request, idempotentWrites),
    });
    return {
      credentials,
      loaders,
      meter,
      deadline,
      reads,
      requestId: requestIds.of(request),
      ...(span ? { span } : {}),
      writes,
      live: live.forOperation({ credentials, freshness, loaders, replicas: meteredReplicas }),
      webhooks,
      rateLimit: () => {
        reads.volatile();
        return usage(requireCredentials(credentials).tokenKey);
      },
    };
  };
}

// Private: the request's `Idempotency-Key` (checked when a write uses it), with the store.
function idempotencyOf(
  request: Request,
  writes: IdempotentWrites | undefined,
): { key: string; writes: IdempotentWrites } | undefined {
  const key = request.headers.get('idempotency-key');
  return key === null || writes === undefined ? undefined : { key, writes };
}

// Private: the REST cache as the operation's loaders read it, each read noted in its read log.
function loggedRestCache(restCache: RestCache, reads: ReadLog): RestCache {
  return {
    ...restCache,
    read: async (tokenKey, key, maxAgeMs, load) => {
      const answer = await restCache.read(tokenKey, key, maxAgeMs, load);
      reads.rest(key, answer);
      return answer;
    },
  };
}
