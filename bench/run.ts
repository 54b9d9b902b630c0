/**
 * `npm run bench`: the sandbox with upstream latency, the gateway against it in its own process,
 * and for each canonical operation its upstream calls (cold, warm within max-age, warm past
 * max-age), its latency and throughput under load next to the REST calls an app would send
 * instead, and the gateway's memory. See bench/README.md for how to read the output.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { PlanDetail } from '@plans-gateway/rest-contract';
import { createSandbox, type Sandbox } from '@plans-gateway/sandbox';
import {
  createGraphQLClient,
  createRestClient,
  type GraphQLClient,
  isGoodAnswer,
  type RestClient,
} from './clients.js';
import { formatFloor, runFloorBench } from './floor.js';
import { type GatewayProcess, startGatewayProcess } from './gateway-process.js';
import { formatInstancesResults, runInstancesBench } from './instances.js';
import { formatLargePlans, runLargePlans } from './large-plans.js';
import { type LoadOptions, type Outcome, runLoad } from './load.js';
import { type BenchOptions, HELP, parseBenchOptions } from './options.js';
import { formatReplay, runReplayBench } from './replay.js';
import {
  type BenchResults,
  formatResults,
  type LargePlanResult,
  type LoadResult,
  type ScenarioResult,
  type Shot,
} from './report.js';
import { formatResume, runResumeBench } from './resume.js';
import { createScenarios, type Scenario, type ScenarioPlan, type Window } from './scenarios.js';
import { formatSubscriptionResults, runSubscriptionsBench } from './subscriptions.js';
import { formatSummary, runSummary } from './summary.js';
import { formatWrites, runWritesBench } from './writes.js';

const TOKENS = {
  dashboard: 'bench-dashboard-token',
  account: 'bench-account-token',
  month: 'bench-month-token',
  write: 'bench-write-token',
  large: 'bench-large-token',
} as const;

interface Bench {
  options: BenchOptions;
  sandbox: Sandbox;
  gateway: GatewayProcess;
  gql: GraphQLClient;
  rest: RestClient;
  load: LoadOptions;
}

function isoDay(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/** The previous calendar month (UTC): a window every seeded plan has transactions in. */
function previousMonth(now: number): Window {
  const d = new Date(now);
  const since = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1));
  const until = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 0));
  return { since: isoDay(since.getTime()), until: isoDay(until.getTime()) };
}

/** An open on-budget account with the most transactions in `window` (any time if none). */
function busiestAccount(plan: PlanDetail, window: Window): string {
  const open = new Set(
    plan.accounts.filter((a) => !a.deleted && !a.closed && a.on_budget).map((a) => a.id),
  );
  const count = (inWindow: boolean) => {
    const counts = new Map<string, number>();
    for (const t of plan.transactions) {
      if (t.deleted || !open.has(t.account_id)) continue;
      if (inWindow && (t.date < window.since || t.date > window.until)) continue;
      counts.set(t.account_id, (counts.get(t.account_id) ?? 0) + 1);
    }
    return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
  };
  const id = count(true) ?? count(false);
  if (!id) throw new Error(`plan ${plan.id} has no open on-budget account with transactions`);
  return id;
}

/** Upstream reads presented with `token` since the last reset (writes of the outside client excluded). */
function readsOf(sandbox: Sandbox, token: string): string[] {
  return sandbox
    .calls()
    .filter((call) => call.token === token && call.method === 'GET')
    .map(
      (call) =>
        `${call.operationId ?? call.path}${call.query.last_knowledge_of_server === undefined ? '' : ' (delta)'}`,
    );
}

/** One timed GraphQL operation of a scenario, with the upstream reads it caused. */
async function shot(bench: Bench, scenario: Scenario): Promise<Shot & { data: unknown }> {
  const expected = scenario.beforeRead ? await scenario.beforeRead() : undefined;
  bench.sandbox.resetCalls();
  const t0 = performance.now();
  const answer = await bench.gql.request(
    scenario.query,
    scenario.variables,
    scenario.token,
    scenario.headers,
  );
  const elapsed = performance.now() - t0;
  if (!isGoodAnswer(answer)) {
    throw new Error(
      `${scenario.key}: HTTP ${answer.status} ${JSON.stringify(answer.body.errors ?? null).slice(0, 500)}`,
    );
  }
  const operations = readsOf(bench.sandbox, scenario.token);
  return {
    calls: operations.length,
    operations,
    ms: elapsed,
    ...(expected === undefined ? {} : { showsWrite: scenario.shows!(answer.body.data, expected) }),
    data: answer.body.data,
  };
}

/** Single operations are noisy: warm and past-max-age figures are the median of a few. */
const WARM_SHOTS = 5;
const PAST_SHOTS = 3;

async function repeat<T>(times: number, run: () => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < times; i += 1) results.push(await run());
  return results;
}

/** The median latency of several shots, the most calls any of them cost, and all their reads. */
function combine(shots: (Shot & { data: unknown })[]): Shot & { data: unknown } {
  const sorted = [...shots].sort((a, b) => a.ms - b.ms);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const shows = shots.map((s) => s.showsWrite).filter((v): v is boolean => v !== undefined);
  return {
    calls: Math.max(...shots.map((s) => s.calls)),
    operations: shots.flatMap((s) => s.operations),
    ms: median.ms,
    ...(shows.length === 0 ? {} : { showsWrite: shows.every(Boolean) }),
    data: median.data,
  };
}

async function loadPhase(
  bench: Bench,
  token: string,
  operation: () => Promise<Outcome>,
  load = bench.load,
): Promise<LoadResult> {
  let operations = 0;
  bench.sandbox.resetCalls();
  const latency = await runLoad(() => {
    operations += 1;
    return operation();
  }, load);
  return { latency, operations, upstreamCalls: readsOf(bench.sandbox, token).length };
}

function gatewayOperation(bench: Bench, scenario: Scenario): () => Promise<Outcome> {
  return async () => {
    const expected = scenario.beforeRead ? await scenario.beforeRead() : undefined;
    const t0 = performance.now();
    const answer = await bench.gql.request(
      scenario.query,
      scenario.variables,
      scenario.token,
      scenario.headers,
    );
    const elapsed = performance.now() - t0;
    const ok =
      isGoodAnswer(answer) &&
      (expected === undefined || scenario.shows!(answer.body.data, expected));
    return expected === undefined ? ok : { ok, ms: elapsed };
  };
}

function restOperation(scenario: Scenario): () => Promise<Outcome> {
  const { beforeRead, read } = scenario.rest;
  return async () => {
    if (!beforeRead) return read();
    await beforeRead();
    const t0 = performance.now();
    const ok = await read();
    return { ok, ms: performance.now() - t0 };
  };
}

async function measureScenario(
  bench: Bench,
  scenario: Scenario,
  onCold?: () => Promise<void>,
): Promise<ScenarioResult> {
  process.stdout.write(`  ${scenario.key}: single operations`);
  const cold = await shot(bench, scenario);
  await onCold?.();
  const warm = combine(await repeat(WARM_SHOTS, () => shot(bench, scenario)));
  const past = combine(
    await repeat(PAST_SHOTS, async () => {
      await bench.gateway.advanceClock(bench.options.maxAgeMs + 1);
      return shot(bench, scenario);
    }),
  );
  process.stdout.write(', gateway load');
  const gatewayLoad = await loadPhase(bench, scenario.token, gatewayOperation(bench, scenario));
  process.stdout.write(', REST load');
  const restLoad = await loadPhase(bench, scenario.token, restOperation(scenario));
  const memory = await bench.gateway.figures({ gc: true });
  process.stdout.write('\n');
  const strip = ({ data: _data, ...rest }: Shot & { data: unknown }): Shot => rest;
  return {
    key: scenario.key,
    title: scenario.title,
    file: `bench/${scenario.file}`,
    gateway: {
      cold: strip(cold),
      warmWithinMaxAge: strip(warm),
      warmPastMaxAge: strip(past),
      load: gatewayLoad,
      memory,
    },
    rest: {
      calls: scenario.rest.calls,
      callsPerOperation: scenario.rest.calls.length,
      load: restLoad,
    },
  };
}

async function planOf(rest: RestClient, token: string, planId: string) {
  const t0 = performance.now();
  const answer = await rest.get<{ plan: PlanDetail }>(`/plans/${planId}`, token);
  if (answer.status !== 200) throw new Error(`GET /plans/${planId} answered ${answer.status}`);
  return { plan: answer.data.plan, bytes: answer.bytes, ms: performance.now() - t0 };
}

function writeResults(out: string, results: unknown): void {
  const file = resolve(out);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`results written to ${file}`);
}

async function main(): Promise<void> {
  const parsed = parseBenchOptions(process.argv.slice(2));
  if (parsed === 'help') {
    process.stdout.write(HELP);
    return;
  }
  const options = parsed;
  if (options.instances > 0) {
    console.log(`Instances: 1 alone, 1 + Redis and ${options.instances} + Redis...`);
    const results = await runInstancesBench(options);
    console.log('');
    console.log(formatInstancesResults(results));
    const file = resolve(options.out);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`results written to ${file}`);
    return;
  }
  if (options.large) {
    console.log(
      `Large plans (${options.largeSizes.join(', ')} transactions, ${options.repeats} runs each${options.loaded ? ', machine loaded: a second process busy beside every measurement' : ''})...`,
    );
    const rows = await runLargePlans({
      sizes: options.largeSizes,
      repeats: options.repeats,
      loaded: options.loaded,
      ...(options.cpuProf
        ? { gatewayExecArgv: ['--cpu-prof', `--cpu-prof-dir=${options.cpuProf}`] }
        : {}),
    });
    console.log('');
    console.log(formatLargePlans(rows));
    const file = resolve(options.out);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify({ options, rows }, null, 2)}\n`);
    console.log(`results written to ${file}`);
    return;
  }
  if (options.summary) {
    console.log("Issue 34's figures: replays, warm misses, cold loads, writes...");
    const result = await runSummary(options);
    console.log('');
    console.log(formatSummary(result));
    writeResults(options.out, { options, result });
    return;
  }
  if (options.resume) {
    console.log(`Resuming after a day offline at ${options.latencyMs} ms upstream latency...`);
    const rows = await runResumeBench({
      latencyMs: options.latencyMs,
      sizes: [options.planTransactions, options.transactions],
      turns: Math.min(options.turns, 5),
      log: (line) => console.log(line),
    });
    console.log('');
    console.log(formatResume(rows, options.latencyMs));
    writeResults(options.out, { options, rows });
    return;
  }
  if (options.writes) {
    console.log(`Writes at ${options.latencyMs} ms upstream latency...`);
    const result = await runWritesBench({
      latencyMs: options.latencyMs,
      planTransactions: options.planTransactions,
      turns: options.turns,
    });
    console.log('');
    console.log(formatWrites(result));
    writeResults(options.out, { options, result });
    return;
  }
  if (options.replay) {
    console.log('Replays: the answer cache against raw node:http serving the same bytes...');
    const result = await runReplayBench({
      concurrency: options.concurrency,
      durationS: options.durationS,
      requests: options.requests,
      planTransactions: options.planTransactions,
      rounds: options.rounds,
      loaded: options.loaded,
    });
    console.log('');
    console.log(formatReplay(result));
    writeResults(options.out, { options, result });
    return;
  }
  if (options.floor) {
    console.log('Warm path: the gateway against bare graphql-yoga and raw node:http...');
    const result = await runFloorBench({
      concurrency: options.concurrency,
      durationS: options.durationS,
      requests: options.requests,
      planTransactions: options.planTransactions,
      rounds: options.rounds,
      ...(options.cpuProf
        ? { gatewayExecArgv: ['--cpu-prof', `--cpu-prof-dir=${options.cpuProf}`] }
        : {}),
    });
    console.log('');
    console.log(formatFloor(result));
    writeResults(options.out, { options, result });
    return;
  }
  if (options.subscriptions) {
    const results = await runSubscriptionsBench(options);
    console.log('');
    console.log(formatSubscriptionResults(results));
    const file = resolve(options.out);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`results written to ${file}`);
    return;
  }
  const begin = performance.now();
  const startedAt = new Date().toISOString();
  const now = Date.now();
  const window = previousMonth(now);

  console.log(
    `Seeding the sandbox (4 plans of ${options.planTransactions} and one of ${options.transactions} transactions)...`,
  );
  const seedStart = performance.now();
  const everyday = { seed: 1, transactions: options.planTransactions };
  const sandbox = await createSandbox({
    port: 0,
    rateLimit: false,
    latency: { fixedMs: options.latencyMs },
    users: [
      { token: TOKENS.dashboard, plans: [everyday] },
      { token: TOKENS.account, plans: [everyday] },
      { token: TOKENS.month, plans: [everyday] },
      { token: TOKENS.write, plans: [everyday] },
      { token: TOKENS.large, plans: [{ seed: 7, transactions: options.transactions }] },
    ],
  });
  const seedMs = performance.now() - seedStart;
  const rest = createRestClient(sandbox.url, options.concurrency * 4);
  let gateway: GatewayProcess | undefined;
  let gql: GraphQLClient | undefined;
  try {
    const planIdOf = (index: number) => sandbox.users[index]!.planIds[0]!;
    const plans: Record<keyof typeof TOKENS, ScenarioPlan> = {} as never;
    for (const [index, key] of (['dashboard', 'account', 'month', 'write'] as const).entries()) {
      const { plan } = await planOf(rest, TOKENS[key], planIdOf(index));
      plans[key] = { token: TOKENS[key], planId: plan.id, accountId: busiestAccount(plan, window) };
    }
    console.log(`Reading the large plan export over REST...`);
    const largeExport = await planOf(rest, TOKENS.large, planIdOf(4));
    plans.large = {
      token: TOKENS.large,
      planId: largeExport.plan.id,
      accountId: busiestAccount(largeExport.plan, window),
    };
    const exportFigures = { bytes: largeExport.bytes, ms: largeExport.ms };
    (largeExport as { plan: unknown }).plan = undefined; // let the parent drop 100k rows before measuring

    gateway = await startGatewayProcess({ upstreamUrl: sandbox.url, maxAgeMs: options.maxAgeMs });
    gql = createGraphQLClient(gateway.url, options.concurrency);
    const bench: Bench = {
      options,
      sandbox,
      gateway,
      gql,
      rest,
      load: {
        concurrency: options.concurrency,
        requests: options.requests,
        durationMs: options.durationS * 1000,
      },
    };
    const gatewayMemoryAtStart = await gateway.figures({ gc: true });
    const scenarios = createScenarios({ rest, window, today: isoDay(now), ...plans });

    console.log('Measuring:');
    const results: ScenarioResult[] = [];
    let large: LargePlanResult | undefined;
    for (const scenario of scenarios) {
      if (scenario.key !== 'filtered') {
        results.push(await measureScenario(bench, scenario));
        continue;
      }
      const before = await gateway.figures({ gc: true });
      let coldMs = 0;
      let page = { size: 0, totalCount: 0, rowsVisitedFirstPage: 0, rowsVisitedSecondPage: 0 };
      let after = before;
      const result = await measureScenario(bench, scenario, async () => {
        after = await gateway!.figures({ gc: true });
        // Rows visited for the first page and the page after it, on the warm replica.
        await gateway!.resetMeter();
        const first = await gql!.request(scenario.query, scenario.variables, scenario.token);
        const firstRows = (await gateway!.figures({ gc: false })).rowsVisited;
        const connection = (
          first.body.data as {
            plan: {
              transactions: {
                totalCount: number;
                pageInfo: { endCursor: string | null };
                nodes: unknown[];
              };
            };
          }
        ).plan.transactions;
        await gateway!.resetMeter();
        await gql!.request(
          scenario.query,
          { ...scenario.variables, after: connection.pageInfo.endCursor },
          scenario.token,
        );
        const secondRows = (await gateway!.figures({ gc: false })).rowsVisited;
        page = {
          size: connection.nodes.length,
          totalCount: connection.totalCount,
          rowsVisitedFirstPage: firstRows,
          rowsVisitedSecondPage: secondRows,
        };
      });
      coldMs = result.gateway.cold.ms;
      results.push(result);
      const replicaEstimateBytes = after.replicas.bytes - before.replicas.bytes;
      const replicaHeapBytes = after.heapUsedBytes - before.heapUsedBytes;
      large = {
        transactions: options.transactions,
        exportBytes: exportFigures.bytes,
        exportMs: exportFigures.ms,
        gatewayColdMs: coldMs,
        replicaEstimateBytes,
        replicaHeapBytes,
        replicaRssBytes: after.rssBytes - before.rssBytes,
        heapPerJsonByte: replicaHeapBytes / exportFigures.bytes,
        estimatePerJsonByte: replicaEstimateBytes / exportFigures.bytes,
        page,
      };
    }

    console.log('  dashboard over a zero-latency upstream');
    const dashboard = scenarios.find((s) => s.key === 'dashboard')!;
    sandbox.setLatency({ fixedMs: 0 });
    const concurrency1 = await loadPhase(
      bench,
      dashboard.token,
      gatewayOperation(bench, dashboard),
      { ...bench.load, concurrency: 1 },
    );
    const concurrencyN = await loadPhase(
      bench,
      dashboard.token,
      gatewayOperation(bench, dashboard),
    );
    sandbox.setLatency({ fixedMs: options.latencyMs });

    const output: BenchResults = {
      startedAt,
      environment: {
        node: process.version,
        platform: process.platform,
        cpus: cpus().length,
        loadAverage: loadavg(),
      },
      options,
      setup: { seedMs, gatewayPid: gateway.pid },
      gatewayMemoryAtStart,
      scenarios: results,
      dashboardZeroLatency: { concurrency1, concurrencyN },
      largePlan: large!,
      totalMs: performance.now() - begin,
    };
    console.log('');
    console.log(formatResults(output));
    const file = resolve(options.out);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(output, null, 2)}\n`);
    console.log(`results written to ${file}`);
  } finally {
    await gql?.close();
    await gateway?.close();
    await rest.close();
    await sandbox.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
