/**
 * `npm run bench -- --subscriptions`: what live updates cost and how fast they arrive.
 *
 * 1. Event latency (real time): subscribers over SSE and WebSocket, an outside client writes a
 *    transaction straight at the REST sandbox at a random moment of the poll cycle, and each
 *    subscriber's receipt is timed from the moment the write was answered. The gateway polls
 *    every `LATENCY_POLL_MS` here (a quota large enough for it), so the figure is about
 *    half an interval plus one delta request; with the defaults the interval is 36 s and the
 *    latency scales with it. A write through the gateway is timed too (no poll involved).
 * 2. Upstream calls per hour (simulated: the gateway's timers and the sandbox run on one manual
 *    clock, so an hour takes seconds): 1, 10 and 100 subscribers of one token with the default
 *    settings (200 requests an hour, share 0.5, max-age 30 s) and an outside write every 5
 *    minutes, counted at the sandbox; against the REST baseline of each client polling on its
 *    own with a delta request every 30 s (computed from that schedule: 120 an hour per client).
 *
 * The gateway runs in this process (the manual clock must drive its timers), next to the sandbox
 * and the clients.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createManualClock, createSandbox, type Sandbox } from '@plans-gateway/sandbox';
import { defaultConfig, type GatewayConfig } from '../src/config/config.js';
import { createGateway, type Gateway } from '../src/gateway/gateway.js';
import { attachWebSockets, type WebSocketAttachment } from '../src/server/websockets.js';
import { createManualScheduler, type Scheduler } from '../src/time/scheduler.js';
import { createUpstreamClient, type UpstreamClient } from '../src/upstream/client.js';
import {
  createLiveClient,
  type LiveClient,
  type LiveEvent,
  type Transport,
} from './live-clients.js';
import { percentile } from './load.js';
import type { BenchOptions } from './options.js';

const TOKEN = 'bench-live-token';
const HOUR = 3_600_000;
/** The latency part polls every second: quota 7,200 an hour, share 0.5, max-age 1 s. */
const LATENCY_POLL_MS = 1_000;
const SUBSCRIBER_COUNTS = [1, 10, 100] as const;
const REST_POLL_MS = 30_000;
const WRITE_EVERY_MS = 5 * 60_000;

const PLAN_CHANGED = `subscription($planId: PlanId!) {
  planChanged(planId: $planId) { origin serverKnowledge transactions { id amount account { balance } } }
}`;

export interface LatencySummaryMs {
  samples: number;
  p50: number;
  p95: number;
  max: number;
  mean: number;
}

export interface HourResult {
  subscribers: number;
  /** Requests the gateway sent upstream for the token in the simulated hour. */
  gatewayCalls: number;
  exports: number;
  deltas: number;
  refused429: number;
  /** Fewest and most events a subscriber received (12 writes in the hour). */
  eventsPerSubscriber: { min: number; max: number };
  restBaselineCalls: number;
  restBaselineOverQuota: number;
  wallMs: number;
}

export interface SubscriptionsResults {
  startedAt: string;
  upstreamLatencyMs: number;
  planTransactions: number;
  latency: {
    pollIntervalMs: number;
    writes: number;
    subscribersPerTransport: number;
    outsideWrite: Record<Transport, LatencySummaryMs>;
    gatewayWrite: { mutation: LatencySummaryMs; firstEvent: LatencySummaryMs };
  };
  hour: HourResult[];
}

interface Served {
  gateway: Gateway;
  urls: { http: string; ws: string };
  close(): Promise<void>;
}

async function serve(
  sandbox: Sandbox,
  config: Partial<GatewayConfig>,
  deps: { now?: () => number; scheduler?: Scheduler } = {},
): Promise<Served> {
  const gateway = createGateway(
    { ...defaultConfig(sandbox.url), graphiql: false, ...config },
    deps,
  );
  const server: Server = createServer(gateway.yoga);
  const sockets: WebSocketAttachment = attachWebSockets(server, gateway);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    gateway,
    urls: { http: `http://127.0.0.1:${port}/graphql`, ws: `ws://127.0.0.1:${port}/graphql` },
    async close() {
      await gateway.live.close();
      await sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gateway.close();
    },
  };
}

function summarizeMs(samples: number[]): LatencySummaryMs {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    samples: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    max: sorted.at(-1) ?? Number.NaN,
    mean: sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length),
  };
}

/** Private: a subscriber that resolves a waiter when an event carries a given transaction. */
function watcher(client: LiveClient, planId: string) {
  const seen = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  let events = 0;
  const stop = client.subscribe(PLAN_CHANGED, { planId }, (event: LiveEvent) => {
    events += 1;
    const change = (event.data as { planChanged?: { transactions: { id: string }[] } } | null)
      ?.planChanged;
    for (const tx of change?.transactions ?? []) {
      if (!seen.has(tx.id)) seen.set(tx.id, event.at);
      waiters.get(tx.id)?.();
    }
  });
  return {
    events: () => events,
    /** When the transaction was first received (monotonic ms). */
    receivedAt(id: string): Promise<number> {
      const at = seen.get(id);
      if (at !== undefined) return Promise.resolve(at);
      return new Promise((resolve) =>
        waiters.set(id, () => {
          waiters.delete(id);
          resolve(seen.get(id)!);
        }),
      );
    },
    stop,
  };
}

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 4_000 && !condition(); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  if (!condition()) throw new Error('timed out waiting for the subscribers');
}

async function writeAt(
  writer: UpstreamClient,
  planId: string,
  accountId: string,
  date: string,
  memo: string,
): Promise<string> {
  const created = await writer.createTransaction(
    { token: TOKEN },
    { planId, body: { transaction: { account_id: accountId, date, amount: -1_000, memo } } },
  );
  return created.transaction!.id;
}

async function firstAccount(writer: UpstreamClient, planId: string): Promise<string> {
  const { accounts } = await writer.getAccounts({ token: TOKEN }, { planId });
  const account = accounts.find((a) => a.on_budget && !a.closed && !a.deleted);
  if (!account) throw new Error('the bench plan has no open on-budget account');
  return account.id;
}

/** A deterministic stream of numbers in [0, 1), so runs sample the poll cycle alike. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

async function measureLatency(options: BenchOptions, writes: number, perTransport: number) {
  const sandbox = await createSandbox({
    port: 0,
    rateLimit: false,
    latency: { fixedMs: options.latencyMs },
    users: [{ token: TOKEN, plans: [{ seed: 1, transactions: options.planTransactions }] }],
  });
  const served = await serve(sandbox, {
    maxAgeMs: LATENCY_POLL_MS,
    rateLimit: { limit: (2 * HOUR) / LATENCY_POLL_MS, windowMs: HOUR },
  });
  const writer = createUpstreamClient({ baseUrl: sandbox.url, retry: { attempts: 1 } });
  const clients: LiveClient[] = [];
  try {
    const planId = sandbox.users[0]!.planIds[0]!;
    const accountId = await firstAccount(writer, planId);
    const today = new Date().toISOString().slice(0, 10);
    const watchers: Record<Transport, ReturnType<typeof watcher>[]> = { SSE: [], WS: [] };
    for (const transport of ['SSE', 'WS'] as const) {
      const client = createLiveClient(transport, served.urls, TOKEN);
      clients.push(client);
      for (let i = 0; i < perTransport; i += 1) watchers[transport].push(watcher(client, planId));
    }
    await waitFor(() => served.gateway.live.stats().subscribers === 2 * perTransport);

    const random = seeded(7);
    const samples: Record<Transport, number[]> = { SSE: [], WS: [] };
    for (let i = 0; i < writes; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, random() * LATENCY_POLL_MS));
      const id = await writeAt(writer, planId, accountId, today, `outside ${i}`);
      const answered = performance.now();
      for (const transport of ['SSE', 'WS'] as const) {
        for (const w of watchers[transport])
          samples[transport].push((await w.receivedAt(id)) - answered);
      }
    }

    const mutationMs: number[] = [];
    const firstEventMs: number[] = [];
    const gql = async (query: string, variables: Record<string, unknown>) => {
      const response = await fetch(served.urls.http, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify({ query, variables }),
      });
      return (await response.json()) as {
        data?: { createTransaction?: { transaction?: { id: string } } };
      };
    };
    for (let i = 0; i < writes; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, random() * LATENCY_POLL_MS));
      const sent = performance.now();
      const answer = await gql(
        `mutation($planId: PlanId!, $accountId: UUID!, $date: Date!) {
          createTransaction(planId: $planId, input: { accountId: $accountId, date: $date, amount: -2000 }) {
            ... on CreateTransactionPayload { transaction { id } }
          }
        }`,
        { planId, accountId, date: today },
      );
      mutationMs.push(performance.now() - sent);
      const id = answer.data?.createTransaction?.transaction?.id;
      if (!id) throw new Error(`the mutation failed: ${JSON.stringify(answer)}`);
      const all = [...watchers.SSE, ...watchers.WS];
      const times = await Promise.all(all.map((w) => w.receivedAt(id)));
      firstEventMs.push(Math.min(...times) - sent);
    }
    return {
      pollIntervalMs: LATENCY_POLL_MS,
      writes,
      subscribersPerTransport: perTransport,
      outsideWrite: { SSE: summarizeMs(samples.SSE), WS: summarizeMs(samples.WS) },
      gatewayWrite: { mutation: summarizeMs(mutationMs), firstEvent: summarizeMs(firstEventMs) },
    };
  } finally {
    for (const client of clients) await client.close();
    await served.close();
    await writer.close();
    await sandbox.close();
  }
}

async function simulatedHour(options: BenchOptions, subscribers: number): Promise<HourResult> {
  const clock = createManualClock(Date.now());
  const scheduler = createManualScheduler(clock);
  const sandbox = await createSandbox({
    port: 0,
    clock,
    users: [{ token: TOKEN, plans: [{ seed: 1, transactions: options.planTransactions }] }],
  });
  const served = await serve(sandbox, {}, { now: () => clock.now(), scheduler });
  const writer = createUpstreamClient({
    baseUrl: sandbox.url,
    retry: { attempts: 1 },
    readBackoff: false,
  });
  const clients: LiveClient[] = [];
  try {
    const planId = sandbox.users[0]!.planIds[0]!;
    const accountId = await firstAccount(writer, planId);
    sandbox.resetCalls(); // from here on: the subscribers' first read (an export), then polls
    const watchers: ReturnType<typeof watcher>[] = [];
    // Half over SSE (a connection each), half over WebSocket (20 per connection at most).
    let ws: LiveClient | undefined;
    const sse = createLiveClient('SSE', served.urls, TOKEN);
    clients.push(sse);
    for (let i = 0; i < subscribers; i += 1) {
      if (i % 2 === 0) {
        watchers.push(watcher(sse, planId));
        continue;
      }
      if (!ws || Math.floor(i / 2) % 20 === 0) {
        ws = createLiveClient('WS', served.urls, TOKEN);
        clients.push(ws);
      }
      watchers.push(watcher(ws, planId));
    }
    await waitFor(() => served.gateway.live.stats().subscribers === subscribers);

    const begin = performance.now();
    const written: string[] = [];
    for (let at = 0; at < HOUR; at += WRITE_EVERY_MS) {
      const date = new Date(clock.now()).toISOString().slice(0, 10);
      written.push(await writeAt(writer, planId, accountId, date, `hour ${at}`));
      await scheduler.advance(WRITE_EVERY_MS);
    }
    await Promise.all(watchers.flatMap((w) => written.map((id) => w.receivedAt(id))));
    const wallMs = performance.now() - begin;
    const calls = sandbox
      .calls()
      .filter((call) => call.token === TOKEN && call.operationId !== 'createTransaction');
    const baseline = subscribers * (HOUR / REST_POLL_MS);
    const events = watchers.map((w) => w.events());
    return {
      subscribers,
      gatewayCalls: calls.length,
      exports: calls.filter((c) => c.query.last_knowledge_of_server === undefined).length,
      deltas: calls.filter((c) => c.query.last_knowledge_of_server !== undefined).length,
      refused429: calls.filter((c) => c.status === 429).length,
      eventsPerSubscriber: { min: Math.min(...events), max: Math.max(...events) },
      restBaselineCalls: baseline,
      restBaselineOverQuota: Math.max(0, baseline - 200),
      wallMs,
    };
  } finally {
    for (const client of clients) await client.close();
    await served.close();
    await writer.close();
    await sandbox.close();
  }
}

export async function runSubscriptionsBench(options: BenchOptions): Promise<SubscriptionsResults> {
  const startedAt = new Date().toISOString();
  const writes = options.quick ? 8 : 30;
  console.log(
    `Subscriptions: event latency (${writes} outside writes, ${writes} gateway writes)...`,
  );
  const latency = await measureLatency(options, writes, 5);
  const hour: HourResult[] = [];
  for (const count of SUBSCRIBER_COUNTS) {
    console.log(`Subscriptions: a simulated hour with ${count} subscriber(s)...`);
    hour.push(await simulatedHour(options, count));
  }
  return {
    startedAt,
    upstreamLatencyMs: options.latencyMs,
    planTransactions: options.planTransactions,
    latency,
    hour,
  };
}

const fmt = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : '-');

export function formatSubscriptionResults(results: SubscriptionsResults): string {
  const { latency } = results;
  const row = (name: string, s: LatencySummaryMs) =>
    `  ${name.padEnd(34)} ${fmt(s.p50).padStart(6)} ${fmt(s.p95).padStart(6)} ${fmt(s.max).padStart(6)} ${fmt(s.mean).padStart(6)}`;
  const lines = [
    `Subscriptions benchmark  ${results.startedAt}`,
    `upstream latency ${results.upstreamLatencyMs} ms, plan of ${results.planTransactions} transactions; gateway, sandbox and clients in one process`,
    '',
    `Event latency, ms (poll interval ${latency.pollIntervalMs} ms; ${latency.subscribersPerTransport} subscribers per transport; ${latency.writes} writes each)`,
    `  ${''.padEnd(34)} ${'p50'.padStart(6)} ${'p95'.padStart(6)} ${'max'.padStart(6)} ${'mean'.padStart(6)}`,
    row('outside REST write -> SSE', latency.outsideWrite.SSE),
    row('outside REST write -> WebSocket', latency.outsideWrite.WS),
    row('gateway mutation, answered', latency.gatewayWrite.mutation),
    row('gateway mutation -> first event', latency.gatewayWrite.firstEvent),
    '  (outside writes land at a random point of the poll cycle: expect about half an interval plus one delta request;',
    `   with the default settings the interval is 36 s)`,
    '',
    'Upstream calls in one simulated hour, one token (defaults: 200 an hour, share 0.5, max-age 30 s; an outside write every 5 min)',
    `  ${'subscribers'.padEnd(12)} ${'gateway'.padStart(8)} ${'exports'.padStart(8)} ${'deltas'.padStart(7)} ${'429'.padStart(4)} ${'events/sub'.padStart(11)} ${'REST baseline'.padStart(14)} ${'over quota'.padStart(11)} ${'wall s'.padStart(7)}`,
    ...results.hour.map(
      (h) =>
        `  ${String(h.subscribers).padEnd(12)} ${String(h.gatewayCalls).padStart(8)} ${String(h.exports).padStart(8)} ${String(h.deltas).padStart(7)} ${String(h.refused429).padStart(4)} ${`${h.eventsPerSubscriber.min}-${h.eventsPerSubscriber.max}`.padStart(11)} ${String(h.restBaselineCalls).padStart(14)} ${String(h.restBaselineOverQuota).padStart(11)} ${(h.wallMs / 1000).toFixed(1).padStart(7)}`,
    ),
    `  (REST baseline: each client sends its own delta request every ${REST_POLL_MS / 1000} s, ${HOUR / REST_POLL_MS} an hour; beyond 200 the upstream answers 429)`,
  ];
  return lines.join('\n');
}
