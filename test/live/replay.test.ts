/**
 * A subscription's `since` replay (issue 18, item 1), over real HTTP with the `graphql-sse` and
 * `graphql-ws` clients:
 *
 * - delivered in events within the rows and bytes limits, in knowledge order, the last at the
 *   current knowledge, together the whole plan (`since: 0`) or what changed (from the log);
 * - priced before it runs like the pages it sends;
 * - a replay older than the change log costs one delta (a backfill) through the token's poller,
 *   counted in the polls' budget share and shared by every subscriber that needs it, and the
 *   log then serves the next ones: 50 subscribe/complete cycles cost one upstream call;
 * - it waits for the budget rather than spending outside the share.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIVE } from '../../src/config/config.js';
import { createRequestLedger, type RequestLedger } from '../../src/upstream/request-ledger.js';
import { START, type StackOptions, startStack } from '../support/stack.js';
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
import { type Received, sseClient, type Transport, wsClient } from './support/subscribers.js';

const EVENT_ROWS = 100;
const EVENT_BYTES = 24 * 1024;
const TRANSACTIONS = 1_500;

const REPLAY = `subscription($planId: PlanId!, $since: SafeInt) {
  planChanged(planId: $planId, since: $since) {
    origin serverKnowledge previousServerKnowledge continues
    accounts { id } categoryGroups { id } categories { id } months { month }
    monthCategories { id } payees { id } scheduledTransactions { id }
    transactions { id memo payee { name } account { name } category { name } subtransactions { id } }
    deleted { transactionIds accountIds }
  }
}`;
interface Event {
  origin: 'SYNC' | 'WRITE' | 'REPLAY';
  serverKnowledge: number;
  previousServerKnowledge: number | null;
  continues: boolean;
  accounts: { id: string }[];
  categoryGroups: { id: string }[];
  categories: { id: string }[];
  months: { month: string }[];
  monthCategories: { id: string }[];
  payees: { id: string }[];
  scheduledTransactions: { id: string }[];
  transactions: { id: string; memo: string | null; subtransactions: { id: string }[] }[];
  deleted: { transactionIds: string[]; accountIds: string[] };
}
type PlanChanged = { planChanged: Event };

let stack: LiveStack | undefined;
const clients: Transport[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await stack?.close();
  stack = undefined;
});

async function started(options: Pick<StackOptions, 'config' | 'deps'> = {}): Promise<LiveStack> {
  stack = await startStack({
    ...LIVE,
    sandbox: {
      rateLimit: false,
      users: [
        { token: 'replay-token-000000001', plans: [{ seed: 5, transactions: TRANSACTIONS }] },
      ],
    },
    ...options,
    config: {
      live: { ...DEFAULT_LIVE, eventRows: EVENT_ROWS, eventBytes: EVENT_BYTES },
      ...options.config,
    },
  });
  return stack;
}

function sse(s: LiveStack): Transport {
  const client = sseClient(s.url, s.token);
  clients.push(client);
  return client;
}

const ended = (result: Received<PlanChanged>) =>
  result.data?.planChanged.origin === 'REPLAY' && !result.data.planChanged.continues;

/** The rows an event holds, as the limit counts them. */
function rowsOf(event: Event): number {
  return (
    event.accounts.length +
    event.categoryGroups.length +
    event.categories.length +
    event.months.length +
    event.monthCategories.length +
    event.payees.length +
    event.scheduledTransactions.length +
    event.transactions.reduce((sum, tx) => sum + 1 + tx.subtransactions.length, 0) +
    event.deleted.transactionIds.length +
    event.deleted.accountIds.length
  );
}

describe('a since replay', () => {
  it('of the whole plan comes in events within the limits, the last at the current knowledge, for no upstream call', async () => {
    const s = await started();
    const current = await knowledgeOf(s);
    s.sandbox.resetCalls();
    const subscriber = sse(s).subscribe<PlanChanged>(REPLAY, { planId: s.planId, since: 0 });
    await subscriber.until(ended, 'the end of the replay');
    const events = subscriber.received.map((r) => r.data!.planChanged);

    expect(events.length).toBeGreaterThan(10);
    for (const [i, event] of events.entries()) {
      expect(event.origin).toBe('REPLAY');
      expect(rowsOf(event)).toBeLessThanOrEqual(EVENT_ROWS);
      // What travels: the event as the client received it, well within the bytes of its rows.
      expect(JSON.stringify(subscriber.received[i]).length).toBeLessThanOrEqual(EVENT_BYTES);
      expect(event.continues).toBe(i < events.length - 1);
      expect(event.previousServerKnowledge).toBe(i === 0 ? 0 : events[i - 1]!.serverKnowledge);
      expect(event.serverKnowledge).toBe(i < events.length - 1 ? 0 : current);
    }

    expect(callsOf(s.sandbox)).toEqual([]);
    const { plan } = await s.writer.getPlanById({ token: s.token }, { planId: s.planId });
    const delivered = events.flatMap((e) => e.transactions.map((tx) => tx.id));
    expect(new Set(delivered).size).toBe(delivered.length);
    expect(new Set(delivered)).toEqual(
      new Set(plan.transactions.filter((tx) => !tx.deleted).map((tx) => tx.id)),
    );
    expect(events.flatMap((e) => e.accounts.map((a) => a.id)).sort()).toEqual(
      plan.accounts
        .filter((a) => !a.deleted)
        .map((a) => a.id)
        .sort(),
    );

    // Then the subscriber is live like any other.
    const written = await outsideWrite(s, await openAccount(s), 'after the replay');
    await s.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
    const live = await subscriber.until((r) =>
      r.data!.planChanged.transactions.some((tx) => tx.id === written.id),
    );
    expect(live.data!.planChanged).toMatchObject({ origin: 'SYNC', continues: false });
  });

  it('from the log comes in knowledge order: a client that drops mid-replay resumes where it was', async () => {
    const s = await started({
      config: { live: { ...DEFAULT_LIVE, eventRows: 1, eventBytes: EVENT_BYTES } },
    });
    const accountId = await openAccount(s);
    const keeper = sse(s);
    keeper.subscribe<PlanChanged>(REPLAY, { planId: s.planId }); // keeps the channel and its log
    await subscribed(s, 1);
    const held = await knowledgeOf(s);
    const writes = [];
    for (const memo of ['first', 'second', 'third']) {
      writes.push(await outsideWrite(s, accountId, memo));
      await s.scheduler.advance(DEFAULT_POLL_INTERVAL_MS); // one poll each: three log entries
    }
    s.sandbox.resetCalls();

    const subscriber = sse(s).subscribe<PlanChanged>(REPLAY, {
      planId: s.planId,
      since: held,
    });
    await subscriber.until(ended, 'the end of the replay');
    const events = subscriber.received.map((r) => r.data!.planChanged);
    expect(events.length).toBeGreaterThan(3);
    const knowledge = events.map((e) => e.serverKnowledge);
    expect(knowledge).toEqual([...knowledge].sort((a, b) => a - b));
    expect(knowledge.at(-1)).toBe(writes[2]!.serverKnowledge);
    // The entries' knowledge shows up as resume points on the way.
    expect(knowledge).toContain(writes[0]!.serverKnowledge);
    expect(knowledge).toContain(writes[1]!.serverKnowledge);
    // Each write's event comes in order, and reaches its knowledge.
    const at = writes.map((written) =>
      events.findIndex((e) => e.transactions.some((tx) => tx.id === written.id)),
    );
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(at.map((i) => events[i]!.serverKnowledge)).toEqual(
      writes.map((written) => written.serverKnowledge),
    );
    expect(callsOf(s.sandbox)).toEqual([]);

    // Resuming from the knowledge of an event in the middle: what came after it, nothing before.
    const middle = writes[1]!.serverKnowledge;
    const resumed = sse(s).subscribe<PlanChanged>(REPLAY, { planId: s.planId, since: middle });
    await resumed.until(ended, 'the end of the second replay');
    const again = resumed.received.flatMap((r) =>
      r.data!.planChanged.transactions.map((t) => t.id),
    );
    expect(again).toContain(writes[2]!.id);
    expect(again).not.toContain(writes[0]!.id);
  });

  it('is priced like the pages it sends, before it runs', async () => {
    const s = await started();
    const selection = 'transactions { id account { transactions(first: 100) { nodes { id } } } }';
    const priced = async (since: string) => {
      const response = await fetch(s.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          authorization: `Bearer ${s.token}`,
        },
        body: JSON.stringify({
          query: `subscription { planChanged(planId: "${s.planId}"${since}) { ${selection} } }`,
        }),
      });
      const text = await response.text();
      return text;
    };
    s.sandbox.resetCalls();
    // A replay event holds up to 500 transactions, each with a page of 100: refused.
    expect(await priced(', since: 0')).toContain('OPERATION_TOO_COMPLEX');
    expect(s.gateway.live.stats().subscribers).toBe(0);
    expect(callsOf(s.sandbox)).toEqual([]);
    // Live events are priced as lists of 10: the same selection is accepted without `since`.
    const live = sse(s).subscribe<PlanChanged>(
      `subscription($planId: PlanId!) { planChanged(planId: $planId) { ${selection} } }`,
      { planId: s.planId },
    );
    await subscribed(s, 1);
    expect(live.received).toEqual([]);
  });
});

describe('a replay older than the change log', () => {
  /** A stack whose poll ledger the test reads; the plan synced past `held` with no log. */
  async function behindTheLog(
    options: { pollsSpent?: number } = {},
  ): Promise<{ s: LiveStack; polls: RequestLedger; held: number; missed: { id: string } }> {
    let clock: (() => number) | undefined;
    const polls = createRequestLedger({ limit: 100, now: () => clock?.() ?? START });
    const s = await started({ deps: { live: { pollLedger: polls } } });
    clock = () => s.clock.now();
    for (let i = 0; i < (options.pollsSpent ?? 0); i++) polls.record(s.tokenKey);
    const held = await knowledgeOf(s); // the replica is loaded; nobody subscribed: no log
    const missed = await outsideWrite(s, await openAccount(s), 'before subscribing');
    s.clock.advance(31_000);
    expect(await knowledgeOf(s)).toBe(missed.serverKnowledge); // a query synced, unlogged
    s.sandbox.resetCalls();
    return { s, polls, held, missed };
  }

  it('costs one delta through the poller, in the polls budget, shared by every subscriber and later cycle', async () => {
    const { s, polls, held, missed } = await behindTheLog();
    const subscribers = Array.from({ length: 5 }, () =>
      sse(s).subscribe<PlanChanged>(REPLAY, { planId: s.planId, since: held }),
    );
    for (const subscriber of subscribers) {
      const replay = await subscriber.until(ended);
      expect(replay.data!.planChanged.transactions.map((tx) => tx.id)).toContain(missed.id);
    }
    expect(callsOf(s.sandbox)).toEqual([`getPlanById@${held}`]);
    expect(polls.usage(s.tokenKey).used).toBe(1);

    // 50 subscribe/complete cycles from the same knowledge: the log now reaches back to it.
    for (const subscriber of subscribers) subscriber.stop();
    await subscribed(s, 0);
    const client = sse(s);
    for (let cycle = 0; cycle < 50; cycle++) {
      const subscriber = client.subscribe<PlanChanged>(REPLAY, { planId: s.planId, since: held });
      await subscriber.until(ended);
      subscriber.stop();
      await subscribed(s, 0);
    }
    expect(callsOf(s.sandbox)).toEqual([`getPlanById@${held}`]);
    expect(polls.usage(s.tokenKey).used).toBe(1);
  });

  it('waits for the polls budget instead of spending outside it', async () => {
    const { s, held, missed } = await behindTheLog({ pollsSpent: 100 });
    const client = wsClient(s.wsUrl, s.token);
    clients.push(client);
    const subscriber = client.subscribe<PlanChanged>(REPLAY, { planId: s.planId, since: held });
    await subscribed(s, 1);
    await s.scheduler.advance(30 * 60_000);
    expect(callsOf(s.sandbox)).toEqual([]); // the share is spent for the hour
    expect(subscriber.received).toEqual([]);

    await s.scheduler.advance(30 * 60_000 + 1);
    const replay = await subscriber.until(ended);
    expect(replay.data!.planChanged.transactions.map((tx) => tx.id)).toContain(missed.id);
    expect(callsOf(s.sandbox)[0]).toBe(`getPlanById@${held}`);
  });
});
