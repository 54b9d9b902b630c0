/**
 * Three gateway processes cooperating through a real Redis, against the sandbox, driven by a
 * round-robin client (issue 12): the same workload costs what it costs on one instance, an
 * instance killed mid-load loses nothing and costs no export, a new one warms with at most one
 * delta, `rateLimit` agrees everywhere, and Redis holds nothing readable.
 */
import { createSandbox, type Sandbox } from '@plans-gateway/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gqlAt } from '../support/graphql.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { acceptedCallsOf, callsOf, exportsOf } from './support/calls.js';
import {
  type GatewayProcess,
  roundRobin,
  startGatewayProcess,
  startGatewayProcesses,
} from './support/gateway-process.js';

const TOKENS = {
  single: 'cluster-suite-single-token',
  roundRobin: 'cluster-suite-round-robin-token',
  kill: 'cluster-suite-kill-token',
} as const;
const PLAN = { seed: 5, transactions: 400 };

const PLAN_QUERY = `query Plan($planId: PlanId!) {
  plan(id: $planId) {
    id serverKnowledge
    accounts { id name balance }
    transactions(first: 20) { nodes { id memo amount payee { name } } }
  }
}`;
const RATE_LIMIT = '{ rateLimit { used limit remaining } }';
const USER_AND_PLANS = '{ user { id } plans { id name lastModifiedOn } }';
const CREATE = `mutation Create($input: CreateTransactionInput!) {
  createTransaction(planId: "last-used", input: $input) {
    __typename
    ... on CreateTransactionPayload { serverKnowledge transaction { id } }
  }
}`;
const IMPORTED = `query Imported { plan(id: "last-used") {
  serverKnowledge transactions(first: 500) { nodes { importId } }
} }`;

interface PlanAnswer {
  plan: {
    id: string;
    serverKnowledge: number;
    accounts: { id: string; name: string; balance: number }[];
    transactions: { nodes: { id: string; memo: string | null }[] };
  };
}
interface CreateAnswer {
  createTransaction: { __typename: string; serverKnowledge?: number };
}

const today = () => new Date().toISOString().slice(0, 10);

let redis: TestRedis;
let sandbox: Sandbox;
let single: GatewayProcess;
let instances: GatewayProcess[] = [];
const extra: GatewayProcess[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
  sandbox = await createSandbox({
    port: 0,
    users: Object.values(TOKENS).map((token) => ({ token, plans: [PLAN], defaultPlan: 0 })),
  });
  const cluster = { url: redis.url, prefix: redis.prefix };
  const started = await startGatewayProcesses([
    { upstreamUrl: sandbox.url },
    ...[1, 2, 3].map(() => ({ upstreamUrl: sandbox.url, redis: cluster })),
  ]);
  single = started[0]!;
  instances = started.slice(1);
}, 120_000);

afterAll(async () => {
  await Promise.all([single, ...instances, ...extra].map((each) => each?.kill()));
  await sandbox?.close();
  await redis?.close();
});

/**
 * The script: reads within max-age, reads with no-cache, writes (each with its delta), by alias
 * and by id, and `rateLimit`. Every step goes to `send`'s next instance. Returns what the reads
 * after each write saw.
 */
async function script(
  send: (
    query: string,
    variables?: Record<string, unknown>,
    headers?: Record<string, string>,
  ) => Promise<{ body: { data?: unknown; errors?: unknown } }>,
  tag: string,
): Promise<void> {
  const noCache = { 'cache-control': 'no-cache' };
  const read = async (planId: string, headers: Record<string, string> = {}) => {
    const answer = await send(PLAN_QUERY, { planId }, headers);
    expect(answer.body.errors).toBeUndefined();
    return (answer.body.data as PlanAnswer).plan;
  };
  const lists = async () => {
    const answer = await send(USER_AND_PLANS);
    expect(answer.body.errors).toBeUndefined();
  };
  await lists();
  await lists();
  const first = await read('last-used');
  const account = first.accounts[0]!.id;
  await read('last-used');
  await read(first.id);
  await read('last-used', noCache);
  for (let n = 1; n <= 3; n++) {
    const written = await send(CREATE, {
      input: { accountId: account, date: today(), amount: -1000 * n, importId: `${tag}:${n}` },
    });
    expect(written.body.errors).toBeUndefined();
    const { serverKnowledge } = (written.body.data as CreateAnswer).createTransaction;
    // Within max-age, on whichever instance comes next: the write is there.
    const after = await read('last-used');
    expect(after.serverKnowledge).toBeGreaterThanOrEqual(serverKnowledge!);
    await read(first.id);
    await send(RATE_LIMIT);
    // The write moved the plan list (last modified): one reload, on whichever instance.
    await lists();
    await lists();
  }
  await read(first.id, noCache);
  await read('last-used');
}

describe('three gateway processes sharing one Redis', () => {
  it('run a scripted workload for the upstream calls one instance makes', async () => {
    const one = (
      query: string,
      variables?: Record<string, unknown>,
      headers?: Record<string, string>,
    ) => gqlAt(single.url, query, variables, TOKENS.single, headers);
    await script(one, 'single');
    const client = roundRobin(
      instances.map((each) => each.url),
      TOKENS.roundRobin,
    );
    await script((query, variables, headers) => client.gql(query, variables, headers), 'rr');

    // User and plan list load in parallel: their order may vary, so compare sorted.
    const onOne = callsOf(sandbox, TOKENS.single).sort();
    const write = ['createTransaction', 'getPlanById (delta)', 'getPlans'];
    expect(onOne).toEqual(
      [
        'getUser',
        'getPlans',
        'getPlanById',
        'getPlanById (delta)',
        ...write,
        ...write,
        ...write,
        'getPlanById (delta)',
      ].sort(),
    );
    expect(callsOf(sandbox, TOKENS.roundRobin).sort()).toEqual(onOne);
  }, 60_000);

  it('agree on rateLimit with each other and with the upstream', async () => {
    const answers = await Promise.all(
      instances.map((each) => gqlAt(each.url, RATE_LIMIT, {}, TOKENS.roundRobin)),
    );
    const counted = acceptedCallsOf(sandbox, TOKENS.roundRobin);
    for (const answer of answers) {
      expect(answer.body.data).toEqual({
        rateLimit: { used: counted, limit: 200, remaining: 200 - counted },
      });
    }
    const alone = await gqlAt(single.url, RATE_LIMIT, {}, TOKENS.single);
    expect(alone.body.data).toEqual(answers[0]!.body.data);
  });

  it('lose no write and load no second export when an instance dies mid-load; a new instance warms with one delta at most', async () => {
    const client = roundRobin(
      instances.map((each) => each.url),
      TOKENS.kill,
    );
    const first = await client.gql<PlanAnswer>(PLAN_QUERY, { planId: 'last-used' });
    const account = first.body.data!.plan.accounts[0]!.id;
    const acknowledged: string[] = [];
    let sent = 0;
    const victim = instances[1]!;
    // 4 workers, 48 operations: a write every third, the victim killed after the 12th.
    const worker = async () => {
      while (sent < 48) {
        sent += 1;
        const n = sent;
        if (n === 12) await victim.kill();
        if (n % 3 === 0) {
          const importId = `kill:${n}`;
          const answer = await client.gql<CreateAnswer>(CREATE, {
            input: { accountId: account, date: today(), amount: -10 * n, importId },
          });
          expect(answer.body.errors).toBeUndefined();
          const kind = answer.body.data!.createTransaction.__typename;
          // A write resent after the victim died mid-request is refused as a duplicate: it is in.
          expect(['CreateTransactionPayload', 'DuplicateImportIdError']).toContain(kind);
          acknowledged.push(importId);
        } else {
          const headers: Record<string, string> =
            n % 5 === 0 ? { 'cache-control': 'no-cache' } : {};
          const answer = await client.gql(PLAN_QUERY, { planId: 'last-used' }, headers);
          expect(answer.body.errors).toBeUndefined();
        }
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    expect(client.dead.has(1)).toBe(true);
    expect(exportsOf(sandbox, TOKENS.kill)).toBe(1);

    for (const survivor of [instances[0]!, instances[2]!]) {
      const answer = await gqlAt<{
        plan: { transactions: { nodes: { importId: string | null }[] } };
      }>(survivor.url, IMPORTED, {}, TOKENS.kill, { 'cache-control': 'no-cache' });
      const ids = answer.body.data!.plan.transactions.nodes.map((node) => node.importId);
      for (const importId of acknowledged) {
        expect(ids.filter((id) => id === importId)).toHaveLength(1);
      }
    }

    const joiner = await startGatewayProcess({
      upstreamUrl: sandbox.url,
      redis: { url: redis.url, prefix: redis.prefix },
    });
    extra.push(joiner);
    const before = callsOf(sandbox, TOKENS.kill).length;
    const joined = await gqlAt<{
      plan: { transactions: { nodes: { importId: string | null }[] } };
    }>(joiner.url, IMPORTED, {}, TOKENS.kill);
    expect(joined.body.errors).toBeUndefined();
    const cost = callsOf(sandbox, TOKENS.kill).slice(before);
    expect(cost.length).toBeLessThanOrEqual(1);
    expect(cost.filter((call) => call === 'getPlanById')).toEqual([]);
    const seen = joined.body.data!.plan.transactions.nodes.map((node) => node.importId);
    for (const importId of acknowledged) expect(seen).toContain(importId);
  }, 90_000);

  it('leave nothing in Redis that shows a token, an id or a name of the plan', async () => {
    const stored = await redis.dump();
    expect(stored.size).toBeGreaterThan(0);
    const secrets = new Set<string>(Object.values(TOKENS));
    for (const token of Object.values(TOKENS)) {
      const answer = await gqlAt<{
        plan: {
          id: string;
          accounts: { id: string; name: string }[];
          payees: { id: string; name: string }[];
          transactions: { nodes: { id: string; memo: string | null }[] };
        };
      }>(
        instances[0]!.url,
        `{ plan(id: "last-used") { id accounts { id name } payees { id name }
           transactions(first: 50) { nodes { id memo } } } }`,
        {},
        token,
      );
      const plan = answer.body.data!.plan;
      secrets.add(plan.id);
      for (const each of [...plan.accounts, ...plan.payees]) {
        secrets.add(each.id);
        if (each.name.length >= 4) secrets.add(each.name);
      }
      for (const node of plan.transactions.nodes) {
        secrets.add(node.id);
        if (node.memo && node.memo.length >= 4) secrets.add(node.memo);
      }
    }
    for (const [key, values] of stored) {
      for (const secret of secrets) {
        expect(key).not.toContain(secret);
        for (const value of values) expect(value.includes(Buffer.from(secret, 'utf8'))).toBe(false);
      }
    }
  });
});
