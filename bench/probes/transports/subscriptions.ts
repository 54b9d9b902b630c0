/**
 * Probes of issue 18's subscription items, by item number:
 *
 * - 1: a `since` replay of a large plan (event bytes, CPU, upstream calls, RSS, `/health`
 *   meanwhile), never-reading subscribers (RSS, heap), subscribe/complete cycles (upstream calls);
 * - 3: subscriptions that are never streamed (a batch, `Accept: application/json`): whether the
 *   token can still subscribe, and the polls their orphaned feeds send;
 * - 5: `totalCount` of the hybrid lists (`category.transactions`, `payee.transactions`): CPU,
 *   rows visited, what another client sees meanwhile.
 *
 * `PROBE_TRANSACTIONS` sets the large plan (default 100,000 transactions).
 */
import type { Socket } from 'node:net';
import { createManualClock } from '@plans-gateway/sandbox';
import type { QueryMeter } from '../../../src/replica/transaction-query.js';
import { createManualScheduler } from '../../../src/time/scheduler.js';
import { neverReading } from '../../../test/live/support/raw-subscriber.js';
import {
  codes,
  cpu,
  gql,
  heapAfterGc,
  mb,
  ms,
  post,
  report,
  sandboxWith,
  sleep,
  startFront,
  userWith,
} from '../kit.js';
import type { Probes } from './probe.js';

const LARGE_PLAN = Number(process.env.PROBE_TRANSACTIONS ?? 100_000);
const DEMO_PLAN = 1_200;
/** The probes give up waiting on a stream after this long. */
const STREAM_LIMIT_MS = 240_000;

const REPLAY = `subscription($since: SafeInt) {
  planChanged(planId: "last-used", since: $since) {
    origin serverKnowledge
    transactions { id memo payee { name } account { name } category { name } }
  }
}`;
const KNOWLEDGE = '{ plan(id: "last-used") { serverKnowledge } }';

interface StreamFigures {
  events: number;
  largest: number;
  total: number;
  /** Until the event that brought the subscriber to `target`, or the limit. */
  ms: number;
  reached: boolean;
  errors: string[];
}

/** Reads one SSE subscription until an event's `serverKnowledge` reaches `target`. */
async function readReplay(
  url: string,
  token: string,
  since: number,
  target: number,
): Promise<StreamFigures> {
  const started = performance.now();
  const controller = new AbortController();
  const figures: StreamFigures = {
    events: 0,
    largest: 0,
    total: 0,
    ms: 0,
    reached: false,
    errors: [],
  };
  const timer = setTimeout(() => controller.abort(), STREAM_LIMIT_MS);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({ query: REPLAY, variables: { since } }),
      signal: controller.signal,
    });
    const decoder = new TextDecoder();
    let buffered = '';
    const reader = response.body!.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      buffered += decoder.decode(read.value, { stream: true });
      for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
        const message = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const data = message
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5))
          .join('\n');
        if (!message.startsWith('event: next') || data === '') continue;
        figures.events += 1;
        figures.largest = Math.max(figures.largest, Buffer.byteLength(data));
        figures.total += Buffer.byteLength(data);
        const body = JSON.parse(data) as {
          data?: { planChanged?: { serverKnowledge: number } };
          errors?: { extensions?: { code?: string } }[];
        };
        for (const error of body.errors ?? []) figures.errors.push(String(error.extensions?.code));
        if ((body.data?.planChanged?.serverKnowledge ?? -1) >= target || body.errors) {
          figures.reached = !body.errors;
          figures.ms = performance.now() - started;
          controller.abort();
          return figures;
        }
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) figures.errors.push(`stream failed: ${String(error)}`);
  } finally {
    clearTimeout(timer);
  }
  figures.ms = performance.now() - started;
  return figures;
}

/** Samples RSS every 100 ms while `work` runs; resolves with the peak. */
async function peakRss<T>(work: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 100);
  try {
    const result = await work();
    return { result, peak: Math.max(peak, process.memoryUsage().rss) };
  } finally {
    clearInterval(sampler);
  }
}

/** `/health` every 250 ms while `work` runs; resolves with the slowest answer and failures. */
async function slowestHealth<T>(
  url: string,
  work: () => Promise<T>,
): Promise<{ result: T; worst: string }> {
  const health = url.replace('/graphql', '/health');
  let worst = 0;
  let failed = 0;
  let running = true;
  const poll = (async () => {
    while (running) {
      const started = performance.now();
      await fetch(health)
        .then((r) => r.text())
        .catch(() => (failed += 1));
      worst = Math.max(worst, performance.now() - started);
      await sleep(250);
    }
  })();
  try {
    const result = await work();
    return { result, worst: `${ms(worst)}${failed ? `, ${failed} failed` : ''}` };
  } finally {
    running = false;
    await poll;
  }
}

/** 1. Replays: one and twelve of a large plan, never-reading subscribers, subscribe/complete cycles. */
async function replays(): Promise<void> {
  const token = 'replay-large-token-001';
  const sandbox = await sandboxWith({ users: [userWith(token, LARGE_PLAN)] });
  const front = await startFront(sandbox.url);
  try {
    const cold = await gql(front.url, KNOWLEDGE, token);
    const target = (cold.json().data as { plan: { serverKnowledge: number } }).plan.serverKnowledge;
    sandbox.resetCalls();
    const one = await slowestHealth(front.url, () =>
      cpu(() => readReplay(front.url, token, 0, target)),
    );
    const figures = one.result.result;
    report(`1 since: 0 replay of a ${LARGE_PLAN}-transaction plan, one subscriber`, {
      'replay complete': figures.reached,
      'REPLAY events': figures.events,
      'largest event': `${figures.largest} bytes`,
      'all events': mb(figures.total),
      'time to the current knowledge': ms(figures.ms),
      'CPU (process)': ms(one.result.cpuMs),
      'slowest /health meanwhile': one.worst,
      'upstream calls': sandbox.calls().length,
      errors: figures.errors.join(',') || 'none',
    });

    sandbox.resetCalls();
    const rssBefore = process.memoryUsage().rss;
    const twelve = await slowestHealth(front.url, () =>
      peakRss(() =>
        cpu(() =>
          Promise.all(Array.from({ length: 12 }, () => readReplay(front.url, token, 0, target))),
        ),
      ),
    );
    const all = twelve.result.result.result;
    report(`1 since: 0 replay of a ${LARGE_PLAN}-transaction plan, 12 subscribers at once`, {
      'replays complete': all.filter((f) => f.reached).length,
      'largest event': `${Math.max(...all.map((f) => f.largest))} bytes`,
      'slowest to the current knowledge': ms(Math.max(...all.map((f) => f.ms))),
      'CPU (process)': ms(twelve.result.result.cpuMs),
      'RSS before': mb(rssBefore),
      'peak RSS': mb(twelve.result.peak),
      'slowest /health meanwhile': twelve.worst,
      'upstream calls': sandbox.calls().length,
      errors: [...new Set(all.flatMap((f) => f.errors))].join(',') || 'none',
    });
  } finally {
    await front.close();
    await sandbox.close();
  }
  await neverReadingSubscribers();
  await cycles();
}

/** 1. 4 tokens x 100 subscriptions with `since: 0` on the demo plan that never read. */
async function neverReadingSubscribers(): Promise<void> {
  const tokens = Array.from({ length: 4 }, (_, i) => `replay-stalled-token-${i}`);
  const sandbox = await sandboxWith({ users: tokens.map((t) => userWith(t, DEMO_PLAN)) });
  const front = await startFront(sandbox.url);
  const sockets: Socket[] = [];
  try {
    for (const token of tokens) await gql(front.url, KNOWLEDGE, token);
    const rssBefore = process.memoryUsage().rss;
    const heapBefore = heapAfterGc();
    sandbox.resetCalls();
    const body = JSON.stringify({ query: REPLAY, variables: { since: 0 } });
    const { peak } = await peakRss(async () => {
      for (const token of tokens) {
        for (let i = 0; i < 100; i++) sockets.push(await neverReading(front.url, token, body));
      }
      await sleep(5_000);
    });
    const health = await fetch(front.url.replace('/graphql', '/health'));
    report(
      '1 4 tokens x 100 never-reading since: 0 subscriptions, demo plan (1,200 transactions)',
      {
        'RSS before': mb(rssBefore),
        'peak RSS': mb(peak),
        'RSS after 5 s': mb(process.memoryUsage().rss),
        'heap after GC, growth': mb(heapAfterGc() - heapBefore),
        'subscribers held': front.gateway.live.stats().subscribers,
        'upstream calls': sandbox.calls().length,
        '/health': health.status,
      },
    );
  } finally {
    for (const socket of sockets) socket.destroy();
    await front.close();
    await sandbox.close();
  }
}

/** 1. 50 subscribe/complete cycles, from `since: 0` and from a knowledge the gateway never saw. */
async function cycles(): Promise<void> {
  const token = 'replay-cycles-token-01';
  const sandbox = await sandboxWith({ users: [userWith(token, DEMO_PLAN)] });
  const front = await startFront(sandbox.url);
  try {
    // An outside write before the gateway's first read: `old` is below anything it logged.
    const planId = sandbox.users[0]!.planIds[0]!;
    const accounts = (await (
      await fetch(`${sandbox.url}/plans/${planId}/accounts`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as {
      data: { accounts: { id: string; closed: boolean }[]; server_knowledge: number };
    };
    const old = accounts.data.server_knowledge;
    const accountId = accounts.data.accounts.find((a) => !a.closed)!.id;
    await fetch(`${sandbox.url}/plans/${planId}/transactions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        transaction: { account_id: accountId, date: '2025-01-15', amount: -1000, memo: 'probe' },
      }),
    });
    const target = (
      (await gql(front.url, KNOWLEDGE, token)).json().data as { plan: { serverKnowledge: number } }
    ).plan.serverKnowledge;
    for (const since of [0, old]) {
      sandbox.resetCalls();
      const started = performance.now();
      let reached = 0;
      for (let i = 0; i < 50; i++) {
        if ((await readReplay(front.url, token, since, target)).reached) reached += 1;
      }
      report(
        `1 50 subscribe/complete cycles from since: ${since === 0 ? '0' : 'an old knowledge'}`,
        {
          'replays complete': reached,
          'upstream calls': sandbox.calls().length,
          time: ms(performance.now() - started),
        },
      );
    }
  } finally {
    await front.close();
    await sandbox.close();
  }
}

/** 3. Subscriptions answered without a stream: in a batch, and with `Accept: application/json`. */
async function unstreamed(): Promise<void> {
  for (const way of ['batch', 'accept-json'] as const) {
    const clock = createManualClock(Date.parse('2025-06-15T12:00:00.000Z'));
    const scheduler = createManualScheduler(clock);
    const token = `unstreamed-${way}-token`;
    const sandbox = await sandboxWith({ users: [userWith(token, DEMO_PLAN)], clock });
    const front = await startFront(sandbox.url, {}, { now: () => clock.now(), scheduler });
    try {
      await gql(front.url, KNOWLEDGE, token);
      const subscription = 'subscription { planChanged(planId: "last-used") { origin } }';
      const headers = { authorization: `Bearer ${token}` };
      const statuses = new Map<string, number>();
      for (let i = 0; i < 150; i++) {
        const answer =
          way === 'batch'
            ? await post(front.url, JSON.stringify([{ query: subscription }]), headers)
            : await post(front.url, JSON.stringify({ query: subscription }), {
                ...headers,
                accept: 'application/json',
              });
        const key = `${answer.status} ${codes(answer)}`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
      }
      const held = front.gateway.live.stats();
      sandbox.resetCalls();
      await scheduler.advance(10 * 36_000);
      const polls = sandbox.calls().length;
      const controller = new AbortController();
      const stream = await fetch(front.url, {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          accept: 'text/event-stream',
        },
        body: JSON.stringify({ query: subscription }),
        signal: controller.signal,
      });
      const reader = stream.body!.getReader();
      const first = await Promise.race([
        reader.read().then((r) => new TextDecoder().decode(r.value)),
        sleep(2_000).then(() => ''),
      ]);
      const subscribers = front.gateway.live.stats().subscribers;
      controller.abort();
      report(
        `3 150 subscriptions ${way === 'batch' ? 'POSTed in a batch' : 'sent with Accept: application/json'}`,
        {
          answers: [...statuses].map(([k, n]) => `${n} x ${k}`).join('; '),
          'subscribers held after': held.subscribers,
          'channels (pollers) held after': held.channels,
          'upstream polls in 10 poll intervals after': polls,
          'a new subscription then': first.includes('TOO_MANY_SUBSCRIPTIONS')
            ? 'TOO_MANY_SUBSCRIPTIONS'
            : `stream open (${subscribers} subscriber held)`,
        },
      );
    } finally {
      await front.close();
      await sandbox.close();
    }
  }
}

/** 5. `totalCount` of the hybrid lists of every category and payee, large plan. */
async function hybridCounts(): Promise<void> {
  const attacker = 'count-attacker-token-1';
  const bystander = 'count-bystander-token';
  const sandbox = await sandboxWith({
    users: [userWith(attacker, LARGE_PLAN), userWith(bystander, 200)],
  });
  const meter: QueryMeter = { rowsVisited: 0 };
  const front = await startFront(sandbox.url, {}, { replicaMeter: meter });
  try {
    await gql(front.url, KNOWLEDGE, attacker);
    const warm = '{ plan(id: "last-used") { name accounts { name balance } } }';
    await gql(front.url, warm, bystander);
    const counted = [
      'categories { transactions(first: 0) { totalCount } }',
      'payees { transactions(first: 0) { totalCount } }',
    ];
    const query = `{ plan(id: "last-used") { ${Array.from({ length: 4 }, (_, i) => `a${i}: ${counted[i % 2]}`).join(' ')} } }`;
    const body = JSON.stringify(Array.from({ length: 5 }, () => ({ query })));
    const headers = { authorization: `Bearer ${attacker}` };
    meter.rowsVisited = 0;
    const { result, cpuMs } = await cpu(() => post(front.url, body, headers));
    const rows = meter.rowsVisited;
    const quiet: number[] = [];
    for (let i = 0; i < 5; i++) quiet.push((await gql(front.url, warm, bystander)).ms);
    const health = front.url.replace('/graphql', '/health');
    const during = await (async () => {
      const attack = Promise.all(Array.from({ length: 3 }, () => post(front.url, body, headers)));
      await sleep(5);
      const started = performance.now();
      const [query] = await Promise.all([
        gql(front.url, warm, bystander),
        fetch(health).then((r) => r.text()),
      ]);
      const both = performance.now() - started;
      await attack;
      return { query: query.ms, both };
    })();
    report(
      `5 4 aliases of every category's and payee's totalCount x a batch of 5, ${LARGE_PLAN} transactions`,
      {
        'request bytes': Buffer.byteLength(body),
        status: result.status,
        'answer bytes': result.bytes,
        codes: codes(result),
        'CPU (process)': ms(cpuMs),
        'rows visited': rows,
        "bystander's warm query, quiet (median of 5)": ms(quiet.sort((a, b) => a - b)[2]!),
        "bystander's warm query and /health during 3 such requests": ms(during.both),
      },
    );
  } finally {
    await front.close();
    await sandbox.close();
  }
}

export const probes: Probes = { '1': replays, '3': unstreamed, '5': hybridCounts };
