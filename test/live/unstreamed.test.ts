/**
 * A subscription that is never streamed holds nothing (issue 18, item 3). POSTed in a batch, or
 * sent with `Accept: application/json` (answered 406), its feed is never read: it takes its
 * slot, its channel and its poller only on its first read, so after 150 such requests the token
 * still subscribes, and no orphaned poller polls the upstream.
 */
import { afterEach, describe, expect, it } from 'vitest';
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
import { sseClient, type Transport } from './support/subscribers.js';

const SUBSCRIPTION = `subscription($planId: PlanId!) {
  planChanged(planId: $planId) { origin serverKnowledge transactions { id } }
}`;
interface PlanChanged {
  planChanged: { origin: string; serverKnowledge: number; transactions: { id: string }[] };
}

let stack: LiveStack | undefined;
let client: Transport | undefined;

afterEach(async () => {
  await client?.close();
  await stack?.close();
  client = undefined;
  stack = undefined;
});

/** What a batch answers for each subscription in it: an error saying where to send it. */
const STREAM_IN_BATCH = {
  errors: [
    {
      message: expect.stringMatching(/cannot be answered in a batch: send it as its own request/),
      extensions: { code: 'BAD_REQUEST' },
    },
  ],
};

/** 150 subscriptions that are answered without a stream, one way or the other. */
async function unstreamed(s: LiveStack, way: 'batch' | 'accept-json'): Promise<number[]> {
  const statuses: number[] = [];
  const body = { query: SUBSCRIPTION, variables: { planId: s.planId } };
  for (let i = 0; i < 150; i++) {
    const response = await fetch(s.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: way === 'batch' ? 'application/graphql-response+json' : 'application/json',
        authorization: `Bearer ${s.token}`,
      },
      body: JSON.stringify(way === 'batch' ? [body, body] : body),
    });
    const answer: unknown = await response.json().catch(() => null);
    if (way === 'batch') expect(answer).toEqual([STREAM_IN_BATCH, STREAM_IN_BATCH]);
    statuses.push(response.status);
  }
  return statuses;
}

describe('subscriptions never streamed', () => {
  it.each([
    ['POSTed in a batch', 'batch', 200],
    ['sent with Accept: application/json', 'accept-json', 406],
  ] as const)('hold no slot, channel or poller: %s', async (_name, way, status) => {
    const s = await startStack(LIVE);
    stack = s;
    const accountId = await openAccount(s);
    const statuses = await unstreamed(s, way);
    expect(new Set(statuses)).toEqual(new Set([status]));
    expect(s.gateway.live.stats()).toMatchObject({ channels: 0, subscribers: 0 });

    s.sandbox.resetCalls();
    await s.scheduler.advance(10 * DEFAULT_POLL_INTERVAL_MS);
    expect(callsOf(s.sandbox)).toEqual([]); // no orphaned poller

    // The token still subscribes, and its one poller polls once per interval.
    client = sseClient(s.url, s.token);
    const subscriber = client.subscribe<PlanChanged>(SUBSCRIPTION, { planId: s.planId });
    await subscribed(s, 1);
    const written = await outsideWrite(s, accountId, 'after 150 orphans');
    s.sandbox.resetCalls();
    await s.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
    await subscriber.until((r) =>
      r.data!.planChanged.transactions.some((tx) => tx.id === written.id),
    );
    expect(callsOf(s.sandbox)).toEqual([expect.stringMatching(/^getPlanById@\d+$/)]);
  });
});
