/**
 * The client kit's offline first (issue 35), with real Apollo Client and urql clients over HTTP
 * against the sandbox and a gateway: a cache persisted and restored, brought up to date after
 * outside changes with one `changes` request (changed objects written, deleted ones gone from
 * the cache and the lists, lists that gained a row read again), and writes made offline queued
 * and replayed exactly once, even when the answer to the first attempt is lost.
 */
import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client';
import {
  cacheConfig as apolloCacheConfig,
  resumer as apolloResumer,
  applyChanges,
  persistCache,
  sendWithApollo,
} from '@plans-gateway/client-kit/apollo';
import {
  cacheConfig as graphcacheConfig,
  isOfflineError,
  persistedCursors,
  sendWithUrql,
  storageAdapter,
  resumer as urqlResumer,
} from '@plans-gateway/client-kit/graphcache';
import {
  type ChangesPage,
  memoryStorage,
  openWriteQueue,
  type ResumeOutcome,
  resultOf,
  type SendResult,
  type SendWrite,
  storedCursors,
  type WriteConflict,
  type WriteQueue,
} from '@plans-gateway/client-kit/offline';
import { Client, fetchExchange } from '@urql/core';
import { cacheExchange, offlineExchange } from '@urql/exchange-graphcache';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { callsOf, LIVE, type LiveStack, openAccount, outsideWrite } from '../live/support/live.js';
import { startStack } from '../support/stack.js';
import { aged, memoChangedElsewhere, memoUpstream } from '../sync/support/elsewhere.js';

const TOKEN = 'kit-offline-token-0001';

let stack: LiveStack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function started(): Promise<LiveStack> {
  stack = await startStack({
    ...LIVE,
    token: TOKEN,
    sandbox: {
      rateLimit: false,
      users: [{ token: TOKEN, plans: [{ seed: 21, transactions: 8 }] }],
    },
  });
  return stack;
}

/** A screen: the plan's accounts and its transactions. */
const SCREEN = `query Screen($planId: PlanId!) {
  plan(id: $planId) {
    id
    accounts { id name balance }
    transactions(first: 50) { edges { node { id memo amount } } }
  }
}`;
interface Screen {
  plan: {
    id: string;
    accounts: { id: string; balance: number }[];
    transactions: { edges: { node: { id: string; memo: string | null } }[] };
  };
}

const CREATE = `mutation Create($planId: PlanId!, $input: CreateTransactionInput!) {
  createTransaction(planId: $planId, input: $input) {
    __typename
    ... on CreateTransactionPayload { transaction { id memo } }
    ... on Error { message }
  }
}`;

function apolloClient(s: LiveStack, fetchImpl: typeof fetch = fetch): ApolloClient {
  return new ApolloClient({
    link: new HttpLink({
      uri: s.url,
      headers: { authorization: `Bearer ${s.token}` },
      fetch: fetchImpl,
    }),
    cache: new InMemoryCache(apolloCacheConfig()),
  });
}

function urqlClient(s: LiveStack, fetchImpl: typeof fetch = fetch): Client {
  return new Client({
    url: s.url,
    fetch: fetchImpl,
    fetchOptions: { headers: { authorization: `Bearer ${s.token}` } },
    preferGetMethod: false,
    exchanges: [cacheExchange(graphcacheConfig()), fetchExchange],
  });
}

/** A transaction made behind the gateway's back, one deleted, and the copy stale. */
async function changedElsewhere(s: LiveStack, keep: readonly string[]) {
  const accountId = await openAccount(s);
  const created = await outsideWrite(s, accountId, 'made on another device');
  const { transactions } = await s.writer.getTransactions({ token: s.token }, { planId: s.planId });
  const victim = transactions.find((tx) => !tx.deleted && !keep.includes(tx.id))!;
  await s.writer.deleteTransaction(
    { token: s.token },
    { planId: s.planId, transactionId: victim.id },
  );
  s.clock.advance(s.gateway.config.maxAgeMs + 1);
  const { account } = await s.writer.getAccountById(
    { token: s.token },
    { planId: s.planId, accountId },
  );
  return { accountId, created: created.id, deleted: victim.id, balance: account.balance };
}

const creates = (s: LiveStack) =>
  callsOf(s.sandbox, s.token).filter((call) => call.startsWith('createTransaction'));

describe('Apollo Client: persisted cache, resume with changes', () => {
  it('restores a persisted cache without the network, then resumes in one request', async () => {
    const s = await started();
    const storage = memoryStorage();
    const first = apolloClient(s);
    const persisted = await persistCache(first.cache, { storage, debounceMs: 0 });
    const { cursors } = persisted;
    expect(await apolloResumer(first, { planId: s.planId, cursors })()).toMatchObject({
      kind: 'started',
    });
    const screen = gql(SCREEN);
    const loaded = await first.query<Screen>({ query: screen, variables: { planId: s.planId } });
    const shown = loaded.data!.plan.transactions.edges.map((edge) => edge.node.id);
    await persisted.save();
    persisted.stop();

    // The app opens again: the screen comes from storage, not the network.
    const offline: typeof fetch = () => Promise.reject(new TypeError('Failed to fetch'));
    const reopened = apolloClient(s, offline);
    await persistCache(reopened.cache, { storage });
    const cached = reopened.readQuery<Screen>({ query: screen, variables: { planId: s.planId } });
    expect(cached?.plan.transactions.edges.map((edge) => edge.node.id)).toEqual(shown);

    const outside = await changedElsewhere(s, []);
    const online = apolloClient(s);
    const restored = await persistCache(online.cache, { storage });
    // The cursor came back with the cache it describes.
    expect(await restored.cursors.get(s.planId)).toBe(await cursors.get(s.planId));
    s.sandbox.resetCalls();
    const outcome = await apolloResumer(online, { planId: s.planId, cursors: restored.cursors })();
    expect(outcome).toMatchObject({ kind: 'resumed', pages: 1 });
    expect(callsOf(s.sandbox, s.token)).toHaveLength(1); // one delta upstream

    const entries = online.cache.extract() as Record<string, Record<string, unknown>>;
    expect(entries[`Transaction:${outside.created}`]?.memo).toBe('made on another device');
    expect(entries[`Transaction:${outside.deleted}`]).toBeUndefined();
    expect(entries[`Account:${outside.accountId}`]?.balance).toBe(outside.balance);
    // The list gained a row it did not hold: it is read again, with the new row, without the old.
    const again = await online.query<Screen>({ query: screen, variables: { planId: s.planId } });
    const ids = again.data!.plan.transactions.edges.map((edge) => edge.node.id);
    expect(ids).toContain(outside.created);
    expect(ids).not.toContain(outside.deleted);
    await restored.save();
    const saved = JSON.parse((await storage.getItem('plans-gateway:apollo-cache'))!);
    expect(saved.cursors[s.planId]).toBe(outcome.cursor);
  });

  it('takes a deleted row out of a list at once, with no request', async () => {
    const s = await started();
    const client = apolloClient(s);
    const screen = gql(SCREEN);
    const loaded = await client.query<Screen>({ query: screen, variables: { planId: s.planId } });
    const [gone, ...rest] = loaded.data!.plan.transactions.edges.map((edge) => edge.node.id);
    const page: ChangesPage = {
      __typename: 'ChangesPage',
      planId: s.planId,
      cursor: 'c',
      hasMore: false,
      changes: { deleted: { transactionIds: [gone!] } },
    };
    applyChanges(client.cache, page, {
      query: `query($planId: PlanId!) { changes(planId: $planId) { __typename ... on ChangesPage {
        planId cursor hasMore changes { deleted { transactionIds } } } } }`,
    });
    const read = client.readQuery<Screen>({ query: screen, variables: { planId: s.planId } });
    expect(read?.plan.transactions.edges.map((edge) => edge.node.id)).toEqual(rest);
  });
});

/** The plan's and an account's newest transactions: lists the kit fixes in place. */
const LISTS = `query Lists($planId: PlanId!, $accountId: UUID!, $first: Int!, $accountFirst: Int!) {
  plan(id: $planId) {
    id
    transactions(first: $first) {
      totalCount edges { cursor node { id date memo } } pageInfo { hasNextPage endCursor }
    }
    account(id: $accountId) {
      id
      transactions(first: $accountFirst) {
        totalCount edges { cursor node { id date memo } } pageInfo { hasNextPage endCursor }
      }
    }
  }
}`;
interface List {
  totalCount: number;
  edges: { cursor: string; node: { id: string; date: string; memo: string | null } }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}
interface Lists {
  plan: { transactions: List; account: { transactions: List } };
}

/** A kit's client over one stack: resume, and a read of the lists as a screen makes it. */
interface ListsKit {
  resume(): Promise<ResumeOutcome>;
  /** Cache first, as a screen reads. */
  lists(variables: Record<string, unknown>): Promise<Lists>;
}
const LIST_KITS: readonly (readonly [string, (s: LiveStack, f: typeof fetch) => ListsKit])[] = [
  [
    'Apollo Client',
    (s, f) => {
      const client = apolloClient(s, f);
      const cursors = storedCursors(memoryStorage());
      return {
        resume: apolloResumer(client, { planId: s.planId, cursors }),
        lists: async (variables) =>
          (await client.query<Lists>({ query: gql(LISTS), variables })).data as Lists,
      };
    },
  ],
  [
    'urql graphcache',
    (s, f) => {
      const client = urqlClient(s, f);
      const cursors = storedCursors(memoryStorage());
      return {
        resume: urqlResumer(client, { planId: s.planId, cursors }),
        lists: async (variables) =>
          (await client.query<Lists>(LISTS, variables).toPromise()).data as Lists,
      };
    },
  ],
];

describe.each(LIST_KITS)('%s: transaction lists kept right in place', (_name, kitOf) => {
  it('places new and moved rows, drops deleted ones, counts them, and asks for nothing more', async () => {
    const s = await started();
    let requests = 0;
    const counting: typeof fetch = (input, init) => {
      requests += 1;
      return fetch(input, init);
    };
    const kit = kitOf(s, counting);
    await kit.resume();
    const accountId = await openAccount(s);
    const query = gql(LISTS);
    const variables = { planId: s.planId, accountId, first: 3, accountFirst: 3 };
    const shown = (await kit.lists(variables)).plan;
    expect(shown.transactions.pageInfo.hasNextPage).toBe(true);

    // Elsewhere: a new row (today: the newest), the oldest shown row moved to today, a shown
    // row of the account deleted.
    const today = new Date(s.clock.now()).toISOString().slice(0, 10);
    const made = await outsideWrite(s, accountId, 'made elsewhere');
    const moved = shown.transactions.edges.at(-1)!.node;
    await s.writer.updateTransaction(
      { token: s.token },
      { planId: s.planId, transactionId: moved.id, body: { transaction: { date: today } } },
    );
    const removed = shown.account.transactions.edges.find((e) => e.node.id !== moved.id)!.node;
    await s.writer.deleteTransaction(
      { token: s.token },
      { planId: s.planId, transactionId: removed.id },
    );
    s.clock.advance(s.gateway.config.maxAgeMs + 1);

    requests = 0;
    expect(await kit.resume()).toMatchObject({ kind: 'resumed' });
    expect(requests).toBe(1);
    // The screens read their lists from the cache: nothing more is asked.
    const fixed = (await kit.lists(variables)).plan;
    expect(requests).toBe(1);
    expect(fixed.transactions.edges.map((e) => e.node.id)).toContain(made.id);
    expect(fixed.account.transactions.edges.map((e) => e.node.id)).not.toContain(removed.id);
    // What the gateway answers for the same windows: the same rows, cursors and counts.
    const fresh = apolloClient(s);
    const truth = (
      await fresh.query<Lists>({
        query,
        variables: {
          ...variables,
          first: fixed.transactions.edges.length,
          accountFirst: fixed.account.transactions.edges.length,
        },
      })
    ).data!.plan;
    const view = (list: List) => ({
      totalCount: list.totalCount,
      edges: list.edges.map((e) => [e.cursor, e.node.id, e.node.date]),
    });
    expect(view(fixed.transactions)).toEqual(view(truth.transactions));
    expect(view(fixed.account.transactions)).toEqual(view(truth.account.transactions));
    // "Load more" from the fixed list goes on with no gap and no repeat.
    const next = await fresh.query<{ plan: { transactions: List } }>({
      query: gql`query Next($planId: PlanId!, $after: String) { plan(id: $planId) { id
        transactions(first: 3, after: $after) { edges { node { id } } } } }`,
      variables: { planId: s.planId, after: fixed.transactions.pageInfo.endCursor },
      fetchPolicy: 'no-cache',
    });
    const longer = await fresh.query<Lists>({
      query,
      variables: { ...variables, first: fixed.transactions.edges.length + 3 },
      fetchPolicy: 'no-cache',
    });
    expect([
      ...fixed.transactions.edges.map((e) => e.node.id),
      ...next.data!.plan.transactions.edges.map((e) => e.node.id),
    ]).toEqual(longer.data!.plan.transactions.edges.map((e) => e.node.id));
  });
});

describe('urql graphcache: resume with changes', () => {
  it('opens from a storageAdapter without the network (offlineExchange)', async () => {
    // graphcache persists nothing when NODE_ENV is `test` (its own tests' switch): as an app runs.
    const env = process.env.NODE_ENV;
    process.env.NODE_ENV = 'development';
    onTestFinished(() => {
      process.env.NODE_ENV = env;
    });
    const s = await started();
    const storage = memoryStorage();
    const persisted = (fetchImpl: typeof fetch) =>
      new Client({
        url: s.url,
        fetch: fetchImpl,
        fetchOptions: { headers: { authorization: `Bearer ${s.token}` } },
        preferGetMethod: false,
        exchanges: [
          offlineExchange({
            ...graphcacheConfig(),
            storage: storageAdapter(storage),
            isOfflineError,
          }),
          fetchExchange,
        ],
      });
    const online = await persisted(fetch).query<Screen>(SCREEN, { planId: s.planId }).toPromise();
    const shown = online.data!.plan.transactions.edges.map((edge) => edge.node.id);
    const kept = async () =>
      Object.keys(JSON.parse((await storage.getItem('plans-gateway:graphcache')) ?? '{}')).length;
    await expect.poll(kept, { timeout: 45_000 }).toBeGreaterThan(10);

    const offline: typeof fetch = () => Promise.reject(new TypeError('Failed to fetch'));
    const reopened = await persisted(offline)
      .query<Screen>(SCREEN, { planId: s.planId })
      .toPromise();
    expect(reopened.data?.plan.transactions.edges.map((edge) => edge.node.id)).toEqual(shown);
  });

  it('applies a page as graphcache writes it: new rows read again, deleted ones gone', async () => {
    const s = await started();
    const cursors = storedCursors(memoryStorage());
    const client = urqlClient(s);
    await urqlResumer(client, { planId: s.planId, cursors })();
    const loaded = await client.query<Screen>(SCREEN, { planId: s.planId }).toPromise();
    const shown = loaded.data!.plan.transactions.edges.map((edge) => edge.node.id);
    const outside = await changedElsewhere(s, []);
    expect(shown).toContain(outside.deleted);

    expect(await urqlResumer(client, { planId: s.planId, cursors })()).toMatchObject({
      kind: 'resumed',
    });
    const again = await client.query<Screen>(SCREEN, { planId: s.planId }).toPromise();
    const ids = again.data!.plan.transactions.edges.map((edge) => edge.node.id);
    expect(ids).toContain(outside.created);
    expect(ids).not.toContain(outside.deleted);
    const account = again.data!.plan.accounts.find((a) => a.id === outside.accountId);
    expect(account?.balance).toBe(outside.balance);
  });
});

describe('urql graphcache: a saved cursor matches the saved cache', () => {
  it('saves a cursor only once graphcache has persisted the page it describes', async () => {
    // graphcache persists nothing when NODE_ENV is `test` (its own tests' switch): as an app runs.
    const env = process.env.NODE_ENV;
    process.env.NODE_ENV = 'development';
    onTestFinished(() => {
      process.env.NODE_ENV = env;
    });
    const s = await started();
    const kept = memoryStorage();
    const inner = storageAdapter(kept);
    // The storage is slow: graphcache's data writes wait until `release()`.
    const waiting: (() => void)[] = [];
    let released = false;
    const release = () => {
      released = true;
      for (const resolve of waiting.splice(0)) resolve();
    };
    let writes = 0;
    const slow = {
      ...inner,
      async writeData(delta: Parameters<typeof inner.writeData>[0]) {
        writes += 1;
        if (!released) await new Promise<void>((resolve) => waiting.push(resolve));
        await inner.writeData(delta);
      },
    };
    const saved = persistedCursors({ storage: slow, cursors: storedCursors(kept) });
    const client = new Client({
      url: s.url,
      fetchOptions: { headers: { authorization: `Bearer ${s.token}` } },
      preferGetMethod: false,
      exchanges: [
        offlineExchange({
          ...graphcacheConfig(),
          updates: saved.updates,
          storage: saved.storage,
          isOfflineError,
        }),
        fetchExchange,
      ],
    });
    const resume = urqlResumer(client, { planId: s.planId, cursors: saved.cursors });
    const outcome = await resume();
    expect(outcome.kind).toBe('started');
    // The page is in graphcache's memory, not yet in storage: no cursor is saved.
    await expect.poll(() => writes, { timeout: 45_000 }).toBeGreaterThan(0);
    expect(await saved.cursors.get(s.planId)).toBeNull();

    release();
    await expect.poll(() => saved.cursors.get(s.planId), { timeout: 45_000 }).toBe(outcome.cursor);
    const stored = JSON.parse((await kept.getItem('plans-gateway:graphcache')) ?? '{}');
    expect(JSON.stringify(stored)).toContain(outcome.cursor);
  });
});

/** A fetch that fails while `state.offline`, like a browser with no network. */
function switchableFetch() {
  const state = { offline: true };
  const impl: typeof fetch = (input, init) =>
    state.offline ? Promise.reject(new TypeError('Failed to fetch')) : fetch(input, init);
  return { state, fetch: impl };
}

describe('the write queue', () => {
  for (const [name, sender] of [
    ['Apollo', (s: LiveStack, f: typeof fetch) => sendWithApollo(apolloClient(s, f))],
    [
      'urql',
      (s: LiveStack, f: typeof fetch) =>
        sendWithUrql(urqlClient(s, f), {
          fetchOptions: { headers: { authorization: `Bearer ${s.token}` } },
        }),
    ],
  ] as const) {
    it(`${name}: keeps writes made offline in order, and replays each once when the answer is lost`, async () => {
      const s = await started();
      const accountId = await openAccount(s);
      const network = switchableFetch();
      const send = sender(s, network.fetch);
      // The first answer that comes back is lost on the way (the connection dropped).
      let lose = true;
      const lossy: SendWrite = async (write) => {
        const result: SendResult = await send(write);
        if (lose && result.kind === 'answered') {
          lose = false;
          return { kind: 'unreachable', error: new Error('answer lost') };
        }
        return result;
      };
      const storage = memoryStorage();
      const queue = await openWriteQueue({ storage, send: lossy });
      const write = (memo: string) => ({
        query: CREATE,
        variables: {
          planId: s.planId,
          input: { accountId, date: '2025-06-14', amount: -1_000, memo },
        },
        label: memo,
      });
      await queue.enqueue(write('first offline'));
      await queue.enqueue(write('second offline'));
      await queue.flush();
      expect(queue.state().pending.map((w) => w.label)).toEqual([
        'first offline',
        'second offline',
      ]);
      s.sandbox.resetCalls();

      // The page reloads: the queue comes back from storage, keys and all.
      const reopened = await openWriteQueue({ storage, send: lossy });
      const keys = reopened.state().pending.map((w) => w.key);
      expect(keys).toEqual(queue.state().pending.map((w) => w.key));
      network.state.offline = false;
      const sent: string[] = [];
      reopened.subscribe((event) => {
        if (event.kind === 'sent') sent.push(event.write.key);
      });
      await reopened.flush(); // the first answer is lost: it stays queued
      expect(reopened.state().pending).toHaveLength(2);
      await reopened.flush(); // and again: the gateway answers the original result
      expect(reopened.state().pending).toEqual([]);
      expect(sent).toEqual(keys);
      expect(creates(s)).toHaveLength(2); // one each: the retry wrote nothing
      const { transactions } = await s.writer.getTransactions(
        { token: s.token },
        { planId: s.planId },
      );
      const memos = transactions.map((tx) => tx.memo);
      expect(memos.filter((memo) => memo === 'first offline')).toHaveLength(1);
      expect(memos.filter((memo) => memo === 'second offline')).toHaveLength(1);
    });
  }

  /**
   * Against the gateway's real `WriteConflict`: an edit queued offline with the cursor the cache
   * is at, the same row changed behind the gateway's back, then the flush.
   */
  const EDIT = `mutation Edit($planId: PlanId!, $id: ID!, $input: UpdateTransactionInput!, $since: String) {
    updateTransaction(planId: $planId, transactionId: $id, input: $input, ifUnchangedSince: $since) {
      __typename
      ... on UpdateTransactionPayload { writeCursor transaction { id memo } }
      ... on WriteConflict { message planId id attempted cursor current { id ... on Transaction { memo } } }
      ... on Error { message }
    }
  }`;
  const BATCH = `mutation Batch($planId: PlanId!, $input: UpdateTransactionsInput!, $since: String) {
    updateTransactions(planId: $planId, input: $input, ifUnchangedSince: $since) {
      __typename
      ... on UpdateTransactionsPayload { writeCursor transactionIds }
      ... on WriteConflict { message id cursor }
      ... on Error { message }
    }
  }`;
  const CREATE_WITH_CURSOR = `mutation Create($planId: PlanId!, $input: CreateTransactionInput!) {
    createTransaction(planId: $planId, input: $input) {
      __typename
      ... on CreateTransactionPayload { writeCursor transaction { id memo } }
      ... on Error { message }
    }
  }`;
  const CURSOR = `query Cursor($planId: PlanId!) { changes(planId: $planId) { ... on ChangesPage { cursor } } }`;
  const updates = (s: LiveStack) =>
    callsOf(s.sandbox, s.token).filter((call) => call.startsWith('updateTransaction'));

  /** Two plain rows of its own (the seeded plan may hold splits and transfers), a cursor, a queue offline. */
  async function offlineQueue(name: 'Apollo' | 'urql', storage = memoryStorage()) {
    const s = await started();
    const accountId = await openAccount(s);
    const row = await outsideWrite(s, accountId, 'first as made');
    const other = await outsideWrite(s, accountId, 'second as made');
    const since = (await s.gql<{ changes: { cursor: string } }>(CURSOR, { planId: s.planId })).body
      .data!.changes.cursor;
    const network = switchableFetch();
    const send = senders[name](s, network.fetch);
    const queue = await openWriteQueue({ storage, send });
    const edit = (id: string, memo: string, guard: string | null) => ({
      query: EDIT,
      variables: { planId: s.planId, id, input: { memo }, since: guard },
      label: memo,
    });
    return { s, network, queue, edit, row, other, since, send };
  }

  /** The gateway's copy aged, the sandbox's calls forgotten, the network back; the queue's events. */
  function backOnline(s: LiveStack, network: { state: { offline: boolean } }, queue: WriteQueue) {
    aged(s);
    s.sandbox.resetCalls();
    network.state.offline = false;
    const events: string[] = [];
    queue.subscribe((event) => events.push(`${event.kind}:${event.write.label}`));
    return events;
  }

  /** Two edits queued offline (the first one guarded), and the same row changed elsewhere. */
  async function conflicted(name: 'Apollo' | 'urql', storage = memoryStorage()) {
    const { s, network, queue, edit, row, other, since, send } = await offlineQueue(name, storage);
    await queue.enqueue(edit(row.id, 'edited offline', since));
    await queue.enqueue(edit(other.id, 'later edit', null));
    await queue.flush();
    expect(queue.state().pending).toHaveLength(2);

    // Meanwhile, the same row changed behind the gateway's back; the gateway's copy ages.
    await memoChangedElsewhere(s, row.id, 'changed elsewhere');
    const events = backOnline(s, network, queue);
    const state = await queue.flush();

    expect(state.conflict?.write.label).toBe('edited offline');
    const conflict: WriteConflict | undefined = state.conflict?.conflict;
    expect(conflict).toMatchObject({
      __typename: 'WriteConflict',
      planId: s.planId,
      id: row.id,
      current: { id: row.id, memo: 'changed elsewhere' },
      attempted: { memo: 'edited offline' },
      cursor: expect.any(String),
    });
    // The queue stopped there: the later write waits, nothing was written upstream.
    expect(state.pending.map((w) => w.label)).toEqual(['later edit']);
    expect(events).toEqual(['conflict:edited offline']);
    expect(updates(s)).toEqual([]);
    expect(await memoUpstream(s, row.id)).toBe('changed elsewhere');
    return { s, queue, row, other, events, send };
  }

  const senders = {
    Apollo: (s: LiveStack, f: typeof fetch) => sendWithApollo(apolloClient(s, f)),
    urql: (s: LiveStack, f: typeof fetch) =>
      sendWithUrql(urqlClient(s, f), {
        fetchOptions: { headers: { authorization: `Bearer ${s.token}` } },
      }),
  };
  for (const name of ['Apollo', 'urql'] as const) {
    it(`${name}: a guarded edit whose row changed elsewhere stops the queue with both versions; "keep mine" writes once`, async () => {
      const { s, queue, row, other, events } = await conflicted(name);
      const stopped = queue.state().conflict!;
      const after = await queue.retry(stopped.write.key, {
        ...stopped.write.variables,
        since: stopped.conflict.cursor,
      });
      expect(after).toEqual({ pending: [], conflict: null });
      expect(events.slice(1)).toEqual([
        'queued:edited offline',
        'sent:edited offline',
        'sent:later edit',
      ]);
      expect(updates(s)).toHaveLength(2); // the kept edit once, the later one once
      expect(await memoUpstream(s, row.id)).toBe('edited offline');
      expect(await memoUpstream(s, other.id)).toBe('later edit');
    });

    it(`${name}: two guarded edits of the same row queued offline both apply, in order, with no conflict`, async () => {
      const storage = memoryStorage();
      const { s, network, queue, edit, row, other, since, send } = await offlineQueue(
        name,
        storage,
      );
      await queue.enqueue(edit(row.id, 'first offline edit', since));
      await queue.enqueue(edit(other.id, 'the other row', since));
      await queue.enqueue(edit(row.id, 'second offline edit', since));
      await queue.flush();
      expect(queue.state().pending).toHaveLength(3);
      aged(s);
      s.sandbox.resetCalls();
      network.state.offline = false;
      const events: string[] = [];
      // Sends the first alone: the queue as stored then holds the advanced cursor.
      let sends = 0;
      const once = await openWriteQueue({
        storage,
        send: (write) => (sends++ === 0 ? send(write) : Promise.reject(new TypeError('offline'))),
      });
      await once.flush();
      const stored = JSON.parse((await storage.getItem('plans-gateway:write-queue'))!);
      const [otherRow, second] = stored.pending as { variables: { since: string } }[];
      expect(otherRow!.variables.since).toBe(since); // another row keeps the cache's cursor
      expect(second!.variables.since).not.toBe(since); // the first edit's own cursor
      expect(second!.variables.since).toMatch(/^c1\./);

      const reopened = await openWriteQueue({ storage, send });
      reopened.subscribe((event) => events.push(`${event.kind}:${event.write.label}`));
      const state = await reopened.flush();
      expect(state).toEqual({ pending: [], conflict: null });
      expect(events).toEqual(['sent:the other row', 'sent:second offline edit']);
      // Exactly one PUT each: three in all, two of them the row's, and no conflict.
      expect(updates(s)).toHaveLength(3);
      expect(await memoUpstream(s, row.id)).toBe('second offline edit');
      expect(await memoUpstream(s, other.id)).toBe('the other row');
    });

    it(`${name}: a guarded batch edit's cursor carries the later guarded edits of its rows`, async () => {
      const { s, network, queue, edit, row, other, since } = await offlineQueue(name);
      const batch = (memo: string) => ({
        query: BATCH,
        variables: {
          planId: s.planId,
          input: { transactions: [row.id, other.id].map((id) => ({ id, memo })) },
          since,
        },
        label: memo,
      });
      await queue.enqueue(batch('both offline'));
      await queue.enqueue(edit(row.id, 'then one', since));
      await queue.enqueue(edit(other.id, 'then the other', since));
      aged(s);
      s.sandbox.resetCalls();
      network.state.offline = false;
      const state = await queue.flush();
      expect(state).toEqual({ pending: [], conflict: null });
      expect(await memoUpstream(s, row.id)).toBe('then one');
      expect(await memoUpstream(s, other.id)).toBe('then the other');
    });

    it(`${name}: an edit of a transaction made offline waits for its id, and its create's cursor guards it`, async () => {
      const { s, network, queue, edit, since } = await offlineQueue(name);
      const accountId = await openAccount(s);
      const create = await queue.enqueue({
        query: CREATE_WITH_CURSOR,
        variables: {
          planId: s.planId,
          input: { accountId, date: '2025-06-14', amount: -2_500, memo: 'made offline' },
        },
        label: 'made offline',
      });
      const made = resultOf(create, ['createTransaction', 'transaction', 'id']);
      await queue.enqueue({
        ...edit('', 'then edited offline', since),
        variables: {
          planId: s.planId,
          id: made,
          input: { memo: 'then edited offline' },
          since,
        },
      });
      // A second edit of it: guarded by the first edit's cursor once that one is sent.
      await queue.enqueue({
        ...edit('', 'and again', since),
        variables: { planId: s.planId, id: made, input: { memo: 'and again' }, since },
      });
      // A create that is refused takes the edits of what it would have made with it.
      const refusedCreate = await queue.enqueue({
        query: CREATE_WITH_CURSOR,
        variables: { planId: s.planId, input: { accountId, date: 'not a date', amount: -1 } },
        label: 'refused',
      });
      await queue.enqueue({
        ...edit('', 'edit of the refused', since),
        variables: {
          planId: s.planId,
          id: resultOf(refusedCreate, ['createTransaction', 'transaction', 'id']),
          input: { memo: 'never sent' },
          since,
        },
      });
      await queue.flush(); // offline: all wait
      const events = backOnline(s, network, queue);
      const state = await queue.flush();
      expect(state.conflict).toBeNull();
      expect(events).toEqual([
        'sent:made offline',
        'sent:then edited offline',
        'sent:and again',
        'refused:refused',
        'refused:edit of the refused',
      ]);
      expect(creates(s)).toHaveLength(1);
      expect(updates(s)).toHaveLength(2); // each edit, once, of the created row
      const { transactions } = await s.writer.getTransactions(
        { token: s.token },
        { planId: s.planId },
      );
      const mine = transactions.filter((tx) => tx.amount === -2_500 && !tx.deleted);
      expect(mine.map((tx) => tx.memo)).toEqual(['and again']);
    });

    it(`${name}: a conflict is surfaced once and not sent again, by a flush or after a reload, until the app decides`, async () => {
      const storage = memoryStorage();
      const { s, queue, row, other, events, send } = await conflicted(name, storage);
      const stopped = queue.state().conflict!;
      s.sandbox.resetCalls();
      // The network comes and goes: each reconnect flushes.
      expect(await queue.flush()).toEqual(queue.state());
      // The app is opened again: the queue as stored still holds the conflict, and waits.
      const sent: (string | undefined)[] = [];
      const reopened = await openWriteQueue({
        storage,
        send: (write) => {
          sent.push(write.label);
          return send(write);
        },
      });
      const reopenedEvents: string[] = [];
      reopened.subscribe((event) => reopenedEvents.push(`${event.kind}:${event.write.label}`));
      const state = await reopened.flush();
      expect(state.conflict).toEqual(stopped);
      expect(state.pending.map((w) => w.label)).toEqual(['later edit']);
      expect(sent).toEqual([]);
      expect(events).toEqual(['conflict:edited offline']);
      expect(reopenedEvents).toEqual([]);
      expect(callsOf(s.sandbox, s.token)).toEqual([]);
      // Dropped: the write that waited behind it goes, once; the refused one never.
      await reopened.discard(stopped.write.key);
      expect(sent).toEqual(['later edit']);
      expect(updates(s)).toHaveLength(1);
      expect(await memoUpstream(s, row.id)).toBe('changed elsewhere');
      expect(await memoUpstream(s, other.id)).toBe('later edit');
    });

    it(`${name}: "keep theirs" drops the edit, says so, and the later writes go on`, async () => {
      const { s, queue, row, other, events } = await conflicted(name);
      const after = await queue.discard(queue.state().conflict!.write.key);
      expect(after).toEqual({ pending: [], conflict: null });
      expect(events.slice(1)).toEqual(['discarded:edited offline', 'sent:later edit']);
      expect(updates(s)).toHaveLength(1);
      expect(await memoUpstream(s, row.id)).toBe('changed elsewhere');
      expect(await memoUpstream(s, other.id)).toBe('later edit');
    });
  }
});
