/**
 * Write access to Redis without the token (issue 18, item 11): someone writes a poll lease, a
 * flight lease, a read pause and a few hundred ledger entries for a token, as if another instance
 * held them. None of them was signed or sealed with the token's key, so none binds anybody: the
 * instances report them, take the leases over, drop the pause, count only their own entries, and
 * the token's subscribers on both instances keep receiving every change, one poll per change.
 * Nor does a genuine `end` message, captured and sent again later, end anything.
 */
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ClusterEventTarget, MAX_END_AGE_MS } from '../../src/cluster/event-target.js';
import { createRedisLink, type RedisLink } from '../../src/cluster/redis.js';
import { redisName, TokenSeals } from '../../src/cluster/seal.js';
import { DEFAULT_CLUSTER } from '../../src/config/config.js';
import { channelKey } from '../../src/live/live-bus.js';
import { createLogger } from '../../src/telemetry/logger.js';
import { tokenKey } from '../../src/upstream/token-key.js';
import {
  callsOf,
  DEFAULT_POLL_INTERVAL_MS,
  LIVE,
  type LiveStack,
  openAccount,
  outsideWrite,
} from '../live/support/live.js';
import { sseClient, type Transport, wsClient } from '../live/support/subscribers.js';
import { gqlAt } from '../support/graphql.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { type ServedGateway, startStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import { within } from './support/within.js';

interface PlanChanged {
  planChanged: { serverKnowledge: number; transactions: { id: string }[] };
}
const PLAN_CHANGED = `subscription($planId: PlanId!) {
  planChanged(planId: $planId) { serverKnowledge transactions { id } }
}`;
const RATE_LIMIT = '{ rateLimit { used } }';
/** Shaped like a lease (`<owner> <until> <tag>`), with a tag made without the token. */
const FORGED_LEASE = 'intruder 99999999999999 AAAAAAAAAAAAAAAAAAAAAA';
const FOREVER_MS = 1_000_000_000;

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

/** JSON log lines written to memory. */
function logLines() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  return { stream, lines };
}

describe('entries written to Redis without the token', () => {
  it('bind nobody: they are reported, and events keep flowing with one poll per change', async () => {
    const prefix = `${redis.prefix}forged:`;
    const config = { redisUrl: redis.url, cluster: { ...DEFAULT_CLUSTER, keyPrefix: prefix } };
    stack = await startStack({ ...LIVE, config });
    const s = stack;
    const log = logLines();
    second = await s.addGateway({
      serve: 'websocket',
      config,
      deps: { logger: await createLogger({ level: 'warn', destination: log.stream }) },
    });
    const b = second;
    for (const cluster of [s.gateway.cluster!, b.gateway.cluster!]) {
      expect(await cluster.ready(5_000)).toBe(true);
    }

    // Everything that could hold the token's polls or syncs back, as someone without the token
    // can write it: leases held "forever", a read pause, the hour's budget spent twice over.
    const keys = {
      poll: `${prefix}o:${redisName('poll', channelKey(s.tokenKey, s.planId))}`,
      flight: `${prefix}f:${redisName('flight', s.tokenKey, s.planId)}`,
      pause: `${prefix}p:${redisName('pause', s.tokenKey)}`,
      calls: `${prefix}l:${redisName('calls', s.tokenKey)}`,
      polls: `${prefix}l:${redisName('polls', s.tokenKey)}`,
    };
    const forged = (n: number) =>
      Array.from({ length: n }, (_, i) => [s.clock.now(), `intruder.${i}.${s.clock.now()} AAAA`]);
    await s.sandbox.resetCalls();
    await redis.client
      .multi()
      .set(keys.poll, FORGED_LEASE, 'PX', FOREVER_MS)
      .set(keys.flight, FORGED_LEASE, 'PX', FOREVER_MS)
      .set(keys.pause, Buffer.from('{"message":"paused","kind":"http"}'), 'PX', FOREVER_MS)
      .zadd(keys.calls, ...forged(400).flat())
      .zadd(keys.polls, ...forged(200).flat())
      .exec();

    // The second instance's subscriber first: its poller meets the forged entries first.
    const accountId = await openAccount(s);
    const onSecond = wsClient(b.wsUrl, s.token);
    const onFirst = sseClient(s.url, s.token);
    clients.push(onSecond, onFirst);
    const subscribers = [onSecond.subscribe<PlanChanged>(PLAN_CHANGED, { planId: s.planId })];
    await until(() => b.gateway.live.stats().subscribers === 1, 'the subscriber on the second');
    subscribers.push(onFirst.subscribe<PlanChanged>(PLAN_CHANGED, { planId: s.planId }));
    await until(() => s.gateway.live.stats().subscribers === 1, 'the subscriber on the first');

    for (let round = 1; round <= 2; round += 1) {
      const written = await outsideWrite(s, accountId, `round ${round}`);
      s.sandbox.resetCalls();
      await s.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
      for (const subscriber of subscribers) {
        const event = await within(
          subscriber.until((r) =>
            r.data!.planChanged.transactions.some((tx) => tx.id === written.id),
          ),
          `round ${round}'s change`,
        );
        expect(event.data!.planChanged.serverKnowledge).toBe(written.serverKnowledge);
      }
      // One poll in the cluster: the lease taken over binds the other instance again.
      expect(callsOf(s.sandbox, s.token)).toEqual([expect.stringMatching(/^getPlanById@\d+$/)]);
    }

    // The forged ledger entries were not counted, and are gone: both instances count the
    // gateway's own requests (an export each way at most, two polls), nothing near 400.
    const used = await Promise.all(
      [s.url, b.url].map(async (url) => {
        const answer = await gqlAt<{ rateLimit: { used: number } }>(url, RATE_LIMIT, {}, s.token);
        return answer.body.data!.rateLimit.used;
      }),
    );
    expect(used[0]).toBe(used[1]);
    expect(used[0]).toBeLessThan(10);
    expect(await redis.client.zcard(keys.calls)).toBe(used[0]);
    const polls = await redis.client.zrange(keys.polls, 0, -1);
    expect(polls).toHaveLength(2);
    expect(polls.some((member) => member.startsWith('intruder'))).toBe(false);
    // The poll lease is an instance's own again; the pause is gone, and so is the flight lease.
    expect(await redis.client.get(keys.poll)).not.toBe(FORGED_LEASE);
    expect(await redis.client.exists(keys.pause, keys.flight)).toBe(0);

    // Reported: in the log of the instance that met them, and counted.
    const reported = log.lines
      .filter((line) => line.msg === 'redis entry ignored: forged or sent again')
      .map((line) => String(line.entry));
    for (const what of [
      /^a poll lease that failed authentication$/,
      /^a flight lease that failed authentication$/,
      /^a read pause that failed authentication/,
      /^\d+ ledger entries that failed authentication$/,
    ]) {
      expect(reported.some((entry) => what.test(entry))).toBe(true);
    }
    expect(b.gateway.cluster!.stats().rejected).toBe(reported.length);
  }, 60_000);
});

describe('an end message captured and sent again', () => {
  it('ends nothing once it is old, and is reported', async () => {
    const token = 'forged-end-token-0123456789';
    const topic = `token:${tokenKey(token)}`;
    let now = 1_750_000_000_000;
    const links: RedisLink[] = [];
    const rejected: string[] = [];
    const target = async (id: number) => {
      const link = createRedisLink({ url: redis.url, prefix: `${redis.prefix}end:` });
      links.push(link);
      expect(await link.ready(5_000)).toBe(true);
      const seals = new TokenSeals();
      seals.remember(token, tokenKey(token));
      return new ClusterEventTarget({
        link,
        seals,
        instanceId: Buffer.alloc(8, id),
        now: () => now,
        onRejected: (what) => rejected.push(what),
      });
    };
    const [sender, receiver] = [await target(1), await target(2)];
    const ended: unknown[] = [];
    receiver.addEventListener(topic, (event) => ended.push((event as CustomEvent).detail));
    // Someone with access to Redis listens on the channel too.
    const channel = `${redis.prefix}end:b:${redisName('bus', topic)}`;
    const spy = redis.client.duplicate();
    const captured: Buffer[] = [];
    spy.on('messageBuffer', (_channel: Buffer, message: Buffer) => captured.push(message));
    await spy.subscribe(channel);
    try {
      await until(
        async () => (await redis.client.pubsub('NUMSUB', channel))[1] === 2,
        'both listen',
      );
      const end = { type: 'end', error: { message: 'gone', extensions: { code: 'NOT_FOUND' } } };
      sender.dispatchEvent(new CustomEvent(topic, { detail: end }));
      await until(() => ended.length === 1 && captured.length === 1, 'the end delivered');
      expect(ended).toEqual([end]);

      now += MAX_END_AGE_MS + 1;
      await redis.client.publish(channel, captured[0]!);
      await until(() => rejected.length === 1, 'the copy reported');
      expect(ended).toHaveLength(1);
      expect(rejected).toEqual(['an end message sent again after it was first']);
    } finally {
      spy.disconnect();
      await Promise.all(links.map((link) => link.close()));
    }
  });
});
