/**
 * The stack of the live-update suites: the sandbox and a gateway over real HTTP and WebSocket on
 * ephemeral ports, sharing one manual clock that also drives the gateway's poll timers, and a
 * REST writer that changes the plan behind the gateway's back.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createManualClock,
  createSandbox,
  type ManualClock,
  type Sandbox,
  type SandboxOptions,
} from '@plans-gateway/sandbox';
import { defaultConfig, type GatewayConfig } from '../../../src/config/config.js';
import { createManualScheduler, type ManualScheduler } from '../../../src/live/scheduler.js';
import { createGateway, type Gateway, type GatewayDeps } from '../../../src/server/gateway.js';
import { attachWebSockets } from '../../../src/server/websockets.js';
import { createUpstreamClient, type UpstreamClient } from '../../../src/upstream/client.js';
import { tokenKey } from '../../../src/upstream/token-key.js';
import { type GraphQLResponse, gqlAt } from '../../support/graphql.js';
import { until } from '../../support/wait.js';

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

/** Waits until the hub holds `count` subscribers. */
export function subscribed(stack: LiveStack, count: number): Promise<void> {
  return until(
    () => stack.gateway.live.stats().subscribers === count,
    () => `${count} subscribers (have ${stack.gateway.live.stats().subscribers})`,
  );
}

/** The knowledge of the stack's plan as a query reads it (loading or syncing the replica). */
export async function knowledgeOf(stack: LiveStack): Promise<number> {
  const answer = await stack.gql<{ plan: { serverKnowledge: number } }>(
    'query($planId: PlanId!) { plan(id: $planId) { serverKnowledge } }',
    { planId: stack.planId },
  );
  return answer.body.data!.plan.serverKnowledge;
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
