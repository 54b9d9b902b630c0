/**
 * `npm run bench -- --resume`: an offline-first client resuming after a day away (issue 35).
 *
 * The sandbox (this process, `--latency` added to every answer, rate limit off) holds an
 * everyday plan (`--plan-transactions`, 1,200) and a large one (`--transactions`, 100,000), one
 * token each; the gateway runs in its own process. The client loads the example app's screens
 * (examples/web/src/operations.ts: the dashboard, and the newest 10 transactions) and takes a
 * `changes` cursor. Then, each turn, a day passes (the gateway's clock moves past max-age, so
 * its copy is stale; see AWAY_MS) while another client makes 20 changes at the REST interface (12 new
 * transactions, 5 edited, 3 deleted), and the app comes back one of two ways, alternately:
 *
 * - resume: one `changes(since:)` request (more while `hasMore`) selecting what the screens
 *   show of each changed row;
 * - refetch: the screens' two queries again, in parallel (what `refetchQueries` sends).
 *
 * Measured per way: bytes on the wire (request and response: request line, headers and body,
 * uncompressed, as client-bytes.ts counts them), milliseconds to a current screen (the last
 * answer received), and upstream calls (the sandbox's count for the token). Medians of `turns`.
 * The goal (issue 35): a resume under 5% of a refetch's bytes, for 0 or 1 upstream call.
 */
import { createSandbox, type Sandbox } from '@plans-gateway/sandbox';
import { Pool } from 'undici';
import { createRestClient, type RestClient } from './clients.js';
import { startGatewayProcess } from './gateway-process.js';

/**
 * How far the gateway's clock moves for "a day": past its max-age (so its copy is stale, as
 * after any time away), not a whole day, whose midnight would move the gateway's current month
 * away from the sandbox's (which runs on real time) on the last days of a month.
 */
const AWAY_MS = 31_000;
const CHANGES_PER_DAY = { created: 12, edited: 5, deleted: 3 } as const;

/** The example app's screens (examples/web/src/operations.ts, DASHBOARD and RECENT_TRANSACTIONS). */
const DASHBOARD = `query Dashboard($planId: PlanId!) {
  plan(id: $planId) {
    id name
    accounts { id name type closed onBudget balance balanceFormatted }
    month(month: "current") {
      id budgeted activity toBeBudgeted toBeBudgetedFormatted month
      categories { id budgeted activity balance categoryId name hidden categoryGroupName }
    }
  }
}`;
const RECENT = `query RecentTransactions($planId: PlanId!, $first: Int!, $after: String) {
  plan(id: $planId) {
    id
    transactions(first: $first, after: $after) {
      totalCount
      edges { cursor node { id date amount amountFormatted memo payeeName categoryName account { id name } } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;
/** What the screens show of each changed row, and the ids to drop. */
const RESUME = `query Resume($planId: PlanId!, $since: String) {
  changes(planId: $planId, since: $since) {
    __typename
    ... on ChangesPage {
      cursor hasMore
      changes {
        accounts { id balance balanceFormatted }
        monthCategories { id budgeted activity balance }
        months { id budgeted activity toBeBudgeted toBeBudgetedFormatted }
        transactions { id date amount amountFormatted memo payeeName categoryName account { id name } }
        deleted { transactionIds accountIds categoryIds }
      }
    }
    ... on ReloadRequired { cursor }
  }
}`;

export interface ResumeOptions {
  latencyMs: number;
  /** The everyday plan and the large one, in transactions. */
  sizes: readonly number[];
  /** Days offline of each way; medians reported. */
  turns: number;
  log?: (line: string) => void;
}

interface Way {
  /** Median bytes on the wire, both directions. */
  bytes: number;
  /** Median milliseconds to a current screen. */
  ms: number;
  /** Most upstream calls of a turn. */
  upstreamCalls: number;
  /** Requests to the gateway of a turn (a resume may page). */
  requests: number;
  /** Resume only: rows of a turn's pages (transactions, deleted ids, accounts, month rows). */
  rows?: string;
}

export interface ResumeRow {
  transactions: number;
  resume: Way;
  refetch: Way;
  /** The resume's bytes over the refetch's. */
  bytesRatio: number;
}

interface Exchange {
  readonly bytes: number;
  readonly body: { data?: Record<string, unknown>; errors?: unknown[] };
}

function headerBytes(headers: Record<string, unknown>): number {
  return Object.entries(headers).reduce((n, [k, v]) => n + k.length + String(v).length + 4, 0);
}

/** One POST to the gateway, counted as client-bytes.ts counts: line, headers, body, each way. */
async function post(
  pool: Pool,
  path: string,
  token: string,
  query: string,
  variables: Record<string, unknown>,
  extra: Record<string, string> = {},
): Promise<Exchange> {
  const body = JSON.stringify({ query, variables });
  const headers = {
    ...extra,
    'content-type': 'application/json',
    accept: 'application/graphql-response+json, application/json',
    authorization: `Bearer ${token}`,
  };
  const response = await pool.request({ method: 'POST', path, headers, body });
  const text = await response.body.text();
  const sent =
    `POST ${path} HTTP/1.1\r\n`.length + headerBytes(headers) + 2 + Buffer.byteLength(body);
  const received =
    'HTTP/1.1 200 OK\r\n'.length + headerBytes(response.headers) + 2 + Buffer.byteLength(text);
  const parsed = JSON.parse(text) as Exchange['body'];
  if (response.statusCode !== 200 || parsed.errors?.length) {
    throw new Error(
      `gateway answered ${response.statusCode}: ${JSON.stringify(parsed.errors ?? text.slice(0, 300))}`,
    );
  }
  return { bytes: sent + received, body: parsed };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Private: the day's new transactions at the REST interface, behind the gateway's back. */
async function newTransactions(
  rest: RestClient,
  token: string,
  planId: string,
  turn: number,
): Promise<void> {
  const today = new Date().toISOString().slice(0, 10);
  const accountId = await openAccount(rest, token, planId);
  const categories = await rest.get<{
    category_groups: { hidden: boolean; categories: { id: string; hidden: boolean }[] }[];
  }>(`/plans/${planId}/categories`, token);
  const categoryIds = categories.data.category_groups
    .filter((group) => !group.hidden)
    .flatMap((group) => group.categories.filter((c) => !c.hidden).map((c) => c.id));
  for (let i = 0; i < CHANGES_PER_DAY.created; i++) {
    await rest.send('POST', `/plans/${planId}/transactions`, token, {
      transaction: {
        account_id: accountId,
        category_id: categoryIds[(turn * 7 + i) % categoryIds.length],
        date: today,
        amount: -1_000 * (i + 1),
        memo: `day ${turn} #${i}`,
      },
    });
  }
}

/** Private: an open on-budget account of the plan. */
async function openAccount(rest: RestClient, token: string, planId: string): Promise<string> {
  const accounts = await rest.get<{
    accounts: { id: string; closed: boolean; on_budget: boolean }[];
  }>(`/plans/${planId}/accounts`, token);
  return accounts.data.accounts.find((a) => !a.closed && a.on_budget)!.id;
}

/**
 * Private: rows for the day's edits and deletions, made before the day starts (and seen by the
 * gateway), so the day itself holds exactly 20 changes.
 */
async function rowsToTouch(
  rest: RestClient,
  token: string,
  planId: string,
  count: number,
): Promise<string[]> {
  const accountId = await openAccount(rest, token, planId);
  const today = new Date().toISOString().slice(0, 10);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const answer = await rest.send<{ transaction: { id: string } }>(
      'POST',
      `/plans/${planId}/transactions`,
      token,
      {
        transaction: {
          account_id: accountId,
          date: today,
          amount: -500 - i,
          memo: `to touch ${i}`,
        },
      },
    );
    ids.push(answer.data.transaction.id);
  }
  return ids;
}

export async function runResumeBench(options: ResumeOptions): Promise<ResumeRow[]> {
  const log = options.log ?? (() => {});
  const tokens = options.sizes.map((_, i) => `bench-resume-token-${i}`);
  const sandbox: Sandbox = await createSandbox({
    port: 0,
    rateLimit: false,
    latency: { fixedMs: options.latencyMs },
    users: options.sizes.map((transactions, i) => ({
      token: tokens[i]!,
      plans: [{ seed: 1 + i, transactions }],
    })),
  });
  const rest = createRestClient(sandbox.url, 2);
  const gateway = await startGatewayProcess({ upstreamUrl: sandbox.url, maxAgeMs: 30_000 });
  const target = new URL(gateway.url);
  const pool = new Pool(target.origin, { connections: 4, keepAliveTimeout: 60_000 });
  const rows: ResumeRow[] = [];
  try {
    for (const [i, transactions] of options.sizes.entries()) {
      const token = tokens[i]!;
      const planId = sandbox.users[i]!.planIds[0]!;
      const ask = (query: string, variables: Record<string, unknown>, extra = {}) =>
        post(pool, target.pathname, token, query, variables, extra);
      const calls = () => sandbox.calls().filter((call) => call.token === token).length;
      const screens = () =>
        Promise.all([ask(DASHBOARD, { planId }), ask(RECENT, { planId, first: 10 })]);
      log(`  ${transactions.toLocaleString('en-US')} transactions: loading the screens...`);
      await screens();
      let cursor = ((await ask(RESUME, { planId })).body.data!.changes as { cursor: string })
        .cursor;
      const samples = { resume: [] as Exchange[][], refetch: [] as Exchange[][] };
      const times = { resume: [] as number[], refetch: [] as number[] };
      const upstream = { resume: [] as number[], refetch: [] as number[] };
      for (let turn = 0; turn < options.turns * 2; turn++) {
        const way = turn % 2 === 0 ? 'resume' : 'refetch';
        // The rows the day edits and deletes exist before it (the gateway has seen them).
        const touched = await rowsToTouch(
          rest,
          token,
          planId,
          CHANGES_PER_DAY.edited + CHANGES_PER_DAY.deleted,
        );
        // The client is current before it goes offline (its copy and cursor include them).
        for (;;) {
          const page = await ask(
            RESUME,
            { planId, since: cursor },
            { 'cache-control': 'no-cache' },
          );
          const result = page.body.data!.changes as { cursor: string; hasMore?: boolean };
          cursor = result.cursor;
          if (!result.hasMore) break;
        }
        await gateway.advanceClock(AWAY_MS);
        await newTransactions(rest, token, planId, turn);
        for (const id of touched.slice(0, CHANGES_PER_DAY.edited)) {
          await rest.send('PUT', `/plans/${planId}/transactions/${id}`, token, {
            transaction: { memo: `edited on day ${turn}` },
          });
        }
        for (const id of touched.slice(CHANGES_PER_DAY.edited)) {
          await rest.send('DELETE', `/plans/${planId}/transactions/${id}`, token);
        }
        sandbox.resetCalls();
        const t0 = performance.now();
        const exchanges: Exchange[] = [];
        if (way === 'resume') {
          for (;;) {
            const page = await ask(RESUME, { planId, since: cursor });
            exchanges.push(page);
            const result = page.body.data!.changes as { cursor: string; hasMore?: boolean };
            cursor = result.cursor;
            if (!result.hasMore) break;
          }
        } else {
          exchanges.push(...(await screens()));
        }
        times[way].push(performance.now() - t0);
        upstream[way].push(calls());
        samples[way].push(exchanges);
      }
      const rowsOf = (turn: Exchange[]) => {
        const count = { transactions: 0, deleted: 0, accounts: 0, monthCategories: 0, months: 0 };
        for (const page of turn) {
          const c = (
            page.body.data!.changes as {
              changes: Record<string, unknown[]> & { deleted: Record<string, unknown[]> };
            }
          ).changes;
          count.transactions += c.transactions!.length;
          count.deleted += Object.values(c.deleted).reduce((n, ids) => n + ids.length, 0);
          count.accounts += c.accounts!.length;
          count.monthCategories += c.monthCategories!.length;
          count.months += c.months!.length;
        }
        return `${count.transactions} tx, ${count.deleted} deleted, ${count.accounts} accounts, ${count.monthCategories} month categories, ${count.months} months`;
      };
      const wayOf = (way: 'resume' | 'refetch'): Way => ({
        ...(way === 'resume' ? { rows: rowsOf(samples.resume.at(-1)!) } : {}),
        bytes: median(samples[way].map((turn) => turn.reduce((n, e) => n + e.bytes, 0))),
        ms: median(times[way]),
        upstreamCalls: Math.max(...upstream[way]),
        requests: Math.max(...samples[way].map((turn) => turn.length)),
      });
      const resume = wayOf('resume');
      const refetch = wayOf('refetch');
      rows.push({ transactions, resume, refetch, bytesRatio: resume.bytes / refetch.bytes });
    }
    return rows;
  } finally {
    await pool.close();
    await gateway.close();
    await rest.close();
    await sandbox.close();
  }
}

export function formatResume(rows: readonly ResumeRow[], latencyMs: number): string {
  const lines = [
    `Resuming after a day offline with 20 changes (12 new, 5 edited, 3 deleted), at ${latencyMs} ms upstream latency: one \`changes(since:)\` against refetching the example app's screens (dashboard + newest 10 transactions). Goal: under 5% of the bytes, 0 or 1 upstream call.`,
    '',
    '| plan | way | bytes | ms to a current screen | upstream calls | requests | bytes vs refetch | goal | rows sent |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const row of rows) {
    const plan = `${row.transactions.toLocaleString('en-US')} tx`;
    const met = row.bytesRatio < 0.05 && row.resume.upstreamCalls <= 1;
    lines.push(
      `| ${plan} | resume | ${row.resume.bytes} | ${row.resume.ms.toFixed(1)} | ${row.resume.upstreamCalls} | ${row.resume.requests} | ${(row.bytesRatio * 100).toFixed(1)}% | ${met ? 'met' : 'missed'} | ${row.resume.rows ?? ''} |`,
      `| ${plan} | refetch | ${row.refetch.bytes} | ${row.refetch.ms.toFixed(1)} | ${row.refetch.upstreamCalls} | ${row.refetch.requests} | 100% | | |`,
    );
  }
  return lines.join('\n');
}
