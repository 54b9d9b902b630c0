import { createHash } from 'node:crypto';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { printSchema } from 'graphql';
import { createYoga, type Plugin, useReadinessCheck, type YogaServerInstance } from 'graphql-yoga';
import type { Dispatcher } from 'undici';
import type { GatewayConfig } from '../config.js';
import { createPollBudget } from '../live/budget.js';
import type { LiveBus } from '../live/bus.js';
import { createLiveHub, type LiveHub } from '../live/hub.js';
import type { PollLeases } from '../live/leases.js';
import { createSystemScheduler, type Scheduler } from '../live/scheduler.js';
import { createLoaders, unauthenticated } from '../loaders/create-loaders.js';
import { createRestCache } from '../loaders/rest-cache.js';
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
import { classifyFailure } from './failure-policy.js';
import { createOperationMeter } from './operation-meter.js';
import { corsOptions } from './plugins/cors.js';
import { maskError } from './plugins/mask-error.js';
import { useCsrfPrevention } from './plugins/use-csrf-prevention.js';
import { useHttpCaching } from './plugins/use-http-caching.js';
import { useInputErrorNames } from './plugins/use-input-error-names.js';
import { useDocumentLimits } from './plugins/use-limits.js';
import { type OperationLogger, useOperationLog } from './plugins/use-operation-log.js';
import { loadDocumentManifest, usePersistedDocuments } from './plugins/use-persisted-documents.js';
import { useResponseExtensions } from './plugins/use-response-extensions.js';
import { createReadLog } from './read-log.js';
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
  /** Extra yoga plugins after the gateway's own (tests count resolver calls with one). @default none */
  plugins?: Plugin[];
}

export interface Gateway {
  readonly yoga: YogaServerInstance<Record<string, never>, GatewayContext>;
  readonly upstream: UpstreamClient;
  readonly replicas: ReplicaStore;
  readonly ledger: RequestLedger;
  readonly config: GatewayConfig;
  /** Subscriptions: pollers, change logs, the event bus (see src/live/README.md). */
  readonly live: LiveHub;
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
  const ledger = createRequestLedger({ ...config.rateLimit, now });
  const upstream = createUpstreamClient({
    baseUrl: config.upstreamUrl,
    ledger,
    wallClock: now,
    ...deps.upstreamTimeouts,
    ...(deps.dispatcher ? { dispatcher: deps.dispatcher } : {}),
  });
  const replicas = createReplicaStore({
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
  });
  const restCache = createRestCache({ classifyFailure, now });
  const live = createLiveHub({
    replicas,
    fetchDelta: ({ token, planId, since }) =>
      upstream.getPlanById({ token }, { planId, lastKnowledgeOfServer: since }),
    budget: createPollBudget({
      usage: (tokenKey) => ledger.usage(tokenKey),
      ...config.rateLimit,
      share: config.live.budgetShare,
      maxAgeMs: config.maxAgeMs,
      now,
      ...(deps.live?.pollLedger ? { polls: deps.live.pollLedger } : {}),
    }),
    scheduler: deps.scheduler ?? createSystemScheduler(now),
    maxSubscriptionsPerToken: config.live.maxSubscriptionsPerToken,
    ...(deps.live?.bus ? { bus: deps.live.bus } : {}),
    ...(deps.live?.leases ? { leases: deps.live.leases } : {}),
  });

  const manifest = config.trustedDocuments
    ? loadDocumentManifest(config.trustedDocuments.manifestPath)
    : undefined;
  const plugins = [
    useCsrfPrevention(),
    // Before anything reads the document: a hash-only request gets its text here.
    ...usePersistedDocuments({
      apq: config.persistedQueries,
      ...(manifest ? { manifest } : {}),
      only: config.trustedDocuments?.only ?? false,
    }),
    ...(config.httpCaching
      ? [
          useHttpCaching({
            replicas,
            defaultMaxAgeMs: config.maxAgeMs,
            schemaDigest: createHash('sha256').update(printSchema(schema)).digest('hex'),
            maxEntries: config.httpCaching.maxEntries,
          }),
        ]
      : []),
    useDeferStream(),
    ...useDocumentLimits(config.limits),
    useInputErrorNames(),
    useResponseExtensions({ metrics: config.metrics }),
    useReadinessCheck({
      endpoint: '/ready',
      check: () => upstreamReachable(config.upstreamUrl),
    }),
    ...(deps.log ? [useOperationLog(deps.log)] : []),
    ...(deps.plugins ?? []),
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
    cors: corsOptions(config),
    plugins,
    context: ({ request }) => {
      const credentials = credentialsFrom(request);
      const freshness = freshnessFrom(request, config.maxAgeMs);
      const meter = createOperationMeter();
      const reads = createReadLog();
      const meteredReplicas = {
        read: (read: Parameters<ReplicaStore['read']>[0]) => replicas.read({ ...read, meter }),
      };
      const loaders = createLoaders({
        credentials,
        freshness,
        upstream,
        replicas: {
          read: async (read) => {
            const answer = await meteredReplicas.read(read);
            reads.replica(read.planId, answer);
            return answer;
          },
        },
        restCache: {
          ...restCache,
          read: async (tokenKey, key, maxAgeMs, load) => {
            const answer = await restCache.read(tokenKey, key, maxAgeMs, load);
            reads.rest(key, answer);
            return answer;
          },
        },
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
        reads,
        writes,
        live: live.forOperation({ credentials, freshness, loaders }),
        rateLimit: () => {
          reads.volatile();
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
    ledger,
    config,
    live,
    async close() {
      await live.close();
      await upstream.close();
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
