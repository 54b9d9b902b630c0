/**
 * The one stack builder of the tests (see test/README.md): a REST sandbox on a loopback port, a
 * gateway over it, and small clients for both sides. Options say what a suite needs and nothing
 * more: a clock shared by the sandbox and the gateway, the gateway's timers driven by that clock,
 * the hostile upstream in between, WebSocket, a JSON log, more gateways on the same upstream.
 *
 * A gateway is reached through `yoga.fetch` (`serve: 'fetch'`, no socket) or a real loopback port
 * (`'http'`, the default; `'websocket'` adds graphql-ws on the same port). The sandbox always
 * listens: the gateway's undici client talks real HTTP to it.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import {
  createManualClock,
  createSandbox,
  type ManualClock,
  type Sandbox,
  type SandboxOptions,
} from '@plans-gateway/sandbox';
import { type ClusterOptions, createCluster } from '../../src/cluster/cluster.js';
import {
  DEFAULT_MCP,
  DEFAULT_SIGN_IN,
  defaultConfig,
  type GatewayConfig,
  type McpConfig,
  type SignInConfig,
} from '../../src/config/config.js';
import { createGateway, type Gateway, type GatewayDeps } from '../../src/gateway/gateway.js';
import { createMcpHttp, type McpHttp, withMcp } from '../../src/mcp/http.js';
import { createMcpParts } from '../../src/mcp/session.js';
import { schema } from '../../src/schema/index.js';
import { withFrontDoor } from '../../src/server/front-door.js';
import { attachWebSockets } from '../../src/server/websockets.js';
import { createLogger } from '../../src/telemetry/logger.js';
import { createManualScheduler, type ManualScheduler } from '../../src/time/scheduler.js';
import { createUpstreamClient, type UpstreamClient } from '../../src/upstream/client.js';
import { tokenKey } from '../../src/upstream/token-key.js';
import { type GqlOptions, type GraphQLResponse, gqlAt } from './graphql.js';
import { type HostileUpstream, startHostileUpstream } from './hostile-upstream.js';

/** 2025-06-15 12:00 UTC, where a stack's clock starts: mid-month, far from month boundaries. */
export const START = Date.parse('2025-06-15T12:00:00.000Z');

/** How clients reach a gateway. */
export type Serve = 'fetch' | 'http' | 'websocket';

export interface GatewayOptions {
  /** Over `defaultConfig(upstream)` with GraphiQL off. */
  config?: Partial<GatewayConfig>;
  /** Over the stack's clock (`now`) and timers (`scheduler`), when it has them. */
  deps?: GatewayDeps;
  /**
   * `fetch`: `yoga.fetch`, no socket (`url` is not reachable from outside); `http`: a loopback
   * port; `websocket`: the same port with GraphQL over WebSocket at `wsUrl`. @default 'http'
   */
  serve?: Serve;
  /** node's limit of request header bytes (GET requests carry their document there). */
  maxHeaderSize?: number;
  /** Log JSON lines at `info` into `log`. @default no logger */
  log?: boolean;
  /**
   * A cluster of the test's own (its Redis URL and settings), made on the stack's clock and
   * timers and closed with the gateway. Without it, `config.redisUrl` makes the gateway's own.
   */
  cluster?: ClusterOptions;
  /** MCP at `mcpUrl` on the same port (`http` or `websocket`), these settings over DEFAULT_MCP. */
  mcp?: Partial<McpConfig>;
  /**
   * Sign-in on, against the upstream's OAuth with the sandbox's demo application, a fresh key,
   * grants in memory (unless the cluster's Redis), these settings over those. The gateway then
   * listens on a port chosen first (its `/auth/callback` must be known to its config).
   */
  signIn?: true | Partial<SignInConfig>;
}

export interface ServedGateway {
  readonly gateway: Gateway;
  /** The GraphQL endpoint, e.g. `http://127.0.0.1:PORT/graphql`. */
  readonly url: string;
  /** `ws://127.0.0.1:PORT/graphql`: it answers only with `serve: 'websocket'`. */
  readonly wsUrl: string;
  /** `http://127.0.0.1:PORT/mcp`: it answers only with the `mcp` option. */
  readonly mcpUrl: string;
  /** The MCP server's sessions, with the `mcp` option. */
  readonly mcp?: McpHttp;
  /** The JSON lines logged so far (with `log: true`). */
  readonly log: Record<string, unknown>[];
  /** The global `fetch`, or `yoga.fetch` with `serve: 'fetch'`. */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** POSTs an operation; the token is the stack's unless `options.token` says (`null`: none). */
  gql<Data = Record<string, unknown>, Variables = Record<string, unknown>>(
    query: string | TypedDocumentNode<Data, Variables>,
    variables?: Variables,
    options?: GqlOptions,
  ): Promise<GraphQLResponse<Data>>;
  /** Idempotent. */
  close(): Promise<void>;
}

/** What the gateways of one stack share. */
interface Surroundings {
  now?: () => number;
  scheduler?: ManualScheduler;
  /** Sent by `gql` when the call names no token. */
  token: string | null;
}

/** A gateway alone over `upstreamUrl` (a sandbox, a hostile upstream, nothing at all). */
export function startGateway(
  upstreamUrl: string,
  options: GatewayOptions & { token?: string | null } = {},
): Promise<ServedGateway> {
  return serve(upstreamUrl, options, { token: options.token ?? null });
}

async function serve(
  upstreamUrl: string,
  options: GatewayOptions,
  around: Surroundings,
): Promise<ServedGateway> {
  const { now, scheduler } = around;
  const log: Record<string, unknown>[] = [];
  const logger = options.log ? await createLogger({ level: 'info', destination: into(log) }) : null;
  const cluster =
    options.cluster &&
    createCluster({
      ...(now ? { now } : {}),
      ...(scheduler ? { scheduler } : {}),
      ...options.cluster,
    });
  const port = options.signIn ? await freePort() : 0;
  const signIn: SignInConfig | undefined = options.signIn
    ? {
        ...DEFAULT_SIGN_IN,
        key: randomBytes(32),
        publicOrigin: `http://127.0.0.1:${port}`,
        oauthOrigin: new URL(upstreamUrl).origin,
        clientId: 'sandbox-demo-client',
        clientSecret: 'sandbox-demo-secret',
        databasePath: ':memory:',
        ...(options.signIn === true ? {} : options.signIn),
      }
    : undefined;
  const gateway = createGateway(
    {
      ...defaultConfig(upstreamUrl),
      graphiql: false,
      ...(signIn ? { signIn } : {}),
      ...options.config,
    },
    {
      ...(now ? { now } : {}),
      ...(scheduler ? { scheduler } : {}),
      ...(logger ? { logger } : {}),
      ...(cluster ? { cluster } : {}),
      ...options.deps,
    },
  );
  const mode = options.serve ?? 'http';
  const listening = mode === 'fetch' ? undefined : await listen(gateway, mode, options, port);
  const url = listening
    ? `http://127.0.0.1:${listening.port}/graphql`
    : 'http://gateway.test/graphql';
  const fetchImpl: ServedGateway['fetch'] = listening
    ? (input, init) => fetch(input, init)
    : async (input, init) => gateway.yoga.fetch(new Request(input, init));
  let closing: Promise<void> | undefined;
  return {
    gateway,
    url,
    wsUrl: url.replace('http:', 'ws:'),
    mcpUrl: url.replace(/\/graphql$/, '/mcp'),
    ...(listening?.mcp ? { mcp: listening.mcp } : {}),
    log,
    fetch: fetchImpl,
    // Waits for what the answer left running (a mutation's delta), so call counts are exact.
    gql: async <Data, Variables>(
      query: string | TypedDocumentNode<Data, Variables>,
      variables?: Variables,
      gqlOptions: GqlOptions = {},
    ) => {
      const response = await gqlAt<Data>(
        url,
        query as string | TypedDocumentNode<Data, never>,
        variables,
        gqlOptions.token === undefined ? around.token : gqlOptions.token,
        gqlOptions.headers,
        fetchImpl,
      );
      await gateway.settled();
      return response;
    },
    close() {
      closing ??= (async () => {
        await listening?.mcp?.close();
        if (listening?.closeSockets) {
          // Subscriptions end first, so their sockets close cleanly.
          await gateway.live.close();
          await listening.closeSockets();
        }
        if (listening) await closeServer(listening.server);
        await gateway.close();
        // The gateway closes only a cluster it made itself.
        await cluster?.close();
      })();
      return closing;
    },
  };
}

async function listen(
  gateway: Gateway,
  mode: 'http' | 'websocket',
  { maxHeaderSize, mcp: mcpConfig }: GatewayOptions,
  at = 0,
): Promise<{ server: Server; port: number; closeSockets?: () => Promise<void>; mcp?: McpHttp }> {
  const mcp = mcpConfig
    ? createMcpHttp(createMcpParts(gateway, schema, { ...DEFAULT_MCP, ...mcpConfig }, 'test'))
    : undefined;
  const server = createServer(
    maxHeaderSize ? { maxHeaderSize } : {},
    withFrontDoor(withMcp(gateway, mcp), gateway),
  );
  const sockets = mode === 'websocket' ? attachWebSockets(server, gateway) : undefined;
  await new Promise<void>((resolve) => server.listen(at, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    ...(sockets ? { closeSockets: () => sockets.close() } : {}),
    ...(mcp ? { mcp } : {}),
  };
}

/** A port free a moment ago, for a gateway whose config must name its own URL. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

function into(lines: Record<string, unknown>[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Stacks

/**
 * `manual`: a clock that moves only when the test moves it; `ticking`: the same, but it also moves
 * 1 ms each time it is read, as a real one would between two events (a frozen clock would make a
 * sync "no older than 0 ms" look already done).
 */
export type ClockKind = 'manual' | 'ticking';

export interface StackOptions extends GatewayOptions {
  /**
   * The sandbox's users, plans, rate limit, latency and faults. @default one demo user. A `clock`
   * here is the sandbox's alone; the stack's `clock` (which wins) is shared with the gateway.
   */
  sandbox?: Omit<SandboxOptions, 'port'>;
  /** One clock for the sandbox (dates, rate window) and the gateway (`deps.now`). @default wall clock */
  clock?: ClockKind;
  /** Where the clock starts. @default START */
  start?: number;
  /** `manual`: the gateway's timers (polls, back-offs) run as the test advances `scheduler`. */
  timers?: 'manual';
  /** Put the hostile upstream (test/support/hostile-upstream.ts) between gateway and sandbox. */
  hostile?: boolean;
  /** The token `gql` sends when none is given. @default the first sandbox user's */
  token?: string;
}

export interface Stack extends ServedGateway {
  readonly sandbox: Sandbox;
  /** The default token, and the digest the gateway keys it by. */
  readonly token: string;
  readonly tokenKey: string;
  /** The first plan of the first sandbox user. */
  readonly planId: string;
  /** A REST client of the sandbox that bypasses the gateway (writes behind its back). */
  readonly writer: UpstreamClient;
  /** GET `${sandbox.url}${path}` with a token, straight at the REST interface. */
  rest<T = unknown>(path: string, token?: string): Promise<{ status: number; body: T }>;
  /** Calls the sandbox received since the last reset, by operationId. */
  upstreamCalls(): string[];
  resetUpstreamCalls(): void;
  /** Calls the gateway's upstream (the hostile one, when there) received with `token`. */
  callsOf(token: string): string[];
  /** Another gateway on the same upstream, clock and timers; closed with the stack. */
  addGateway(options?: GatewayOptions): Promise<ServedGateway>;
}

export interface ClockedStack extends Stack {
  /** Drives the sandbox and the gateway together. */
  readonly clock: ManualClock;
}

export interface TimedStack extends ClockedStack {
  /** Runs the gateway's timers: `advance(ms)` moves the clock and runs what falls due. */
  readonly scheduler: ManualScheduler;
}

export interface HostileStack extends Stack {
  readonly hostile: HostileUpstream;
}

/** The stack that `options` ask for: a clock, timers and a hostile upstream only when asked. */
export type StackFor<O extends StackOptions> = Stack &
  (O extends { clock: ClockKind } ? ClockedStack : unknown) &
  (O extends { timers: 'manual' } ? TimedStack : unknown) &
  (O extends { hostile: true } ? HostileStack : unknown);

export async function startStack<const O extends StackOptions>(options?: O): Promise<StackFor<O>> {
  const built: Stack & Partial<TimedStack & HostileStack> = await build(options ?? {});
  return built as StackFor<O>;
}

async function build(options: StackOptions): Promise<Stack & Partial<TimedStack & HostileStack>> {
  if (options.timers && !options.clock) throw new Error('startStack: timers need a clock');
  const clock = options.clock ? clockOf(options.clock, options.start ?? START) : undefined;
  const scheduler = clock && options.timers ? createManualScheduler(clock) : undefined;
  const sandbox = await createSandbox({ port: 0, ...options.sandbox, ...(clock ? { clock } : {}) });
  const hostile = options.hostile ? await startHostileUpstream({ target: sandbox.url }) : undefined;
  const upstreamUrl = hostile?.url ?? sandbox.url;
  const user = sandbox.users[0];
  const token = options.token ?? user?.token ?? '';
  const around: Surroundings = {
    ...(clock ? { now: () => clock.now() } : {}),
    ...(scheduler ? { scheduler } : {}),
    token,
  };
  const front = await serve(upstreamUrl, options, around);
  const writer = createUpstreamClient({
    baseUrl: sandbox.url,
    retry: { attempts: 1 },
    readBackoff: false,
  });
  const more: ServedGateway[] = [];
  const named = (call: { operationId: string | null; method: string; path: string }) =>
    call.operationId ?? `${call.method} ${call.path}`;
  return {
    ...front,
    sandbox,
    token,
    tokenKey: tokenKey(token),
    planId: user?.planIds[0] ?? '',
    writer,
    ...(clock ? { clock } : {}),
    ...(scheduler ? { scheduler } : {}),
    ...(hostile ? { hostile } : {}),
    async rest<T>(path: string, restToken = token) {
      const response = await fetch(`${sandbox.url}${path}`, {
        // A fresh connection each time: the sandbox runs in this process, and after a long
        // synchronous stretch (a gateway answering through `yoga.fetch`) an idle kept-alive socket
        // can be reused in the very tick the sandbox's keep-alive timer closes it (ECONNRESET).
        headers: { authorization: `Bearer ${restToken}`, connection: 'close' },
      });
      return { status: response.status, body: (await response.json()) as T };
    },
    upstreamCalls: () => sandbox.calls().map(named),
    resetUpstreamCalls: () => sandbox.resetCalls(),
    callsOf: (of) =>
      (hostile ? hostile.calls() : sandbox.calls()).filter((call) => call.token === of).map(named),
    async addGateway(gatewayOptions = {}) {
      const served = await serve(upstreamUrl, gatewayOptions, around);
      more.push(served);
      return served;
    },
    async close() {
      // The upstream first: closing it ends the requests it holds hanging, which the gateways'
      // pools would otherwise wait for.
      await hostile?.close();
      await sandbox.close();
      for (const served of more) await served.close();
      await front.close();
      await writer.close();
    },
  };
}

function clockOf(kind: ClockKind, start: number): ManualClock {
  return kind === 'manual' ? createManualClock(start) : createTickingClock(start);
}

/** A manual clock that also moves 1 ms each time it is read. */
function createTickingClock(start: number): ManualClock {
  let current = start;
  return {
    now: () => current++,
    set(epochMs) {
      current = epochMs;
    },
    advance(ms) {
      current += ms;
    },
  };
}
