/**
 * Subscriptions by HTTP callback at `/subgraph` (Apollo's callback protocol 1.0), against a real
 * loopback receiver in place of a router: the `check` before the answer, `next` per event from
 * the one hub, `check` as the heartbeat on the gateway's timers, the end on a 404 or on a
 * router that stops answering (its share of the poller freed), the SSRF rules of webhook
 * targets for the callback URL, and the per-instance cap.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIVE } from '../../src/config/config.js';
import { readCallbackRequest } from '../../src/server/callback-subscriptions.js';
import { LIVE, openAccount, subscribed } from '../live/support/live.js';
import { startStack, type TimedStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import { type CallbackReceiver, startCallbackReceiver } from './support/callback-receiver.js';
import { subgraphUrl } from './support/subgraph.js';

const HEARTBEAT_MS = 5_000;
const PLAN_CHANGED = `subscription ($planId: PlanId!) {
  planChanged(planId: $planId, since: 0) { origin transactions { id memo } }
}`;

let stack: TimedStack;
let receiver: CallbackReceiver;
let serial = 0;

beforeAll(async () => {
  stack = await startStack({
    ...LIVE,
    config: {
      live: {
        ...DEFAULT_LIVE,
        callbackAllowPrivateTargets: true,
        maxCallbackSubscriptions: 2,
      },
    },
  });
  receiver = await startCallbackReceiver();
});
afterAll(async () => {
  await stack.close();
  await receiver.close();
});
afterEach(() => {
  receiver.answer = 'ok';
});

interface Subscribed {
  readonly id: string;
  readonly status: number;
  readonly protocol: string | null;
  readonly body: { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] };
}

/** Posts a callback subscription to `/subgraph` as a router does. */
/**
 * Until the gateway has the router's answer to every message it posted. Their deadlines run on
 * the manual clock, and the router answers in real time: moving the clock while an answer is on
 * its way gives up on it (the subscription then ends as unanswered, on a loaded machine).
 */
function untilAnswered(): Promise<void> {
  return until(() => stack.gateway.callbacks?.stats().inFlight === 0, "the router's answers");
}

async function subscribe(
  options: { callbackUrl?: string; heartbeatIntervalMs?: number; token?: string | null } = {},
): Promise<Subscribed> {
  const id = `sub-${++serial}`;
  const token = options.token === undefined ? stack.token : options.token;
  const response = await fetch(subgraphUrl(stack), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json;callbackSpec=1.0',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({
      query: PLAN_CHANGED,
      variables: { planId: stack.planId },
      extensions: {
        subscription: {
          callbackUrl: options.callbackUrl ?? receiver.urlFor(id),
          subscriptionId: id,
          verifier: `verifier-${id}`,
          heartbeatIntervalMs: options.heartbeatIntervalMs ?? HEARTBEAT_MS,
        },
      },
    }),
  });
  return {
    id,
    status: response.status,
    protocol: response.headers.get('subscription-protocol'),
    body: (await response.json()) as Subscribed['body'],
  };
}

const messagesOf = (id: string) => receiver.messages.filter((message) => message.id === id);
const actionsOf = (id: string) => messagesOf(id).map((message) => message.action);

describe('callback subscriptions at /subgraph', () => {
  it('checks the callback URL, answers data null, posts the replay and a write as next, heartbeats with check', async () => {
    const sub = await subscribe();
    expect(sub).toMatchObject({ status: 200, protocol: 'callback/1.0', body: { data: null } });
    const [check] = messagesOf(sub.id);
    expect(check).toMatchObject({
      kind: 'subscription',
      action: 'check',
      verifier: `verifier-${sub.id}`,
      headers: { protocol: 'callback/1.0', contentType: 'application/json' },
    });
    await until(() => actionsOf(sub.id).includes('next'), 'the replay as next');
    const replay = messagesOf(sub.id).find((message) => message.action === 'next');
    expect(replay?.payload?.data).toMatchObject({ planChanged: { origin: 'REPLAY' } });
    expect(stack.gateway.callbacks?.stats().active).toBe(1);

    const accountId = await openAccount(stack);
    const written = await stack.gql<{
      createTransaction: { transaction: { id: string } };
    }>(
      `mutation ($planId: PlanId!, $account: UUID!) {
        createTransaction(planId: $planId, input: { accountId: $account, date: "2025-06-15", amount: -1000, memo: "by callback" }) {
          ... on CreateTransactionPayload { transaction { id } }
        }
      }`,
      { planId: stack.planId, account: accountId },
    );
    const createdId = written.body.data!.createTransaction.transaction.id;
    await until(
      () =>
        messagesOf(sub.id).some(
          (message) =>
            (
              message.payload?.data as
                | { planChanged: { origin: string; transactions: { id: string }[] } }
                | undefined
            )?.planChanged.transactions.some((t) => t.id === createdId) ?? false,
        ),
      'the write as next',
    );

    const before = actionsOf(sub.id).length;
    await untilAnswered();
    await stack.scheduler.advance(HEARTBEAT_MS);
    await until(() => actionsOf(sub.id).length > before, 'a heartbeat');
    expect(actionsOf(sub.id).slice(before)).toEqual(['check']);

    // The router lets it go: the next heartbeat's 404 ends it, and frees the poller's share.
    receiver.answer = 'gone';
    await untilAnswered();
    await stack.scheduler.advance(HEARTBEAT_MS);
    await until(() => stack.gateway.callbacks?.stats().active === 0, 'the subscription ended');
    await subscribed(stack, 0);
    expect(stack.gateway.live.stats().channels).toBe(0);
    expect(stack.gateway.callbacks?.stats().ended.gone).toBe(1);
    expect(actionsOf(sub.id)).not.toContain('complete');
  });

  it('ends a subscription whose router stops answering within the heartbeat window', async () => {
    const sub = await subscribe();
    expect(sub.body).toEqual({ data: null });
    await subscribed(stack, 1);
    await until(() => actionsOf(sub.id).includes('next'), 'the replay as next');
    await untilAnswered();
    receiver.answer = 'hang';
    const sent = receiver.messages.length;
    // A message in flight now, or the next heartbeat, goes unanswered; each is given up at the
    // end of its interval: within two intervals, the subscription has ended.
    await stack.scheduler.advance(HEARTBEAT_MS);
    await until(() => receiver.messages.length > sent, 'a message to the silent router');
    await stack.scheduler.advance(HEARTBEAT_MS);
    await until(() => stack.gateway.callbacks?.stats().active === 0, 'the subscription ended');
    await subscribed(stack, 0);
    expect(stack.gateway.live.stats().channels).toBe(0);
    expect(stack.gateway.callbacks?.stats().ended.unanswered).toBe(1);
  });

  it('refuses a callback URL the webhook rules refuse, naming the problem, and runs nothing', async () => {
    const plain = await subscribe({ callbackUrl: 'http://router.example.com/callback/1' });
    expect(plain.body.errors?.[0]).toMatchObject({
      message: 'extensions.subscription.callbackUrl must use https; got http:',
      extensions: { code: 'BAD_REQUEST' },
    });
    const credentialed = await subscribe({ callbackUrl: 'https://user:pw@router.example.com/cb' });
    expect(credentialed.body.errors?.[0]?.message).toBe(
      'extensions.subscription.callbackUrl must not carry a user name or password',
    );
    expect(stack.gateway.live.stats().subscribers).toBe(0);
    // Without WEBHOOK_ALLOW_PRIVATE_TARGETS (this stack has it on, for its loopback receiver):
    const settings = { ...DEFAULT_LIVE, callbackAllowPrivateTargets: false };
    const asked = (callbackUrl: string) =>
      readCallbackRequest(
        {
          subscription: { callbackUrl, subscriptionId: 'a', verifier: 'b', heartbeatIntervalMs: 0 },
        },
        settings,
      );
    expect(asked('https://169.254.169.254/latest')).toEqual({
      problem:
        'extensions.subscription.callbackUrl must reach a public address; 169.254.169.254 is private, loopback or reserved',
    });
    expect(asked(receiver.urlFor('x'))).toEqual({
      problem: 'extensions.subscription.callbackUrl must use https; got http:',
    });
    // No heartbeat asked (0): the gateway's longest interval, so a dead router is still noticed.
    expect(asked('https://router.example.com/cb')).toMatchObject({
      heartbeatMs: DEFAULT_LIVE.maxCallbackHeartbeatMs,
    });
  });

  it('refuses when the check fails, and without a token, holding nothing', async () => {
    receiver.answer = 'gone';
    const refused = await subscribe();
    expect(refused.body.errors?.[0]).toMatchObject({
      message: "The callback URL's check failed: extensions.subscription.callbackUrl answered 404.",
      extensions: { code: 'BAD_REQUEST' },
    });
    receiver.answer = 'ok';
    const anonymous = await subscribe({ token: null });
    expect(anonymous.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(stack.gateway.callbacks?.stats().active).toBe(0);
    await subscribed(stack, 0);
  });

  it('holds at most the instance cap, and sends complete on shutdown', async () => {
    const first = await subscribe();
    const second = await subscribe();
    expect([first.body, second.body]).toEqual([{ data: null }, { data: null }]);
    const third = await subscribe();
    expect(third.body.errors?.[0]).toMatchObject({
      extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', limit: 2 },
    });
    await stack.gateway.callbacks?.close();
    for (const sub of [first, second]) {
      const last = messagesOf(sub.id).at(-1);
      expect(last).toMatchObject({ action: 'complete' });
      expect(last?.errors?.[0]?.extensions?.code).toBe('SHUTTING_DOWN');
    }
    await subscribed(stack, 0);
  });
});
