/**
 * Integration harness: a REST sandbox and a gateway, each on an ephemeral loopback port, talking
 * real HTTP, plus small clients for both sides.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { createSandbox, type Sandbox, type SandboxOptions } from '@plans-gateway/sandbox';
import { defaultConfig, type GatewayConfig } from '../../src/config/config.js';
import { createGateway, type Gateway, type GatewayDeps } from '../../src/server/gateway.js';
import { type GqlOptions, type GraphQLResponse, gqlAt } from './graphql.js';

export interface Stack {
  sandbox: Sandbox;
  gateway: Gateway;
  /** The gateway's GraphQL endpoint, e.g. `http://127.0.0.1:PORT/graphql`. */
  url: string;
  token: string;
  gql<Data = Record<string, unknown>, Variables = Record<string, unknown>>(
    query: string | TypedDocumentNode<Data, Variables>,
    variables?: Variables,
    options?: GqlOptions,
  ): Promise<GraphQLResponse<Data>>;
  /** GET `${sandbox.url}${path}` with a token, straight at the REST interface. */
  rest<T = unknown>(path: string, token?: string): Promise<{ status: number; body: T }>;
  /** Upstream calls the sandbox received since the last reset, by operationId. */
  upstreamCalls(): string[];
  resetUpstreamCalls(): void;
  close(): Promise<void>;
}

export interface StackOptions {
  sandbox?: SandboxOptions;
  config?: Partial<GatewayConfig>;
  deps?: GatewayDeps;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

export async function startGateway(sandbox: Sandbox, options: Omit<StackOptions, 'sandbox'> = {}) {
  const gateway = createGateway(
    { ...defaultConfig(sandbox.url), graphiql: false, ...options.config },
    options.deps,
  );
  const server = createServer(gateway.yoga);
  const port = await listen(server);
  return {
    gateway,
    url: `http://127.0.0.1:${port}/graphql`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gateway.close();
    },
  };
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const sandbox = await createSandbox({ port: 0, ...options.sandbox });
  const front = await startGateway(sandbox, options);
  const token = sandbox.users[0]?.token ?? '';
  return {
    sandbox,
    gateway: front.gateway,
    url: front.url,
    token,
    gql: <Data, Variables>(
      query: string | TypedDocumentNode<Data, Variables>,
      variables?: Variables,
      gqlOptions: GqlOptions = {},
    ) =>
      gqlAt<Data>(
        front.url,
        query as string | TypedDocumentNode<Data, never>,
        variables,
        gqlOptions.token === undefined ? token : gqlOptions.token,
        gqlOptions.headers,
      ),
    async rest<T>(path: string, restToken = token) {
      const response = await fetch(`${sandbox.url}${path}`, {
        headers: { authorization: `Bearer ${restToken}` },
      });
      return { status: response.status, body: (await response.json()) as T };
    },
    upstreamCalls: () =>
      sandbox.calls().map((call) => call.operationId ?? `${call.method} ${call.path}`),
    resetUpstreamCalls: () => sandbox.resetCalls(),
    async close() {
      await front.close();
      await sandbox.close();
    },
  };
}
