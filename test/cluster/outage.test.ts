/**
 * Redis stopped and started again under load (issue 12): three gateway processes keep answering
 * without an error while it is away (each alone, saying so in a warning), and cooperate again
 * once it is back: relayed deltas, the snapshot tier and a ledger that agrees with the upstream.
 */
import { createSandbox, type Sandbox } from '@plans-gateway/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gqlAt } from '../support/graphql.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { until } from '../support/wait.js';
import { acceptedCallsOf, callsOf } from './support/calls.js';
import {
  type GatewayProcess,
  roundRobin,
  startGatewayProcesses,
} from './support/gateway-process.js';

const TOKEN = 'cluster-outage-token';
const READ = `query Read($planId: PlanId!) {
  plan(id: $planId) { id serverKnowledge accounts { id balance } }
}`;
const CREATE = `mutation Create($input: CreateTransactionInput!) {
  createTransaction(planId: "last-used", input: $input) {
    __typename ... on CreateTransactionPayload { serverKnowledge }
  }
}`;

interface Read {
  plan: { id: string; serverKnowledge: number; accounts: { id: string; balance: number }[] };
}

let redis: TestRedis;
let sandbox: Sandbox;
let instances: GatewayProcess[] = [];

beforeAll(async () => {
  // Its own server, whatever REDIS_URL says: this suite stops it.
  redis = await startTestRedis({ own: true });
  sandbox = await createSandbox({
    port: 0,
    users: [{ token: TOKEN, plans: [{ seed: 9, transactions: 300 }], defaultPlan: 0 }],
  });
  instances = await startGatewayProcesses(
    [1, 2, 3].map(() => ({
      upstreamUrl: sandbox.url,
      redis: { url: redis.url, prefix: redis.prefix },
    })),
  );
}, 120_000);

afterAll(async () => {
  await Promise.all(instances.map((each) => each.kill()));
  await sandbox?.close();
  await redis?.close();
});

const metricsOf = async (each: GatewayProcess) =>
  (await fetch(each.url.replace('/graphql', '/metrics'))).text();

const mentions = (pattern: RegExp) => (each: GatewayProcess) =>
  (each.output().match(pattern) ?? []).length;

describe('Redis stopped and restarted under load', () => {
  it('costs clients no error, and cooperation resumes once it is back', async () => {
    const client = roundRobin(
      instances.map((each) => each.url),
      TOKEN,
    );
    const first = await client.gql<Read>(READ, { planId: 'last-used' });
    const account = first.body.data!.plan.accounts[0]!.id;
    const date = new Date().toISOString().slice(0, 10);
    let written = 0;
    /** A bounded round of operations: reads within max-age, no-cache reads, writes. */
    const load = async (operations: number) => {
      for (let n = 1; n <= operations; n++) {
        if (n % 4 === 0) written += 1;
        const answer =
          n % 4 === 0
            ? await client.gql(CREATE, {
                input: {
                  accountId: account,
                  date,
                  amount: -100 * n,
                  importId: `outage:${written}`,
                },
              })
            : await client.gql(
                READ,
                { planId: n % 2 ? 'last-used' : first.body.data!.plan.id },
                n % 3 === 0 ? { 'cache-control': 'no-cache' } : {},
              );
        expect(answer.status).toBe(200);
        expect(answer.body.errors).toBeUndefined();
      }
    };

    await load(12);
    await redis.stop();
    await load(12);
    await until(
      () => instances.every((each) => mentions(/redis unavailable: working alone/)(each) >= 1),
      'every instance warns that it works alone',
    );
    await load(12);
    for (const each of instances)
      expect(await metricsOf(each)).toContain('gateway_cluster_degraded 1');
    await redis.start();
    await until(
      () => instances.every((each) => mentions(/redis back: cooperating again/)(each) >= 1),
      'every instance says Redis is back',
    );
    await load(12);
    expect(client.dead.size).toBe(0);
    for (const each of instances) {
      const text = await metricsOf(each);
      expect(text).toContain('gateway_cluster_degraded 0');
      // This outage, and no false one at start-up.
      expect(text).toContain('gateway_cluster_outages_total 1');
    }

    // Each instance brings its replica up to date once (they drifted apart while alone)...
    for (const each of instances) {
      const answer = await gqlAt(each.url, READ, { planId: 'last-used' }, TOKEN, {
        'cache-control': 'no-cache',
      });
      expect(answer.body.errors).toBeUndefined();
    }
    // ...then a write through one instance reaches the others' replicas without the upstream.
    const write = await gqlAt<{ createTransaction: { serverKnowledge: number } }>(
      instances[0]!.url,
      CREATE,
      { input: { accountId: account, date, amount: -4242, importId: 'outage:after' } },
      TOKEN,
    );
    const knowledge = write.body.data!.createTransaction.serverKnowledge;
    const before = callsOf(sandbox, TOKEN).length;
    for (const each of instances.slice(1)) {
      const answer = await gqlAt<Read>(each.url, READ, { planId: 'last-used' }, TOKEN);
      expect(answer.body.data!.plan.serverKnowledge).toBeGreaterThanOrEqual(knowledge);
    }
    expect(callsOf(sandbox, TOKEN).slice(before)).toEqual([]);

    // The ledger was sent again: every instance counts what the upstream counted.
    const counted = acceptedCallsOf(sandbox, TOKEN);
    for (const each of instances) {
      const answer = await gqlAt(each.url, '{ rateLimit { used } }', {}, TOKEN);
      expect(answer.body.data).toEqual({ rateLimit: { used: counted } });
    }
    // And the snapshot tier was written again (the restarted Redis had lost it).
    const keys = [...(await redis.dump()).keys()];
    expect(keys.some((key) => key.startsWith(`${redis.prefix}s:`))).toBe(true);
  }, 120_000);
});
