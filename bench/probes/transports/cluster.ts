/**
 * Issue 18's probes of the Redis scale-out (items 9, 10, 11): two in-process gateway instances
 * on one REST sandbox and one redis-server of the probe's own, real timers, default settings
 * unless said otherwise. They print what a client and an operator would see; nothing here
 * asserts (the tests in test/cluster do).
 */

import { createSandbox, type Sandbox } from '@plans-gateway/sandbox';
import { redisName } from '../../../src/cluster/seal.js';
import { DEFAULT_CLUSTER, type GatewayConfig } from '../../../src/config/config.js';
import { channelKey } from '../../../src/live/live-bus.js';
import { createUpstreamClient } from '../../../src/upstream/client.js';
import { tokenKey } from '../../../src/upstream/token-key.js';
import { type Subscriber, sseClient } from '../../../test/live/support/subscribers.js';
import { startTestRedis, type TestRedis } from '../../../test/support/redis-server.js';
import { type Front, gql, ms, report, sleep, startFront } from '../kit.js';
import type { Probes } from './probe.js';

const READ = 'query($planId: PlanId!) { plan(id: $planId) { id serverKnowledge } }';
const NO_CACHE = { 'cache-control': 'no-cache' };

interface Cluster {
  redis: TestRedis;
  sandbox: Sandbox;
  a: Front;
  b: Front;
  close(): Promise<void>;
}

/** Two instances sharing a fresh redis-server (the probe's own: it may freeze it). */
async function startCluster(
  tokens: readonly string[],
  config: Partial<GatewayConfig> = {},
  sandboxOptions: { latencyMs?: number; rateLimit?: false } = {},
): Promise<Cluster> {
  const redis = await startTestRedis({ own: true });
  const sandbox = await createSandbox({
    port: 0,
    rateLimit: sandboxOptions.rateLimit ?? false,
    latency: { fixedMs: sandboxOptions.latencyMs ?? 0 },
    users: tokens.map((token, seed) => ({ token, plans: [{ seed: seed + 3, transactions: 200 }] })),
  });
  const clusterConfig = {
    redisUrl: redis.url,
    cluster: { ...DEFAULT_CLUSTER, keyPrefix: redis.prefix },
    ...config,
  };
  const a = await startFront(sandbox.url, clusterConfig);
  const b = await startFront(sandbox.url, clusterConfig);
  for (const front of [a, b]) await front.gateway.cluster?.ready(5_000);
  return {
    redis,
    sandbox,
    a,
    b,
    async close() {
      redis.resume();
      await sandbox.close();
      await Promise.all([a.close(), b.close()]);
      await redis.close();
    },
  };
}

const planOf = (sandbox: Sandbox, token: string) =>
  sandbox.users.find((user) => user.token === token)!.planIds[0]!;

/** A cluster stat that may not exist in the version measured. */
function stat(front: Front, name: string): number | string {
  const stats = front.gateway.cluster?.stats() as Record<string, unknown> | undefined;
  const value = stats?.[name];
  return typeof value === 'number' ? value : 'n/a';
}

/** 9. Redis frozen (SIGSTOP) for 6 s under a steady mixed load on both instances. */
async function redisHangs(): Promise<void> {
  const tokens = Array.from({ length: 4 }, (_, i) => `probe-hang-token-${i}-0123456789`);
  // Upstream answers take 300 ms, so syncs are in flight (holding the lease) when Redis stops.
  const c = await startCluster(tokens, {}, { latencyMs: 300 });
  try {
    for (const token of tokens) {
      await gql(c.a.url, READ, token, {}, { planId: planOf(c.sandbox, token) });
      await gql(c.b.url, READ, token, {}, { planId: planOf(c.sandbox, token) });
    }
    const samples: { start: number; ms: number; failed: boolean; what: string }[] = [];
    const began = performance.now();
    const STOP_AT = 2_000;
    const STOP_FOR = 6_000;
    let n = 0;
    const fire = (front: Front, which: string, token: string, kind: number) => {
      const start = performance.now() - began;
      const planId = planOf(c.sandbox, token);
      const request =
        kind === 0
          ? gql(front.url, READ, token, NO_CACHE, { planId })
          : kind === 1
            ? gql(front.url, READ, token, {}, { planId })
            : gql(front.url, '{ rateLimit { used } }', token);
      return request.then(
        (answer) => {
          const failed = answer.status !== 200 || answer.text.includes('"errors"');
          samples.push({ start, ms: answer.ms, failed, what: `${which} kind ${kind}` });
        },
        () =>
          void samples.push({
            start,
            ms: performance.now() - began - start,
            failed: true,
            what: which,
          }),
      );
    };
    const inFlight: Promise<void>[] = [];
    const stop = setTimeout(() => c.redis.pause(), STOP_AT);
    const resume = setTimeout(() => c.redis.resume(), STOP_AT + STOP_FOR);
    // Every 100 ms for 10 s: a no-cache read of the same token on both instances (one waits
    // for the other's relay), and a read or rateLimit of another token.
    while (performance.now() - began < STOP_AT + STOP_FOR + 2_000) {
      const token = tokens[n % tokens.length]!;
      inFlight.push(fire(c.a, 'A', token, 0));
      await sleep(10);
      inFlight.push(fire(c.b, 'B', token, 0));
      inFlight.push(
        fire(n % 2 ? c.a : c.b, n % 2 ? 'A' : 'B', tokens[(n + 1) % tokens.length]!, 1 + (n % 2)),
      );
      n += 1;
      await sleep(90);
    }
    await Promise.all(inFlight);
    clearTimeout(stop);
    clearTimeout(resume);
    const during = samples.filter((s) => s.start >= STOP_AT && s.start < STOP_AT + STOP_FOR);
    const bound = 2 * DEFAULT_CLUSTER.commandTimeoutMs;
    const latencies = during.map((s) => s.ms).sort((x, y) => x - y);
    report('9 Redis frozen (SIGSTOP) 6 s, commandTimeoutMs 1 s, upstream 300 ms', {
      'requests started while frozen': during.length,
      'answered with an error': during.filter((s) => s.failed).length,
      [`waited over ${bound + 300} ms (2 x commandTimeoutMs + the upstream's 300 ms)`]:
        during.filter((s) => s.ms > bound + 300).length,
      'waited over 4 s': during.filter((s) => s.ms > 4_000).length,
      'median / slowest': `${ms(latencies[Math.floor(latencies.length / 2)] ?? 0)} / ${ms(latencies.at(-1) ?? 0)}`,
      'timeouts A / B': `${stat(c.a, 'timeouts')} / ${stat(c.b, 'timeouts')}`,
      'fallbacks A / B': `${stat(c.a, 'fallbacks')} / ${stat(c.b, 'fallbacks')}`,
      'outages A / B': `${stat(c.a, 'outages')} / ${stat(c.b, 'outages')}`,
    });
  } finally {
    await c.close();
  }
}

const PAYEES_CHANGED = `subscription($planId: PlanId!) {
  planChanged(planId: $planId) { origin payees { id name } }
}`;
interface PayeesChanged {
  planChanged: { origin: string; payees: { id: string; name: string }[] };
}

/** Milliseconds until `subscriber` received a payee of that name, or null after `waitMs`. */
async function arrival(
  subscriber: Subscriber<PayeesChanged>,
  name: string,
  waitMs: number,
): Promise<number | null> {
  const started = performance.now();
  while (performance.now() - started < waitMs) {
    if (subscriber.received.some((r) => r.data?.planChanged.payees.some((p) => p.name === name))) {
      return performance.now() - started;
    }
    await sleep(10);
  }
  return null;
}

/** 10. A payee renamed through B, an SSE subscriber on A: when does A's subscriber see it? */
async function writeThroughOtherInstance(): Promise<void> {
  const token = 'probe-write-token-0123456789';
  const c = await startCluster([token]);
  const subscriber = sseClient(c.a.url, token);
  try {
    const planId = planOf(c.sandbox, token);
    const feed = subscriber.subscribe<PayeesChanged>(PAYEES_CHANGED, { planId });
    const listed = await gql(
      c.a.url,
      'query($planId: PlanId!) { plan(id: $planId) { payees { id name } } }',
      token,
      {},
      { planId },
    );
    const payees = (listed.json().data as { plan: { payees: { id: string; name: string }[] } }).plan
      .payees;
    const payee = payees.find((p) => !p.name.startsWith('Transfer'))!;
    await sleep(500);
    const figures: Record<string, string | number> = {};
    for (const [label, warm] of [
      ['B holds no replica', false],
      ['B holds the replica', true],
    ] as const) {
      if (warm) await gql(c.b.url, READ, token, {}, { planId });
      const name = `Renamed through B (${label})`;
      c.sandbox.resetCalls();
      await gql(
        c.b.url,
        `mutation($planId: PlanId!, $payeeId: UUID!, $name: String!) {
          updatePayee(planId: $planId, payeeId: $payeeId, input: { name: $name }) { __typename }
        }`,
        token,
        {},
        { planId, payeeId: payee.id, name },
      );
      const after = await arrival(feed, name, 8_000);
      figures[`${label}: A's subscriber got it`] =
        after === null ? 'nothing in 8 s' : `after ${ms(after)}`;
      figures[`${label}: upstream calls besides the write`] = c.sandbox
        .calls()
        .filter((call) => call.operationId !== 'updatePayee').length;
    }
    report('10 payee write through B, subscriber on A (SSE), poll interval 36 s', figures);
  } finally {
    await subscriber.close();
    await c.close();
  }
}

/** 11. Forged entries in Redis: a poll lease, then a spent ledger; events to the subscribers. */
async function forgedEntries(): Promise<void> {
  const token = 'probe-forged-token-0123456789';
  // A 2 s poll interval: 3,600 requests an hour, half for polls, max-age 2 s.
  const config = { maxAgeMs: 2_000, rateLimit: { limit: 3_600, windowMs: 3_600_000 } };
  const figures: Record<string, string | number> = {};
  for (const forge of [
    'nothing (control)',
    'a poll lease',
    'the ledgers (twice the limit)',
  ] as const) {
    const c = await startCluster([token], config);
    const writer = createUpstreamClient({
      baseUrl: c.sandbox.url,
      retry: { attempts: 1 },
      readBackoff: false,
    });
    const subscribers = [sseClient(c.a.url, token), sseClient(c.b.url, token)];
    try {
      const planId = planOf(c.sandbox, token);
      const key = tokenKey(token);
      const prefix = c.redis.prefix;
      const now = Date.now();
      if (forge === 'a poll lease') {
        await c.redis.client.set(
          `${prefix}o:${redisName('poll', channelKey(key, planId))}`,
          'intruder 99999999999999 AAAAAAAAAAAAAAAAAAAAAA',
          'PX',
          1_000_000_000,
        );
      } else if (forge === 'the ledgers (twice the limit)') {
        for (const kind of ['calls', 'polls']) {
          const members = Array.from({ length: 7_200 }, (_, i) => [
            now,
            `intruder.${i}.${now} AAAA`,
          ]);
          await c.redis.client.zadd(`${prefix}l:${redisName(kind, key)}`, ...members.flat());
        }
      }
      const feeds = subscribers.map((s) =>
        s.subscribe<{ planChanged: { transactions: { id: string }[] } }>(
          'subscription($planId: PlanId!) { planChanged(planId: $planId) { transactions { id } } }',
          { planId },
        ),
      );
      for (let waited = 0; waited < 100; waited += 1) {
        if ([c.a, c.b].every((front) => front.gateway.live.stats().subscribers === 1)) break;
        await sleep(50);
      }
      const { accounts } = await writer.getAccounts({ token }, { planId });
      const account = accounts.find((each) => !each.closed && !each.deleted && each.on_budget)!;
      const written: string[] = [];
      // 10 outside writes, one every 2 s.
      for (let i = 0; i < 10; i += 1) {
        const created = await writer.createTransaction(
          { token },
          {
            planId,
            body: {
              transaction: {
                account_id: account.id,
                date: new Date().toISOString().slice(0, 10),
                amount: -1_000 - i,
                memo: `probe ${i}`,
              },
            },
          },
        );
        written.push(created.transaction!.id);
        await sleep(2_000);
      }
      await sleep(4_000);
      const seen = feeds.map(
        (feed) =>
          written.filter((id) =>
            feed.received.some((r) => r.data?.planChanged.transactions.some((tx) => tx.id === id)),
          ).length,
      );
      const used = await gql(c.a.url, '{ rateLimit { used } }', token);
      const polls = c.sandbox.calls().filter((call) => call.operationId === 'getPlanById').length;
      figures[`forged ${forge}: changes seen on A / on B (of 10)`] = `${seen[0]} / ${seen[1]}`;
      figures[`forged ${forge}: getPlanById calls`] = polls;
      figures[`forged ${forge}: rateLimit.used`] = String(
        (used.json().data as { rateLimit: { used: number } } | null)?.rateLimit.used,
      );
      figures[`forged ${forge}: entries rejected A / B`] =
        `${stat(c.a, 'rejected')} / ${stat(c.b, 'rejected')}`;
    } finally {
      for (const s of subscribers) await s.close();
      await writer.close();
      await c.close();
    }
  }
  report('11 forged Redis entries, 10 outside writes in 20 s, poll interval 2 s', figures);
}

export const probes: Probes = {
  '9': redisHangs,
  '10': writeThroughOtherInstance,
  '11': forgedEntries,
};
