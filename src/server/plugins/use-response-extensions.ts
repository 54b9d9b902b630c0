import { SPECIFICATION_VERSION } from '@plans-gateway/rest-contract';
import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { AdmittedCost } from '../../admission/admission.js';
import type { GatewayContext } from '../../schema/context.js';

export const METRICS_HEADER = 'x-upstream-metrics';

export interface ResponseExtensionsOptions {
  /** `always`, or only when the request sends `X-Upstream-Metrics: 1`. */
  metrics: 'always' | 'on-request';
}

function isEmpty(data: ExecutionResult['data']): boolean {
  return !data || Object.values(data).every((value) => value === null);
}

/**
 * Says what an operation cost and how fresh its answer is (docs/graph.md#freshness-and-cost):
 * `extensions.upstream` holds the calls made, cache hits, replica age and the version of the
 * upstream's specification the gateway was built against, and `extensions.cost` the price
 * admission gave it (`estimated`, `max`); `extensions.stale`
 * lists every part answered from an older copy because the upstream was rate limited or down
 * (always sent: a client must be able to tell). An operation refused only for want of a valid
 * token answers HTTP 401.
 */
export function useResponseExtensions(options: ResponseExtensionsOptions): Plugin<GatewayContext> {
  return {
    onExecute({ args }) {
      const context = args.contextValue;
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in result) return;
          const cost = context.meter.cost();
          const extensions: Record<string, unknown> = { ...result.extensions };
          const request = (context as GatewayContext & { request?: Request }).request;
          if (options.metrics === 'always' || request?.headers.get(METRICS_HEADER) === '1') {
            extensions.upstream = {
              calls: cost.calls,
              operations: cost.operations,
              cacheHits: cost.cacheHits,
              replicaAgeMs: cost.replicaAgeMs,
              specification: SPECIFICATION_VERSION,
            };
            // The price admission gave it, named as routers name theirs (Hive Gateway's and
            // Apollo Router's demand control): docs/federation.md#demand-control.
            const priced = (context as GatewayContext & { admittedCost?: AdmittedCost | null })
              .admittedCost;
            if (priced)
              extensions.cost = {
                estimated: priced.estimated,
                max: priced.max,
                ...(priced.mode === 'measure' ? { mode: priced.mode } : {}),
              };
          }
          if (cost.stale.length > 0) extensions.stale = cost.stale;
          const errors = result.errors ?? [];
          if (
            errors.length > 0 &&
            errors.every((e) => e.extensions?.code === 'UNAUTHENTICATED') &&
            isEmpty(result.data)
          ) {
            extensions.http = { status: 401, headers: { 'WWW-Authenticate': 'Bearer' } };
          }
          setResult({ ...result, extensions });
        },
      };
    },
  };
}
