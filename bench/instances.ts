/**
 * `npm run bench -- --instances N`: what N gateway instances sharing one Redis cost against one
 * instance alone, under the same load from a round-robin client.
 *
 * Setups, each with fresh tokens (every replica starts cold) and the same operations:
 * - `1 alone`: one instance, no Redis (the default deployment);
 * - `1 + Redis`: one instance with Redis (what the tier costs by itself);
 * - `N + Redis`: N instances, each operation sent to the next one;
 * - `N alone`: N instances without Redis (what a balancer in front of the default costs).
 *
 * Phases:
 * 1. **warm**: every token read once on every instance, then dashboards only, within max-age
 *    (`Cache-Control: max-age=3600`): no upstream call and no Redis round trip are expected.
 * 2. **reads**: dashboards at the gateway's max-age (`--max-age`, 5 s by default here, so
 *    replicas go past it several times during the phase): one delta per token and max-age on one
 *    instance, or on N instances that share Redis; N of them on N instances alone.
 * 3. **mixed**: those dashboards, account pages with `no-cache`, writes (a transaction created
 *    through the gateway, then its delta) and `rateLimit`, in the proportions 80/10/8/2.
 *
 * Figures per setup and phase: operations, errors, upstream calls (counted at the sandbox) per
 * 1,000 operations, latency p50 / p99, and Redis round trips per operation as the instances count
 * them (a pipeline or a script is one), next to the commands Redis executed (`INFO commandstats`,
 * commands inside scripts included).
 *
 * Redis: `redis-server` started on a free port (or `REDIS_URL`, under a fresh key prefix).
 */
import { loadavg } from 'node:os';
import { createSandbox, type Sandbox } from '@plans-gateway/sandbox';
import { startTestRedis, type TestRedis } from '../test/support/redis-server.js';
import { createGraphQLClient, type GraphQLClient, isGoodAnswer } from './clients.js';
import { type GatewayProcess, startGatewayProcess } from './gateway-process.js';
import { type LatencySummary, runLoad } from './load.js';
import type { BenchOptions } from './options.js';

const TOKENS_PER_SETUP = 6;
const DASHBOARD = `query Dashboard {
  plan(id: "last-used") {
    name serverKnowledge
    accounts { id name balance }
    categoryGroups { name categories { name budgeted activity balance } }
    transactions(first: 30) { nodes { date amount payee { name } category { name } } }
  }
}`;
const ACCOUNT = `query Account($accountId: UUID!) {
  plan(id: "last-used") { account(id: $accountId) { name balance
    transactions(first: 20) { nodes { date amount memo } } } }
}`;
const CREATE = `mutation Create($input: CreateTransactionInput!) {
  createTransaction(planId: "last-used", input: $input) { __typename }
}`;
const RATE_LIMIT = '{ rateLimit { used remaining } }';

export interface PhaseResult {
  operations: number;
  errors: number;
  upstreamCalls: number;
  upstreamPer1000: number;
  latency: LatencySummary;
  /** As the instances count them: one per command, pipeline or script. */
  redisRoundTripsPerOperation: number | null;
  /** As Redis counts them (commands inside scripts included). */
  redisCommandsPerOperation: number | null;
}

export interface SetupResult {
  setup: string;
  instances: number;
  redis: boolean;
  /** Upstream calls to load every token's replica on every instance (cold). */
  warmupCalls: number;
  warm: PhaseResult;
  reads: PhaseResult;
  mixed: PhaseResult;
}

export interface InstancesResults {
  options: BenchOptions;
  loadAverage: number[];
  setups: SetupResult[];
}

interface Setup {
  label: string;
  instances: number;
  redis: boolean;
}

async function commandsExecuted(redis: TestRedis): Promise<number> {
  const info = await redis.client.info('commandstats');
  let total = 0;
  for (const match of info.matchAll(/^cmdstat_[^:]+:calls=(\d+)/gm)) total += Number(match[1]);
  return total;
}

async function roundTrips(gateways: readonly GatewayProcess[]): Promise<number> {
  const figures = await Promise.all(gateways.map((each) => each.figures({ gc: false })));
  return figures.reduce((sum, each) => sum + (each.cluster?.roundTrips ?? 0), 0);
}

async function runSetup(
  options: BenchOptions,
  sandbox: Sandbox,
  redis: TestRedis,
  setup: Setup,
  tokens: readonly string[],
): Promise<SetupResult> {
  const prefix = `${redis.prefix}${setup.label.replace(/\W+/g, '-')}:`;
  const gateways = await Promise.all(
    Array.from({ length: setup.instances }, () =>
      startGatewayProcess({
        upstreamUrl: sandbox.url,
        maxAgeMs: options.maxAgeMs,
        ...(setup.redis ? { redis: { url: redis.url, prefix } } : {}),
      }),
    ),
  );
  const clients: GraphQLClient[] = gateways.map((each) =>
    createGraphQLClient(each.url, options.concurrency * 2),
  );
  // Operation n goes to instance (n + floor(n / tokens)) mod N: a token's successive operations
  // visit every instance in turn (plain n mod N would pin a token to one when N divides tokens).
  const send = (
    n: number,
    query: string,
    variables: Record<string, unknown>,
    token: string,
    headers = {},
  ) =>
    clients[(n + Math.floor(n / tokens.length)) % clients.length]!.request(
      query,
      variables,
      token,
      headers,
    );
  const accounts = new Map<string, string>();
  try {
    // Cold loads (an export each), then every replica on every instance.
    sandbox.resetCalls();
    for (const [t, token] of tokens.entries()) {
      const first = await send(t, DASHBOARD, {}, token);
      if (!isGoodAnswer(first)) throw new Error(`cold dashboard failed: ${JSON.stringify(first)}`);
      const data = first.body.data as { plan: { accounts: { id: string }[] } };
      accounts.set(token, data.plan.accounts[0]!.id);
    }
    for (let round = 1; round < setup.instances; round++) {
      for (const [t, token] of tokens.entries()) {
        await send(round * tokens.length + t, DASHBOARD, {}, token);
      }
    }
    const warmupCalls = sandbox.calls().filter((call) => tokens.includes(call.token ?? '')).length;

    const measure = async (operation: (n: number) => Promise<boolean>): Promise<PhaseResult> => {
      sandbox.resetCalls();
      const commandsBefore = setup.redis ? await commandsExecuted(redis) : 0;
      const tripsBefore = setup.redis ? await roundTrips(gateways) : 0;
      let operations = 0;
      const latency = await runLoad(
        () => {
          operations += 1;
          return operation(operations);
        },
        {
          concurrency: options.concurrency,
          requests: options.requests,
          durationMs: options.durationS * 1000,
          warmup: 0,
        },
      );
      const upstreamCalls = sandbox
        .calls()
        .filter((call) => tokens.includes(call.token ?? '')).length;
      const commands = setup.redis ? (await commandsExecuted(redis)) - commandsBefore : 0;
      const trips = setup.redis ? (await roundTrips(gateways)) - tripsBefore : 0;
      return {
        operations,
        errors: latency.errors,
        upstreamCalls,
        upstreamPer1000: (upstreamCalls * 1000) / Math.max(1, operations),
        latency,
        redisRoundTripsPerOperation: setup.redis ? trips / Math.max(1, operations) : null,
        // Minus the INFO commands of the measurement itself.
        redisCommandsPerOperation: setup.redis ? (commands - 1) / Math.max(1, operations) : null,
      };
    };

    const warm = await measure(async (n) =>
      isGoodAnswer(
        await send(n, DASHBOARD, {}, tokens[n % tokens.length]!, {
          'cache-control': 'max-age=3600',
        }),
      ),
    );
    const reads = await measure(async (n) =>
      isGoodAnswer(await send(n, DASHBOARD, {}, tokens[n % tokens.length]!)),
    );
    const today = new Date().toISOString().slice(0, 10);
    const mixed = await measure(async (n) => {
      const token = tokens[n % tokens.length]!;
      const kind = n % 50;
      if (kind < 40) return isGoodAnswer(await send(n, DASHBOARD, {}, token));
      if (kind < 45) {
        return isGoodAnswer(
          await send(n, ACCOUNT, { accountId: accounts.get(token) }, token, {
            'cache-control': 'no-cache',
          }),
        );
      }
      if (kind < 49) {
        const answer = await send(
          n,
          CREATE,
          {
            input: {
              accountId: accounts.get(token),
              date: today,
              amount: -1000,
              importId: `bench:${setup.label}:${n}`,
            },
          },
          token,
        );
        const typename = (answer.body.data as { createTransaction?: { __typename: string } })
          ?.createTransaction?.__typename;
        return isGoodAnswer(answer) && typename === 'CreateTransactionPayload';
      }
      return isGoodAnswer(await send(n, RATE_LIMIT, {}, token));
    });
    return {
      setup: setup.label,
      instances: setup.instances,
      redis: setup.redis,
      warmupCalls,
      warm,
      reads,
      mixed,
    };
  } finally {
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all(gateways.map((each) => each.close()));
  }
}

export async function runInstancesBench(options: BenchOptions): Promise<InstancesResults> {
  const instances = options.instances;
  const setups: Setup[] = [
    { label: '1 alone', instances: 1, redis: false },
    { label: '1 + Redis', instances: 1, redis: true },
    { label: `${instances} + Redis`, instances, redis: true },
    { label: `${instances} alone`, instances, redis: false },
  ];
  const redis = await startTestRedis();
  const sandbox = await createSandbox({
    port: 0,
    rateLimit: false,
    latency: { fixedMs: options.latencyMs },
    users: setups.flatMap((_, s) =>
      Array.from({ length: TOKENS_PER_SETUP }, (__, t) => ({
        token: `bench-instances-${s}-${t}`,
        plans: [{ seed: 11, transactions: options.planTransactions }],
      })),
    ),
  });
  try {
    const results: SetupResult[] = [];
    for (const [s, setup] of setups.entries()) {
      process.stdout.write(`  ${setup.label}...`);
      const tokens = Array.from(
        { length: TOKENS_PER_SETUP },
        (_, t) => `bench-instances-${s}-${t}`,
      );
      results.push(await runSetup(options, sandbox, redis, setup, tokens));
      process.stdout.write(' done\n');
    }
    return { options, loadAverage: loadavg(), setups: results };
  } finally {
    await sandbox.close();
    await redis.close();
  }
}

export function formatInstancesResults(results: InstancesResults): string {
  const { options } = results;
  const lines = [
    `Instances (--instances ${options.instances}): latency ${options.latencyMs} ms, ` +
      `${options.planTransactions} transactions per plan, ${TOKENS_PER_SETUP} tokens, ` +
      `concurrency ${options.concurrency}, max-age ${options.maxAgeMs} ms, ` +
      `phases of at most ${options.durationS} s / ${options.requests} operations`,
    '',
    '| setup | phase | operations | errors | upstream calls | upstream / 1,000 ops | p50 ms | p99 ms | Redis round trips / op | Redis commands / op |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  const warmups = results.setups.map((setup) => `${setup.setup}: ${setup.warmupCalls}`);
  const figure = (value: number | null, digits = 2) =>
    value === null ? '–' : value.toFixed(digits);
  for (const setup of results.setups) {
    for (const [phase, result] of [
      ['warm', setup.warm],
      ['reads', setup.reads],
      ['mixed', setup.mixed],
    ] as const) {
      lines.push(
        `| ${setup.setup} | ${phase} | ${result.operations} | ${result.errors} | ${result.upstreamCalls} | ${figure(result.upstreamPer1000, 1)} | ${figure(result.latency.p50Ms, 1)} | ${figure(result.latency.p99Ms, 1)} | ${figure(result.redisRoundTripsPerOperation)} | ${figure(result.redisCommandsPerOperation)} |`,
      );
    }
  }
  lines.push(
    '',
    `Upstream calls to load the ${TOKENS_PER_SETUP} tokens' replicas on every instance: ${warmups.join(', ')}`,
  );
  return lines.join('\n');
}
