import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { createYoga, useReadinessCheck, type YogaServerInstance } from 'graphql-yoga';
import type { Dispatcher } from 'undici';
import type { GatewayConfig } from '../config.js';
import { createLoaders, unauthenticated } from '../loaders/create-loaders.js';
import { createRestCache, type RestCache } from '../loaders/rest-cache.js';
import { createReplicaStore } from '../replica/store.js';
import type { QueryMeter } from '../replica/transaction-query.js';
import type { ReplicaStore } from '../replica/types.js';
import { schema } from '../schema/index.js';
import {
  createUpstreamClient,
  type UpstreamClient,
  type UpstreamClientOptions,
  type UpstreamMeter,
} from '../upstream/client.js';
import { createRequestLedger, type RequestLedger } from '../upstream/ledger.js';
import { credentialsFrom, freshnessFrom, type GatewayContext } from './context.js';
import { createDeadline } from './deadline.js';
import { classifyFailure } from './failure-policy.js';
import { createOperationMeter } from './operation-meter.js';
import { maskError } from './plugins/mask-error.js';
import { useErrorHygiene } from './plugins/use-error-hygiene.js';
import { useInputErrorNames } from './plugins/use-input-error-names.js';
import { useIntrospection } from './plugins/use-introspection.js';
import { useDocumentLimits } from './plugins/use-limits.js';
import { type OperationLogger, useOperationLog } from './plugins/use-operation-log.js';
import { METRICS_HEADER, useResponseExtensions } from './plugins/use-response-extensions.js';
import { createReadinessProbe, upstreamReachable } from './readiness.js';
import { createWritePipeline } from './writes/pipeline.js';

export interface GatewayDeps {
  /** Dispatcher for upstream requests (tests inject one); default: the client's own pool. */
  dispatcher?: Dispatcher;
  /** Wall clock in epoch ms for replica ages, caches and the request ledger. @default Date.now */
  now?: () => number;
  /** Structured per-operation log; never receives tokens. @default none */
  log?: OperationLogger;
  /**
   * Upstream client timeouts (tests shorten them to see a hung write time out).
   * @default the client's: connect 10 s, headers 30 s, body 30 s
   */
  upstreamTimeouts?: Pick<
    UpstreamClientOptions,
    'connectTimeoutMs' | 'headersTimeoutMs' | 'bodyTimeoutMs'
  >;
  /** Counts transaction rows the replicas visit to answer pages (benchmarks, diagnostics). @default none */
  replicaMeter?: QueryMeter;
}

export interface Gateway {
  readonly yoga: YogaServerInstance<Record<string, never>, GatewayContext>;
  readonly upstream: UpstreamClient;
  readonly replicas: ReplicaStore;
  readonly restCache: RestCache;
  readonly ledger: RequestLedger;
  /** Closes the upstream pool; the HTTP server that serves `yoga` is the caller's to close. */
  close(): Promise<void>;
}

/**
 * Builds one gateway: its own upstream client, request ledger, replica store and REST cache,
 * so several gateways can live in one process (tests do). Nothing here listens on a port.
 */
export function createGateway(config: GatewayConfig, deps: GatewayDeps = {}): Gateway {
  const now = deps.now ?? Date.now;
  const ledger = createRequestLedger({ ...config.rateLimit, now });
  const upstream = createUpstreamClient({
    baseUrl: config.upstreamUrl,
    ledger,
    wallClock: now,
    // A token the upstream refused loses everything held for it.
    tokenGate: { onRejected: (tokenKey) => forgetToken(tokenKey) },
    ...deps.upstreamTimeouts,
    ...(deps.dispatcher ? { dispatcher: deps.dispatcher } : {}),
  });
  const replicas = createReplicaStore({
    maxBytes: config.replicaMaxBytes,
    now,
    classifyFailure,
    ...(deps.replicaMeter ? { meter: deps.replicaMeter } : {}),
    // The operation whose read started a sync pays for it: its meter rides along with the read.
    fetchPlan: async ({ token, planId, lastKnowledgeOfServer, signal, meter: readMeter }) => {
      let bytes = 0;
      const outer = isUpstreamMeter(readMeter) ? readMeter : undefined;
      const meter: UpstreamMeter = {
        record(call) {
          bytes = call.responseBytes ?? bytes;
          outer?.record(call);
        },
      };
      const data = await upstream.getPlanById(
        { token, meter, ...(signal ? { signal } : {}) },
        { planId, ...(lastKnowledgeOfServer === undefined ? {} : { lastKnowledgeOfServer }) },
      );
      return { data, bytes };
    },
  });
  const restCache = createRestCache({ classifyFailure, now, maxBytes: config.restCacheMaxBytes });
  function forgetToken(tokenKey: string): void {
    replicas.forgetToken(tokenKey);
    restCache.forgetToken(tokenKey);
  }

  const plugins = [
    useCSRFPrevention({ requestHeaders: ['x-graphql-yoga-csrf', 'apollo-require-preflight'] }),
    ...useDocumentLimits(config.limits),
    useIntrospection({ enabled: config.introspection }),
    useErrorHygiene(),
    useInputErrorNames(),
    useResponseExtensions({ metrics: config.metrics }),
    useReadinessCheck({
      endpoint: '/ready',
      check: createReadinessProbe(() => upstreamReachable(config.upstreamUrl)),
    }),
    ...(deps.log ? [useOperationLog(deps.log)] : []),
  ];

  const yoga = createYoga<Record<string, never>, GatewayContext>({
    schema,
    logging: false,
    maskedErrors: { maskError },
    graphiql: config.graphiql
      ? {
          title: 'Plans GraphQL gateway',
          defaultQuery: config.graphiqlDefaultQuery,
          headers: config.graphiqlDefaultHeaders
            ? JSON.stringify(config.graphiqlDefaultHeaders, null, 2)
            : undefined,
          shouldPersistHeaders: false,
        }
      : false,
    // Self-contained GraphiQL: yoga's default page loads its scripts from a CDN, which fails
    // offline and behind strict networks. Loaded on first use: the bundle weighs ~30 MB of heap.
    renderGraphiQL: async (options) =>
      (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(options),
    landingPage: false,
    healthCheckEndpoint: '/health',
    batching: { limit: config.limits.batch },
    maxRequestBodySize: config.limits.bodyBytes,
    cors: {
      origin: config.corsOrigins === '*' ? '*' : config.corsOrigins,
      methods: ['GET', 'POST'],
      allowedHeaders: [
        'authorization',
        'content-type',
        'cache-control',
        METRICS_HEADER,
        'x-graphql-yoga-csrf',
      ],
      credentials: false,
    },
    plugins,
    context: ({ request }) => {
      const credentials = credentialsFrom(request);
      const meter = createOperationMeter();
      const deadline = createDeadline(config.operationDeadlineMs);
      const meteredReplicas = {
        read: (read: Parameters<ReplicaStore['read']>[0]) => replicas.read({ ...read, meter }),
      };
      const loaders = createLoaders({
        credentials,
        freshness: freshnessFrom(request, config.maxAgeMs),
        upstream,
        replicas: meteredReplicas,
        restCache,
        meter,
        deadline,
      });
      const writes = createWritePipeline({
        credentials,
        upstream,
        replicas: {
          ...meteredReplicas,
          applySaved: replicas.applySaved,
          peek: replicas.peek,
          expire: replicas.expire,
        },
        restCache,
        meter,
        loaders,
        now,
        deadline,
      });
      return {
        credentials,
        loaders,
        meter,
        writes,
        rateLimit: () => {
          if (!credentials) throw unauthenticated();
          return ledger.usage(credentials.tokenKey);
        },
      };
    },
  });

  return {
    yoga,
    upstream,
    replicas,
    restCache,
    ledger,
    close: () => upstream.close(),
  };
}

function isUpstreamMeter(value: unknown): value is UpstreamMeter {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as UpstreamMeter).record === 'function'
  );
}
