/**
 * For suites that freeze their own redis-server (SIGSTOP) with the clusters' timers on the
 * suite's manual clock: the cluster settings they run with, and bringing the links back.
 */
import { expect } from 'vitest';
import type { Cluster } from '../../../src/cluster/cluster.js';
import { type ClusterConfig, DEFAULT_CLUSTER } from '../../../src/config/config.js';
import type { ManualScheduler } from '../../../src/time/scheduler.js';
import type { GraphQLResponse } from '../../support/graphql.js';
import type { TestRedis } from '../../support/redis-server.js';
import { until } from '../../support/wait.js';

/** The cluster settings of a gateway on `redis`, with the given round-trip and lease bounds. */
export function frozenRedisCluster(
  redis: TestRedis,
  bounds: { commandTimeoutMs: number; flightLeaseMs: number },
): ClusterConfig & { url: string } {
  return { url: redis.url, ...DEFAULT_CLUSTER, keyPrefix: redis.prefix, ...bounds };
}

/**
 * Until no round trip of these clusters waits for Redis. Their deadlines run on the suite's
 * manual clock, and Redis answers in real time: moving the clock while one is on its way would
 * run it out on a busy machine (and take the link down) though Redis is answering. So a suite
 * moves the clock only once this holds, unless running one out is what it means to do.
 */
export function untilNoRoundTrip(clusters: readonly Cluster[], what: string): Promise<void> {
  return until(() => clusters.every((cluster) => cluster.stats().inFlight === 0), what);
}

/**
 * Moves the clock by `ms` without running out a round trip Redis is answering, for a suite whose
 * link is up. `untilNoRoundTrip` then one `advance(ms)` still races: a round trip sent in the gap
 * (a feed's outbox write, a snapshot stored in the background) has its deadline run out at once,
 * the link goes down, and the suite waits for what the link would have carried (a fresh clone
 * under load lost a webhook delivery that way). Here the clock moves in steps of a quarter of the
 * command timeout, each once no round trip of a link that is up is in flight, so whatever was sent
 * meanwhile is answered before its deadline can come.
 */
export async function advanceBetweenRoundTrips(
  scheduler: ManualScheduler,
  clusters: readonly Cluster[],
  ms: number,
  commandTimeoutMs: number,
): Promise<void> {
  const step = Math.max(1, Math.floor(commandTimeoutMs / 4));
  for (let moved = 0; moved < ms; moved += step) {
    const up = clusters.filter((cluster) => !cluster.stats().degraded);
    await untilNoRoundTrip(up, 'no round trip in flight');
    await scheduler.advance(Math.min(step, ms - moved));
  }
}

/**
 * After `redis.resume()`: brings every cluster's link back. The probes sent while Redis was
 * frozen get their answers first (however long a loaded machine takes), and what a link that
 * came back sends then; a link still down waits for its next probe, so the clock moves by a
 * command timeout, and only when no round trip is in flight, so nothing is run out.
 */
export async function bringLinksBack(
  scheduler: ManualScheduler,
  clusters: readonly Cluster[],
  commandTimeoutMs: number,
): Promise<void> {
  const degraded = () => clusters.some((cluster) => cluster.stats().degraded);
  for (let probe = 0; ; probe += 1) {
    await untilNoRoundTrip(clusters, 'the answers of the round trips sent to Redis');
    if (!degraded()) return;
    // Each probe brings a link back once Redis answers it: one or two per link.
    expect(probe).toBeLessThan(5);
    await scheduler.advance(commandTimeoutMs);
  }
}

/** An answer with data and no errors. */
export function expectServed(answer: GraphQLResponse<unknown>): void {
  expect(answer.status).toBe(200);
  expect(answer.body.errors).toBeUndefined();
}
