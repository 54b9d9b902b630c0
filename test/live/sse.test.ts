/**
 * Subscriptions over GraphQL over SSE (yoga's built-in transport, the `graphql-sse` client in
 * distinct connections mode), against the sandbox over real HTTP, with the gateway's poll timers
 * on a manual clock: an outside write arrives within one poll interval as the graph objects a
 * query then reads; a write through the gateway arrives at once, for no extra upstream call; a
 * subscriber that resumes from a `serverKnowledge` first receives what it missed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type StackOptions, startStack } from '../support/stack.js';
import {
  callsOf,
  DEFAULT_POLL_INTERVAL_MS,
  knowledgeOf,
  LIVE,
  type LiveStack,
  openAccount,
  outsideWrite,
  subscribed,
} from './support/live.js';
import {
  type Received,
  type Subscriber,
  sseClient,
  type Transport,
} from './support/subscribers.js';

const CHANGE_FIELDS = /* GraphQL */ `
  planId
  origin
  complete
  serverKnowledge
  transactions { id amount memo accountId account { id balance clearedBalance unclearedBalance } }
  accounts { id name balance clearedBalance unclearedBalance }
  deleted { transactionIds }
`;
const PLAN_CHANGED = `subscription($planId: PlanId!, $since: SafeInt) {
  planChanged(planId: $planId, since: $since) { ${CHANGE_FIELDS} }
}`;

interface TransactionView {
  id: string;
  amount: number;
  memo: string | null;
  accountId: string;
  account: { id: string; balance: number; clearedBalance: number; unclearedBalance: number };
}
interface AccountView {
  id: string;
  name: string;
  balance: number;
  clearedBalance: number;
  unclearedBalance: number;
}
interface PlanChanged {
  planChanged: {
    planId: string;
    origin: 'SYNC' | 'WRITE' | 'REPLAY';
    complete: boolean;
    serverKnowledge: number;
    transactions: TransactionView[];
    accounts: AccountView[];
    deleted: { transactionIds: string[] };
  };
}

const TRANSACTION_QUERY = `query($planId: PlanId!, $id: ID!) {
  plan(id: $planId) {
    serverKnowledge
    transaction(id: $id) { id amount memo accountId account { id balance clearedBalance unclearedBalance } }
    accounts { id name balance clearedBalance unclearedBalance }
  }
}`;
interface TransactionQuery {
  plan: { serverKnowledge: number; transaction: TransactionView; accounts: AccountView[] };
}

let stack: LiveStack | undefined;
const clients: Transport[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await stack?.close();
  stack = undefined;
});

async function started(options: Pick<StackOptions, 'config' | 'sandbox'> = {}): Promise<LiveStack> {
  stack = await startStack({ ...LIVE, ...options });
  return stack;
}

function client(s: LiveStack, token: string | null = s.token): Transport {
  const transport = sseClient(s.url, token);
  clients.push(transport);
  return transport;
}

const withTransaction = (id: string) => (result: Received<PlanChanged>) =>
  result.data?.planChanged.transactions.some((tx) => tx.id === id) === true;

describe('planChanged over SSE', () => {
  it('delivers an outside REST write within one poll interval, as the objects a query then reads', async () => {
    const s = await started();
    const accountId = await openAccount(s);
    const subscriber: Subscriber<PlanChanged> = client(s).subscribe(PLAN_CHANGED, {
      planId: s.planId,
    });
    await subscribed(s, 1);

    const written = await outsideWrite(s, accountId, 'bank import');
    s.sandbox.resetCalls();
    await s.scheduler.advance(DEFAULT_POLL_INTERVAL_MS - 1);
    expect(callsOf(s.sandbox)).toEqual([]); // not before the interval is up
    await s.scheduler.advance(1);
    const event = (await subscriber.until(withTransaction(written.id))).data!.planChanged;
    expect(callsOf(s.sandbox)).toEqual([expect.stringMatching(/^getPlanById@\d+$/)]);
    expect(event.origin).toBe('SYNC');
    expect(event.planId).toBe(s.planId);
    expect(event.serverKnowledge).toBe(written.serverKnowledge);

    const read = await s.gql<TransactionQuery>(TRANSACTION_QUERY, {
      planId: s.planId,
      id: written.id,
    });
    expect(callsOf(s.sandbox)).toHaveLength(1); // the query answered from the polled replica
    const plan = read.body.data!.plan;
    expect(event.transactions).toEqual([plan.transaction]);
    expect(event.transactions[0]).toMatchObject({ amount: -12_340, memo: 'bank import' });
    const changedAccount = event.accounts.find((a) => a.id === accountId);
    expect(changedAccount).toEqual(plan.accounts.find((a) => a.id === accountId));
    expect(plan.serverKnowledge).toBe(event.serverKnowledge);
  });

  it('delivers a write through the gateway at once, for no upstream call beyond the mutation', async () => {
    const s = await started();
    const accountId = await openAccount(s);
    const subscriber = client(s).subscribe<PlanChanged>(PLAN_CHANGED, { planId: s.planId });
    await subscribed(s, 1);
    s.sandbox.resetCalls();

    const mutation = await s.gql<{
      createTransaction: { transaction: { id: string; account: { balance: number } } };
    }>(
      `mutation($planId: PlanId!, $accountId: UUID!) {
        createTransaction(planId: $planId, input: { accountId: $accountId, date: "2025-06-15", amount: -5000, memo: "coffee" }) {
          ... on CreateTransactionPayload { transaction { id account { balance } } }
        }
      }`,
      { planId: s.planId, accountId },
    );
    const created = mutation.body.data!.createTransaction.transaction;
    // One knowledge step past the replica: the gateway computes the balance, no delta.
    expect(callsOf(s.sandbox).map((call) => call.replace(/@\d+$/, ''))).toEqual([
      'createTransaction',
    ]);

    // No clock move, so no poll: the events come from the mutation itself.
    const event = await subscriber.until(
      (result) =>
        withTransaction(created.id)(result) &&
        result.data!.planChanged.accounts.some(
          (a) => a.id === accountId && a.balance === created.account.balance,
        ),
      'the write with its new balance',
    );
    expect(event.data!.planChanged.transactions.find((tx) => tx.id === created.id)).toMatchObject({
      amount: -5000,
      memo: 'coffee',
      account: { balance: created.account.balance },
    });
    expect(subscriber.received[0]!.data!.planChanged.origin).toBe('WRITE');
    expect(callsOf(s.sandbox)).toHaveLength(1);
  });

  it('marks a write applied in one trip complete; the poll confirming it repeats none of it', async () => {
    const s = await started();
    const accountId = await openAccount(s);
    const subscriber = client(s).subscribe<PlanChanged>(PLAN_CHANGED, { planId: s.planId });
    await subscribed(s, 1);
    const mutation = await s.gql<{ createTransaction: { transaction: { id: string } } }>(
      `mutation($planId: PlanId!, $accountId: UUID!) {
        createTransaction(planId: $planId, input: { accountId: $accountId, date: "2025-06-15", amount: -5000, memo: "one trip" }) {
          ... on CreateTransactionPayload { transaction { id } }
        }
      }`,
      { planId: s.planId, accountId },
    );
    const created = mutation.body.data!.createTransaction.transaction.id;
    const write = await subscriber.until(withTransaction(created), 'the write');
    expect(write.data!.planChanged).toMatchObject({ origin: 'WRITE', complete: true });

    // Behind the gateway's back before the poll: its delta brings that change and the write.
    const outside = await outsideWrite(s, accountId, 'outside');
    s.sandbox.resetCalls();
    await s.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
    const sync = (await subscriber.until(withTransaction(outside.id), 'the outside write')).data!
      .planChanged;
    expect(callsOf(s.sandbox)).toEqual([expect.stringMatching(/^getPlanById@\d+$/)]);
    expect(sync).toMatchObject({ origin: 'SYNC', complete: false });
    // Only news: the write's rows were all in its own event, as the delta has them.
    expect(sync.transactions.map((tx) => tx.id)).toEqual([outside.id]);
    expect(subscriber.received).toHaveLength(2);
  });

  it('delivers a write through `last-used` as one SYNC event: the alias is resolved by its delta', async () => {
    const s = await started();
    const accountId = await openAccount(s);
    const subscriber = client(s).subscribe<PlanChanged>(PLAN_CHANGED, { planId: s.planId });
    await subscribed(s, 1);
    s.sandbox.resetCalls();

    const mutation = await s.gql<{
      createTransaction: { transaction: { id: string; account: { balance: number } } };
    }>(
      `mutation($accountId: UUID!) {
        createTransaction(planId: "last-used", input: { accountId: $accountId, date: "2025-06-15", amount: -7000, memo: "by alias" }) {
          ... on CreateTransactionPayload { transaction { id account { balance } } }
        }
      }`,
      { accountId },
    );
    const created = mutation.body.data!.createTransaction.transaction;
    expect(callsOf(s.sandbox).map((call) => call.replace(/@\d+$/, ''))).toEqual([
      'createTransaction',
      'getPlanById',
    ]);

    const event = await subscriber.until(withTransaction(created.id), 'the write by alias');
    // The write's answer named no plan the gateway could trust (the alias may have moved), so
    // it was applied to no replica: the delta brought the write and its balances together.
    expect(subscriber.received).toHaveLength(1);
    expect(event.data!.planChanged.origin).toBe('SYNC');
    expect(event.data!.planChanged.accounts.find((a) => a.id === accountId)?.balance).toBe(
      created.account.balance,
    );
  });
});

describe('resuming from a serverKnowledge', () => {
  it('replays from the change log what a client missed while away, without an upstream call', async () => {
    const s = await started();
    const accountId = await openAccount(s);
    const transport = client(s);
    // Another subscriber of the token keeps the plan's channel (and its change log) going.
    transport.subscribe<PlanChanged>(PLAN_CHANGED, { planId: s.planId });
    const first = transport.subscribe<PlanChanged>(PLAN_CHANGED, { planId: s.planId });
    await subscribed(s, 2);
    const held = await knowledgeOf(s);
    first.stop();
    await subscribed(s, 1);

    const missed = await outsideWrite(s, accountId, 'while away');
    await s.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
    s.sandbox.resetCalls();

    const resumed = transport.subscribe<PlanChanged>(PLAN_CHANGED, {
      planId: s.planId,
      since: held,
    });
    const replay = (await resumed.until(withTransaction(missed.id))).data!.planChanged;
    expect(replay.origin).toBe('REPLAY');
    expect(replay.serverKnowledge).toBe(missed.serverKnowledge);
    expect(resumed.received).toHaveLength(1);
    expect(callsOf(s.sandbox)).toEqual([]);
  });

  it('asks the upstream for one delta from that knowledge when the log does not reach back', async () => {
    const s = await started();
    const accountId = await openAccount(s);
    const held = await knowledgeOf(s); // the replica is loaded; nobody is subscribed
    const missed = await outsideWrite(s, accountId, 'before subscribing');
    s.clock.advance(31_000);
    expect(await knowledgeOf(s)).toBe(missed.serverKnowledge); // a query synced, unlogged
    s.sandbox.resetCalls();

    const subscriber = client(s).subscribe<PlanChanged>(PLAN_CHANGED, {
      planId: s.planId,
      since: held,
    });
    const replay = (await subscriber.until(withTransaction(missed.id))).data!.planChanged;
    expect(replay.origin).toBe('REPLAY');
    expect(replay.serverKnowledge).toBe(missed.serverKnowledge);
    expect(replay.transactions.find((tx) => tx.id === missed.id)).toMatchObject({
      memo: 'before subscribing',
    });
    // The replica was fresh (no sync on subscribing); the replay cost one delta from `held`.
    expect(callsOf(s.sandbox)).toEqual([`getPlanById@${held}`]);
  });
});

describe('GraphiQL', () => {
  it('runs a subscription: its page sends the CSRF header its GET event streams need', async () => {
    const s = await started({ config: { graphiql: true } });
    const page = await (await fetch(s.url, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain('x-graphql-yoga-csrf');

    // What GraphiQL sends for a subscription: GET, text/event-stream, the editor's headers.
    const query = 'subscription($planId: PlanId!) { planChanged(planId: $planId) { origin } }';
    const url = `${s.url}?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(
      JSON.stringify({ planId: s.planId }),
    )}`;
    const headers = { accept: 'text/event-stream', authorization: `Bearer ${s.token}` };
    // Without an Authorization header (token in the URL), a GET may be a simple cross-site request.
    const refused = await fetch(`${url}&access_token=${s.token}`, {
      headers: { accept: 'text/event-stream' },
    });
    expect(await refused.text()).toContain('Required CSRF header');

    const controller = new AbortController();
    const stream = await fetch(url, {
      headers: { ...headers, 'x-graphql-yoga-csrf': 'graphiql' },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    await subscribed(s, 1);
    controller.abort();
    await subscribed(s, 0);
  });
});
