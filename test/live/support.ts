/**
 * Helpers of the live-update suites: the sandbox and a gateway over real HTTP and WebSocket on
 * ephemeral ports, sharing one manual clock that also drives the gateway's poll timers, a REST
 * writer that changes the plan behind the gateway's back, and subscribers over the real
 * `graphql-sse` and `graphql-ws` clients that collect what they receive.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { defaultConfig, type GatewayConfig } from '../../src/config/config.js';
import { createManualScheduler, type ManualScheduler } from '../../src/live/scheduler.js';
import type { ManualClock, Sandbox, SandboxOptions } from '../../src/sandbox/core/api.js';
import { createManualClock, createSandbox } from '../../src/sandbox/index.js';
import { createGateway, type Gateway, type GatewayDeps } from '../../src/server/gateway.js';
import { attachWebSockets } from '../../src/server/websockets.js';
import { createUpstreamClient, type UpstreamClient } from '../../src/upstream/client.js';
import { tokenKey } from '../../src/upstream/token-key.js';
import { type GraphQLResponse, gqlAt } from '../harness.js';

/** Mid-month, far from month boundaries. */
export const START = Date.parse('2025-06-15T12:00:00.000Z');
/** With the defaults (200 an hour, share 0.5, max-age 30 s): 3,600 s / 100 polls. */
export const DEFAULT_POLL_INTERVAL_MS = 36_000;

export interface LiveStack {
  sandbox: Sandbox;
  gateway: Gateway;
  clock: ManualClock;
  scheduler: ManualScheduler;
  /** `http://127.0.0.1:PORT/graphql` */
  url: string;
  /** `ws://127.0.0.1:PORT/graphql` */
  wsUrl: string;
  token: string;
  /** The digest the gateway keys the token's ledger and replicas by. */
  tokenKey: string;
  planId: string;
  /** A REST client of the sandbox that bypasses the gateway. */
  writer: UpstreamClient;
  gql<Data = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
    token?: string,
  ): Promise<GraphQLResponse<Data>>;
  close(): Promise<void>;
}

export interface LiveStackOptions {
  sandbox?: Omit<SandboxOptions, 'clock'>;
  config?: Partial<GatewayConfig>;
  /** Shared parts of live updates (bus, leases, poll ledger), as a cluster would inject them. */
  live?: GatewayDeps['live'];
}

/** A gateway with its HTTP and WebSocket endpoints on an ephemeral port. */
export interface ServedGateway {
  gateway: Gateway;
  url: string;
  wsUrl: string;
  close(): Promise<void>;
}

/** Another gateway instance on the stack's sandbox and clock (a cluster of two, say). */
export async function serveGateway(
  sandbox: Sandbox,
  clock: ManualClock,
  scheduler: ManualScheduler,
  options: Omit<LiveStackOptions, 'sandbox'> = {},
): Promise<ServedGateway> {
  const gateway = createGateway(
    { ...defaultConfig(sandbox.url), graphiql: false, ...options.config },
    { now: () => clock.now(), scheduler, ...(options.live ? { live: options.live } : {}) },
  );
  const server = createServer(gateway.yoga);
  const sockets = attachWebSockets(server, gateway);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    gateway,
    url: `http://127.0.0.1:${port}/graphql`,
    wsUrl: `ws://127.0.0.1:${port}/graphql`,
    async close() {
      await gateway.live.close();
      await sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gateway.close();
    },
  };
}

export async function startLiveStack(options: LiveStackOptions = {}): Promise<LiveStack> {
  const clock = createManualClock(START);
  const scheduler = createManualScheduler(clock);
  const sandbox = await createSandbox({ port: 0, ...options.sandbox, clock });
  const served = await serveGateway(sandbox, clock, scheduler, options);
  const writer = createUpstreamClient({
    baseUrl: sandbox.url,
    retry: { attempts: 1 },
    readBackoff: false,
  });
  const user = sandbox.users[0]!;
  return {
    sandbox,
    gateway: served.gateway,
    clock,
    scheduler,
    url: served.url,
    wsUrl: served.wsUrl,
    token: user.token,
    tokenKey: tokenKey(user.token),
    planId: user.planIds[0]!,
    writer,
    gql: <Data>(query: string, variables: Record<string, unknown> = {}, token = user.token) =>
      gqlAt<Data>(served.url, query, variables, token),
    async close() {
      await served.close();
      await writer.close();
      await sandbox.close();
    },
  };
}

export interface Received<Data> {
  readonly data?: Data | null;
  readonly errors?: readonly { message: string; extensions?: Record<string, unknown> }[];
}

/** What one subscription received, in order, and ways to wait for more. */
export interface Subscriber<Data> {
  readonly received: Received<Data>[];
  /** Resolves with the first received result (from the start) that satisfies `test`. */
  until(test: (result: Received<Data>) => boolean, what?: string): Promise<Received<Data>>;
  /** Resolves once the server completed the subscription (or it errored). */
  readonly finished: Promise<{ error?: unknown }>;
  stop(): void;
}

function collector<Data>(
  start: (sink: {
    next(value: Received<Data>): void;
    error(error: unknown): void;
    complete(): void;
  }) => () => void,
): Subscriber<Data> {
  const received: Received<Data>[] = [];
  const waiters: (() => void)[] = [];
  let finish: (outcome: { error?: unknown }) => void = () => {};
  const finished = new Promise<{ error?: unknown }>((resolve) => {
    finish = resolve;
  });
  let over = false;
  const wake = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  const dispose = start({
    next(value) {
      received.push(value);
      wake();
    },
    error(error) {
      over = true;
      finish({ error });
      wake();
    },
    complete() {
      over = true;
      finish({});
      wake();
    },
  });
  return {
    received,
    finished,
    async until(test, what = 'a matching event') {
      for (;;) {
        const found = received.find(test);
        if (found) return found;
        if (over) {
          throw new Error(
            `the subscription ended before ${what}; received ${JSON.stringify(received)}`,
          );
        }
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    stop: () => dispose(),
  };
}

export interface Transport {
  subscribe<Data>(query: string, variables?: Record<string, unknown>): Subscriber<Data>;
  close(): Promise<void>;
}

/** GraphQL over SSE, `graphql-sse`'s distinct connections mode (yoga's built-in transport). */
export function sseClient(url: string, token: string | null): Transport {
  const client = createSseClient({
    url,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
  });
  return {
    subscribe: <Data>(query: string, variables: Record<string, unknown> = {}) =>
      collector<Data>((sink) => client.subscribe<Data>({ query, variables }, sink)),
    async close() {
      client.dispose();
    },
  };
}

/** GraphQL over WebSocket with `graphql-ws`, the token in `connectionParams`. */
export function wsClient(
  url: string,
  token: string | null,
  options: { onClose?: (code: number, reason: string) => void } = {},
): Transport {
  const client = createWsClient({
    url,
    webSocketImpl: WebSocket,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
    lazy: true,
    on: {
      closed: (event) => {
        const { code, reason } = event as { code: number; reason: string };
        options.onClose?.(code, String(reason));
      },
    },
  });
  return {
    subscribe: <Data>(query: string, variables: Record<string, unknown> = {}) =>
      collector<Data>((sink) => client.subscribe<Data>({ query, variables }, sink)),
    async close() {
      await client.dispose();
    },
  };
}

/** Waits (on real time, for I/O to happen) until `condition` holds. */
export async function eventually(
  condition: () => boolean,
  what: string | (() => string),
): Promise<void> {
  for (let attempt = 0; attempt < 2_000; attempt += 1) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
}

/** Waits until the hub holds `count` subscribers. */
export function subscribed(stack: LiveStack, count: number): Promise<void> {
  return eventually(
    () => stack.gateway.live.stats().subscribers === count,
    () => `${count} subscribers (have ${stack.gateway.live.stats().subscribers})`,
  );
}

/** Operation ids of the sandbox calls presented with `token` (all when omitted), deltas marked. */
export function callsOf(sandbox: Sandbox, token?: string): string[] {
  return sandbox
    .calls()
    .filter((call) => token === undefined || call.token === token)
    .map(
      (call) =>
        `${call.operationId ?? call.path}${call.query.last_knowledge_of_server === undefined ? '' : `@${call.query.last_knowledge_of_server}`}`,
    );
}

/** An open on-budget account of the plan, read straight from the REST interface. */
export async function openAccount(
  stack: LiveStack,
  token = stack.token,
  planId = stack.planId,
): Promise<string> {
  const { accounts } = await stack.writer.getAccounts({ token }, { planId });
  const account = accounts.find((a) => !a.closed && !a.deleted && a.on_budget);
  if (!account) throw new Error(`plan ${planId} has no open on-budget account`);
  return account.id;
}

/** A transaction created straight at the REST interface, behind the gateway's back. */
export async function outsideWrite(
  stack: LiveStack,
  accountId: string,
  memo: string,
  { amount = -12_340, token = stack.token, planId = stack.planId } = {},
): Promise<{ id: string; serverKnowledge: number }> {
  const today = new Date(stack.clock.now()).toISOString().slice(0, 10);
  const created = await stack.writer.createTransaction(
    { token },
    { planId, body: { transaction: { account_id: accountId, date: today, amount, memo } } },
  );
  return { id: created.transaction!.id, serverKnowledge: created.server_knowledge };
}
