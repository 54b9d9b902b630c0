import type { Plugin } from 'graphql-yoga';

/** Where the Federation v2 subgraph is served, beside the graph at `/graphql`. */
export const SUBGRAPH_PATH = '/subgraph';

/** A yoga server (or anything that answers a fetch the same way). */
interface Endpoint {
  fetch(request: Request, serverContext: object): Response | Promise<Response>;
}

/**
 * Hands the requests of `/subgraph` to the subgraph's own yoga instance, which runs the subgraph
 * schema with the same operation plugins (admission, deadline, report...) over the same stores.
 * It runs after the door plugins of the gateway's yoga, whose answer hooks (request id, headers,
 * compression) still apply to what the subgraph answers: one port, one door, two schemas.
 * `subgraph` makes the instance on first use.
 */
export function useSubgraphEndpoint(subgraph: () => Endpoint): Plugin {
  return {
    async onRequest({ url, request, serverContext, endResponse }) {
      if (url.pathname !== SUBGRAPH_PATH && url.pathname !== `${SUBGRAPH_PATH}/`) return;
      endResponse(await subgraph().fetch(request, serverContext ?? {}));
    },
  };
}
