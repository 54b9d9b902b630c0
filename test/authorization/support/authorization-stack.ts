/**
 * The gateway with sign-in on, as `npm start` runs it: a real stack (test/support/stack.ts) whose
 * gateway is the upstream's OAuth client (the sandbox's demo application, its real consent) and
 * its clients' authorization server, on one manual clock (sandbox and gateway) with manual timers.
 * MCP is served at `/mcp`. What a test of the authorization server checks, it reads through the
 * gateway: rows kept (`counts`), grants held (`grants`), every line logged (`logged`).
 *
 * Also: the browser's part of a sign-in, done by following redirects (the gateway's, the
 * sandbox's consent approved at once with `sandbox_consent=approve`, `/auth/callback`'s).
 */
import type { ManualClock, Sandbox } from '@plans-gateway/sandbox';
import type {
  AuthorizationLimits,
  AuthorizationServer,
} from '../../../src/authorization/authorization-server.js';
import type { RowKind } from '../../../src/authorization/store.js';
import type { ClusterOptions } from '../../../src/cluster/cluster.js';
import type { Gateway } from '../../../src/gateway/gateway.js';
import type { SignIn } from '../../../src/sign-in/sign-in.js';
import {
  type GatewayOptions,
  type ServedGateway,
  startStack,
  type TimedStack,
} from '../../support/stack.js';

export interface AuthorizationStack {
  readonly sandbox: Sandbox;
  readonly clock: ManualClock;
  readonly gateway: Gateway;
  readonly authorization: AuthorizationServer;
  readonly signIn: SignIn;
  /**
   * `http://127.0.0.1:PORT`: this instance's port, and the issuer (but with `beside`, whose
   * issuer is the first instance's).
   */
  readonly origin: string;
  readonly graphqlUrl: string;
  readonly mcpUrl: string;
  /** The authorization server's live rows by kind. */
  counts(): Promise<Record<RowKind, number>>;
  /** Grants browser sign-in holds now (each gateway token family and session points at one). */
  grants(): Promise<number>;
  /** Every line logged by the gateway (sign-in and authorization server included), as text. */
  logged(): string;
  close(): Promise<void>;
}

export interface AuthorizationStackOptions {
  limits?: Partial<AuthorizationLimits>;
  /** Grants, sessions and the authorization server's rows in this Redis. @default SQLite in memory */
  cluster?: ClusterOptions;
  /** The operator key (instances of one cluster share it). @default a fresh one */
  key?: Uint8Array;
  /**
   * Another instance beside `beside`, as behind one load balancer: its sandbox, clock and public
   * URL (the issuer, where the upstream's consent comes back), a gateway of its own.
   */
  beside?: AuthorizationStack;
}

/** The stacks made here, by the handle tests hold (to add instances beside them). */
const stacks = new WeakMap<AuthorizationStack, TimedStack>();

export async function startAuthorizationStack(
  options: AuthorizationStackOptions = {},
): Promise<AuthorizationStack> {
  const around = options.beside ? stacks.get(options.beside) : undefined;
  if (options.beside && !around) throw new Error('beside: not a stack made here');
  const gatewayOptions: GatewayOptions = {
    mcp: {},
    log: true,
    signIn: {
      ...(options.key ? { key: Buffer.from(options.key) } : {}),
      ...(options.beside ? { publicOrigin: options.beside.origin } : {}),
    },
    ...(options.cluster ? { cluster: options.cluster } : {}),
    ...(options.limits ? { deps: { authorizationLimits: options.limits } } : {}),
  };
  let base: TimedStack | undefined;
  let served: ServedGateway;
  if (around) served = await around.addGateway(gatewayOptions);
  else {
    base = await startStack({
      clock: 'manual',
      timers: 'manual',
      sandbox: { rateLimit: false },
      ...gatewayOptions,
    });
    served = base;
  }
  const root = (around ?? base) as TimedStack;
  const { gateway } = served;
  const { authorization, signIn } = gateway;
  if (!authorization || !signIn) throw new Error('sign-in is off');
  await gateway.cluster?.ready(5_000);
  const own = new URL(served.url).origin;
  const stack: AuthorizationStack = {
    sandbox: root.sandbox,
    clock: root.clock,
    gateway,
    authorization,
    signIn,
    origin: own,
    graphqlUrl: `${own}/graphql`,
    mcpUrl: `${own}/mcp`,
    counts: () => authorization.counts(),
    grants: async () => (await signIn.counts()).grant,
    logged: () => served.log.map((line) => JSON.stringify(line)).join('\n'),
    // Another instance is closed with the stack it was added to.
    close: () => base?.close() ?? Promise.resolve(),
  };
  if (base) stacks.set(stack, base);
  return stack;
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
