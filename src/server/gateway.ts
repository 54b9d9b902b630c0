import { createHash } from 'node:crypto';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { GraphQLError, printSchema } from 'graphql';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Dispatcher } from 'undici';
import { type Cluster, createCluster } from '../cluster/cluster.js';
import type { LinkChange } from '../cluster/redis.js';
import type { GatewayConfig } from '../config/config.js';
import { credentialsFrom, unauthenticated } from '../contracts/credentials.js';
import { createDeadline } from '../contracts/deadline.js';
import { createOperationMeter } from '../contracts/operation-meter.js';
import type { OperationTracer } from '../contracts/tracer.js';
import { createPollBudget } from '../live/budget.js';
import type { LiveBus } from '../live/bus.js';
import { createLiveHub, type LiveHub } from '../live/hub.js';
import type { PollLeases } from '../live/leases.js';
import { createSystemScheduler, type Scheduler } from '../live/scheduler.js';
import { createLoaders } from '../loaders/create-loaders.js';
import { createReadLog } from '../loaders/read-log.js';
import { createRestCache, type RestCache } from '../loaders/rest-cache.js';
import { createReplicaStore, type ReplicaStoreOptions } from '../replica/store.js';
import type { QueryMeter } from '../replica/transaction-query.js';
import type { ReplicaStore } from '../replica/types.js';
import type { GatewayContext } from '../schema/context.js';
import { schema } from '../schema/index.js';
import { type Logger, logOperations } from '../telemetry/logger.js';
import { createGatewayMetrics, type GatewayMetrics } from '../telemetry/metrics.js';
import type { OperationReportSink } from '../telemetry/operation-report.js';
import {
  createUpstreamClient,
  type UpstreamClient,
  type UpstreamClientOptions,
  type UpstreamMeter,
} from '../upstream/client.js';
import { createRequestLedger, type RequestLedger } from '../upstream/ledger.js';
import { createWritePipeline } from '../writes/pipeline.js';
import { classifyFailure } from './failure-policy.js';
import { freshnessFrom } from './freshness.js';
import { useGraphiQL } from './graphiql/use-graphiql.js';
import { corsOptions } from './plugins/cors.js';
import { maskError } from './plugins/mask-error.js';
import { useCompression } from './plugins/use-compression.js';
import { useCsrfPrevention } from './plugins/use-csrf-prevention.js';
import { useErrorHygiene } from './plugins/use-error-hygiene.js';
import { useHttpCaching } from './plugins/use-http-caching.js';
import { useHttpHygiene } from './plugins/use-http-hygiene.js';
import { useInputErrorNames } from './plugins/use-input-error-names.js';
import { useIntrospection } from './plugins/use-introspection.js';
import { useDocumentLimits } from './plugins/use-limits.js';
import { useOperationDeadline } from './plugins/use-operation-deadline.js';
import { useOperationReport } from './plugins/use-operation-report.js';
import { loadDocumentManifest, usePersistedDocuments } from './plugins/use-persisted-documents.js';
import { useReadiness } from './plugins/use-readiness.js';
import { createRequestIds } from './plugins/use-request-id.js';
import { useResponseExtensions } from './plugins/use-response-extensions.js';
import { useTokenCheck } from './plugins/use-token-check.js';

export interface GatewayDeps {
  /** Dispatcher for upstream requests (tests inject one); default: the client's own pool. */
  dispatcher?: Dispatcher;
  /** Wall clock in epoch ms for replica ages, caches and the request ledger. @default Date.now */
  now?: () => number;
  /** pino logger: one line per operation, internal errors; never a token. @default none */
  logger?: Logger;
  /** Traces operations and their upstream calls (see telemetry/otel.ts). @default none */
  tracer?: OperationTracer;
  /** Add prom-client's process metrics (CPU, memory, event loop) to `/metrics`. @default false */
  processMetrics?: boolean;
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
  /**
   * Redis cooperation (see src/cluster). @default with `config.redisUrl`, one the gateway
   * creates and closes; without it, none
   */
  cluster?: Cluster;
}

export interface Gateway {
  readonly yoga: YogaServerInstance<Record<string, never>, GatewayContext>;
  readonly upstream: UpstreamClient;
  readonly replicas: ReplicaStore;
  readonly restCache: RestCache;
  readonly ledger: RequestLedger;
  readonly config: GatewayConfig;
  /** Subscriptions: pollers, change logs, the event bus (see src/live/README.md). */
  readonly live: LiveHub;
  readonly metrics: GatewayMetrics;
  /**
   * From now on `/ready` answers 503 "shutting down" (load balancers stop sending work) and
   * subscriptions end, so their clients reconnect elsewhere instead of holding the drain.
   */
  drain(): void;
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
          onChange: (change) => {
            logClusterChange(deps.logger, change);
            metrics.clusterChange(change.available);
          },
          onError: (error) => logInternalError(deps.logger, error, 'cluster message failed'),
        }));
  // With a cluster, `rateLimit` and the poll budget count every instance's requests.
  const sharedLedger = cluster?.ledger('calls', config.rateLimit);
  const ledger = sharedLedger ?? createRequestLedger({ ...config.rateLimit, now });
  const usage = (tokenKey: string) => sharedLedger?.shared(tokenKey) ?? ledger.usage(tokenKey);
  const metrics = createGatewayMetrics({
    // Read at scrape time, by when the store below exists.
    replicas: { stats: () => replicas.stats() },
    ledger,
    processMetrics: deps.processMetrics ?? false,
    ...(cluster ? { cluster } : {}),
  });
  const upstream = createUpstreamClient({
    baseUrl: config.upstreamUrl,
    ledger,
    wallClock: now,
    // A token the upstream refused loses everything held for it.
    tokenGate: { onRejected: (tokenKey) => forgetToken(tokenKey) },
    observer: metrics.upstream,
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
    },
  };
  const store = createReplicaStore(withCluster(cluster, storeOptions));
  const replicas = cluster ? cluster.replicas(store) : store;
  const sharedPolls = cluster?.ledger('polls', config.rateLimit);
  const restCache = createRestCache({
    classifyFailure,
    now,
    maxBytes: config.restCacheMaxBytes,
    ...(cluster ? { shared: cluster.restEntries } : {}),
  });
  function forgetToken(tokenKey: string): void {
    replicas.forgetToken(tokenKey);
    restCache.forgetToken(tokenKey);
  }
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
    onError: (error) => logInternalError(deps.logger, error, 'subscription poll failed'),
    ...(deps.live?.bus ? { bus: deps.live.bus } : cluster ? { bus: cluster.bus } : {}),
    ...(deps.live?.leases
      ? { leases: deps.live.leases }
      : cluster
        ? { leases: cluster.leases }
        : {}),
  });

  const manifest = config.trustedDocuments
    ? loadDocumentManifest(config.trustedDocuments.manifestPath)
    : undefined;
  const requestIds = createRequestIds();
  let draining = false;
  const sinks: OperationReportSink[] = [
    (report) =>
      metrics.operation({
        name: report.operationName,
        type: report.operationType,
        outcome: report.outcome,
        ...(report.durationMs === undefined ? {} : { durationMs: report.durationMs }),
        errorCodes: report.errorCodes,
        staleReasons: report.stale.map((s) => s.reason),
      }),
    ...(deps.logger ? [logOperations(deps.logger)] : []),
  ];
  const plugins = [
    // First: the request id, the headers and the origin check apply to every answer.
    requestIds.plugin,
    useHttpHygiene({ corsOrigins: config.corsOrigins }),
    useTokenCheck(),
    ...(config.compressionMinBytes === false
      ? []
      : [useCompression({ minBytes: config.compressionMinBytes })]),
    useReadiness({ upstreamUrl: config.upstreamUrl, draining: () => draining }),
    ...(config.metricsPath ? [useMetricsEndpoint(config.metricsPath, metrics)] : []),
    ...(config.graphiql
      ? [
          useGraphiQL({
            title: 'Plans GraphQL gateway',
            ...(config.graphiqlDefaultQuery ? { defaultQuery: config.graphiqlDefaultQuery } : {}),
            ...(config.graphiqlDefaultHeaders ? { headers: config.graphiqlDefaultHeaders } : {}),
            // GraphiQL sends subscriptions as GET event streams, which CSRF prevention refuses
            // without this header.
            additionalHeaders: { 'x-graphql-yoga-csrf': 'graphiql' },
          }),
        ]
      : []),
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
    useIntrospection({ enabled: config.introspection }),
    useOperationDeadline(),
    useErrorHygiene(),
    useInputErrorNames(),
    useResponseExtensions({ metrics: config.metrics }),
    ...(deps.plugins ?? []),
    // Last, so it reports each operation's final answer (and ends its span).
    useOperationReport({ requestIdOf: requestIds.of, sinks }),
  ];

  const yoga = createYoga<Record<string, never>, GatewayContext>({
    schema,
    logging: false,
    maskedErrors: {
      maskError: (error, message) => {
        const masked = maskError(error, message);
        if (masked instanceof GraphQLError && masked.extensions.code === 'INTERNAL_SERVER_ERROR')
          logInternalError(deps.logger, error);
        return masked;
      },
    },
    // Served by useGraphiQL: self-contained (yoga's default page loads its scripts from a CDN),
    // and as shared immutable assets instead of a 9 MB page built per request.
    graphiql: false,
    landingPage: false,
    healthCheckEndpoint: '/health',
    batching: { limit: config.limits.batch },
    maxRequestBodySize: config.limits.bodyBytes,
    cors: corsOptions(config),
    plugins,
    context: ({ request }) => {
      const credentials = credentialsFrom(request);
      if (credentials) cluster?.remember(credentials.token, credentials.tokenKey);
      const freshness = freshnessFrom(request, config.maxAgeMs);
      const span = deps.tracer?.startOperation(request);
      const meter = createOperationMeter(span ? { span } : {});
      const deadline = createDeadline(config.operationDeadlineMs);
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
        deadline: deadline.signal,
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
        deadline: deadline.signal,
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
        live: live.forOperation({ credentials, freshness, loaders }),
        rateLimit: () => {
          reads.volatile();
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
    restCache,
    ledger,
    config,
    live,
    metrics,
    drain() {
      draining = true;
      void live.close();
    },
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

// Private: Prometheus text on the GraphQL port.
function useMetricsEndpoint(path: string, metrics: GatewayMetrics): Plugin {
  return {
    async onRequest({ url, request, endResponse, fetchAPI }) {
      if (url.pathname !== path || request.method !== 'GET') return;
      endResponse(
        new fetchAPI.Response(await metrics.text(), {
          headers: { 'content-type': metrics.contentType },
        }),
      );
    },
  };
}

// Private: the client sees "Unexpected error."; the log gets the error's class and stack frames,
// not its message (a message may quote a URL or header holding a token).
function logInternalError(
  logger: Logger | undefined,
  error: unknown,
  message = 'internal error (masked as "Unexpected error.")',
): void {
  if (!logger) return;
  const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
  const frames =
    original instanceof Error ? (original.stack ?? '').split('\n').slice(1, 11).join('\n') : '';
  logger.error(
    {
      errorType: original instanceof Error ? original.name : typeof original,
      ...(error instanceof GraphQLError && error.path ? { path: error.path.join('.') } : {}),
      stack: frames,
    },
    message,
  );
}

// Private: Redis going away is worth a warning (the instance works alone until it is back).
function logClusterChange(logger: Logger | undefined, change: LinkChange): void {
  if (!logger) return;
  if (!change.available) logger.warn({ reason: change.reason }, 'redis unavailable: working alone');
  else if (change.first) logger.info('redis connected: cooperating with other instances');
  else logger.info('redis back: cooperating again');
}

function isUpstreamMeter(value: unknown): value is UpstreamMeter {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as UpstreamMeter).record === 'function'
  );
}
