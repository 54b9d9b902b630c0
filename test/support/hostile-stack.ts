/**
 * A REST sandbox, the hostile upstream in front of it, and a gateway that talks to the hostile
 * upstream, each on an ephemeral loopback port; for the suites of issue 8.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSandbox, type Sandbox, type SandboxOptions } from '@plans-gateway/sandbox';
import { defaultConfig, type GatewayConfig } from '../../src/config/config.js';
import { createGateway, type Gateway, type GatewayDeps } from '../../src/server/gateway.js';
import { type GraphQLResponse, gqlAt } from './graphql.js';
import { type HostileUpstream, startHostileUpstream } from './hostile-upstream.js';

export interface HostileStack {
  sandbox: Sandbox;
  hostile: HostileUpstream;
  gateway: Gateway;
  url: string;
  gql<Data = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
    options?: { token?: string | null; headers?: Record<string, string> },
  ): Promise<GraphQLResponse<Data>>;
  /** Upstream calls the hostile upstream received for `token`, by operation id. */
  callsOf(token: string): string[];
  close(): Promise<void>;
}

export interface HostileStackOptions {
  sandbox?: SandboxOptions;
  config?: Partial<GatewayConfig>;
  deps?: GatewayDeps;
  /** Token `gql` sends when none is given. @default the first sandbox user's */
  token?: string;
}

export async function startHostileStack(options: HostileStackOptions = {}): Promise<HostileStack> {
  const sandbox = await createSandbox({ port: 0, rateLimit: false, ...options.sandbox });
  const hostile = await startHostileUpstream({ target: sandbox.url });
  const gateway = createGateway(
    { ...defaultConfig(hostile.url), graphiql: false, ...options.config },
    options.deps,
  );
  const server = createServer(gateway.yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  const defaultToken = options.token ?? sandbox.users[0]?.token ?? null;
  return {
    sandbox,
    hostile,
    gateway,
    url,
    gql: <Data>(
      query: string,
      variables: Record<string, unknown> = {},
      gqlOptions: { token?: string | null; headers?: Record<string, string> } = {},
    ) =>
      gqlAt<Data>(
        url,
        query,
        variables,
        gqlOptions.token === undefined ? defaultToken : gqlOptions.token,
        gqlOptions.headers,
      ),
    callsOf: (token) =>
      hostile
        .calls()
        .filter((call) => call.token === token)
        .map((call) => call.operationId ?? `${call.method} ${call.path}`),
    async close() {
      await hostile.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gateway.close();
      await sandbox.close();
    },
  };
}
