/**
 * Both client kits keep the transaction lists right in place after a page of `changes` (issue
 * 35), on real caches (Apollo's InMemoryCache, urql's graphcache) fed canned answers: new rows at
 * their place, moved and deleted rows, `totalCount`, `pageInfo`, a filtered list still dropped.
 * test/clients/offline.test.ts checks a fixed list against the gateway's own answer.
 */
import { ApolloClient, ApolloLink, gql, InMemoryCache, Observable } from '@apollo/client';
import {
  cacheConfig as apolloCacheConfig,
  resumer as apolloResumer,
  applyChanges,
} from '@plans-gateway/client-kit/apollo';
import {
  cacheConfig as graphcacheConfig,
  resumer as urqlResumer,
} from '@plans-gateway/client-kit/graphcache';
import {
  type ChangesPage,
  memoryStorage,
  storedCursors,
  transactionCursor,
} from '@plans-gateway/client-kit/offline';
import { Client, fetchExchange } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { describe, expect, it } from 'vitest';

const PLAN = 'plan-1';
const A = 'acct-a';
const B = 'acct-b';

const CONNECTION =
  'totalCount edges { cursor node { id date memo } } pageInfo { hasNextPage endCursor }';
/** Home's list (the plan's, newest first), a register (an account's), and a filtered list. */
const LISTS = `query Lists($planId: PlanId!, $accountId: UUID!) {
  plan(id: $planId) {
    id
    transactions(first: 3) { ${CONNECTION} }
    oldest: transactions(first: 2, order: DATE_ASC) { ${CONNECTION} }
    account(id: $accountId) { id transactions(first: 10) { ${CONNECTION} } }
  }
}`;
/** What the screens read after the resume: Home's list and the register; the filtered list. */
const HOME = `query Home($planId: PlanId!, $accountId: UUID!) {
  plan(id: $planId) {
    id
    transactions(first: 3) { ${CONNECTION} }
    account(id: $accountId) { id transactions(first: 10) { ${CONNECTION} } }
  }
}`;
const OLDEST = `query Oldest($planId: PlanId!) {
  plan(id: $planId) { id oldest: transactions(first: 2, order: DATE_ASC) { ${CONNECTION} } }
}`;
/** "Load more" on Home's list. */
const MORE = `query More($planId: PlanId!, $after: String) {
  plan(id: $planId) { id transactions(first: 3, after: $after) { ${CONNECTION} } }
}`;
/** What the kits need of a page: each row's date and account, and where rows were before. */
const CHANGES = `query Changes($planId: PlanId!, $since: String) {
  changes(planId: $planId, since: $since) {
    __typename
    ... on ChangesPage {
      planId cursor hasMore
      changes {
        transactions { id date memo account { id } }
        deleted { transactionIds }
        transactionsBefore { id accountId }
      }
    }
  }
}`;

interface Row {
  id: string;
  date: string;
  account: string;
}
const row = (id: string, date: string, account: string): Row => ({ id, date, account });
/** The plan before the page, newest first. */
const HELD = [
  row('t6', '2026-03-06', A),
  row('t5', '2026-03-05', B),
  row('t4', '2026-03-04', A),
  row('t3', '2026-03-03', B),
  row('t2', '2026-03-02', A),
  row('t1', '2026-03-01', A),
];

function connection(rows: readonly Row[], totalCount: number, hasNextPage: boolean) {
  return {
    __typename: 'TransactionConnection',
    totalCount,
    edges: rows.map((r) => ({
      __typename: 'TransactionEdge',
      cursor: transactionCursor(r),
      node: { __typename: 'Transaction', id: r.id, date: r.date, memo: `memo ${r.id}` },
    })),
    pageInfo: {
      __typename: 'PageInfo',
      hasNextPage,
      endCursor: rows.length > 0 ? transactionCursor(rows.at(-1)!) : null,
    },
  };
}
const byId = (...ids: string[]) => ids.map((id) => HELD.find((r) => r.id === id)!);
const LISTS_DATA = {
  plan: {
    __typename: 'Plan',
    id: PLAN,
    transactions: connection(HELD.slice(0, 3), 6, true),
    oldest: connection(byId('t1', 't2'), 6, true),
    account: {
      __typename: 'Account',
      id: A,
      transactions: connection(byId('t6', 't4', 't2', 't1'), 4, false),
    },
  },
};
const MORE_DATA = {
  plan: { __typename: 'Plan', id: PLAN, transactions: connection(HELD.slice(3), 6, false) },
};

/**
 * Elsewhere, meanwhile: n1 made in A (the newest), n0 made in A (older than every loaded row), t5
 * moved from B to A, t2 moved to the newest date, t4 (the first page's last row) deleted.
 */
const CHANGED = [
  row('n1', '2026-03-07', A),
  row('n0', '2026-02-01', A),
  row('t5', '2026-03-05', A),
  row('t2', '2026-03-08', A),
];
const PAGE: ChangesPage = {
  __typename: 'ChangesPage',
  planId: PLAN,
  cursor: 'cursor-2',
  hasMore: false,
  changes: {
    __typename: 'PlanChange',
    transactions: CHANGED.map((r) => ({
      __typename: 'Transaction',
      id: r.id,
      date: r.date,
      memo: `memo ${r.id}`,
      account: { __typename: 'Account', id: r.account },
    })),
    deleted: { __typename: 'PlanDeletions', transactionIds: ['t4'] },
    transactionsBefore: [
      { __typename: 'TransactionPlace', id: 't5', accountId: B },
      { __typename: 'TransactionPlace', id: 't2', accountId: A },
      { __typename: 'TransactionPlace', id: 't4', accountId: A },
    ],
  } as unknown as ChangesPage['changes'],
};

interface List {
  totalCount: number;
  edges: { cursor: string; node: { id: string } }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}
interface Lists {
  plan: { transactions: List; account: { transactions: List } };
}
const ids = (list: List) => list.edges.map((edge) => edge.node.id);
const cursorOf = (id: string) => transactionCursor([...CHANGED, ...HELD].find((r) => r.id === id)!);

/** A kit over canned answers: what it shows after the page, and which queries it sent. */
interface Harness {
  /** Loads the lists (and "Load more" when `more`), then applies `page` through the kit. */
  resume(options: { more: boolean; page?: ChangesPage }): Promise<void>;
  /** Home's list and the register as the screens read them now (cache first). */
  read(): Promise<Lists>;
  /** The filtered list, as its screen reads it now (cache first). */
  readOldest(): Promise<void>;
  /** Loads the lists, then runs two resumes at once (two resumers, as a screen mounted twice). */
  resumeTwiceAtOnce(): Promise<void>;
  /** Loads the lists, then calls one resumer `times` times at once (a burst of live events). */
  resumeBurst(times: number): Promise<void>;
  readonly sent: string[];
}

const ANSWERS: Record<string, unknown> = {
  Lists: LISTS_DATA,
  More: MORE_DATA,
  Home: LISTS_DATA,
  Oldest: { plan: { __typename: 'Plan', id: PLAN, oldest: LISTS_DATA.plan.oldest } },
};
const answer = (name: string) => ANSWERS[name] ?? null;
/** The gateway's `changes`: PAGE from the cursor the lists were read at, nothing after it. */
const changesSince = (since: unknown, page = PAGE) => ({
  changes:
    since === 'cursor-1'
      ? page
      : {
          ...PAGE,
          changes: {
            ...PAGE.changes,
            transactions: [],
            deleted: { __typename: 'PlanDeletions', transactionIds: [] },
            transactionsBefore: [],
          },
        },
});
/** Cursors as the kit keeps them: at the one the lists were read at. */
async function cursorsAtLists() {
  const cursors = storedCursors(memoryStorage());
  await cursors.set(PLAN, 'cursor-1');
  return cursors;
}
const variables = { planId: PLAN, accountId: A };

function apollo(): Harness {
  const sent: string[] = [];
  const cache = new InMemoryCache(apolloCacheConfig());
  const client = new ApolloClient({
    cache,
    link: new ApolloLink(
      (operation) =>
        new Observable((observer) => {
          sent.push(operation.operationName ?? '');
          const name = operation.operationName ?? '';
          const data = name === 'Changes' ? changesSince(operation.variables.since) : answer(name);
          observer.next({ data } as never);
          observer.complete();
        }),
    ),
  });
  return {
    sent,
    async resume({ more, page = PAGE }) {
      await client.query({ query: gql(LISTS), variables });
      if (more)
        await client.query({
          query: gql(MORE),
          variables: { planId: PLAN, after: cursorOf('t4') },
          fetchPolicy: 'network-only', // as fetchMore: the merged list would answer from cache
        });
      applyChanges(cache, page, { query: CHANGES });
    },
    async read() {
      const result = await client.query<Lists>({ query: gql(HOME), variables });
      return result.data as Lists;
    },
    async readOldest() {
      await client.query({ query: gql(OLDEST), variables: { planId: PLAN } });
    },
    async resumeTwiceAtOnce() {
      await client.query({ query: gql(LISTS), variables });
      const cursors = await cursorsAtLists();
      const resume = () => apolloResumer(client, { planId: PLAN, cursors, query: CHANGES })();
      await Promise.all([resume(), resume()]);
    },
    async resumeBurst(times) {
      await client.query({ query: gql(LISTS), variables });
      const resume = apolloResumer(client, {
        planId: PLAN,
        cursors: await cursorsAtLists(),
        query: CHANGES,
      });
      await Promise.all(Array.from({ length: times }, () => resume()));
    },
  };
}

function graphcache(): Harness {
  const sent: string[] = [];
  let changes = PAGE;
  const canned: typeof fetch = async (_input, init) => {
    const { operationName, variables: asked } = JSON.parse(String(init?.body)) as {
      operationName: string;
      variables: { since?: string };
    };
    sent.push(operationName);
    const data =
      operationName === 'Changes' ? changesSince(asked.since, changes) : answer(operationName);
    return new Response(JSON.stringify({ data }), {
      headers: { 'content-type': 'application/json' },
    });
  };
  const client = new Client({
    url: 'http://kit.test/graphql',
    fetch: canned,
    preferGetMethod: false,
    exchanges: [cacheExchange(graphcacheConfig()), fetchExchange],
  });
  return {
    sent,
    async resume({ more, page = PAGE }) {
      changes = page;
      await client.query(LISTS, variables).toPromise();
      if (more) await client.query(MORE, { planId: PLAN, after: cursorOf('t4') }).toPromise();
      await client
        .query(CHANGES, { planId: PLAN, since: 'cursor-1' }, { requestPolicy: 'network-only' })
        .toPromise();
    },
    async read() {
      const result = await client.query<Lists>(HOME, variables).toPromise();
      return result.data as Lists;
    },
    async readOldest() {
      await client.query(OLDEST, { planId: PLAN }).toPromise();
    },
    async resumeTwiceAtOnce() {
      await client.query(LISTS, variables).toPromise();
      const cursors = await cursorsAtLists();
      const resume = () => urqlResumer(client, { planId: PLAN, cursors, query: CHANGES })();
      await Promise.all([resume(), resume()]);
    },
    async resumeBurst(times) {
      await client.query(LISTS, variables).toPromise();
      const resume = urqlResumer(client, {
        planId: PLAN,
        cursors: await cursorsAtLists(),
        query: CHANGES,
      });
      await Promise.all(Array.from({ length: times }, () => resume()));
    },
  };
}

describe.each([
  ['Apollo InMemoryCache', apollo],
  ['urql graphcache', graphcache],
])('%s: transaction lists after a page of changes', (_name, make) => {
  it('places new and moved rows, takes deleted ones out, and keeps the counts', async () => {
    const kit = make();
    await kit.resume({ more: true });
    kit.sent.length = 0;
    const { plan } = await kit.read();

    // Home's list, both pages loaded: every row in its place, the old one included.
    expect(ids(plan.transactions)).toEqual(['t2', 'n1', 't6', 't5', 't3', 't1', 'n0']);
    expect(plan.transactions.totalCount).toBe(7);
    expect(plan.transactions.pageInfo).toMatchObject({
      hasNextPage: false,
      endCursor: cursorOf('n0'),
    });
    // The gateway's own cursors, for rows the kit placed.
    expect(plan.transactions.edges[1]).toMatchObject({ cursor: cursorOf('n1') });
    expect(plan.transactions.edges[0]).toMatchObject({ cursor: cursorOf('t2') });
    // The register: t5 joined it, t4 left it.
    expect(ids(plan.account.transactions)).toEqual(['t2', 'n1', 't6', 't5', 't1', 'n0']);
    expect(plan.account.transactions.totalCount).toBe(6);
    expect(kit.sent).toEqual([]);
    // The oldest-first list is read again: the kit cannot know its answer.
    await kit.readOldest();
    expect(kit.sent).toEqual(['Oldest']);
  });

  it('only counts a row older than the loaded window, so "Load more" has no gap or repeat', async () => {
    const kit = make();
    await kit.resume({ more: false });
    kit.sent.length = 0;
    const { plan } = await kit.read();
    expect(kit.sent).toEqual([]);
    expect(ids(plan.transactions)).toEqual(['t2', 'n1', 't6', 't5']);
    // 6 + n1 + n0 - t4: n0 is counted, and the next page brings it.
    expect(plan.transactions.totalCount).toBe(7);
    // The next page still starts after t4's place, though t4 is gone: t3 comes next.
    expect(plan.transactions.pageInfo).toMatchObject({
      hasNextPage: true,
      endCursor: cursorOf('t4'),
    });
  });

  it('reads the lists again when the page cannot say where rows were', async () => {
    const kit = make();
    const page = { ...PAGE, changes: { ...PAGE.changes, transactionsBefore: null } };
    await kit.resume({ more: false, page });
    kit.sent.length = 0;
    await kit.read();
    expect(kit.sent).toEqual(['Home']);
  });

  it('applies a page once when two resumes run at once (each asks from where the last ended)', async () => {
    const kit = make();
    await kit.resumeTwiceAtOnce();
    const { plan } = await kit.read();
    expect(ids(plan.transactions)).toEqual(['t2', 'n1', 't6', 't5']);
    expect(plan.transactions.totalCount).toBe(7);
    expect(plan.account.transactions.totalCount).toBe(6);
    expect(kit.sent.filter((name) => name === 'Changes')).toHaveLength(2);
  });

  it('answers a burst of calls of one resumer with one request', async () => {
    const kit = make();
    await kit.resumeBurst(4);
    const { plan } = await kit.read();
    expect(ids(plan.transactions)).toEqual(['t2', 'n1', 't6', 't5']);
    expect(plan.transactions.totalCount).toBe(7);
    // None had asked yet when the next came: one request brings what all four would.
    expect(kit.sent.filter((name) => name === 'Changes')).toHaveLength(1);
  });
});
