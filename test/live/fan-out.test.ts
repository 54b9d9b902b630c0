/**
 * One poller per (token, plan), shared by every subscription of the token: 50 subscribers over
 * both transports cost one delta request per poll interval and all receive each change; a
 * subscriber of another token never receives it, even on the same plan; a token holds a bounded
 * number of subscriptions; the poller stops when the last subscriber leaves.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIVE } from '../../src/config/config.js';
import { startStack } from '../support/stack.js';
import {
  callsOf,
  DEFAULT_POLL_INTERVAL_MS,
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
  wsClient,
} from './support/subscribers.js';

interface PlanChanged {
  planChanged: { origin: string; serverKnowledge: number; transactions: { id: string }[] };
}
const PLAN_CHANGED = `subscription($planId: PlanId!) {
  planChanged(planId: $planId) { origin serverKnowledge transactions { id } }
}`;

let stack: LiveStack | undefined;
const clients: Transport[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await stack?.close();
  stack = undefined;
});

function track(transport: Transport): Transport {
  clients.push(transport);
  return transport;
}

const carries = (id: string) => (result: Received<PlanChanged>) =>
  result.data?.planChanged.transactions.some((tx) => tx.id === id) === true;

describe('one poller per token and plan', () => {
  it('50 subscribers of one token cost one poll per interval, and each receives every change', async () => {
    stack = await startStack(LIVE);
    const s = stack;
    const accountId = await openAccount(s);
    // Half over SSE (a connection each), half over two WebSocket connections.
    const transports = [
      track(sseClient(s.url, s.token)),
      track(wsClient(s.wsUrl, s.token)),
      track(sseClient(s.url, s.token)),
      track(wsClient(s.wsUrl, s.token)),
    ];
    const subscribers: Subscriber<PlanChanged>[] = [];
    for (let i = 0; i < 50; i += 1) {
      const transport = transports[i % transports.length]!;
      subscribers.push(transport.subscribe<PlanChanged>(PLAN_CHANGED, { planId: s.planId }));
    }
    await subscribed(s, 50);
    expect(s.gateway.live.stats().channels).toBe(1);

    for (let round = 1; round <= 3; round += 1) {
      const written = await outsideWrite(s, accountId, `round ${round}`);
      s.sandbox.resetCalls();
      await s.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
      await Promise.all(subscribers.map((subscriber) => subscriber.until(carries(written.id))));
      expect(callsOf(s.sandbox, s.token)).toEqual([expect.stringMatching(/^getPlanById@\d+$/)]);
    }
    // An interval without changes costs its one (empty) delta and delivers nothing.
    const before = subscribers.map((subscriber) => subscriber.received.length);
    s.sandbox.resetCalls();
    await s.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
    expect(callsOf(s.sandbox)).toHaveLength(1);
    expect(subscribers.map((subscriber) => subscriber.received.length)).toEqual(before);
  });

  it("never delivers one token's changes to another token's subscriber, even on the same plan", async () => {
    stack = await startStack(LIVE);
    const s = stack;
    const readOnly = s.sandbox.users[0]!.readOnlyToken!;
    const accountId = await openAccount(s);
    const mine = track(sseClient(s.url, s.token)).subscribe<PlanChanged>(PLAN_CHANGED, {
      planId: s.planId,
    });
    const theirs = track(wsClient(s.wsUrl, readOnly)).subscribe<PlanChanged>(PLAN_CHANGED, {
      planId: s.planId,
    });
    await subscribed(s, 2);
    expect(s.gateway.live.stats().channels).toBe(2);

    // A write through the gateway: the writer's subscriber has it at once, without a poll.
    s.sandbox.resetCalls();
    const mutation = await s.gql<{ createTransaction: { transaction: { id: string } } }>(
      `mutation($planId: PlanId!, $accountId: UUID!) {
        createTransaction(planId: $planId, input: { accountId: $accountId, date: "2025-06-15", amount: -1000 }) {
          ... on CreateTransactionPayload { transaction { id } }
        }
      }`,
      { planId: s.planId, accountId },
    );
    const id = mutation.body.data!.createTransaction.transaction.id;
    await mine.until(carries(id));

    // The other token learns of it only through its own poll, paid by its own token.
    await s.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
    const seen = await theirs.until(carries(id));
    expect(theirs.received[0]).toBe(seen);
    expect(seen.data!.planChanged.origin).toBe('SYNC');
    expect(callsOf(s.sandbox, readOnly)).toEqual([expect.stringMatching(/^getPlanById@\d+$/)]);
  });

  it('bounds the subscriptions of a token, and stops polling when the last one leaves', async () => {
    stack = await startStack({
      ...LIVE,
      config: { live: { ...DEFAULT_LIVE, maxSubscriptionsPerToken: 3 } },
    });
    const s = stack;
    const transport = track(sseClient(s.url, s.token));
    const held = [1, 2, 3].map(() => transport.subscribe(PLAN_CHANGED, { planId: s.planId }));
    await subscribed(s, 3);
    const refused = transport.subscribe(PLAN_CHANGED, { planId: s.planId });
    await refused.finished;
    const errors = refused.received[0]?.errors ?? [];
    expect(errors.map((e) => e.extensions?.code)).toEqual(['TOO_MANY_SUBSCRIPTIONS']);

    for (const subscriber of held) subscriber.stop();
    await subscribed(s, 0);
    expect(s.gateway.live.stats().channels).toBe(0);
    s.sandbox.resetCalls();
    await s.scheduler.advance(10 * DEFAULT_POLL_INTERVAL_MS);
    expect(callsOf(s.sandbox)).toEqual([]);
    expect(s.scheduler.pending()).toBe(0);
  });
});
