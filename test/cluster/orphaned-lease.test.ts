/**
 * Flight leases an outage would leave behind. A `TAKE_FLIGHT` that got no answer: Redis, frozen
 * with SIGSTOP, runs it once it resumes, after the instance had given up on it and synced
 * alone. A flight led across the moment the link went down: the relay that would release its
 * lease cannot be sent. Neither lease may outlive the outage: the instance releases it when the
 * link is back, so the next sync of the plan does not wait for a relay nobody will send.
 *
 * The clock is the suite's manual one (as in redis-hang.test.ts): a sync that waited on such a
 * lease would wait until the test moved it, so "answers without the clock moving" is the test.
 */
import type { Sandbox } from '@plans-gateway/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisName } from '../../src/cluster/seal.js';
import type { ManualScheduler } from '../../src/time/scheduler.js';
import { tokenKey } from '../../src/upstream/token-key.js';
import { gqlAt } from '../support/graphql.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { type HostileStack, startStack, type TimedStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import {
  advanceBetweenRoundTrips,
  bringLinksBack,
  expectServed,
  frozenRedisCluster,
  untilNoRoundTrip,
} from './support/frozen-redis.js';
import { within } from './support/within.js';

const TOKEN = 'orphaned-lease-token-01';
const COMMAND_TIMEOUT_MS = 1_000;
/** Long, so only a release can remove the lease within the test. */
const FLIGHT_LEASE_MS = 60_000;
const READ = 'query($planId: PlanId!) { plan(id: $planId) { id serverKnowledge } }';
const NO_CACHE = { 'cache-control': 'no-cache' };
const RATE_LIMIT = '{ rateLimit { used remaining } }';

let redis: TestRedis;
let stack: TimedStack & HostileStack;
let sandbox: Sandbox;
let scheduler: ManualScheduler;

beforeAll(async () => {
  redis = await startTestRedis({ own: true });
  stack = await startStack({
    clock: 'manual',
    timers: 'manual',
    hostile: true,
    sandbox: { users: [{ token: TOKEN, plans: [{ seed: 3, transactions: 40 }] }] },
    cluster: frozenRedisCluster(redis, {
      commandTimeoutMs: COMMAND_TIMEOUT_MS,
      flightLeaseMs: FLIGHT_LEASE_MS,
    }),
  });
  ({ sandbox, scheduler } = stack);
  expect(await stack.gateway.cluster!.ready(5_000)).toBe(true);
}, 60_000);

afterAll(async () => {
  redis?.resume();
  await stack?.close();
  await redis?.close();
});

function read(headers: Record<string, string> = {}) {
  const planId = sandbox.users[0]!.planIds[0]!;
  return gqlAt<{ plan: { id: string } }>(stack.url, READ, { planId }, TOKEN, headers);
}

const leaseKey = () =>
  `${redis.prefix}f:${redisName('flight', tokenKey(TOKEN), sandbox.users[0]!.planIds[0]!)}`;

describe('a flight lease Redis set after the instance gave up on it', () => {
  it('is released when the link is back, so the next sync does not wait on it', async () => {
    const cluster = stack.gateway.cluster!;
    const lease = leaseKey();
    expectServed(await within(read(), 'the cold read'));
    await until(() => cluster.stats().snapshotsWritten === 1, 'the snapshot stored');
    await until(async () => (await redis.client.exists(lease)) === 0, 'the load released');
    await until(() => scheduler.pending() === 0, 'no round trip in flight');
    // The clock stands still unless moved: a second makes the replica older than `no-cache`.
    await scheduler.advance(1_000);

    // The sync's TAKE_FLIGHT waits in Redis's socket; a command timeout later it goes alone.
    redis.pause();
    const sent = cluster.stats().roundTrips;
    const sync = read(NO_CACHE);
    await until(() => cluster.stats().roundTrips > sent, 'the flight asked for');
    await scheduler.advance(COMMAND_TIMEOUT_MS);
    expectServed(await within(sync, 'the sync that went alone'));
    expect(cluster.stats().degraded).toBe(true);

    // Redis resumes and runs the TAKE_FLIGHT: the lease is set for a flight nobody leads.
    redis.resume();
    await bringLinksBack(scheduler, [cluster], COMMAND_TIMEOUT_MS);
    await until(
      async () => (await redis.client.exists(lease)) === 0,
      'the orphaned lease released',
    );
    // With the clock still, a sync that waited on the lease would never answer.
    expectServed(await within(read(NO_CACHE), 'the next sync'));
  }, 60_000);
});

describe('a flight lease whose holder could not release it', () => {
  it('is released when the link is back, so the next sync does not wait on it', async () => {
    const cluster = stack.gateway.cluster!;
    const lease = leaseKey();
    await advanceBetweenRoundTrips(scheduler, [cluster], 1_000, COMMAND_TIMEOUT_MS);

    // A sync takes the lease and is held upstream...
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    stack.hostile.setRule((request) =>
      request.operationId === 'getPlanById' ? { kind: 'hold', until: answered } : { kind: 'pass' },
    );
    const sync = read(NO_CACHE);
    await until(
      () => stack.hostile.calls().some((call) => call.action === 'hold'),
      'the sync held upstream',
    );
    expect(await redis.client.exists(lease)).toBe(1);
    await untilNoRoundTrip([cluster], 'no round trip in flight');

    // ...while Redis freezes and the link goes down (the ledger's round trip runs out of time).
    redis.pause();
    const sent = cluster.stats().roundTrips;
    const rateLimit = gqlAt(stack.url, RATE_LIMIT, {}, TOKEN);
    await until(() => cluster.stats().roundTrips > sent, 'the ledger asked');
    await scheduler.advance(COMMAND_TIMEOUT_MS);
    expectServed(await within(rateLimit, 'rateLimit while Redis is frozen'));
    expect(cluster.stats().degraded).toBe(true);

    // The upstream answers: the relay that releases the lease finds the link down.
    answer();
    expectServed(await within(sync, 'the sync held upstream'));

    redis.resume();
    await bringLinksBack(scheduler, [cluster], COMMAND_TIMEOUT_MS);
    await until(async () => (await redis.client.exists(lease)) === 0, 'the lease released');
    await advanceBetweenRoundTrips(scheduler, [cluster], 1_000, COMMAND_TIMEOUT_MS);
    // With the clock still, a sync that waited on the lease would never answer.
    expectServed(await within(read(NO_CACHE), 'the next sync'));
  }, 60_000);
});
