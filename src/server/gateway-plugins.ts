import { createHash } from 'node:crypto';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { type GraphQLSchema, printSchema } from 'graphql';
import type { Plugin, YogaServerOptions } from 'graphql-yoga';
import type { Admission } from '../admission/admission.js';
import type { GatewayConfig } from '../config/config.js';
import { useErrorHygiene } from '../errors/use-error-hygiene.js';
import { useInputErrorNames } from '../errors/use-input-error-names.js';
import type { OperationTracer } from '../operation/tracer.js';
import type { ReplicaStore } from '../replica/types.js';
import type { GatewayContext } from '../schema/context.js';
import { type Logger, logOperations } from '../telemetry/logger.js';
import type { GatewayMetrics } from '../telemetry/metrics.js';
import type { OperationReportSink } from '../telemetry/operation-report.js';
import type { FreshnessOf } from './freshness.js';
import { useGraphiQL } from './graphiql/use-graphiql.js';
import type { AnswerCache } from './plugins/answer-cache.js';
import { useAdmission } from './plugins/use-admission.js';
import { useCompiledQueries } from './plugins/use-compiled-queries.js';
import { useCompression } from './plugins/use-compression.js';
import { useCsrfPrevention } from './plugins/use-csrf-prevention.js';
import { useHttpCaching } from './plugins/use-http-caching.js';
import { useHttpHygiene } from './plugins/use-http-hygiene.js';
import { useIntrospection } from './plugins/use-introspection.js';
import { useOperationDeadline } from './plugins/use-operation-deadline.js';
import { useOperationReport } from './plugins/use-operation-report.js';
import { useReadiness } from './plugins/use-readiness.js';
import type { RequestIds } from './plugins/use-request-id.js';
import { useResponseExtensions } from './plugins/use-response-extensions.js';
import { useStreamsNeedStreaming } from './plugins/use-streams-need-streaming.js';

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
}

/**
 * The plugins at the door of the port, first in the order they must run: the request id, the
 * headers and the origin check (admission's, at the door) apply to every answer, whatever its
 * path; then the endpoints that are not GraphQL (`/ready`, `/metrics`, GraphiQL's page).
 */
export function doorPlugins(
  config: GatewayConfig,
  options: GatewayPluginsOptions,
): GatewayPlugin[] {
  const { metrics, requestIds, admission, draining, probeUpstream } = options;
  return [
    requestIds.plugin,
    useHttpHygiene({ admission }),
    ...(config.compressionMinBytes === false
      ? []
      : [useCompression({ minBytes: config.compressionMinBytes })]),
    useReadiness({ probe: probeUpstream, draining }),
    ...(config.metricsPath ? [useMetricsEndpoint(config.metricsPath, metrics)] : []),
    ...(config.graphiql ? [graphiql(config)] : []),
  ];
}

/**
 * The plugins of the GraphQL operations of one endpoint, which runs `served` (the graph at
 * `/graphql`, the subgraph at `/subgraph`), in the order they must run: the persisted document
 * before admission, admission before anything parses, the operation report last.
 */
export function operationPlugins(
  config: GatewayConfig,
  options: GatewayPluginsOptions,
  served: GraphQLSchema,
): GatewayPlugin[] {
  const { replicas, requestIds, admission, extra = [] } = options;
  return [
    useCsrfPrevention(),
    // Automatic persisted queries register and name texts; then every operation is admitted.
    ...options.persisted,
    useAdmission(admission, { requestIdOf: requestIds.of, schema: served }),
    ...(config.httpCaching
      ? [
          useHttpCaching({
            admission,
            replicas,
            freshnessOf: options.freshnessOf,
            schemaDigest: createHash('sha256').update(printSchema(served)).digest('hex'),
            maxEntries: config.httpCaching.maxEntries,
            ...(options.answers ? { answers: options.answers } : {}),
            metrics: config.metrics,
            maxBodyBytes: config.limits.bodyBytes,
            report: {
              sinks: options.sinks,
              requestIdOf: requestIds.of,
              isAccepted: options.isAccepted,
              tracer: options.tracer,
            },
          }),
        ]
      : []),
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
    ...(config.graphiqlDefaultHeaders ? { headers: config.graphiqlDefaultHeaders } : {}),
    // GraphiQL sends subscriptions as GET event streams, which CSRF prevention refuses without
    // this header.
    additionalHeaders: { 'x-graphql-yoga-csrf': 'graphiql' },
  });
}

/** Each operation's report goes to the metrics and, with a logger, to one log line. */
export function reportSinks(
  metrics: GatewayMetrics,
  logger: Logger | undefined,
): OperationReportSink[] {
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
