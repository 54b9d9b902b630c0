/**
 * Subscriptions on two instances sharing a real Redis (issue 12): one poller per (token, plan)
 * in the whole cluster (a Redis lease), its delta relayed to the other instance, and every
 * subscriber, on either instance, receiving each change. A write through one instance reaches
 * the subscribers of the other from its relay, with no poll and no call of theirs (issue 18,
 * item 10). The instances run in this process on the live suites' manual clock, so a poll
 * interval passes at once, and none passes unless the test moves it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CLUSTER } from '../../src/config/config.js';
import { callsOf, LIVE, type LiveStack } from '../live/support/live.js';
import { sseClient, type Transport, wsClient } from '../live/support/subscribers.js';
import { expectOnePollPerChangeOnBoth } from '../live/support/two-instances.js';
import { gqlAt } from '../support/graphql.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { type ServedGateway, startStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import { within } from './support/within.js';

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

/**
 * Two instances on one sandbox and Redis; each test its own key space (every sandbox starts the
 * plan's knowledge over, so a snapshot another test left would be from another timeline).
 */
async function startTwo(space: string): Promise<{ s: LiveStack; b: ServedGateway }> {
  const config = {
    redisUrl: redis.url,
    cluster: { ...DEFAULT_CLUSTER, keyPrefix: `${redis.prefix}${space}:` },
  };
  stack = await startStack({ ...LIVE, config });
  second = await stack.addGateway({ serve: 'websocket', config });
  for (const gateway of [stack.gateway, second.gateway]) {
    expect(await gateway.cluster!.ready(5_000)).toBe(true);
  }
  return { s: stack, b: second };
}

describe('subscriptions on two instances sharing Redis', () => {
  it('poll once per interval in the cluster and deliver each change to the subscribers of both', async () => {
    const { s, b: second } = await startTwo('polls');
    await expectOnePollPerChangeOnBoth(s, second, (client) => clients.push(client));
    // The instance that did not poll got the deltas from Redis.
    const relayed = [s.gateway, second.gateway].map(
      (gateway) => gateway.cluster!.stats().relaysApplied,
    );
    expect(Math.max(...relayed)).toBeGreaterThanOrEqual(2);
  }, 60_000);
});

interface PayeesChanged {
  planChanged: { origin: string; payees: { id: string; name: string }[] };
}
const PAYEES_CHANGED = `subscription($planId: PlanId!) {
  planChanged(planId: $planId) { origin payees { id name } }
}`;
const PAYEES = 'query($planId: PlanId!) { plan(id: $planId) { payees { id name } } }';
const RENAME = `mutation($planId: PlanId!, $payeeId: UUID!, $name: String!) {
  updatePayee(planId: $planId, payeeId: $payeeId, input: { name: $name }) {
    __typename ... on UpdatePayeePayload { payee { id name } }
  }
}`;

describe('a write through one instance', () => {
  it('reaches the subscribers of the other from its relay: no poll, no call of theirs', async () => {
    const { s, b } = await startTwo('writes');
    const sse = sseClient(s.url, s.token);
    const ws = wsClient(s.wsUrl, s.token);
    clients.push(sse, ws);
    const subscribers = [sse, ws].map((client) =>
      client.subscribe<PayeesChanged>(PAYEES_CHANGED, { planId: s.planId }),
    );
    await until(() => s.gateway.live.stats().subscribers === 2, 'two subscribers on the first');
    const { body } = await s.gql<{ plan: { payees: { id: string; name: string }[] } }>(PAYEES, {
      planId: s.planId,
    });
    const payee = body.data!.plan.payees.find((each) => !each.name.startsWith('Transfer'))!;
    const rename = async (name: string) => {
      s.sandbox.resetCalls();
      const answer = await gqlAt(
        b.url,
        RENAME,
        { planId: s.planId, payeeId: payee.id, name },
        s.token,
      );
      expect(answer.body.errors).toBeUndefined();
      for (const subscriber of subscribers) {
        const event = await within(
          subscriber.until((r) =>
            r.data!.planChanged.payees.some((p) => p.id === payee.id && p.name === name),
          ),
          `the rename to ${name} on the first instance`,
        );
        expect(event.data!.planChanged.origin).toBe('WRITE');
      }
      // The clock did not move (no poll anywhere); the write was the only call.
      expect(callsOf(s.sandbox, s.token)).toEqual(['updatePayee']);
    };

    // The writer holds no replica of the plan: the pipeline applies the write nowhere and syncs
    // no delta, but the relay carries it.
    expect(b.gateway.replicas.peek(s.tokenKey, s.planId)).toBeUndefined();
    await rename('Renamed through B, cold');
    // The writer holds the replica: a payee write is its whole effect, so no delta follows it.
    await gqlAt(b.url, PAYEES, { planId: s.planId }, s.token);
    expect(b.gateway.replicas.peek(s.tokenKey, s.planId)).toBeDefined();
    await rename('Renamed through B, warm');

    expect(b.gateway.cluster!.stats().writesRelayed).toBe(2);
    expect(s.gateway.cluster!.stats().writesApplied).toBe(2);
    // The first instance's replica has the write, pending until a delta confirms it.
    const { body: after } = await s.gql<{ plan: { payees: { id: string; name: string }[] } }>(
      PAYEES,
      { planId: s.planId },
    );
    expect(after.data!.plan.payees.find((p) => p.id === payee.id)?.name).toBe(
      'Renamed through B, warm',
    );
    expect(callsOf(s.sandbox, s.token)).toEqual(['updatePayee']);
  }, 60_000);
});
