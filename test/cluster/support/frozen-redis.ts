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
 * After `redis.resume()`: moves the clock a command timeout at a time until every cluster's
 * probe has brought its link back. The probes' answers come in real time, so the clock moves on
 * only when they did not come: moving it times out whatever a link that came back has on its
 * way (a busy machine), and that would count as a second outage.
 */
export async function bringLinksBack(
  scheduler: ManualScheduler,
  clusters: readonly Cluster[],
  commandTimeoutMs: number,
): Promise<void> {
  const degraded = () => clusters.some((cluster) => cluster.stats().degraded);
  for (let probe = 0; degraded(); probe += 1) {
    expect(probe).toBeLessThan(20);
    await scheduler.advance(commandTimeoutMs);
    await until(() => !degraded(), 'the links back', { timeoutMs: 2_000 }).catch(() => {});
  }
}

/** An answer with data and no errors. */
export function expectServed(answer: GraphQLResponse<unknown>): void {
  expect(answer.status).toBe(200);
  expect(answer.body.errors).toBeUndefined();
}
