/**
 * Redis hangs (issue 18, item 9): the test's own redis-server is frozen with SIGSTOP, its
 * connections open and nothing answered. No request may wait on it longer than the documented
 * bound: one `commandTimeoutMs` for a round trip, one re-check interval more for a sync that was
 * waiting for another instance's relay.
 *
 * Time is counted, not measured: the clusters' deadlines, probes and relay waits run on the
 * suite's manual scheduler, so a request that waits on Redis cannot answer until the test moves
 * that clock. The test moves it by exactly the bound and asserts that the waiting requests have
 * answered then, and that every request sent afterwards, while Redis is still frozen, answers
 * without the clock moving at all: after one timeout each instance works alone.
 */

import type { Sandbox } from '@plans-gateway/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisName } from '../../src/cluster/seal.js';
import type { ManualScheduler } from '../../src/time/scheduler.js';
import { tokenKey } from '../../src/upstream/token-key.js';
import { gqlAt } from '../support/graphql.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { type ServedGateway, startStack, type TimedStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import {
  advanceBetweenRoundTrips,
  bringLinksBack,
  expectServed,
  frozenRedisCluster,
  untilNoRoundTrip,
} from './support/frozen-redis.js';
import { within } from './support/within.js';

const TOKENS = ['hang-token-first-0001', 'hang-token-second-002', 'hang-token-third-0003'];
const COMMAND_TIMEOUT_MS = 1_000;
/** Long: before the fix a waiting sync trusted the lease and waited this long. */
const FLIGHT_LEASE_MS = 60_000;
const READ = 'query($planId: PlanId!) { plan(id: $planId) { id serverKnowledge } }';
const RATE_LIMIT = '{ rateLimit { used remaining } }';
const RENAME = `mutation($planId: PlanId!, $payeeId: UUID!) {
  updatePayee(planId: $planId, payeeId: $payeeId, input: { name: "Renamed while Redis hangs" }) {
    __typename
  }
}`;
const NO_CACHE = { 'cache-control': 'no-cache' };

let redis: TestRedis;
let stack: TimedStack;
let sandbox: Sandbox;
let scheduler: ManualScheduler;
let a: ServedGateway;
let b: ServedGateway;

beforeAll(async () => {
  redis = await startTestRedis({ own: true });
  const cluster = frozenRedisCluster(redis, {
    commandTimeoutMs: COMMAND_TIMEOUT_MS,
    flightLeaseMs: FLIGHT_LEASE_MS,
  });
  stack = await startStack({
    clock: 'manual',
    timers: 'manual',
    sandbox: {
      users: TOKENS.map((token, seed) => ({ token, plans: [{ seed, transactions: 50 }] })),
    },
    cluster,
  });
  ({ sandbox, scheduler } = stack);
  a = stack;
  b = await stack.addGateway({ cluster });
  for (const each of [a, b]) expect(await each.gateway.cluster!.ready(5_000)).toBe(true);
}, 60_000);

afterAll(async () => {
  redis?.resume();
  // The stack closes its sandbox first, which ends the request it holds hanging.
  await stack?.close();
  await redis?.close();
});

const planOf = (token: string) => sandbox.users.find((user) => user.token === token)!.planIds[0]!;

function read(at: ServedGateway, token: string, headers: Record<string, string> = {}) {
  return gqlAt<{ plan: { id: string } }>(at.url, READ, { planId: planOf(token) }, token, headers);
}

describe('a Redis that hangs', () => {
  it('holds no request longer than the bound, then costs none anything until it answers again', async () => {
    const [first, second, third] = TOKENS as [string, string, string];
    // Both instances hold the first token's plan; the second instance also the second token's.
    // (One after the other: a cold read that finds another instance loading the plan polls for
    // its snapshot on the suite's clock, which stands still.)
    expectServed(await within(read(a, first), 'the cold read on the first instance'));
    await until(() => a.gateway.cluster!.stats().snapshotsWritten === 1, 'the snapshot stored');
    expectServed(
      await within(read(b, first), 'the read of the stored plan on the second instance'),
    );
    expectServed(await within(read(b, second), 'the cold read on the second instance'));
    // Stored after the answer: a snapshot written late, once the link is down, could not
    // release the flight it held.
    await until(() => b.gateway.cluster!.stats().snapshotsWritten === 1, 'the snapshot stored');
    // The clock stands still unless moved: a second makes every replica older than `no-cache`.
    // (Between round trips: the clock also runs their deadlines.)
    await untilNoRoundTrip([a.gateway.cluster!, b.gateway.cluster!], 'no round trip in flight');
    await until(() => scheduler.pending() === 0, 'no timer due');
    await advanceBetweenRoundTrips(
      scheduler,
      [a.gateway.cluster!, b.gateway.cluster!],
      1_000,
      COMMAND_TIMEOUT_MS,
    );

    // The first instance's sync of the first token hangs upstream, holding the flight lease...
    sandbox.setFaults([{ kind: 'hang', operationId: 'getPlanById', times: 1 }]);
    void read(a, first, NO_CACHE).catch(() => {});
    const lease = `${redis.prefix}f:${redisName('flight', tokenKey(first), planOf(first))}`;
    await until(async () => (await redis.client.exists(lease)) === 1, 'the flight lease taken');
    // ...so the second instance's sync of it waits for that relay.
    const waiting = read(b, first, NO_CACHE);
    await until(
      () => b.gateway.cluster!.stats().waitingForRelay === 1,
      'a sync waiting for the relay',
    );
    await until(() => scheduler.pending() === 1, 'nothing else waiting on Redis');

    redis.pause();
    const timeouts = b.gateway.cluster!.stats().timeouts;
    // The wait ends at its re-check interval; the re-check goes out and gets no answer...
    let sent = b.gateway.cluster!.stats().roundTrips;
    await scheduler.advance(COMMAND_TIMEOUT_MS);
    await until(() => b.gateway.cluster!.stats().roundTrips > sent, 'the lease checked again');
    // ...and a cold read of another token starts its warm-up meanwhile (its round trip hangs).
    sent = b.gateway.cluster!.stats().roundTrips;
    const cold = read(b, third);
    await until(() => b.gateway.cluster!.stats().roundTrips > sent, 'the warm-up sent');
    expect(b.gateway.cluster!.stats().degraded).toBe(false);
    // One command timeout later the re-check gives up, the link goes down, the warm-up gives up
    // with it, and both reads go to the upstream alone: 2 × commandTimeoutMs in all.
    await scheduler.advance(COMMAND_TIMEOUT_MS);
    expectServed(await within(waiting, 'the sync that waited for a relay'));
    expectServed(await within(cold, 'the cold read'));
    expect(b.gateway.cluster!.stats()).toMatchObject({ degraded: true, timeouts: timeouts + 1 });

    // The first instance finds out on its own first round trip: one command timeout.
    const aTimeouts = a.gateway.cluster!.stats().timeouts;
    sent = a.gateway.cluster!.stats().roundTrips;
    const rateLimit = gqlAt(a.url, RATE_LIMIT, {}, first);
    await until(() => a.gateway.cluster!.stats().roundTrips > sent, 'the ledger asked');
    await scheduler.advance(COMMAND_TIMEOUT_MS);
    expectServed(await within(rateLimit, 'rateLimit on the first instance'));
    expect(a.gateway.cluster!.stats()).toMatchObject({ degraded: true, timeouts: aTimeouts + 1 });

    // From now on, with Redis still frozen and the clock still, everything answers at once:
    // reads within max-age, syncs, warm-ups, writes, rateLimit, on either instance.
    const fallbacks = [a, b].map((at) => at.gateway.cluster!.stats().fallbacks);
    const { body } = await within(
      gqlAt<{ plan: { payees: { id: string }[] } }>(
        b.url,
        'query($planId: PlanId!) { plan(id: $planId) { payees { id } } }',
        { planId: planOf(second) },
        second,
      ),
      'the payees read while Redis is frozen',
    );
    const payeeId = body.data!.plan.payees[0]!.id;
    const meanwhile = await within(
      Promise.all([
        read(a, first),
        read(a, second, NO_CACHE),
        read(a, third, NO_CACHE),
        read(b, first, NO_CACHE),
        read(b, second, NO_CACHE),
        gqlAt(b.url, RENAME, { planId: planOf(second), payeeId }, second),
        gqlAt(a.url, RATE_LIMIT, {}, second),
        gqlAt(b.url, RATE_LIMIT, {}, first),
      ]),
      'the requests sent while Redis is frozen',
    );
    for (const answer of meanwhile) expectServed(answer);
    // None of them reached Redis: each went on alone at once.
    expect(b.gateway.cluster!.stats().timeouts).toBe(timeouts + 1);
    expect(a.gateway.cluster!.stats().timeouts).toBe(aTimeouts + 1);
    expect(a.gateway.cluster!.stats().fallbacks).toBeGreaterThan(fallbacks[0]!);
    expect(b.gateway.cluster!.stats().fallbacks).toBeGreaterThan(fallbacks[1]!);

    // The rename answered before its delta: that sync, sent alone, ends before Redis is back.
    // (One still running when a link comes back goes through Redis; if the clock then moves
    // for the other link's probes, its round trip times out, and the flight lease Redis set for
    // it is left to expire on a clock that stands still: the next sync of the plan waits on it.)
    await within(
      Promise.all([a.gateway.settled(), b.gateway.settled()]),
      'the deltas of the writes sent while Redis is frozen',
    );

    // Redis answers again: the probes bring both links back.
    redis.resume();
    await bringLinksBack(scheduler, [a.gateway.cluster!, b.gateway.cluster!], COMMAND_TIMEOUT_MS);
    expectServed(await within(read(b, second, NO_CACHE), 'a sync once Redis is back'));
    expect(b.gateway.cluster!.stats().outages).toBe(1);
    expect(a.gateway.cluster!.stats().outages).toBe(1);
  }, 90_000);
});
