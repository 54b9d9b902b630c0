/**
 * A gateway with its authorization server, over the real sandbox and the sign-in stand-in, on one
 * manual clock (sandbox, gateway, authorization server) and the gateway's manual timers. The
 * port is taken before the gateway is built, since the issuer is the gateway's own URL. MCP is
 * served at `/mcp`. Also: the browser's part of a sign-in, done by following redirects.
 */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import {
  createManualClock,
  createSandbox,
  type ManualClock,
  type Sandbox,
} from '@plans-gateway/sandbox';
import {
  type AuthorizationLimits,
  type AuthorizationServer,
  createAuthorizationServer,
} from '../../../src/authorization/authorization-server.js';
import type { AuthorizationStore } from '../../../src/authorization/store.js';
import { DEFAULT_MCP, defaultConfig } from '../../../src/config/config.js';
import { createSealer } from '../../../src/crypto/sealer.js';
import { createGatewayAuthorization } from '../../../src/gateway/authorization.js';
import { createGateway, type Gateway } from '../../../src/gateway/gateway.js';
import { createMcpHttp, withMcp } from '../../../src/mcp/http.js';
import { createMcpParts } from '../../../src/mcp/session.js';
import { schema } from '../../../src/schema/index.js';
import { createLogger } from '../../../src/telemetry/logger.js';
import { createManualScheduler, type ManualScheduler } from '../../../src/time/scheduler.js';
import { START } from '../../support/stack.js';
import { type SignInStandIn, startSignInStandIn } from './sign-in-stand-in.js';

export interface AuthorizationStack {
  readonly sandbox: Sandbox;
  readonly clock: ManualClock;
  readonly scheduler: ManualScheduler;
  readonly gateway: Gateway;
  readonly authorization: AuthorizationServer;
  readonly store: AuthorizationStore;
  readonly standIn: SignInStandIn;
  /** `http://127.0.0.1:PORT`: the issuer. */
  readonly origin: string;
  readonly graphqlUrl: string;
  readonly mcpUrl: string;
  /** Every line logged (the gateway's and the authorization server's), as text. */
  logged(): string;
  close(): Promise<void>;
}

export interface AuthorizationStackOptions {
  limits?: Partial<AuthorizationLimits>;
  /** @default SQLite in memory */
  store?: AuthorizationStore;
  /**
   * Another instance beside `beside`: its sandbox, clock, sign-in stand-in and issuer (as behind
   * one load balancer), a gateway and authorization server of its own.
   */
  beside?: AuthorizationStack;
}

export async function startAuthorizationStack(
  options: AuthorizationStackOptions = {},
): Promise<AuthorizationStack> {
  const { beside } = options;
  const clock = beside?.clock ?? createManualClock(START);
  const scheduler = createManualScheduler(clock);
  const sandbox = beside?.sandbox ?? (await createSandbox({ port: 0, clock, rateLimit: false }));
  const standIn = beside?.standIn ?? (await startSignInStandIn(sandbox.origin));
  let listener: RequestListener = (_request, response) => response.writeHead(503).end();
  const server = createServer((request, response) => listener(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let lines = '';
  const logger = await createLogger({
    level: 'info',
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines += chunk.toString('utf8');
        done();
      },
    }),
  });
  const parts = {
    grants: standIn.grants,
    signIn: standIn.signIn,
    sealer: createSealer(new Uint8Array(32).fill(7)),
    now: () => clock.now(),
    logger,
    ...(options.limits ? { limits: options.limits } : {}),
  };
  // As the gateway wires it (SQLite, here in memory), or over a store of the test's own.
  const wired = options.store
    ? undefined
    : createGatewayAuthorization({
        ...parts,
        publicUrl: new URL(beside?.origin ?? origin),
        databasePath: ':memory:',
      });
  const store = wired?.store ?? (options.store as AuthorizationStore);
  const authorization =
    wired?.server ??
    createAuthorizationServer({ ...parts, issuer: new URL(beside?.origin ?? origin), store });
  standIn.completeWith(authorization.complete);
  const gateway = createGateway(
    { ...defaultConfig(sandbox.url), graphiql: false },
    { now: () => clock.now(), scheduler, authorization, logger },
  );
  const mcp = createMcpHttp(createMcpParts(gateway, schema, { ...DEFAULT_MCP }, 'test'));
  listener = withMcp(gateway, mcp);
  return {
    sandbox,
    clock,
    scheduler,
    gateway,
    authorization,
    store,
    standIn,
    origin,
    graphqlUrl: `${origin}/graphql`,
    mcpUrl: `${origin}/mcp`,
    logged: () => lines,
    async close() {
      await mcp.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gateway.close();
      authorization.close();
      await store.close();
      if (beside) return;
      await standIn.close();
      await sandbox.close();
    },
  };
}

/**
 * What a browser does with an authorization URL: follows the redirects (the gateway's, the
 * sandbox's consent approved at once with `sandbox_consent=approve`, the callback's) until one
 * leads to `redirectUri`, and answers that URL; or the last answer that was not a redirect.
 */
export async function followSignIn(
  authorizationUrl: string | URL,
  redirectUri: string,
  sandboxOrigin: string,
): Promise<URL | { status: number; text: string }> {
  let url = new URL(authorizationUrl);
  for (let hop = 0; hop < 6; hop += 1) {
    if (url.origin === sandboxOrigin && url.pathname === '/oauth/authorize')
      url.searchParams.set('sandbox_consent', 'approve');
    const response = await fetch(url, { redirect: 'manual' });
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || location === null)
      return { status: response.status, text: await response.text() };
    await response.body?.cancel();
    url = new URL(location, url);
    if (url.href.startsWith(redirectUri)) return url;
  }
  throw new Error('followSignIn: too many redirects');
}
