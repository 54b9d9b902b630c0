/**
 * The order of the gateway's yoga plugins, stated once: every plugin of `/graphql` and of
 * `/subgraph`, first to last. yoga's own (CORS, `/health`, the request parser) run before them;
 * `createGateway` (src/gateway) hands these lists to yoga as they are.
 *
 * Every plugin is in this folder but the two of `src/errors` (error hygiene, input error names),
 * which stay with the errors they reshape: only `src/errors` makes a `GraphQLError`.
 */
import { createHash } from 'node:crypto';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { type GraphQLSchema, printSchema } from 'graphql';
import type { Plugin, YogaServerOptions } from 'graphql-yoga';
import type { Admission } from '../../admission/admission.js';
import type { AuthorizationServer } from '../../authorization/authorization-server.js';
import type { GatewayConfig } from '../../config/config.js';
import { useErrorHygiene } from '../../errors/use-error-hygiene.js';
import { useInputErrorNames } from '../../errors/use-input-error-names.js';
import type { OperationTracer } from '../../operation/tracer.js';
import type { ReplicaStore } from '../../replica/types.js';
import type { GatewayContext } from '../../schema/context.js';
import type { BrowserSignIn } from '../../sign-in/browser.js';
import type { Logger } from '../../telemetry/logger.js';
import type { GatewayMetrics } from '../../telemetry/metrics.js';
import type { OperationReportSink } from '../../telemetry/operation-report.js';
import type { RequestLedger } from '../../upstream/request-ledger.js';
import type { CallbackSubscriptions } from '../callback-subscriptions.js';
import type { FreshnessOf } from '../freshness.js';
import type { GatewayYoga } from '../run-operation.js';
import type { AnswerCache } from './answer-cache.js';
import { createExplain } from './explain.js';
import { useGraphiQL } from './graphiql/use-graphiql.js';
import { guardRequestHook } from './guard-request-hook.js';
import { useAdmission } from './use-admission.js';
import { useAuthorizationServer } from './use-authorization-server.js';
import { useCallbackSubscriptions } from './use-callback-subscriptions.js';
import { useCompiledQueries } from './use-compiled-queries.js';
import { useCompression } from './use-compression.js';
import { useCsrfPrevention } from './use-csrf-prevention.js';
import { useHealth } from './use-health.js';
import { createHttpCaching, type HttpCaching } from './use-http-caching.js';
import { useHttpHygiene } from './use-http-hygiene.js';
import { useIntrospection } from './use-introspection.js';
import { useMetricsEndpoint } from './use-metrics-endpoint.js';
import { useOperationDeadline } from './use-operation-deadline.js';
import { useOperationReport } from './use-operation-report.js';
import { useReadiness } from './use-readiness.js';
import { useRequestBodyLimit } from './use-request-body-limit.js';
import type { RequestIds } from './use-request-id.js';
import { useResponseExtensions } from './use-response-extensions.js';
import { useSignIn } from './use-sign-in.js';
import { useStreamsNeedStreaming } from './use-streams-need-streaming.js';
import { useSubgraphCacheHints } from './use-subgraph-cache-hints.js';
import { useSubgraphEndpoint } from './use-subgraph-endpoint.js';

/** What yoga takes as a plugin of the gateway's server (some read the gateway's context). */
export type GatewayPlugin = NonNullable<
  YogaServerOptions<Record<string, never>, GatewayContext>['plugins']
>[number];

export interface GatewayPluginsOptions {
  metrics: GatewayMetrics;
  replicas: ReplicaStore;
  requestIds: RequestIds;
  /** The admission path every operation passes (see src/admission). */
  admission: Admission;
  /** yoga plugins of persisted documents (automatic persisted queries), before admission. */
  persisted: readonly Plugin[];
  /** Whether the upstream has accepted a token (the token gate), for the operation report. */
  isAccepted: (tokenKey: string) => boolean;
  /** Where each operation's report goes (the metrics, the log). */
  sinks: readonly OperationReportSink[];
  /** Whether `/ready` answers "shutting down". */
  draining: () => boolean;
  /** `/ready`'s question to the upstream, through the gateway's own client. */
  probeUpstream: (signal: AbortSignal) => Promise<number>;
  /** Traces operations (a replayed answer gets its span too). @default none */
  tracer?: OperationTracer | undefined;
  /** Answers by ETag, one budget for every endpoint (HTTP caching). @default none */
  answers?: AnswerCache | undefined;
  /** The caller's plugins, after the gateway's own and before the operation report. */
  extra?: readonly Plugin[] | undefined;
  /** Queries that can run compiled do (graphql-jit): `GatewayConfig.compiledQueries`. */
  compiledQueries: boolean;
  /** Each request's freshness, decided once (the operation context asks the same). */
  freshnessOf: FreshnessOf;
  /** The token's upstream budget, for `X-Plans-Explain` (explain.ts). @default not offered */
  ledger?: Pick<RequestLedger, 'usage'> | undefined;
  /** Where a request hook's failure is logged (`guardRequestHook`). @default none */
  logger?: Logger | undefined;
  /** Browser sign-in's `/auth/*` (`config.signIn`). @default none */
  signIn?: BrowserSignIn | undefined;
  /** The gateway's own OAuth authorization server (sign-in), at the door. @default none */
  authorization?: AuthorizationServer | undefined;
  /** `/subgraph`'s subscriptions by HTTP callback (routers'). @default none */
  callbacks?: CallbackSubscriptions | undefined;
}

/**
 * The plugins of `/graphql`, which serves `graph`: the door, then the hand-off of `/subgraph`'s
 * requests to `subgraph` (which runs the same operation plugins after this door), then the
 * operation plugins, then the body limit.
 */
export function graphPlugins(
  config: GatewayConfig,
  options: GatewayPluginsOptions,
  graph: GraphQLSchema,
  subgraph: (() => GatewayYoga) | undefined,
  /** Receives the HTTP caching of `/graphql`, which the wire replay shares. @default none */
  caching?: (caching: HttpCaching) => void,
): GatewayPlugin[] {
  return guarded(options, [
    ...doorPlugins(config, options),
    ...(subgraph ? [useSubgraphEndpoint(subgraph)] : []),
    ...operationPlugins(config, options, graph, caching),
    useRequestBodyLimit(config.limits.bodyBytes),
  ]);
}

/** The plugins of `/subgraph`, behind `/graphql`'s door: its operation plugins, the body limit. */
export function subgraphPlugins(
  config: GatewayConfig,
  options: GatewayPluginsOptions,
  served: GraphQLSchema,
): GatewayPlugin[] {
  return guarded(options, [
    ...operationPlugins(config, options, served),
    // After admission's, whose handler it wraps: routers' callback subscriptions.
    ...(options.callbacks ? [useCallbackSubscriptions(options.callbacks)] : []),
    // Routers' caches: docs/federation.md#cache-hints.
    useSubgraphCacheHints({ maxAgeMs: config.maxAgeMs }),
    useRequestBodyLimit(config.limits.bodyBytes),
  ]);
}

/**
 * Private: the body limit comes last, since it wraps whichever request parser the plugins before
 * it chose. A request hook's failure is answered as JSON and logged, never as whatwg-node's
 * text/plain stack.
 */
function guarded(options: GatewayPluginsOptions, plugins: GatewayPlugin[]): GatewayPlugin[] {
  // Every plugin of the lists above is a yoga `Plugin`; `GatewayPlugin` also admits `{}`.
  return plugins.map((plugin) => guardRequestHook(plugin as Plugin<never>, options.logger));
}

/**
 * The plugins at the door of the port, first in the order they must run: the request id, the
 * headers and the origin check (admission's, at the door) apply to every answer, whatever its
 * path; then the endpoints that are not GraphQL (`/health`'s body, `/ready`, `/metrics`, the
 * authorization server's metadata and `/oauth/*`, GraphiQL's page).
 */
function doorPlugins(config: GatewayConfig, options: GatewayPluginsOptions): GatewayPlugin[] {
  const { metrics, requestIds, admission, draining, probeUpstream } = options;
  return [
    requestIds.plugin,
    useHttpHygiene({ admission }),
    ...(config.compressionMinBytes === false
      ? []
      : [useCompression({ minBytes: config.compressionMinBytes })]),
    useHealth(),
    useReadiness({ probe: probeUpstream, draining }),
    ...(options.signIn ? [useSignIn(options.signIn)] : []),
    ...(config.metricsPath ? [useMetricsEndpoint(config.metricsPath, metrics)] : []),
    ...(options.authorization ? [useAuthorizationServer(options.authorization)] : []),
    ...(config.graphiql ? [graphiql(config)] : []),
  ];
}

/**
 * The plugins of the GraphQL operations of one endpoint, which runs `served` (the graph at
 * `/graphql`, the subgraph at `/subgraph`), in the order they must run: the persisted document
 * before admission, admission before anything parses, the operation report last.
 */
function operationPlugins(
  config: GatewayConfig,
  options: GatewayPluginsOptions,
  served: GraphQLSchema,
  exposeCaching?: (caching: HttpCaching) => void,
): GatewayPlugin[] {
  const { replicas, requestIds, admission, extra = [] } = options;
  const caching = config.httpCaching
    ? createHttpCaching({
        admission,
        requestIdOf: requestIds.of,
        replicas,
        freshnessOf: options.freshnessOf,
        schemaDigest: createHash('sha256').update(printSchema(served)).digest('hex'),
        maxEntries: config.httpCaching.maxEntries,
        ...(options.answers ? { answers: options.answers } : {}),
        metrics: config.metrics,
        maxBodyBytes: config.limits.bodyBytes,
        report: { sinks: options.sinks, isAccepted: options.isAccepted, tracer: options.tracer },
      })
    : undefined;
  if (caching) exposeCaching?.(caching);
  return [
    useCsrfPrevention(),
    // Automatic persisted queries register and name texts; then every operation is admitted.
    ...options.persisted,
    useAdmission(admission, {
      requestIdOf: requestIds.of,
      schema: served,
      signIn: config.signIn !== undefined,
      ...(options.ledger
        ? {
            explain: createExplain({
              replicas: options.replicas,
              ledger: options.ledger,
              freshnessOf: options.freshnessOf,
            }),
          }
        : {}),
    }),
    ...(caching ? [caching.plugin] : []),
    useDeferStream(),
    useStreamsNeedStreaming(),
    ...(options.compiledQueries ? [useCompiledQueries()] : []),
    useIntrospection({ enabled: config.introspection }),
    useOperationDeadline(),
    useErrorHygiene(),
    useInputErrorNames(),
    useResponseExtensions({ metrics: config.metrics }),
    ...extra,
    // Last, so it reports each operation's final answer (and ends its span).
    useOperationReport({
      requestIdOf: requestIds.of,
      sinks: options.sinks,
      isAccepted: options.isAccepted,
    }),
  ];
}

// Private: the page on the GraphQL path when `config.graphiql` is on.
function graphiql(config: GatewayConfig): Plugin {
  return useGraphiQL({
    title: 'Plans GraphQL gateway',
    ...(config.graphiqlDefaultQuery ? { defaultQuery: config.graphiqlDefaultQuery } : {}),
    // Signed in, GraphiQL's requests carry the session cookie; a default bearer header would
    // override it.
    ...(config.graphiqlDefaultHeaders && !config.signIn
      ? { headers: config.graphiqlDefaultHeaders }
      : {}),
    ...(config.signIn ? { signIn: config.signIn.publicOrigin } : {}),
    // GraphiQL sends subscriptions as GET event streams, which CSRF prevention refuses without
    // this header.
    additionalHeaders: { 'x-graphql-yoga-csrf': 'graphiql' },
  });
}
