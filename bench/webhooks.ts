/**
 * `npm run bench:webhooks`: what webhooks cost and how fast they arrive (bounded, loopback only).
 *
 * 1. Delivery latency (real time): one endpoint on a loopback receiver; an outside client writes
 *    a transaction straight at the REST sandbox at a random moment of the poll cycle, and the
 *    delivery carrying it is timed from the moment the write was answered. The gateway polls
 *    every `POLL_MS` here (a quota large enough for it), so the figure is about half an interval
 *    plus one delta request and one POST; with the defaults the interval is 36 s.
 * 2. Throughput: 100 endpoints of one token and plan on one receiver; `WRITES` outside writes,
 *    each followed by a query that syncs the gateway (no waiting for a poll), so 100 × `WRITES`
 *    deliveries are queued at once; deliveries per second from the first write to the last 2xx.
 * 3. Upstream calls in a simulated hour (a manual clock drives the sandbox and the gateway's
 *    timers; default settings: 200 an hour, share 0.5, max-age 30 s), one outside write every 5
 *    minutes, with 1 SSE subscription and 0, 1 or 100 endpoints: the calls stay the same.
 *
 * Everything runs in this process (the manual clock must drive the gateway's timers).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock, createSandbox } from '@plans-gateway/sandbox';
import { DEFAULT_WEBHOOKS, type WebhooksConfig } from '../src/config/config.js';
import { createManualScheduler } from '../src/time/scheduler.js';
import { createUpstreamClient, type UpstreamClient } from '../src/upstream/client.js';
import { createLiveClient } from './live-clients.js';
import { percentile } from './load.js';
import { startFront } from './probes/kit.js';

const TOKEN = 'bench-webhooks-token';
const HOUR = 3_600_000;
const POLL_MS = 1_000;
const LATENCY_WRITES = Number(process.env.WEBHOOK_BENCH_WRITES ?? 20);
const ENDPOINTS = 100;
const WRITES = 10;
const WRITE_EVERY_MS = 5 * 60_000;

const dir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
let databases = 0;

function webhooks(): WebhooksConfig {
  databases += 1;
  return {
    ...DEFAULT_WEBHOOKS,
    key: randomBytes(32),
    databasePath: join(dir, `bench-${databases}.db`),
    allowPrivateTargets: true,
    concurrency: 32,
  };
}

/** A receiver that notes when each transaction id first arrives, and counts deliveries. */
async function startReceiver() {
  const firstSeen = new Map<string, number>();
  let deliveries = 0;
  let lastAt = 0;
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', () => {
      const at = performance.now();
      deliveries += 1;
      lastAt = at;
      const data = (JSON.parse(body) as { data: { transactions?: { id: string }[] } }).data;
      for (const tx of data.transactions ?? []) if (!firstSeen.has(tx.id)) firstSeen.set(tx.id, at);
      response.statusCode = 204;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}/${path}`,
    firstSeen,
    deliveries: () => deliveries,
    lastAt: () => lastAt,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function gql(url: string, query: string, variables: Record<string, unknown>, headers = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: unknown; errors?: unknown[] };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

async function createEndpoints(url: string, planId: string, urls: string[]): Promise<void> {
  for (const target of urls) {
    await gql(
      url,
      'mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret } }',
      { input: { planId, url: target, kinds: ['TRANSACTIONS'] } },
    );
  }
}

async function plan(writer: UpstreamClient) {
  const { plans } = await writer.getPlans({ token: TOKEN }, {});
  const planId = plans[0]!.id;
  const { accounts } = await writer.getAccounts({ token: TOKEN }, { planId });
  const account = accounts.find((a) => a.on_budget && !a.closed && !a.deleted)!;
  return { planId, accountId: account.id };
}

async function write(writer: UpstreamClient, planId: string, accountId: string, date: string) {
  const created = await writer.createTransaction(
    { token: TOKEN },
    { planId, body: { transaction: { account_id: accountId, date, amount: -1_000 } } },
  );
  return created.transaction!.id;
}

async function waitFor(condition: () => boolean, what: string, limitMs = 60_000): Promise<void> {
  const deadline = performance.now() + limitMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

async function latencyAndThroughput() {
  const sandbox = await createSandbox({
    port: 0,
    rateLimit: false,
    users: [{ token: TOKEN, plans: [{ seed: 1 }] }],
  });
  const served = await startFront(sandbox.url, {
    webhooks: webhooks(),
    maxAgeMs: POLL_MS,
    rateLimit: { limit: (2 * HOUR) / POLL_MS, windowMs: HOUR },
  });
  const writer = createUpstreamClient({ baseUrl: sandbox.url, retry: { attempts: 1 } });
  const receiver = await startReceiver();
  try {
    const { planId, accountId } = await plan(writer);
    const today = new Date().toISOString().slice(0, 10);
    await createEndpoints(served.url, planId, [receiver.url('latency')]);
    const random = seeded(7);
    const samples: number[] = [];
    for (let i = 0; i < LATENCY_WRITES; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, random() * POLL_MS));
      const id = await write(writer, planId, accountId, today);
      const answered = performance.now();
      await waitFor(() => receiver.firstSeen.has(id), `delivery ${i}`);
      samples.push(receiver.firstSeen.get(id)! - answered);
    }
    samples.sort((a, b) => a - b);

    await createEndpoints(
      served.url,
      planId,
      Array.from({ length: ENDPOINTS - 1 }, (_, i) => receiver.url(`e${i}`)),
    );
    const before = receiver.deliveries();
    const started = performance.now();
    for (let i = 0; i < WRITES; i += 1) {
      await write(writer, planId, accountId, today);
      await gql(
        served.url,
        'query($id: PlanId!) { plan(id: $id) { serverKnowledge } }',
        { id: planId },
        {
          'cache-control': 'no-cache',
        },
      );
    }
    const expected = before + ENDPOINTS * WRITES;
    await waitFor(() => receiver.deliveries() >= expected, `${expected} deliveries`, 120_000);
    const seconds = (receiver.lastAt() - started) / 1000;
    return {
      latency: {
        pollMs: POLL_MS,
        samples: samples.length,
        p50: percentile(samples, 50),
        p95: percentile(samples, 95),
        max: samples.at(-1) ?? Number.NaN,
      },
      throughput: {
        endpoints: ENDPOINTS,
        deliveries: ENDPOINTS * WRITES,
        seconds,
        perSecond: (ENDPOINTS * WRITES) / seconds,
      },
    };
  } finally {
    await receiver.close();
    await served.close();
    await writer.close();
    await sandbox.close();
  }
}

async function simulatedHour(endpoints: number) {
  const clock = createManualClock(Date.now());
  const scheduler = createManualScheduler(clock);
  const sandbox = await createSandbox({
    port: 0,
    clock,
    users: [{ token: TOKEN, plans: [{ seed: 1 }] }],
  });
  const served = await startFront(
    sandbox.url,
    { webhooks: webhooks() },
    { now: () => clock.now(), scheduler },
  );
  const writer = createUpstreamClient({
    baseUrl: sandbox.url,
    retry: { attempts: 1 },
    readBackoff: false,
  });
  const receiver = await startReceiver();
  const sse = createLiveClient(
    'SSE',
    { http: served.url, ws: served.url.replace('http', 'ws') },
    TOKEN,
  );
  try {
    const { planId, accountId } = await plan(writer);
    sse.subscribe(
      'subscription($planId: PlanId!) { planChanged(planId: $planId) { serverKnowledge } }',
      { planId },
      () => {},
    );
    await createEndpoints(
      served.url,
      planId,
      Array.from({ length: endpoints }, (_, i) => receiver.url(`h${i}`)),
    );
    await waitFor(
      () => served.gateway.live.stats().subscribers === (endpoints > 0 ? 2 : 1),
      'the subscribers',
    );
    sandbox.resetCalls();
    for (let at = 0; at < HOUR; at += WRITE_EVERY_MS) {
      await write(writer, planId, accountId, new Date(clock.now()).toISOString().slice(0, 10));
      await scheduler.advance(WRITE_EVERY_MS);
    }
    await waitFor(() => receiver.deliveries() >= endpoints * 12, 'the hour delivered', 120_000);
    const calls = sandbox
      .calls()
      .filter((call) => call.token === TOKEN && call.operationId !== 'createTransaction');
    return { endpoints, upstreamCalls: calls.length, deliveries: receiver.deliveries() };
  } finally {
    await sse.close();
    await receiver.close();
    await served.close();
    await writer.close();
    await sandbox.close();
  }
}

async function main() {
  try {
    console.log(
      `Webhooks: latency (${LATENCY_WRITES} outside writes) and throughput (${ENDPOINTS} endpoints x ${WRITES} writes)...`,
    );
    const { latency, throughput } = await latencyAndThroughput();
    const hour = [];
    for (const count of [0, 1, ENDPOINTS]) {
      console.log(`Webhooks: a simulated hour with 1 subscription and ${count} endpoint(s)...`);
      hour.push(await simulatedHour(count));
    }
    const fmt = (n: number) => n.toFixed(0);
    console.log(
      [
        '',
        `Delivery latency after an outside REST write (poll every ${latency.pollMs} ms, ${latency.samples} writes): p50 ${fmt(latency.p50)} ms, p95 ${fmt(latency.p95)} ms, max ${fmt(latency.max)} ms`,
        `Throughput: ${throughput.deliveries} deliveries to ${throughput.endpoints} endpoints in ${throughput.seconds.toFixed(2)} s = ${fmt(throughput.perSecond)} deliveries/s`,
        'Upstream calls in a simulated hour (defaults; 12 outside writes; 1 SSE subscription):',
        ...hour.map(
          (h) =>
            `  ${String(h.endpoints).padStart(3)} endpoint(s): ${h.upstreamCalls} calls, ${h.deliveries} deliveries`,
        ),
      ].join('\n'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
