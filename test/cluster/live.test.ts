/**
 * Subscriptions on two instances sharing a real Redis (issue 12): one poller per (token, plan)
 * in the whole cluster (a Redis lease), its delta relayed to the other instance, and every
 * subscriber, on either instance, receiving each change. The instances run in this process on
 * the live suites' manual clock, so a poll interval passes at once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CLUSTER } from '../../src/config/config.js';
import {
  type LiveStack,
  type ServedGateway,
  serveGateway,
  startLiveStack,
} from '../live/support/live-stack.js';
import type { Transport } from '../live/support/subscribers.js';
import { expectOnePollPerChangeOnBoth } from '../live/support/two-instances.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';

let redis: TestRedis;
let stack: LiveStack | undefined;
let second: ServedGateway | undefined;
const clients: Transport[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
}, 30_000);

afterAll(async () => {
  await redis?.close();
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await second?.close();
  second = undefined;
  await stack?.close();
  stack = undefined;
});

describe('subscriptions on two instances sharing Redis', () => {
  it('poll once per interval in the cluster and deliver each change to the subscribers of both', async () => {
    const config = {
      redisUrl: redis.url,
      cluster: { ...DEFAULT_CLUSTER, keyPrefix: redis.prefix },
    };
    stack = await startLiveStack({ config });
    const s = stack;
    second = await serveGateway(s.sandbox, s.clock, s.scheduler, { config });
    for (const gateway of [s.gateway, second.gateway]) {
      expect(await gateway.cluster!.ready(5_000)).toBe(true);
    }
    await expectOnePollPerChangeOnBoth(s, second, (client) => clients.push(client));
    // The instance that did not poll got the deltas from Redis.
    const relayed = [s.gateway, second.gateway].map(
      (gateway) => gateway.cluster!.stats().relaysApplied,
    );
    expect(Math.max(...relayed)).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
