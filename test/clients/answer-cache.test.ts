import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ClockedStack, startStack } from '../support/stack.js';
import { countResolvers, type ResolverCounter } from './support/recorders.js';

const DASHBOARD = readFileSync(new URL('../../bench/dashboard.graphql', import.meta.url), 'utf8');
const ACCOUNTS = '{ plan(id: "last-used") { id accounts { id name balance } } }';
const OTHER_TOKEN = 'answer-cache-other-token';

interface Accounts {
  plan: { id: string; accounts: { id: string; name: string; balance: number }[] };
}

describe('the answer cache: a repeated operation answered without execution', () => {
  let stack: ClockedStack;
  let resolvers: ResolverCounter;
  const start = Date.UTC(2026, 10, 20, 12);
  let now = start;

  beforeAll(async () => {
    resolvers = countResolvers();
    stack = await startStack({
      clock: 'manual',
      start,
      log: true,
      sandbox: {
        rateLimit: false,
        users: [
          { token: 'answer-cache-token', plans: [{ seed: 3, transactions: 120 }] },
          { token: OTHER_TOKEN, plans: [{ seed: 4, transactions: 120 }] },
        ],
      },
      deps: { now: () => now, plugins: [resolvers.plugin] },
    });
  });
  afterAll(() => stack.close());
  beforeEach(() => {
    now = start;
  });

  /** Upstream and resolver calls made by `work`. */
  async function cost<T>(work: () => Promise<T>) {
    stack.resetUpstreamCalls();
    const before = resolvers.count();
    const result = await work();
    return { result, upstream: stack.upstreamCalls(), resolvers: resolvers.count() - before };
  }

  it('answers a repeated POST with the same data, no resolver and no upstream call', async () => {
    const first = await stack.gql(DASHBOARD);
    expect(first.body.errors).toBeUndefined();
    // An answer is kept from its second sight: the first is only noted, so one asked once costs
    // no copy; the second executes again, and is kept.
    const second = await cost(() => stack.gql(DASHBOARD));
    expect(second.resolvers).toBeGreaterThan(0);
    expect(second.result.body.data).toEqual(first.body.data);
    const again = await cost(() => stack.gql(DASHBOARD));
    expect(again.resolvers).toBe(0);
    expect(again.upstream).toEqual([]);
    expect(again.result.status).toBe(200);
    expect(again.result.body.data).toEqual(first.body.data);
    // Its own metrics: nothing asked upstream for this request.
    expect(again.result.body.extensions?.upstream).toMatchObject({ calls: 0, cacheHits: 1 });
    expect(again.result.headers.get('content-type')).toBe(first.headers.get('content-type'));
    // Reported as an operation like any other: both have their log line.
    const lines = stack.log.filter((line) => line.msg === 'operation');
    expect(lines.slice(-2)).toMatchObject([
      { operationName: 'Dashboard', outcome: 'ok' },
      { operationName: 'Dashboard', outcome: 'ok', upstreamCalls: 0 },
    ]);
  });

  it('shares answers between GET and POST of one operation, and keeps GET its ETag', async () => {
    await stack.gql(ACCOUNTS);
    await stack.gql(ACCOUNTS);
    const url = new URL(stack.url);
    url.searchParams.set('query', ACCOUNTS);
    const { result, resolvers: resolved } = await cost(() =>
      fetch(url, {
        headers: {
          authorization: `Bearer ${stack.token}`,
          accept: 'application/graphql-response+json, application/json',
        },
      }),
    );
    expect(resolved).toBe(0);
    expect(result.status).toBe(200);
    expect(result.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    const body = (await result.json()) as { data: Accounts; extensions?: unknown };
    expect(body.data.plan.accounts.length).toBeGreaterThan(0);
    expect(body.extensions).toBeUndefined();
  });

  it('answers no GET that CSRF prevention would refuse (a token in the query, no header)', async () => {
    await stack.gql(ACCOUNTS);
    const url = new URL(stack.url);
    url.searchParams.set('query', ACCOUNTS);
    url.searchParams.set('access_token', stack.token);
    const response = await fetch(url, {
      headers: { accept: 'application/graphql-response+json, application/json' },
    });
    expect(response.status).not.toBe(200);
    await response.arrayBuffer();
  });

  it('past max-age, revalidates with one delta and still executes nothing', async () => {
    await stack.gql(ACCOUNTS);
    now = start + 60_000;
    const again = await cost(() => stack.gql(ACCOUNTS));
    expect(again.upstream).toEqual(['getPlanById']);
    expect(again.resolvers).toBe(0);
    expect(again.result.body.extensions?.upstream).toMatchObject({ calls: 1, cacheHits: 0 });
  });

  it('never answers one token with what another was given', async () => {
    const mine = await stack.gql<Accounts>(ACCOUNTS);
    const theirs = await cost(() =>
      stack.gql<Accounts>(ACCOUNTS, undefined, { token: OTHER_TOKEN }),
    );
    expect(theirs.resolvers).toBeGreaterThan(0);
    expect(theirs.result.body.data?.plan.id).not.toBe(mine.body.data?.plan.id);
    // Nor without a token.
    const none = await stack.gql(ACCOUNTS, undefined, { token: null });
    expect(none.body.data?.plan ?? null).toBeNull();
    expect(none.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('a write through the gateway is in the next answer (read-your-writes)', async () => {
    const before = await stack.gql<Accounts>(ACCOUNTS);
    const account = before.body.data!.plan.accounts[0]!;
    const write = await stack.gql(
      `mutation($accountId: UUID!) { createTransaction(planId: "last-used", input: {
        accountId: $accountId, date: "2026-11-19", amount: -1000, payeeName: "Answer cache" }) { __typename } }`,
      { accountId: account.id },
    );
    expect(write.body.errors).toBeUndefined();
    const after = await cost(() => stack.gql<Accounts>(ACCOUNTS));
    expect(after.resolvers).toBeGreaterThan(0);
    const balance = after.result.body.data!.plan.accounts.find((a) => a.id === account.id)!.balance;
    expect(balance).toBe(account.balance - 1000);
    // Seen again, the new answer is kept, and replayed from then on with the write in it.
    await stack.gql<Accounts>(ACCOUNTS);
    const replayed = await cost(() => stack.gql<Accounts>(ACCOUNTS));
    expect(replayed.resolvers).toBe(0);
    expect(replayed.result.body.data).toEqual(after.result.body.data);
  });

  it('answers a write that happened behind the gateway once a delta brings it', async () => {
    const before = await stack.gql<Accounts>(ACCOUNTS);
    const account = before.body.data!.plan.accounts[0]!;
    await stack.writer.createTransaction(
      { token: stack.token },
      {
        planId: before.body.data!.plan.id,
        body: { transaction: { account_id: account.id, date: '2026-11-19', amount: -2000 } },
      },
    );
    now = start + 1_000; // `no-cache` asks for data newer than the replica's last sync
    const after = await cost(() =>
      stack.gql<Accounts>(ACCOUNTS, undefined, { headers: { 'cache-control': 'no-cache' } }),
    );
    expect(after.upstream).toEqual(['getPlanById']);
    expect(after.resolvers).toBeGreaterThan(0);
    const balance = after.result.body.data!.plan.accounts.find((a) => a.id === account.id)!.balance;
    expect(balance).toBe(account.balance - 2000);
  });

  it('keeps no answer larger than an eighth of its budget, and none with ANSWER_CACHE off', async () => {
    for (const answerMaxBytes of [1024, 0]) {
      const small = await stack.addGateway({
        config: { httpCaching: { maxEntries: 100, answerMaxBytes } },
        deps: { now: () => now, plugins: [resolvers.plugin] },
      });
      const post = () =>
        fetch(small.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.token}` },
          body: JSON.stringify({ query: DASHBOARD }),
        }).then((response) => response.json());
      await post();
      const again = await cost(post);
      expect(again.resolvers).toBeGreaterThan(0);
    }
  });
});
