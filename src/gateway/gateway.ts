import type { GraphQLSchema } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { Dispatcher } from 'undici';
import { type Admission, createAdmission } from '../admission/admission.js';
import type {
  AuthorizationLimits,
  AuthorizationServer,
} from '../authorization/authorization-server.js';
import type { Cluster } from '../cluster/cluster.js';
import type { GatewayConfig } from '../config/config.js';
import { classifyFailure } from '../errors/failure-policy.js';
import { logInternalError, maskAndLog } from '../errors/internal-errors.js';
import { toGraphQLError } from '../errors/to-graphql.js';
import type { LiveHub } from '../live/hub.js';
import type { LiveBus } from '../live/live-bus.js';
import type { PollLeases } from '../live/poll-leases.js';
import { createRestCache, type RestCache } from '../loaders/rest-cache.js';
import type { OperationTracer } from '../operation/tracer.js';
import type { QueryMeter } from '../replica/transaction-query.js';
import type { ReplicaStore } from '../replica/types.js';
import type { GatewayContext } from '../schema/context.js';
import { schema, subgraphSchema } from '../schema/index.js';
import {
  type CallbackSubscriptions,
  createCallbackSubscriptions,
} from '../server/callback-subscriptions.js';
import { corsOptions } from '../server/cors-options.js';
import { createDirectMiss, type DirectMiss } from '../server/direct-miss.js';
import { requestFreshness } from '../server/freshness.js';
import { type OperationInitialContext, operationContext } from '../server/operation-context.js';
import { createAnswerCache } from '../server/plugins/answer-cache.js';
import {
  type GatewayPlugin,
  type GatewayPluginsOptions,
  graphPlugins,
  subgraphPlugins,
} from '../server/plugins/order.js';
import type { HttpCaching } from '../server/plugins/use-http-caching.js';
import { persistedDocuments } from '../server/plugins/use-persisted-documents.js';
import { createRequestIds } from '../server/plugins/use-request-id.js';
import { SUBGRAPH_PATH } from '../server/plugins/use-subgraph-endpoint.js';
import type { GatewayYoga } from '../server/run-operation.js';
import { createWireReplay, type WireReplay } from '../server/wire-replay.js';
import type { SignIn } from '../sign-in/sign-in.js';
import { type Logger, logOperations } from '../telemetry/logger.js';
import { createGatewayMetrics, type GatewayMetrics } from '../telemetry/metrics.js';
import type { OperationReportSink } from '../telemetry/operation-report.js';
import { type Clock, epochNow } from '../time/clock.js';
import { createSystemScheduler, type Scheduler } from '../time/scheduler.js';
import {
  createUpstreamClient,
  type UpstreamClient,
  type UpstreamClientOptions,
} from '../upstream/client.js';
import type { RequestLedger } from '../upstream/request-ledger.js';
import { createIdempotentWrites } from '../writes/idempotency.js';
import { createSettling } from '../writes/settling.js';
import { ownCluster, requestLedger } from './cluster.js';
import { createGatewayLive } from './live.js';
import { createGatewayReconciler } from './reconciler.js';
import { createGatewayReplicas } from './replicas.js';
import { createGatewaySignIn } from './sign-in.js';
import { createGatewayWebhooks, type Webhooks } from './webhooks.js';

export interface GatewayDeps {
  /** Dispatcher for upstream requests (tests inject one); default: the client's own pool. */
  dispatcher?: Dispatcher;
  /** Wall clock in epoch ms for replica ages, caches and the request ledger. @default epochNow */
  now?: Clock;
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
  /**
   * The gateway's timers: polls, webhook feeds and deliveries, WebSocket and MCP session idle
   * times (tests drive a simulated hour with a manual one). @default real timers on `now`
   */
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
  /**
   * Where webhook deliveries connect (tests count or redirect them). @default checked targets
   * only (src/webhooks/target.ts)
   */
  webhookDispatcher?: Dispatcher;
  /**
   * Bounds of the authorization server that comes with `config.signIn` (tests make them small
   * to reach them quickly). @default DEFAULT_AUTHORIZATION_LIMITS
   */
  authorizationLimits?: Partial<AuthorizationLimits>;
}

/** The Federation v2 subgraph: its schema, and the yoga instance that runs it. */
export interface SubgraphEndpoint {
  readonly schema: GraphQLSchema;
  readonly yoga: GatewayYoga;
}

export interface Gateway {
  /** The HTTP handler of the port: `/graphql`, and `/subgraph` (handed to `subgraph`). */
  readonly yoga: GatewayYoga;
  /**
   * Replays of held answers before `yoga` (the front door, `withFrontDoor(handler, gateway)` in
   * front of the port's handler): on with the answer cache, off with a tracer.
   */
  readonly wireReplay?: WireReplay;
  /**
   * Plain misses run before `yoga` (the front door, behind the wire replay): unless
   * `config.directMisses` is false; off with a tracer.
   */
  readonly directMiss?: DirectMiss;
  /**
   * The Federation v2 subgraph (`config.subgraph`; docs/federation.md): its schema, and the yoga
   * instance that runs it with the same operation plugins, stores and admission path. `yoga`
   * hands it the requests of `/subgraph`; WebSocket operations there run in it. Made on first
   * use (building the subgraph schema takes about as long as the graph's), then kept.
   */
  readonly subgraph?: () => SubgraphEndpoint;
  /** `/subgraph`'s subscriptions by HTTP callback (with the subgraph). */
  readonly callbacks?: CallbackSubscriptions;
  readonly upstream: UpstreamClient;
  readonly replicas: ReplicaStore;
  readonly restCache: RestCache;
  readonly ledger: RequestLedger;
  readonly config: GatewayConfig;
  /** The one clock and timers of every part (`deps.scheduler`, else real timers on `deps.now`). */
  readonly scheduler: Scheduler;
  /** Subscriptions: pollers, change logs, the event bus (see src/live/README.md). */
  readonly live: LiveHub;
  readonly metrics: GatewayMetrics;
  /**
   * The one admission path of every operation (src/admission): HTTP through yoga's
   * plugins, WebSocket through `attachWebSockets`, and any transport added later.
   */
  readonly admission: Admission;
  /** Where internal errors and each operation's line are logged, if anywhere. */
  readonly logger?: Logger;
  /**
   * From now on `/ready` answers 503 "shutting down" (load balancers stop sending work) and
   * subscriptions end, so their clients reconnect elsewhere instead of holding the drain.
   */
  drain(): void;
  /**
   * Resolves once the delta syncs that follow writes through the gateway have settled (a
   * mutation may answer before its delta: see src/writes/settling.ts).
   */
  settled(): Promise<void>;
  /** Cooperation with other instances through Redis, when configured. */
  readonly cluster?: Cluster;
  /** Webhooks (`config.webhooks`): endpoints, their feeds and the deliverer. */
  readonly webhooks?: Webhooks;
  /** Sign-in (`config.signIn`): grants, `/auth/*` (src/sign-in, docs/sign-in.md). */
  readonly signIn?: SignIn;
  /**
   * Calls `listener` with the key of callers whose credentials ended (a sign-in's grant ended,
   * on any instance): their WebSockets close. Returns the unsubscribe.
   */
  credentialsEnded(listener: (tokenKey: string) => void): () => void;
  /** The authorization server (sign-in for mobile apps and MCP clients), when there is one. */
  readonly authorization?: AuthorizationServer;
  /**
   * Ends every subscription and closes the upstream pool; the HTTP server that serves `yoga` is
   * the caller's to close.
   */
  close(): Promise<void>;
}

/**
 * Builds one gateway: its own upstream client, request ledger, replica store and REST cache,
 * so several gateways can live in one process (tests do). Nothing here listens on a port.
 * The parts refer to one another lazily (a refused token empties the stores, a stored change
 * reaches the live hub), so the order below is only the order of construction.
 */
export function createGateway(config: GatewayConfig, deps: GatewayDeps = {}): Gateway {
  const { logger } = deps;
  const now = deps.now ?? epochNow;
  const scheduler = deps.scheduler ?? createSystemScheduler(now);
  const cluster =
    deps.cluster ??
    ownCluster(config, { now, logger, onAvailability: (up) => metrics.clusterChange(up) });
  const { ledger, usage } = requestLedger(config, cluster, now);
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
    // A token the upstream refused loses everything held for it; a grant's is refreshed first.
    tokenGate: { onRejected: (tokenKey) => refused(tokenKey) },
    observer: metrics.upstream,
    ...deps.upstreamTimeouts,
    ...(deps.dispatcher ? { dispatcher: deps.dispatcher } : {}),
  });
  const replicas = createGatewayReplicas({
    config,
    now,
    upstream,
    metrics,
    cluster,
    meter: deps.replicaMeter,
    onApplied: (change) => live.applied(change),
    onRead: (token, tokenKey, planId) => reconciler?.noteRead(token, tokenKey, planId),
    logger,
  });
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
  function refused(tokenKey: string): void {
    if (!signIn?.part.grants.isGrantKey(tokenKey)) {
      forgetToken(tokenKey);
      return;
    }
    void signIn.part.grants.refused(tokenKey).then(
      (renewed) => (renewed ? upstream.forgiveToken(tokenKey) : forgetToken(tokenKey)),
      () => forgetToken(tokenKey),
    );
  }
  const { hub: live, budget } = createGatewayLive({
    config,
    now,
    replicas,
    usage,
    cluster,
    scheduler,
    live: deps.live,
    onError: (error) => logInternalError(logger, error, 'subscription poll failed'),
  });
  const signIn = createGatewaySignIn({
    config,
    upstream,
    restCache,
    cluster,
    scheduler: live.scheduler,
    logger,
    onEnded: forgetToken,
    authorizationLimits: deps.authorizationLimits,
  });
  // With sign-in, its authorization server; without, gateway tokens are refused.
  const authorization = signIn?.authorization;
  signIn?.part.grants.onRenewed(({ tokenKey, token }) => live.renewToken(tokenKey, token));
  const reconciler = createGatewayReconciler({
    config,
    replicas,
    budget,
    scheduler: live.scheduler,
    upstream,
    metrics,
    logger,
  });
  const requestIds = createRequestIds();
  const freshnessOf = requestFreshness(config.maxAgeMs, now);
  let draining = false;
  const sinks = reportSinks(metrics, logger);
  const persisted = persistedDocuments(config);
  const admission = createAdmission({
    schema,
    config,
    documents: persisted.sources,
    tokenRefusal: (tokenKey) => {
      const refusal = upstream.tokenRefusal(tokenKey);
      return refusal ? toGraphQLError(refusal) : null;
    },
    sinks,
    ...(signIn ? { sessions: signIn.sessions } : {}),
    grantTokens: authorization,
  });

  // Routers' subscriptions by HTTP callback at `/subgraph` (docs/federation.md).
  const callbacks = config.subgraph
    ? createCallbackSubscriptions({ settings: config.live, scheduler, logger })
    : undefined;
  const pluginOptions: GatewayPluginsOptions = {
    metrics,
    replicas,
    requestIds,
    admission,
    persisted: persisted.plugins,
    isAccepted: (tokenKey) => upstream.tokenStatus(tokenKey) === 'accepted',
    sinks,
    draining: () => draining,
    probeUpstream: (signal) => upstream.probe(signal),
    tracer: deps.tracer,
    answers:
      config.httpCaching && config.httpCaching.answerMaxBytes > 0
        ? createAnswerCache({
            maxBytes: config.httpCaching.answerMaxBytes,
            // Compressed once per answer, as the compression plugin would each time.
            compression:
              config.compressionMinBytes === false
                ? false
                : { minBytes: config.compressionMinBytes },
          })
        : undefined,
    extra: deps.plugins,
    compiledQueries: config.compiledQueries,
    freshnessOf,
    ledger,
    logger,
    callbacks,
    signIn: signIn?.part.browser,
    authorization,
  };
  const webhooks = createGatewayWebhooks({
    config,
    cluster,
    scheduler,
    gateway: () => gateway,
    logger,
    dispatcher: deps.webhookDispatcher,
  });
  const settling = createSettling();
  const context = operationContext({
    config,
    now,
    upstream,
    replicas,
    restCache,
    live,
    usage,
    requestIds,
    cluster,
    tracer: deps.tracer,
    webhooks: webhooks.registry,
    settling,
    freshnessOf,
    idempotentWrites: createIdempotentWrites({
      now,
      shared: cluster?.idempotency,
    }),
  });
  let subgraphEndpoint: SubgraphEndpoint | undefined;
  // The subgraph answers behind the gateway's door (CORS, headers, compression): no CORS of its own.
  const subgraph = config.subgraph
    ? (): SubgraphEndpoint => {
        if (subgraphEndpoint) return subgraphEndpoint;
        const served = subgraphSchema();
        const yoga = createGatewayYoga(config, {
          schema: served,
          endpoint: SUBGRAPH_PATH,
          plugins: subgraphPlugins(config, pluginOptions, served),
          context,
          logger,
          cors: false,
        });
        subgraphEndpoint = { schema: served, yoga };
        return subgraphEndpoint;
      }
    : undefined;
  let caching: HttpCaching | undefined;
  const yoga = createGatewayYoga(config, {
    schema,
    endpoint: '/graphql',
    plugins: graphPlugins(
      config,
      pluginOptions,
      schema,
      subgraph && (() => subgraph().yoga),
      (made) => {
        caching = made;
      },
    ),
    context,
    logger,
    cors: true,
  });

  // A traced replay starts its span from a fetch `Request`: with a tracer, replays stay in yoga.
  const wireReplay =
    caching && pluginOptions.answers && !deps.tracer
      ? createWireReplay({ caching, admission, path: '/graphql' })
      : undefined;

  // A traced operation starts its span from yoga's request handling: with a tracer, yoga runs it.
  const directMiss =
    caching && config.directMisses !== false && !deps.tracer
      ? createDirectMiss({
          gateway: { admission, yoga },
          caching,
          path: '/graphql',
          compression:
            config.compressionMinBytes === false ? false : { minBytes: config.compressionMinBytes },
          maskError: maskAndLog(logger),
        })
      : undefined;

  const gateway: Gateway = {
    yoga,
    ...(wireReplay ? { wireReplay } : {}),
    ...(directMiss ? { directMiss } : {}),
    ...(subgraph ? { subgraph } : {}),
    ...(callbacks ? { callbacks } : {}),
    upstream,
    replicas,
    restCache,
    ledger,
    config,
    scheduler,
    live,
    metrics,
    admission,
    ...(logger ? { logger } : {}),
    settled: () => settling.idle(),
    drain() {
      draining = true;
      reconciler?.close();
      void callbacks?.close();
      void live.close();
    },
    ...(cluster ? { cluster } : {}),
    ...(webhooks.running ? { webhooks: webhooks.running } : {}),
    ...(signIn ? { signIn: signIn.part } : {}),
    credentialsEnded: (listener) => signIn?.ended(listener) ?? (() => {}),
    ...(authorization ? { authorization } : {}),
    async close() {
      reconciler?.close();
      await webhooks.close();
      await signIn?.close();
      // Routers are sent `complete` before the hub ends the subscriptions under them.
      await callbacks?.close();
      await live.close();
      // Deltas after writes carry on past their answers; the upstream pool closes after them.
      await settling.idle();
      await upstream.close();
      if (cluster && !deps.cluster) await cluster.close();
    },
  };
  webhooks.start();
  if (callbacks) signIn?.ended((tokenKey) => callbacks.endCredentials(tokenKey));
  return gateway;
}

/** A yoga server of one schema: its endpoint, body and batch limits, CORS and error masking. */
function createGatewayYoga(
  config: GatewayConfig,
  parts: {
    schema: GraphQLSchema;
    endpoint: string;
    plugins: GatewayPlugin[];
    context: (initial: OperationInitialContext) => GatewayContext;
    logger: Logger | undefined;
    cors: boolean;
  },
): GatewayYoga {
  return createYoga<Record<string, never>, GatewayContext>({
    schema: parts.schema,
    graphqlEndpoint: parts.endpoint,
    logging: false,
    maskedErrors: { maskError: maskAndLog(parts.logger) },
    // Served by useGraphiQL: self-contained (yoga's default page loads its scripts from a CDN),
    // and as shared immutable assets instead of a 9 MB page built per request.
    graphiql: false,
    landingPage: false,
    healthCheckEndpoint: '/health',
    batching: { limit: config.limits.batch },
    // Counted by useRequestBodyLimit below: yoga's limiter reads every body a second time.
    maxRequestBodySize: false,
    // The admission path parses, bounded, and keeps documents by digest within a byte budget;
    // yoga's own caches keyed 1,024 whole texts each and kept failed parses.
    parserAndValidationCache: false,
    cors: parts.cors ? corsOptions(config) : false,
    // In the order src/server/plugins/order.ts states.
    plugins: parts.plugins,
    context: parts.context,
  });
}

/** Private: each operation's report goes to the metrics and, with a logger, to one log line. */
function reportSinks(metrics: GatewayMetrics, logger: Logger | undefined): OperationReportSink[] {
  return [
    (report) =>
      metrics.operation({
        name: report.operationName,
        verified: report.verified,
        type: report.operationType,
        outcome: report.outcome,
        ...(report.durationMs === undefined ? {} : { durationMs: report.durationMs }),
        errorCodes: report.errorCodes,
        staleReasons: report.stale.map((s) => s.reason),
      }),
    ...(logger ? [logOperations(logger)] : []),
  ];
}
