import type { Plugin } from 'graphql-yoga';
import type { GatewayMetrics } from '../../telemetry/metrics.js';

/** `/metrics` (or `path`) on the GraphQL port: Prometheus text for a GET. */
export function useMetricsEndpoint(path: string, metrics: GatewayMetrics): Plugin {
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
