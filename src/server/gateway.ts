import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { createYoga, useReadinessCheck, type YogaServerInstance } from 'graphql-yoga';
import type { Dispatcher } from 'undici';
import { type Cluster, createCluster } from '../cluster/cluster.js';
import type { LinkChange } from '../cluster/redis.js';
import type { GatewayConfig } from '../config.js';
import { createPollBudget } from '../live/budget.js';
import type { LiveBus } from '../live/bus.js';
import { createLiveHub, type LiveHub } from '../live/hub.js';
import type { PollLeases } from '../live/leases.js';
import { createSystemScheduler, type Scheduler } from '../live/scheduler.js';
import { createLoaders, unauthenticated } from '../loaders/create-loaders.js';
import { createRestCache } from '../loaders/rest-cache.js';
import { createReplicaStore, type ReplicaStoreOptions } from '../replica/store.js';
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
import { classifyFailure } from './failure-policy.js';
import { createOperationMeter } from './operation-meter.js';
import { maskError } from './plugins/mask-error.js';
import { useInputErrorNames } from './plugins/use-input-error-names.js';
import { useDocumentLimits } from './plugins/use-limits.js';
import { type OperationLogger, useOperationLog } from './plugins/use-operation-log.js';
import { METRICS_HEADER, useResponseExtensions } from './plugins/use-response-extensions.js';
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
  /** Timers of live updates (tests drive a simulated hour with a manual one). @default real timers on `now` */
  scheduler?: Scheduler;
  /**
   * The parts of live updates a cluster shares: the event bus, the poll leases and the ledger of
   * poll requests. @default in-process (see src/live/README.md)
   */
  live?: { bus?: LiveBus; leases?: PollLeases; pollLedger?: RequestLedger };
  /**
   * Redis cooperation (see src/cluster). @default with `config.redisUrl`, one the gateway
   * creates and closes; without it, none
   */
  cluster?: Cluster;
  /** The Redis link went down (the instance works alone) or came back. @default ignored */
  onClusterChange?: (change: LinkChange) => void;
}

export interface Gateway {
  readonly yoga: YogaServerInstance<Record<string, never>, GatewayContext>;
  readonly upstream: UpstreamClient;
  readonly replicas: ReplicaStore;
  readonly ledger: RequestLedger;
  readonly config: GatewayConfig;
  /** Subscriptions: pollers, change logs, the event bus (see src/live/README.md). */
  readonly live: LiveHub;
  /** Cooperation with other instances through Redis, when configured. */
  readonly cluster?: Cluster;
  /**
   * Ends every subscription and closes the upstream pool; the HTTP server that serves `yoga` is
   * the caller's to close.
   */
  close(): Promise<void>;
}

/**
 * Builds one gateway: its own upstream client, request ledger, replica store and REST cache,
 * so several gateways can live in one process (tests do). Nothing here listens on a port.
 */
export function createGateway(config: GatewayConfig, deps: GatewayDeps = {}): Gateway {
  const now = deps.now ?? Date.now;
  const cluster =
    deps.cluster ??
    (config.redisUrl === undefined
      ? undefined
      : createCluster({
          ...config.cluster,
          url: config.redisUrl,
          now,
          ...(deps.onClusterChange ? { onChange: deps.onClusterChange } : {}),
        }));
  // With a cluster, `rateLimit` and the poll budget count every instance's requests.
  const sharedLedger = cluster?.ledger('calls', config.rateLimit);
  const ledger = sharedLedger ?? createRequestLedger({ ...config.rateLimit, now });
  const usage = (tokenKey: string) => sharedLedger?.shared(tokenKey) ?? ledger.usage(tokenKey);
  const upstream = createUpstreamClient({
    baseUrl: config.upstreamUrl,
    ledger,
    wallClock: now,
    ...deps.upstreamTimeouts,
    ...(deps.dispatcher ? { dispatcher: deps.dispatcher } : {}),
  });
  const storeOptions: ReplicaStoreOptions = {
    maxBytes: config.replicaMaxBytes,
    now,
    classifyFailure,
    ...(deps.replicaMeter ? { meter: deps.replicaMeter } : {}),
    onApplied: (change) => live.applied(change),
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
  };
  const store = createReplicaStore(withCluster(cluster, storeOptions));
  const replicas = cluster ? cluster.replicas(store) : store;
  const sharedPolls = cluster?.ledger('polls', config.rateLimit);
  const restCache = createRestCache({ classifyFailure, now });
  const live = createLiveHub({
    replicas,
    fetchDelta: ({ token, planId, since }) =>
      upstream.getPlanById({ token }, { planId, lastKnowledgeOfServer: since }),
    budget: createPollBudget({
      usage,
      ...config.rateLimit,
      share: config.live.budgetShare,
      maxAgeMs: config.maxAgeMs,
      now,
      ...(deps.live?.pollLedger ? { polls: deps.live.pollLedger } : {}),
      ...(sharedPolls && !deps.live?.pollLedger
        ? { polls: { record: sharedPolls.record, usage: sharedPolls.shared } }
        : {}),
    }),
    scheduler: deps.scheduler ?? createSystemScheduler(now),
    maxSubscriptionsPerToken: config.live.maxSubscriptionsPerToken,
    ...(deps.live?.bus ? { bus: deps.live.bus } : cluster ? { bus: cluster.bus } : {}),
    ...(deps.live?.leases
      ? { leases: deps.live.leases }
      : cluster
        ? { leases: cluster.leases }
        : {}),
  });

  const plugins = [
    useCSRFPrevention({ requestHeaders: ['x-graphql-yoga-csrf', 'apollo-require-preflight'] }),
    ...useDocumentLimits(config.limits),
    useInputErrorNames(),
    useResponseExtensions({ metrics: config.metrics }),
    useReadinessCheck({
      endpoint: '/ready',
      check: () => upstreamReachable(config.upstreamUrl),
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
          // GraphiQL sends subscriptions as GET event streams, which CSRF prevention refuses
          // without this header.
          additionalHeaders: { 'x-graphql-yoga-csrf': 'graphiql' },
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
      const freshness = freshnessFrom(request, config.maxAgeMs);
      const meter = createOperationMeter();
      const meteredReplicas = {
        read: (read: Parameters<ReplicaStore['read']>[0]) => replicas.read({ ...read, meter }),
      };
      const loaders = createLoaders({
        credentials,
        freshness,
        upstream,
        replicas: meteredReplicas,
        restCache,
        meter,
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
      });
      return {
        credentials,
        limits: config.limits,
        loaders,
        meter,
        writes,
        live: live.forOperation({ credentials, freshness, loaders }),
        rateLimit: () => {
          if (!credentials) throw unauthenticated();
          return usage(credentials.tokenKey);
        },
      };
    },
  });

  return {
    yoga,
    upstream,
    replicas,
    ledger,
    config,
    live,
    ...(cluster ? { cluster } : {}),
    async close() {
      await live.close();
      await upstream.close();
      if (cluster && !deps.cluster) await cluster.close();
    },
  };
}

// Private: with a cluster, syncs go through its single flight and stored changes are relayed.
function withCluster(
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

function isUpstreamMeter(value: unknown): value is UpstreamMeter {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as UpstreamMeter).record === 'function'
  );
}

/**
 * Ready when the upstream answers HTTP at all. The probe sends no token (so it costs no
 * quota); the 401 it gets proves the upstream is up.
 */
async function upstreamReachable(baseUrl: string): Promise<boolean> {
  try {
    const response = await fetch(`${baseUrl}/user`, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.status < 500;
  } catch {
    return false;
  }
}
