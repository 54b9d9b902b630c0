/**
 * `npm run bench -- --resume`: an offline-first client resuming after a day away (issue 35).
 *
 * The sandbox (this process, `--latency` added to every answer, rate limit off) holds an
 * everyday plan (`--plan-transactions`, 1,200) and a large one (`--transactions`, 100,000), one
 * token each; the gateway runs in its own process. The client has used the example app
 * (examples/web) as a person does: Home (the dashboard query and the newest 10 transactions),
 * Budget (the same dashboard query) and the register of each open on-budget account (its first
 * page, 50 rows), and takes a `changes` cursor. Then, each turn, a day passes (the gateway's clock
 * moves past max-age, so its copy is stale; see AWAY_MS) while another client makes 20 changes at
 * the REST interface (12 new transactions, 5 edited, 3 deleted), and the app comes back one of two
 * ways, alternately:
 *
 * - resume: the app's `changes(since:)` (examples/web/src/operations.ts, RESUME_CHANGES: what the
 *   screens show of each changed row), more pages while `hasMore`; the client kit places new and
 *   moved rows in Home's list and the registers itself when a page says where each transaction
 *   was before (`transactionsBefore`); when it cannot (`transactionsBefore` null), it drops the
 *   lists that gained a row and they are read again: Home's newest 10 (on screen, so at once) and
 *   the registers that gained rows (when next opened). Both figures are reported: the resume
 *   alone, and with those reads (the same when the kit placed every row);
 * - refetch: every one of those screens' queries again, in parallel (what `refetchQueries` sends).
 *
 * Every request is sent as the app's Apollo Client sends it (examples/web/src/client.ts): the
 * app's own documents with `__typename` added to each selection, `operationName`, Apollo's
 * `extensions.clientLibrary`, and by automatic persisted query: the hash alone, the printed text
 * with it only when the gateway answers `PERSISTED_QUERY_NOT_FOUND` (both requests counted; the
 * screens were loaded once before, so a measured turn sends hashes). Measured per way: bytes on the wire (request line, headers and
 * body, both ways) uncompressed and with `Accept-Encoding: gzip` (the gateway compresses answers
 * of 1 KiB and more), milliseconds to a current screen (the last answer received), and upstream
 * calls (the sandbox's count for the token). Medians of `turns`. The goal (issue 35): a resume
 * under 5% of a refetch's bytes, for 0 or 1 upstream call. Beside it, a floor: the gzip of the
 * resume's values alone (no field names, no types, no headers) and of the values its request
 * must carry (the plan and the cursor), which any protocol carrying those 20 changes must send
 * in some form (ids are random: they do not compress).
 */
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { version as apolloVersion } from '@apollo/client';
import { addTypenameToDocument } from '@apollo/client/utilities';
import { type ChangesPage, transactionMovesOf } from '@plans-gateway/client-kit/offline';
import { createSandbox, type Sandbox } from '@plans-gateway/sandbox';
import { type DocumentNode, parse, print } from 'graphql';
import { Pool } from 'undici';
import {
  ACCOUNT_REGISTER,
  DASHBOARD,
  RECENT_TRANSACTIONS,
  REGISTER_PAGE,
  RESUME_CHANGES,
} from '../examples/web/src/operations.js';
import { createRestClient, type RestClient } from './clients.js';
import { startGatewayProcess } from './gateway-process.js';

/**
 * How far the gateway's clock moves for "a day": past its max-age (so its copy is stale, as
 * after any time away), not a whole day, whose midnight would move the gateway's current month
 * away from the sandbox's (which runs on real time) on the last days of a month.
 */
const AWAY_MS = 31_000;
const CHANGES_PER_DAY = { created: 12, edited: 5, deleted: 3 } as const;

/** Home's list: the newest transactions, 10 at a time (examples/web/src/RecentTransactions.tsx). */
const RECENT_PAGE = 10;
const RESUME = parse(RESUME_CHANGES);

/**
 * Apollo Client 4's request body for `document` as the example app sends it: its cache adds
 * `__typename`, HttpLink adds `extensions.clientLibrary`, and the app's PersistedQueryLink sends
 * the hash alone (`withText`: hash and printed text, once, when the gateway does not know it).
 */
function apolloBody(
  document: DocumentNode,
  variables: Record<string, unknown>,
  withText: boolean,
): string {
  const sent = addTypenameToDocument(document);
  const operation = sent.definitions.find((d) => d.kind === 'OperationDefinition');
  const text = print(sent);
  return JSON.stringify({
    operationName: operation?.name?.value,
    variables,
    extensions: {
      clientLibrary: { name: '@apollo/client', version: apolloVersion },
      persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(text).digest('hex') },
    },
    ...(withText ? { query: text } : {}),
  });
}

export interface ResumeOptions {
  latencyMs: number;
  /** The everyday plan and the large one, in transactions. */
  sizes: readonly number[];
  /** Days offline of each way; medians reported. */
  turns: number;
  log?: (line: string) => void;
}

interface Way {
  /** Median bytes on the wire, both directions, uncompressed. */
  bytes: number;
  /** The same with `Accept-Encoding: gzip` (answers of 1 KiB and more compressed). */
  gzipBytes: number;
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
  /** What the refetch reads: the screens and their queries. */
  screens: string;
  /** The `changes` pages alone. */
  resume: Way;
  /** The `changes` pages, then the lists the kit reads again (Home's at once, grown registers when opened). */
  resumeWithLists: Way;
  refetch: Way;
  /** The resume's bytes over the refetch's, uncompressed. */
  bytesRatio: number;
  /** The same with gzip on both sides. */
  gzipRatio: number;
  /** With the lists read again, uncompressed and with gzip. */
  withListsRatio: number;
  withListsGzipRatio: number;
  /** Median gzip bytes of the resume's values alone (see the header), and over the refetch's gzip bytes. */
  floorBytes: number;
  floorRatio: number;
}

interface Exchange {
  /** Uncompressed: the answer as the gateway sends it without `Accept-Encoding`. */
  readonly bytes: number;
  /** On the wire with `Accept-Encoding: gzip`. */
  readonly gzipBytes: number;
  readonly body: { data?: Record<string, unknown>; errors?: unknown[] };
  readonly status: number;
}

function headerBytes(headers: Record<string, unknown>): number {
  return Object.entries(headers).reduce((n, [k, v]) => n + k.length + String(v).length + 4, 0);
}

/**
 * One POST to the gateway as the app's Apollo Client sends it, counted as client-bytes.ts counts
 * (line, headers, body, each way). Sent once, with `Accept-Encoding: gzip`: the uncompressed
 * figure is the same exchange without that request header, and with the answer's body as
 * inflated, its `content-length` and no `content-encoding` (what the gateway sends then).
 */
async function post(
  pool: Pool,
  path: string,
  token: string,
  document: DocumentNode,
  variables: Record<string, unknown>,
  extra: Record<string, string> = {},
): Promise<Exchange> {
  const hashOnly = await postBody(pool, path, token, apolloBody(document, variables, false), extra);
  if (!hashOnly.body.errors?.some((e) => errorCode(e) === 'PERSISTED_QUERY_NOT_FOUND'))
    return checked(hashOnly);
  // The gateway does not know the text yet: Apollo sends it with the hash, once.
  const withText = await postBody(pool, path, token, apolloBody(document, variables, true), extra);
  checked(withText);
  return {
    bytes: hashOnly.bytes + withText.bytes,
    gzipBytes: hashOnly.gzipBytes + withText.gzipBytes,
    body: withText.body,
    status: withText.status,
  };
}

function errorCode(error: unknown): unknown {
  return (error as { extensions?: { code?: unknown } }).extensions?.code;
}

function checked(exchange: Exchange): Exchange {
  if (exchange.status !== 200 || exchange.body.errors?.length)
    throw new Error(
      `gateway answered ${exchange.status}: ${JSON.stringify(exchange.body.errors ?? exchange.body)}`,
    );
  return exchange;
}

/** Private: one POST of `body`, counted both ways (see `post`). */
async function postBody(
  pool: Pool,
  path: string,
  token: string,
  body: string,
  extra: Record<string, string>,
): Promise<Exchange> {
  const headers = {
    ...extra,
    'content-type': 'application/json',
    accept: 'application/graphql-response+json, application/json',
    authorization: `Bearer ${token}`,
  };
  const gzipHeader = { 'accept-encoding': 'gzip' };
  const response = await pool.request({
    method: 'POST',
    path,
    headers: { ...headers, ...gzipHeader },
    body,
  });
  const raw = Buffer.from(await response.body.arrayBuffer());
  const encoding = response.headers['content-encoding'];
  const plain = encoding === 'gzip' ? gunzipSync(raw) : raw;
  const requestBytes =
    `POST ${path} HTTP/1.1\r\n`.length + headerBytes(headers) + 2 + Buffer.byteLength(body);
  const statusLine = 'HTTP/1.1 200 OK\r\n'.length;
  const { 'content-encoding': _encoding, ...plainHeaders } = response.headers;
  if (encoding !== undefined) plainHeaders['content-length'] = String(plain.length);
  const text = plain.toString('utf8');
  const parsed = JSON.parse(text) as Exchange['body'];
  return {
    status: response.statusCode,
    bytes: requestBytes + statusLine + headerBytes(plainHeaders) + 2 + plain.length,
    gzipBytes:
      requestBytes +
      headerBytes(gzipHeader) +
      statusLine +
      headerBytes(response.headers) +
      2 +
      raw.length,
    body: parsed,
  };
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

/** A page of the app's resume, as far as the bench reads it. */
interface ResumePage {
  cursor: string;
  hasMore?: boolean;
  changes: {
    transactions: { id: string; account: { id: string } }[];
    accounts: unknown[];
    monthCategories: unknown[];
    months: unknown[];
    deleted: Record<string, unknown[]>;
  };
}

interface Turn {
  /** The `changes` pages (resume) or the screens' queries (refetch). */
  readonly exchanges: Exchange[];
  /** Resume only: the lists read again after it. */
  readonly lists: Exchange[];
  readonly ms: number;
  readonly msWithLists: number;
  readonly upstream: number;
  /** Resume only: gzip bytes of the pages' values alone. */
  readonly floor: number;
}

/** The leaves of an answer's data, in order: what it says, without its names and types. */
function valuesOf(value: unknown, into: unknown[] = []): unknown[] {
  if (Array.isArray(value)) for (const item of value) valuesOf(item, into);
  else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) {
      if (key !== '__typename') valuesOf(item, into);
    }
  else into.push(value);
  return into;
}

const sum = (exchanges: readonly Exchange[], field: 'bytes' | 'gzipBytes') =>
  exchanges.reduce((n, e) => n + e[field], 0);

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
  const pool = new Pool(target.origin, { connections: 8, keepAliveTimeout: 60_000 });
  const rows: ResumeRow[] = [];
  try {
    for (const [i, transactions] of options.sizes.entries()) {
      const token = tokens[i]!;
      const planId = sandbox.users[i]!.planIds[0]!;
      const ask = (document: DocumentNode, variables: Record<string, unknown>, extra = {}) =>
        post(pool, target.pathname, token, document, variables, extra);
      const calls = () => sandbox.calls().filter((call) => call.token === token).length;
      const recent = () => ask(RECENT_TRANSACTIONS, { planId, first: RECENT_PAGE });
      const register = (accountId: string) =>
        ask(ACCOUNT_REGISTER, { planId, accountId, first: REGISTER_PAGE });
      log(`  ${transactions.toLocaleString('en-US')} transactions: loading the screens...`);
      const home = await ask(DASHBOARD, { planId });
      const accounts = (
        home.body.data!.plan as { accounts: { id: string; closed: boolean; onBudget: boolean }[] }
      ).accounts;
      const registers = accounts.filter((a) => !a.closed && a.onBudget).map((a) => a.id);
      const screensText = `Home and Budget (the dashboard query) + Home's newest ${RECENT_PAGE} transactions + the first register page (${REGISTER_PAGE} rows) of each of the ${registers.length} open on-budget accounts`;
      // What the client's cache holds: a new row is one it does not (the kit reads its list again).
      const held = new Set<string>();
      const hold = (exchange: Exchange) => {
        for (const id of JSON.stringify(exchange.body).match(/"id":"[^"]+"/g) ?? []) held.add(id);
      };
      const screens = () =>
        Promise.all([ask(DASHBOARD, { planId }), recent(), ...registers.map(register)]);
      for (const exchange of await screens()) hold(exchange);
      let cursor = ((await ask(RESUME, { planId })).body.data!.changes as { cursor: string })
        .cursor;
      const turns = { resume: [] as Turn[], refetch: [] as Turn[] };
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
          hold(page);
          const result = page.body.data!.changes as ResumePage;
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
        const lists: Exchange[] = [];
        /** Each resume page's request values: what any client must send (the plan, the cursor). */
        const asked: string[][] = [];
        let ms = 0;
        if (way === 'resume') {
          const grown = new Set<string>();
          for (;;) {
            const page = await ask(RESUME, { planId, since: cursor });
            exchanges.push(page);
            asked.push([planId, cursor]);
            const result = page.body.data!.changes as ResumePage;
            // The kit places rows itself when the page says where they were (examples/web uses
            // newest-first lists with no filter); else it drops the lists that gained one.
            if (transactionMovesOf(result as unknown as ChangesPage) === undefined)
              for (const row of result.changes.transactions)
                if (!held.has(`"id":"${row.id}"`)) grown.add(row.account.id);
            hold(page);
            cursor = result.cursor;
            if (!result.hasMore) break;
          }
          ms = performance.now() - t0;
          // The kit dropped Plan.transactions and each grown Account.transactions: Home's list is
          // on screen (read again at once); a register when it is opened next.
          if (grown.size > 0)
            lists.push(
              ...(await Promise.all([
                recent(),
                ...[...grown].filter((id) => registers.includes(id)).map(register),
              ])),
            );
          for (const exchange of lists) hold(exchange);
        } else {
          exchanges.push(...(await screens()));
          for (const exchange of exchanges) hold(exchange);
          ms = performance.now() - t0;
        }
        turns[way].push({
          exchanges,
          lists,
          ms,
          msWithLists: performance.now() - t0,
          upstream: calls(),
          floor:
            way === 'resume'
              ? exchanges.reduce(
                  (n, page, index) =>
                    n +
                    gzipSync(JSON.stringify(asked[index])).length +
                    gzipSync(JSON.stringify(valuesOf(page.body.data))).length,
                  0,
                )
              : 0,
        });
      }
      const rowsOf = (turn: Turn) => {
        const count = { transactions: 0, deleted: 0, accounts: 0, monthCategories: 0, months: 0 };
        for (const page of turn.exchanges) {
          const c = (page.body.data!.changes as ResumePage).changes;
          count.transactions += c.transactions.length;
          count.deleted += Object.values(c.deleted).reduce(
            (n, ids) => n + (Array.isArray(ids) ? ids.length : 0),
            0,
          );
          count.accounts += c.accounts.length;
          count.monthCategories += c.monthCategories.length;
          count.months += c.months.length;
        }
        return `${count.transactions} tx, ${count.deleted} deleted, ${count.accounts} accounts, ${count.monthCategories} month categories, ${count.months} months`;
      };
      const wayOf = (list: readonly Turn[], withLists: boolean): Way => {
        const of = (turn: Turn) =>
          withLists ? [...turn.exchanges, ...turn.lists] : turn.exchanges;
        return {
          bytes: median(list.map((turn) => sum(of(turn), 'bytes'))),
          gzipBytes: median(list.map((turn) => sum(of(turn), 'gzipBytes'))),
          ms: median(list.map((turn) => (withLists ? turn.msWithLists : turn.ms))),
          upstreamCalls: Math.max(...list.map((turn) => turn.upstream)),
          requests: Math.max(...list.map((turn) => of(turn).length)),
        };
      };
      const resume = { ...wayOf(turns.resume, false), rows: rowsOf(turns.resume.at(-1)!) };
      const resumeWithLists = wayOf(turns.resume, true);
      const refetch = wayOf(turns.refetch, false);
      rows.push({
        transactions,
        screens: screensText,
        resume,
        resumeWithLists,
        refetch,
        bytesRatio: resume.bytes / refetch.bytes,
        gzipRatio: resume.gzipBytes / refetch.gzipBytes,
        withListsRatio: resumeWithLists.bytes / refetch.bytes,
        withListsGzipRatio: resumeWithLists.gzipBytes / refetch.gzipBytes,
        floorBytes: median(turns.resume.map((turn) => turn.floor)),
        floorRatio: median(turns.resume.map((turn) => turn.floor)) / refetch.gzipBytes,
      });
    }
    return rows;
  } finally {
    await pool.close();
    await gateway.close();
    await rest.close();
    await sandbox.close();
  }
}

/** The goal: under 5% of the refetch's bytes (on the wire: with gzip), 0 or 1 upstream call. */
export function resumeMet(row: ResumeRow): boolean {
  return row.gzipRatio < 0.05 && row.resume.upstreamCalls <= 1;
}

const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;

export function formatResume(rows: readonly ResumeRow[], latencyMs: number): string {
  const lines = [
    `Resuming after a day offline with 20 changes (12 new, 5 edited, 3 deleted), at ${latencyMs} ms upstream latency: the example app's \`changes(since:)\` against refetching the screens it showed (${rows[0]?.screens ?? ''}), each request as Apollo Client sends it. Bytes both ways, uncompressed and with \`Accept-Encoding: gzip\`. "+ lists read again": the resume, then the lists the client kit reads again because it could not place the new rows itself (none when the page says where each transaction was before). Goal: under 5% of the bytes on the wire (gzip), 0 or 1 upstream call.`,
    '',
    '| plan | way | bytes | bytes, gzip | ms to a current screen | upstream calls | requests | vs refetch | vs refetch, gzip | goal | rows sent |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const row of rows) {
    const plan = `${row.transactions.toLocaleString('en-US')} tx`;
    const line = (way: string, w: Way, ratio: string, gzip: string, goal: string) =>
      `| ${plan} | ${way} | ${w.bytes} | ${w.gzipBytes} | ${w.ms.toFixed(1)} | ${w.upstreamCalls} | ${w.requests} | ${ratio} | ${gzip} | ${goal} | ${w.rows ?? ''} |`;
    lines.push(
      line(
        'resume',
        row.resume,
        percent(row.bytesRatio),
        percent(row.gzipRatio),
        resumeMet(row) ? 'met' : 'missed',
      ),
      line(
        'resume + lists read again',
        row.resumeWithLists,
        percent(row.withListsRatio),
        percent(row.withListsGzipRatio),
        '',
      ),
      line('refetch', row.refetch, '100%', '100%', ''),
    );
  }
  lines.push(
    '',
    `Floor: the resume's values alone (ids, dates, amounts, names; no field names, types or headers) and its request's (the plan and the cursor), gzip: ${rows.map((row) => `${row.floorBytes} B = ${percent(row.floorRatio)} of the refetch at ${row.transactions.toLocaleString('en-US')} tx`).join('; ')}. Any protocol carrying these changes sends at least about that much, and headers besides${rows.every((row) => row.floorRatio >= 0.05) ? ': 5% of this refetch is out of reach for this workload' : ''}.`,
  );
  return lines.join('\n');
}
