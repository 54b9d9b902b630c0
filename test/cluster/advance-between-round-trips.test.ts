/**
 * The frozen-Redis suites' clock helper (support/frozen-redis.ts). A round trip sent just after a
 * suite saw none in flight, and answered in real time a little later (as on a loaded machine), is
 * run out by one `advance` past its deadline, taking the link down; `advanceBetweenRoundTrips`
 * waits for its answer instead. Redis is held with SIGSTOP so the answer comes late for certain.
 */
import { createManualClock } from '@plans-gateway/sandbox';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, createCluster } from '../../src/cluster/cluster.js';
import { createManualScheduler, type ManualScheduler } from '../../src/time/scheduler.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { until } from '../support/wait.js';
import { advanceBetweenRoundTrips, untilNoRoundTrip } from './support/frozen-redis.js';

const COMMAND_TIMEOUT_MS = 1_000;

let redis: TestRedis;
let scheduler: ManualScheduler;
let cluster: Cluster;

beforeAll(async () => {
  redis = await startTestRedis({ own: true });
});

afterEach(async () => {
  redis.resume();
  await cluster?.close();
});

afterAll(async () => {
  await redis?.close();
});

async function connected(): Promise<Cluster> {
  const clock = createManualClock(0);
  scheduler = createManualScheduler(clock);
  cluster = createCluster({
    url: redis.url,
    keyPrefix: redis.prefix,
    now: clock.now,
    scheduler,
    commandTimeoutMs: COMMAND_TIMEOUT_MS,
  });
  expect(await cluster.ready(5_000)).toBe(true);
  await untilNoRoundTrip([cluster], 'the connection settled');
  return cluster;
}

/** A publish sent now that Redis answers only once it is let go (`redis.resume()`). */
function lateRoundTrip(): void {
  redis.pause();
  void cluster.link.publish('late', Buffer.from('x'));
}

describe('moving a manual clock while Redis answers in real time', () => {
  it('in one step runs out a round trip sent in the gap (the race the helper closes)', async () => {
    await connected();
    lateRoundTrip();
    await scheduler.advance(COMMAND_TIMEOUT_MS);
    // The deadline gives the socket one turn of I/O first (redis.ts), then gives up.
    await until(() => cluster.stats().timeouts === 1, 'the round trip run out');
    expect(cluster.stats().degraded).toBe(true);
  });

  it('between round trips waits for its answer, and the link stays up', async () => {
    await connected();
    lateRoundTrip();
    const moved = advanceBetweenRoundTrips(
      scheduler,
      [cluster],
      3 * COMMAND_TIMEOUT_MS,
      COMMAND_TIMEOUT_MS,
    );
    // Redis answers after the helper has begun, as a loaded machine's would.
    redis.resume();
    await moved;
    expect(cluster.stats()).toMatchObject({ timeouts: 0, degraded: false, inFlight: 0 });
  });
});
