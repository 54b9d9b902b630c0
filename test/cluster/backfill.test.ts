/**
 * A live replay's backfill goes through the replica's one fetch path (issue 30, item 4), with
 * two instances sharing a real Redis: the backfill on one instance takes the cluster's flight
 * and relays its delta, so a read on the other instance right after it costs no upstream call
 * (one delta in the cluster, not two), and the backfill counts in the sync metrics. The
 * instances run in this process on the live suites' manual clock; no timer fires unless the
 * test moves it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CLUSTER } from '../../src/config/config.js';
import type { Gateway } from '../../src/gateway/gateway.js';
import {
  callsOf,
  knowledgeOf,
  LIVE,
  type LiveStack,
  openAccount,
  outsideWrite,
} from '../live/support/live.js';
import { sseClient, type Transport } from '../live/support/subscribers.js';
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
});

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

const REPLAY = `subscription($planId: PlanId!, $since: SafeInt) {
  planChanged(planId: $planId, since: $since) { origin serverKnowledge continues transactions { id } }
}`;
interface Replayed {
  planChanged: {
    origin: string;
    serverKnowledge: number;
    continues: boolean;
    transactions: { id: string }[];
  };
}
const KNOWLEDGE = 'query($planId: PlanId!) { plan(id: $planId) { serverKnowledge } }';
const TRANSACTION = `query($planId: PlanId!, $id: ID!) {
  plan(id: $planId) { serverKnowledge transaction(id: $id) { memo } }
}`;
interface Plan {
  plan: { serverKnowledge: number; transaction?: { memo: string | null } | null };
}

/** `gateway_replica_syncs_total` of one kind and result, as `/metrics` shows it. */
async function syncs(gateway: Gateway, kind: 'export' | 'delta'): Promise<number> {
  const text = await gateway.metrics.text();
  const line = text
    .split('\n')
    .find((each) => each.startsWith(`gateway_replica_syncs_total{kind="${kind}",result="ok"} `));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

describe('a backfill on one instance of two', () => {
  it('relays its delta through the cluster: a read on the other then costs no upstream call', async () => {
    const config = {
      redisUrl: redis.url,
      cluster: { ...DEFAULT_CLUSTER, keyPrefix: `${redis.prefix}backfill:` },
    };
    const s = await startStack({ ...LIVE, config });
    stack = s;
    const b = await s.addGateway({ serve: 'websocket', config });
    second = b;
    for (const gateway of [s.gateway, b.gateway]) {
      expect(await gateway.cluster!.ready(5_000)).toBe(true);
    }
    const readOnB = async (id?: string) => {
      const answer = await gqlAt<Plan>(
        b.url,
        id === undefined ? KNOWLEDGE : TRANSACTION,
        { planId: s.planId, ...(id === undefined ? {} : { id }) },
        s.token,
      );
      expect(answer.body.errors).toBeUndefined();
      return answer.body.data!.plan;
    };

    // Both instances hold the replica; the first syncs a delta the second merges from its relay.
    const since = await knowledgeOf(s);
    expect((await readOnB()).serverKnowledge).toBe(since);
    const accountId = await openAccount(s);
    const first = await outsideWrite(s, accountId, 'synced by the first');
    s.clock.advance(31_000);
    expect(await knowledgeOf(s)).toBe(first.serverKnowledge);
    await until(
      () => b.gateway.cluster!.stats().relaysApplied >= 1,
      'the second instance follows the replica',
    );

    // A change neither holds; 20 s later both replicas are still fresh (max-age 30 s), and the
    // first instance has no change log: a replay from `since` needs a backfill.
    const missed = await outsideWrite(s, accountId, 'brought by the backfill');
    s.clock.advance(20_000);
    s.sandbox.resetCalls();
    const deltasBefore = await syncs(s.gateway, 'delta');
    const client = sseClient(s.url, s.token);
    clients.push(client);
    const subscriber = client.subscribe<Replayed>(REPLAY, { planId: s.planId, since });
    const replay = await within(
      subscriber.until(
        (r) => r.data?.planChanged.origin === 'REPLAY' && !r.data.planChanged.continues,
        'the end of the replay',
      ),
      'the replay',
    );
    expect(replay.data!.planChanged.serverKnowledge).toBe(missed.serverKnowledge);
    expect(callsOf(s.sandbox, s.token)).toEqual([`getPlanById@${since}`]);
    // The backfill is a sync like any: counted where every delta is.
    expect(await syncs(s.gateway, 'delta')).toBe(deltasBefore + 1);

    // 35 s after the second instance's last sync of its own: past max-age, yet its replica was
    // brought up to date by the backfill's relay, as fresh as that delta.
    await until(
      () =>
        b.gateway.replicas.peek(s.tokenKey, s.planId)?.snapshot.serverKnowledge ===
        missed.serverKnowledge,
      'the backfill relayed to the second instance',
    );
    s.clock.advance(15_000);
    const onB = await readOnB(missed.id);
    expect(onB.serverKnowledge).toBe(missed.serverKnowledge);
    expect(onB.transaction?.memo).toBe('brought by the backfill');
    expect(callsOf(s.sandbox, s.token)).toEqual([`getPlanById@${since}`]);
  }, 60_000);
});
