/**
 * Webhooks when Redis hangs (issue 30, item 1): the test's own redis-server is frozen with
 * SIGSTOP while a gateway keeps its webhook endpoints and outbox there. Webhooks reach Redis only
 * through the cluster's link, so the bound the cluster promises holds for them too: the webhook
 * call waiting on Redis answers once the link's deadline (`commandTimeoutMs`) has passed, every
 * webhook call after it answers at once with WEBHOOKS_UNAVAILABLE while Redis is still frozen,
 * the delivery loop and the feeds never wait on it, and once Redis answers again the change made
 * meanwhile is delivered: nothing lost, nothing sent twice.
 *
 * Time is counted, not measured, as in redis-hang.test.ts: the link's deadlines and the webhooks'
 * timers run on the suite's manual scheduler, so a call waiting on Redis cannot answer until the
 * test moves that clock, and moving it is proof that no timer task waits on Redis (the manual
 * scheduler waits for each task it runs).
 */

import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManualScheduler } from '../../src/time/scheduler.js';
import { openAccount, outsideWrite } from '../live/support/live.js';
import type { GraphQLResponse } from '../support/graphql.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { startStack, type TimedStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import { type Receiver, startReceiver } from '../webhooks/support/receiver.js';
import { CREATE, createEndpoint, webhookConfig } from '../webhooks/support/webhook-stack.js';
import {
  advanceBetweenRoundTrips,
  bringLinksBack,
  frozenRedisCluster,
  untilNoRoundTrip,
} from './support/frozen-redis.js';
import { within } from './support/within.js';

const TOKEN = 'webhooks-hang-token-0001';
const COMMAND_TIMEOUT_MS = 1_000;
const SYNC = 'query($planId: PlanId!) { plan(id: $planId) { serverKnowledge } }';
const NO_CACHE = { 'cache-control': 'no-cache' };

let redis: TestRedis;
let stack: TimedStack;
let scheduler: ManualScheduler;
let receiver: Receiver;
let endpoint: { id: string; secret: string };
let account: string;

/** The memos of the transactions each 2xx delivery carried, in arrival order, verified. */
function memos(): string[] {
  return receiver.delivered().map((r) => {
    const body = new Webhook(endpoint.secret).verify(
      r.body,
      r.headers as Record<string, string>,
    ) as {
      data: { transactions: { memo: string }[] };
    };
    return body.data.transactions.map((t) => t.memo).join(',');
  });
}

beforeAll(async () => {
  redis = await startTestRedis({ own: true });
  receiver = await startReceiver();
  stack = await startStack({
    clock: 'manual',
    timers: 'manual',
    sandbox: {
      rateLimit: false,
      users: [{ token: TOKEN, plans: [{ seed: 61, transactions: 30 }] }],
    },
    cluster: frozenRedisCluster(redis, {
      commandTimeoutMs: COMMAND_TIMEOUT_MS,
      flightLeaseMs: 5_000,
    }),
    config: { webhooks: webhookConfig(':memory:') },
  });
  ({ scheduler } = stack);
  expect(await stack.gateway.cluster!.ready(5_000)).toBe(true);
}, 60_000);

afterAll(async () => {
  redis?.resume();
  await stack?.close();
  await receiver?.close();
  await redis?.close();
});

/**
 * A change behind the gateway's back, then a read that syncs it: its event goes to the feed. (The
 * clock stands still unless moved: a second makes the replica older than `no-cache`. It moves
 * between round trips, if the link is up: moving it runs out the deadlines of what is on its
 * way.)
 */
async function change(account: string, memo: string): Promise<void> {
  const cluster = stack.gateway.cluster!;
  const { timeouts } = cluster.stats();
  await advanceBetweenRoundTrips(scheduler, [cluster], 1_000, COMMAND_TIMEOUT_MS);
  // Moving the clock ran out nothing Redis was answering.
  expect(cluster.stats().timeouts).toBe(timeouts);
  await outsideWrite(stack, account, memo);
  const synced = await within(
    stack.gql(SYNC, { planId: stack.planId }, { headers: NO_CACHE }),
    memo,
  );
  expect(synced.body.errors).toBeUndefined();
}

function codeOf(answer: GraphQLResponse<unknown>): unknown {
  return answer.body.errors?.[0]?.extensions?.code;
}

describe('webhooks on a Redis that hangs', () => {
  it('answer within the bound, then at once; deliver what changed meanwhile once it is back', async () => {
    const cluster = stack.gateway.cluster!;
    endpoint = await createEndpoint(stack, receiver.url, { kinds: ['TRANSACTIONS'] });
    account = await openAccount(stack);
    // Delivered without the clock moving: the outbox, the claim and the record all in Redis.
    await change(account, 'before');
    await until(() => memos().includes('before'), '"before" delivered');
    // Recorded too, before Redis freezes: an attempt recorded late would be sent again.
    let eventId = '';
    await until(async () => {
      const { body } = await stack.gql<{
        webhookEndpoints: { deliveries: { eventId: string; state: string }[] }[];
      }>('{ webhookEndpoints { deliveries(first: 1) { eventId state } } }');
      const latest = body.data?.webhookEndpoints[0]?.deliveries[0];
      eventId = latest?.eventId ?? '';
      return latest?.state === 'DELIVERED';
    }, '"before" recorded as delivered');
    await untilNoRoundTrip([cluster], 'no round trip in flight');

    redis.pause();
    const timeouts = cluster.stats().timeouts;
    // A webhook call reaches the frozen Redis and waits for it...
    const sent = cluster.stats().roundTrips;
    let answered = false;
    const waiting = stack.gql('{ webhookEndpoints { id } }').finally(() => {
      answered = true;
    });
    await until(() => cluster.stats().roundTrips > sent, 'the endpoints asked for');
    expect(answered).toBe(false);
    // ...until the link's deadline, which takes the link down: WEBHOOKS_UNAVAILABLE, not a hang.
    await scheduler.advance(COMMAND_TIMEOUT_MS);
    expect(codeOf(await within(waiting, 'the call that waited on Redis'))).toBe(
      'WEBHOOKS_UNAVAILABLE',
    );
    expect(cluster.stats()).toMatchObject({ degraded: true, timeouts: timeouts + 1 });

    // From now on, with Redis frozen and the clock still, every webhook call answers at once.
    const calls = await within(
      Promise.all([
        stack.gql('{ webhookEndpoints { id deliveries(first: 5) { eventId } } }'),
        stack.gql('query($id: ID!) { webhookEndpoint(id: $id) { id } }', { id: endpoint.id }),
        stack.gql(CREATE, {
          input: { planId: stack.planId, url: receiver.url, kinds: ['ACCOUNTS'] },
        }),
        stack.gql(
          'mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: { description: "x" }) { id } }',
          { id: endpoint.id },
        ),
        stack.gql('mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret } }', {
          id: endpoint.id,
        }),
        stack.gql('mutation($id: ID!) { redeliverWebhookEvent(eventId: $id) { eventId } }', {
          id: eventId,
        }),
        stack.gql('mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }', { id: endpoint.id }),
      ]),
      'the webhook calls made while Redis is frozen',
    );
    for (const answer of calls) expect(codeOf(answer)).toBe('WEBHOOKS_UNAVAILABLE');

    // A change while Redis is frozen: the feed gets its event and cannot write it to the outbox.
    await change(account, 'while frozen');
    // The delivery loop, the feeds' restarts, leases and resyncs: no timer task waits on Redis
    // (the manual scheduler waits for each task it runs, so this would never end).
    await within(
      scheduler.advance(30_000),
      'thirty seconds of webhook timers while Redis is frozen',
    );
    expect(cluster.stats().timeouts).toBe(timeouts + 1);
    expect(memos()).toEqual(['before']);

    // Redis answers again: the feed resumes from its cursor at once and delivers what it missed.
    redis.resume();
    await bringLinksBack(scheduler, [cluster], COMMAND_TIMEOUT_MS);
    await until(() => memos().includes('while frozen'), 'the change made while Redis was frozen');
    await change(account, 'after');
    await until(() => memos().includes('after'), '"after" delivered');

    // Each once, in order, and the endpoint as it was (the calls above changed nothing).
    expect(memos()).toEqual(['before', 'while frozen', 'after']);
    const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
    expect(new Set(ids).size).toBe(ids.length);
    const listed = await stack.gql<{
      webhookEndpoints: { id: string; description: string | null }[];
    }>('{ webhookEndpoints { id description } }');
    expect(listed.body.data?.webhookEndpoints).toEqual([{ id: endpoint.id, description: null }]);
    expect(cluster.stats().outages).toBe(1);
  }, 120_000);

  it('records a delivery that ended while Redis was away once it is back, and sends it once', async () => {
    const cluster = stack.gateway.cluster!;
    const timeouts = cluster.stats().timeouts;
    receiver.hold = true;
    await change(account, 'in flight');
    await until(() => receiver.heldCount() === 1, 'the delivery in flight');
    await untilNoRoundTrip([cluster], 'no round trip in flight');
    // Redis freezes and the link goes down (a webhook call runs out of time)...
    redis.pause();
    const sent = cluster.stats().roundTrips;
    const waiting = stack.gql('{ webhookEndpoints { id } }');
    await until(() => cluster.stats().roundTrips > sent, 'the endpoints asked for');
    await scheduler.advance(COMMAND_TIMEOUT_MS);
    expect(codeOf(await within(waiting, 'the call that waited on Redis'))).toBe(
      'WEBHOOKS_UNAVAILABLE',
    );
    expect(cluster.stats()).toMatchObject({ degraded: true, timeouts: timeouts + 1 });
    // ...then the receiver answers: the attempt cannot be recorded, and is tried again every
    // second while its claim holds (the timers answer at once: nothing waits on Redis).
    const received = receiver.received.length;
    receiver.hold = false;
    receiver.release();
    await until(() => receiver.received.length > received, 'the delivery answered');
    await within(scheduler.advance(3_000), 'three seconds of webhook timers while Redis is frozen');

    redis.resume();
    await bringLinksBack(scheduler, [cluster], COMMAND_TIMEOUT_MS);
    // The next try records it: delivered, with its one attempt, and not sent again.
    await scheduler.advance(1_000);
    await until(async () => {
      const { body } = await stack.gql<{ webhookEndpoints: { deliveries: { state: string }[] }[] }>(
        '{ webhookEndpoints { deliveries(first: 1) { state } } }',
      );
      return body.data?.webhookEndpoints[0]?.deliveries[0]?.state === 'DELIVERED';
    }, 'the delivery made while Redis was away, recorded');
    await change(account, 'behind it');
    await until(() => memos().includes('behind it'), '"behind it" delivered');
    expect(memos()).toEqual(['before', 'while frozen', 'after', 'in flight', 'behind it']);
    const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
    expect(new Set(ids).size).toBe(ids.length);
    const { body } = await stack.gql<{
      webhookEndpoints: { deliveries: { state: string; attempts: { succeeded: boolean }[] }[] }[];
    }>('{ webhookEndpoints { deliveries(first: 5) { state attempts { succeeded } } } }');
    const [latest, inFlight] = body.data!.webhookEndpoints[0]!.deliveries;
    expect(latest).toEqual({ state: 'DELIVERED', attempts: [{ succeeded: true }] });
    expect(inFlight).toEqual({ state: 'DELIVERED', attempts: [{ succeeded: true }] });
  }, 120_000);
});
