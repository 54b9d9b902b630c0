/**
 * `npm run bench -- --writes`: a write through the gateway against the same REST POST.
 *
 * The sandbox (this process, `--latency` added to every answer, rate limit off) holds one
 * everyday plan; the gateway (its own process) holds its replica warm. Each turn creates one
 * transaction three ways, one after another: the REST POST itself (the baseline), the gateway's
 * `createTransaction` selecting only what the POST's answer carries (the new id and fields: one
 * upstream round trip), and the same mutation selecting the account's balance (a derived figure:
 * one trip too when the write's answer is one knowledge step past the replica, which the
 * previous write's settled delta makes it here; else the write and its delta). A pause after
 * each lets the gateway's delta settle, so every figure is one write alone. Medians of `turns`.
 */
import { createSandbox } from '@plans-gateway/sandbox';
import {
  createGraphQLClient,
  createRestClient,
  type GraphQLClient,
  isGoodAnswer,
  type RestClient,
} from './clients.js';
import { startGatewayProcess } from './gateway-process.js';

const TOKEN = 'bench-writes-token';
const TODAY = new Date().toISOString().slice(0, 10);

export const IDS_ONLY = `mutation($p: PlanId!, $input: CreateTransactionInput!) {
  createTransaction(planId: $p, input: $input) {
    __typename
    ... on CreateTransactionPayload { transactionIds serverKnowledge transaction { id date amount memo } }
  }
}`;

export const WITH_BALANCE = `mutation($p: PlanId!, $input: CreateTransactionInput!) {
  createTransaction(planId: $p, input: $input) {
    __typename
    ... on CreateTransactionPayload { transaction { id amount account { balance clearedBalance } } }
  }
}`;

/** Long enough for the previous turn's delta (one round trip) to settle. */
const SETTLE_MS = 300;

export interface WritesOptions {
  latencyMs: number;
  planTransactions: number;
  /** Writes of each kind; medians reported. @default 15 */
  turns: number;
}

export interface WritesResult {
  latencyMs: number;
  /** Median milliseconds. */
  restPostMs: number;
  idsOnlyMs: number;
  withBalanceMs: number;
  /** The gateway's mutation over the REST POST. */
  idsOnlyRatio: number;
  withBalanceRatio: number;
  samples: { rest: number[]; idsOnly: number[]; withBalance: number[] };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The plan a writes bench writes to, an open account of it, and the gateway's replica of it
 * loaded (so no write pays the export).
 */
export async function warmPlan(
  planId: string,
  rest: RestClient,
  gql: GraphQLClient,
  token: string,
): Promise<{ planId: string; accountId: string }> {
  const accounts = await rest.get<{ accounts: { id: string; closed: boolean }[] }>(
    `/plans/${planId}/accounts`,
    token,
  );
  const accountId = accounts.data.accounts.find((a) => !a.closed)!.id;
  const warm = await gql.request('{ plan(id: "last-used") { accounts { balance } } }', {}, token);
  if (!isGoodAnswer(warm)) throw new Error(`warm-up: HTTP ${warm.status}`);
  return { planId, accountId };
}

export async function runWritesBench(options: WritesOptions): Promise<WritesResult> {
  const sandbox = await createSandbox({
    port: 0,
    rateLimit: false,
    latency: { fixedMs: options.latencyMs },
    users: [{ token: TOKEN, plans: [{ seed: 1, transactions: options.planTransactions }] }],
  });
  const rest = createRestClient(sandbox.url, 2);
  const gateway = await startGatewayProcess({ upstreamUrl: sandbox.url, maxAgeMs: 3_600_000 });
  const gql = createGraphQLClient(gateway.url, 2);
  try {
    const { planId, accountId } = await warmPlan(sandbox.users[0]!.planIds[0]!, rest, gql, TOKEN);

    const input = (turn: number, kind: string) => ({
      accountId,
      date: TODAY,
      amount: -1000 - turn,
      memo: `bench ${kind} ${turn}`,
    });
    const timed = async (work: () => Promise<boolean>) => {
      const t0 = performance.now();
      const ok = await work();
      const ms = performance.now() - t0;
      if (!ok) throw new Error('a write failed');
      await pause(SETTLE_MS);
      return ms;
    };
    const mutation = (query: string, turn: number, kind: string) => async () => {
      const answer = await gql.request(query, { p: planId, input: input(turn, kind) }, TOKEN);
      return isGoodAnswer(answer);
    };
    const samples = { rest: [] as number[], idsOnly: [] as number[], withBalance: [] as number[] };
    for (let turn = 0; turn < options.turns; turn += 1) {
      samples.rest.push(
        await timed(async () => {
          const { accountId: account_id, date, amount, memo } = input(turn, 'rest');
          const answer = await rest.send('POST', `/plans/${planId}/transactions`, TOKEN, {
            transaction: { account_id, date, amount, memo },
          });
          return answer.status === 201;
        }),
      );
      samples.idsOnly.push(await timed(mutation(IDS_ONLY, turn, 'ids')));
      samples.withBalance.push(await timed(mutation(WITH_BALANCE, turn, 'balance')));
    }
    const restPostMs = median(samples.rest);
    const idsOnlyMs = median(samples.idsOnly);
    const withBalanceMs = median(samples.withBalance);
    return {
      latencyMs: options.latencyMs,
      restPostMs,
      idsOnlyMs,
      withBalanceMs,
      idsOnlyRatio: idsOnlyMs / restPostMs,
      withBalanceRatio: withBalanceMs / restPostMs,
      samples,
    };
  } finally {
    await gql.close();
    await gateway.close();
    await rest.close();
    await sandbox.close();
  }
}

export function formatWrites(result: WritesResult): string {
  return [
    `A write at ${result.latencyMs} ms upstream latency (medians of ${result.samples.rest.length}):`,
    '',
    '| write | ms | / REST POST |',
    '| --- | --- | --- |',
    `| REST POST /transactions | ${result.restPostMs.toFixed(1)} | 1.00x |`,
    `| createTransaction, the new id and fields | ${result.idsOnlyMs.toFixed(1)} | ${result.idsOnlyRatio.toFixed(2)}x |`,
    `| createTransaction with the account's balance | ${result.withBalanceMs.toFixed(1)} | ${result.withBalanceRatio.toFixed(2)}x |`,
  ].join('\n');
}
