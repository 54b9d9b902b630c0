/**
 * Composition and a real router for the federation tests: the subgraphs' SDL composed into a
 * supergraph by The Guild's `@theguild/federation-composition` or Apollo's `@apollo/composition`,
 * served by Hive Gateway's runtime on a loopback port. The router forwards the client's
 * `Authorization` header to every subgraph, as docs/federation.md configures it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { composeServices as composeWithApollo } from '@apollo/composition';
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import { MemPubSub } from '@graphql-hive/pubsub';
import httpTransport from '@graphql-mesh/transport-http';
import httpCallbackTransport from '@graphql-mesh/transport-http-callback';
import { composeServices as composeWithGuild } from '@theguild/federation-composition';
import { parse } from 'graphql';
import { serveOnLoopback } from './loopback.js';

export interface SubgraphSource {
  readonly name: string;
  readonly url: string;
  readonly sdl: string;
}

export type Composer = 'guild' | 'apollo';

/** The supergraph SDL, or the composition errors' messages. */
export function compose(
  composer: Composer,
  subgraphs: readonly SubgraphSource[],
): { supergraphSdl: string } | { errors: string[] } {
  const services = subgraphs.map(({ name, url, sdl }) => ({ name, url, typeDefs: parse(sdl) }));
  const result = composer === 'guild' ? composeWithGuild(services) : composeWithApollo(services);
  if (result.errors) return { errors: result.errors.map((error) => error.message) };
  return { supergraphSdl: result.supergraphSdl };
}

export interface Router {
  /** The router's GraphQL endpoint. */
  readonly url: string;
  close(): Promise<void>;
}

/** Options a test adds to the router's (its response cache, its demand control). */
export type RouterExtras = Pick<
  Parameters<typeof createGatewayRuntime>[0],
  'responseCaching' | 'demandControl' | 'cache'
>;

/**
 * A key-value cache for the router's response cache (Hive Gateway takes any `KeyValueCache`):
 * entries in a map, expired by their TTL on the runtime's own clock (real time: a router's
 * entries live seconds, far longer than a test).
 */
export function mapCache() {
  const entries = new Map<string, { value: unknown; until: number }>();
  const live = (key: string) => {
    const entry = entries.get(key);
    if (entry && entry.until <= Date.now()) entries.delete(key);
    return entries.get(key);
  };
  return {
    get: (key: string) => live(key)?.value,
    set(key: string, value: unknown, options?: { ttl?: number | null }) {
      const ttl = options?.ttl;
      entries.set(key, { value, until: ttl ? Date.now() + ttl * 1000 : Number.POSITIVE_INFINITY });
    },
    delete: (key: string) => entries.delete(key),
    getKeysByPrefix: (prefix: string) =>
      [...entries.keys()].filter((key) => key.startsWith(prefix)),
  };
}

export async function startRouter(
  supergraphSdl: string,
  extras: RouterExtras = {},
): Promise<Router> {
  const runtime = createGatewayRuntime({
    ...extras,
    supergraph: supergraphSdl,
    logging: false,
    deferStream: true,
    // Subgraphs over HTTP (subscriptions as server-sent events), the runtime's default transport.
    transports: { http: httpTransport },
    propagateHeaders: {
      fromClientToSubgraphs: ({ request }) => ({
        authorization: request.headers.get('authorization'),
      }),
    },
  });
  const served = await serveOnLoopback(runtime, '/graphql');
  return {
    url: served.url,
    async close() {
      await served.close();
      await runtime.dispose();
    },
  };
}

/**
 * Hive Gateway's runtime taking the `plans` subgraph's subscriptions by HTTP callback
 * (`@graphql-mesh/transport-http-callback`), as docs/federation.md configures it: its webhooks
 * endpoint at `/callback` on the router's own port takes the gateway's `check`, `next` and
 * `complete` messages. Its heartbeat timeout runs on real time: the tests ask a long interval
 * and move the gateway's heartbeats on the manual scheduler.
 */
export async function startCallbackRouter(
  supergraphSdl: string,
  { heartbeatMs }: { heartbeatMs: number },
): Promise<Router & { readonly callbackUrl: string }> {
  // The router's port is known before its runtime is made: its callback URL names it.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const callbackUrl = `http://127.0.0.1:${port}/callback`;
  const runtime = createGatewayRuntime({
    supergraph: supergraphSdl,
    logging: false,
    pubsub: new MemPubSub(),
    webhooks: true,
    transports: { http: httpTransport, 'http-callback': httpCallbackTransport },
    transportEntries: {
      plans: {
        options: {
          subscriptions: {
            kind: 'http-callback',
            options: {
              public_url: callbackUrl,
              path: '/callback',
              heartbeat_interval: heartbeatMs,
            },
          },
        },
      },
    },
    propagateHeaders: {
      fromClientToSubgraphs: ({ request }) => ({
        authorization: request.headers.get('authorization'),
      }),
    },
  });
  server.on('request', runtime);
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    callbackUrl,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.dispose();
    },
  };
}
