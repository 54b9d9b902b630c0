/**
 * Webhooks end to end over real HTTP: an endpoint registered through GraphQL receives the plan's
 * changes from the one poller, signed (verified with the `standardwebhooks` reference library),
 * in `serverKnowledge` order, retried while its receiver is down, with the old secret signing too
 * after a rotation.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  callsOf,
  DEFAULT_POLL_INTERVAL_MS,
  openAccount,
  outsideWrite,
  subscribed,
} from '../live/support/live.js';
import { sseClient } from '../live/support/subscribers.js';
import { startStack, type TimedStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import { type Receiver, startReceiver } from './support/receiver.js';
import { createEndpoint, ENDPOINTS, tempDir, webhookConfig } from './support/webhook-stack.js';

const OWNER = 'webhooks-owner-00000001';
const OTHER = 'webhooks-other-00000002';
const dir = tempDir();
let stack: TimedStack;
let receiver: Receiver;
let accountId: string;

beforeAll(async () => {
  stack = await startStack({
    clock: 'manual',
    timers: 'manual',
    sandbox: {
      rateLimit: false,
      users: [
        { token: OWNER, plans: [{ seed: 31 }] },
        { token: OTHER, plans: [{ seed: 32 }] },
      ],
    },
    config: { webhooks: webhookConfig(`${dir.path}/delivery.db`) },
  });
  accountId = await openAccount(stack);
});
afterAll(async () => {
  await stack.close();
  dir.remove();
});

const openedReceivers: Receiver[] = [];
afterEach(async () => {
  for (const r of openedReceivers.splice(0)) await r.close();
});

async function receiverFor(): Promise<Receiver> {
  const r = await startReceiver();
  openedReceivers.push(r);
  return r;
}

interface Body {
  type: string;
  data: {
    planId: string;
    origin: string;
    serverKnowledge: number;
    previousServerKnowledge: number | null;
    transactions?: { id: string; memo: string | null; amount: number }[];
    accounts?: { id: string; balance: number }[];
  };
}

/** Moves time by a poll interval, so the poller reads the plan once. */
async function poll(): Promise<void> {
  await stack.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
}

describe('deliveries', () => {
  it('delivers a change made behind the gateway, signed by the Standard Webhooks rules', async () => {
    receiver = await receiverFor();
    const endpoint = await createEndpoint(stack, receiver.url);
    expect(endpoint.secret).toMatch(/^whsec_/);
    const written = await outsideWrite(stack, accountId, 'webhook one');
    await poll();
    await until(() => receiver.delivered().length >= 1, 'one delivery');
    const [first] = receiver.received;
    const verified = new Webhook(endpoint.secret).verify(
      first!.body,
      first!.headers as Record<string, string>,
    ) as Body;
    expect(verified.type).toBe('plan.changed');
    expect(verified.data.planId).toBe(stack.planId);
    expect(verified.data.serverKnowledge).toBeGreaterThanOrEqual(written.serverKnowledge);
    expect(verified.data.transactions?.map((t) => [t.id, t.memo, t.amount])).toContainEqual([
      written.id,
      'webhook one',
      -12_340,
    ]);
    expect(verified.data.accounts?.map((a) => a.id)).toContain(accountId);
    // A tampered body is refused by the reference verifier.
    expect(() =>
      new Webhook(endpoint.secret).verify(
        first!.body.replace('webhook one', 'webhook 1'),
        first!.headers as Record<string, string>,
      ),
    ).toThrow();
    const listed = await stack.gql<{
      webhookEndpoints: {
        id: string;
        deliveries: { eventId: string; state: string; attempts: { responseStatus: number }[] }[];
      }[];
    }>(ENDPOINTS);
    const mine = listed.body.data!.webhookEndpoints.find((e) => e.id === endpoint.id)!;
    expect(mine.deliveries[0]).toMatchObject({
      eventId: first!.headers['webhook-id'],
      state: 'DELIVERED',
      attempts: [{ responseStatus: 204 }],
    });
    await deleteEndpoint(endpoint.id);
  });

  it('delivers a write through the gateway at once, without waiting for a poll', async () => {
    receiver = await receiverFor();
    const endpoint = await createEndpoint(stack, receiver.url, { kinds: ['TRANSACTIONS'] });
    const written = await stack.gql<{ createTransaction: { transaction: { id: string } } }>(
      `mutation($planId: PlanId!, $accountId: UUID!) {
        createTransaction(planId: $planId, input: { accountId: $accountId, date: "2025-06-15", amount: -4200, memo: "through the gateway" }) {
          ... on CreateTransactionPayload { transaction { id } }
        }
      }`,
      { planId: stack.planId, accountId },
    );
    const id = written.body.data?.createTransaction.transaction.id;
    expect(id).toBeDefined();
    // No timer moves: the write's own answer (and the delta after it) are the events.
    await until(() => receiver.delivered().length >= 1, 'a delivery');
    const body = new Webhook(endpoint.secret).verify(
      receiver.delivered()[0]!.body,
      receiver.delivered()[0]!.headers as Record<string, string>,
    ) as Body;
    expect(body.data.transactions?.map((t) => [t.id, t.memo])).toContainEqual([
      id,
      'through the gateway',
    ]);
    await deleteEndpoint(endpoint.id);
  });

  it("delivers a write at once to an endpoint created since the last sync, and to a plan's first one", async () => {
    // A payee rename is its own whole effect: no delta follows it, only its WRITE event.
    const older = await receiverFor();
    const first = await createEndpoint(stack, older.url, { kinds: ['PAYEES'] });
    await rename('Renamed for the first endpoint');
    // No timer moves: the write's own event is the delivery (before: the next poll, 36 s on).
    await until(() => delivered(older, 'Renamed for the first endpoint'), 'the first endpoint');
    await poll();
    const newer = await receiverFor();
    const second = await createEndpoint(stack, newer.url, { kinds: ['PAYEES'] });
    await rename('Renamed for both endpoints');
    await until(
      () =>
        delivered(older, 'Renamed for both endpoints') &&
        delivered(newer, 'Renamed for both endpoints'),
      'both endpoints',
    );
    const [body] = bodies(newer, second.secret);
    expect(body?.data).toMatchObject({
      origin: 'WRITE',
      serverKnowledge: await upstreamKnowledge(),
    });
    for (const endpoint of [first, second]) await deleteEndpoint(endpoint.id);
  });

  it('gives each write event its own knowledge, the one the upstream gave the write', async () => {
    const r = await receiverFor();
    const endpoint = await createEndpoint(stack, r.url, { kinds: ['PAYEES'] });
    const expected: number[] = [];
    for (const name of ['Rename one', 'Rename two', 'Rename three']) {
      await rename(name);
      expected.push(await upstreamKnowledge());
    }
    await until(() => r.delivered().length >= 3, 'three events');
    const events = bodies(r, endpoint.secret).map((b) => b.data);
    expect(events.map((e) => e.origin)).toEqual(['WRITE', 'WRITE', 'WRITE']);
    expect(events.map((e) => e.serverKnowledge)).toEqual(expected);
    expect(new Set(expected).size).toBe(3);
    // Each says where the replica stood before it: a receiver can tell nothing was skipped.
    expect(events.map((e) => e.previousServerKnowledge)).toEqual(
      events.map(() => events[0]!.previousServerKnowledge),
    );
    await deleteEndpoint(endpoint.id);
  });

  it('retries while the receiver is down, then delivers everything in order', async () => {
    receiver = await receiverFor();
    const endpoint = await createEndpoint(stack, receiver.url, { kinds: ['TRANSACTIONS'] });
    receiver.status = 503;
    const memos = ['down 1', 'down 2', 'down 3'];
    for (const memo of memos) {
      await outsideWrite(stack, accountId, memo);
      await poll();
    }
    await until(() => receiver.received.length >= 2, 'failed attempts');
    expect(receiver.delivered()).toEqual([]);
    receiver.status = 200;
    // Back-offs of the first event: at most a minute each with these settings.
    await until(async () => {
      await stack.scheduler.advance(60_000);
      return receiver.delivered().length >= 3;
    }, 'the three events delivered');
    const bodies = receiver.delivered().map((r) => {
      return new Webhook(endpoint.secret).verify(
        r.body,
        r.headers as Record<string, string>,
      ) as Body;
    });
    expect(bodies.map((b) => b.data.transactions?.map((t) => t.memo))).toEqual(
      memos.map((memo) => [memo]),
    );
    const knowledge = bodies.map((b) => b.data.serverKnowledge);
    expect(knowledge).toEqual([...knowledge].sort((a, b) => a - b));
    // Each event kept its id across its attempts.
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(3);
    await deleteEndpoint(endpoint.id);
  });

  it('signs with the old secret too during the overlap after a rotation', async () => {
    receiver = await receiverFor();
    const endpoint = await createEndpoint(stack, receiver.url, { kinds: ['TRANSACTIONS'] });
    const rotated = await stack.gql<{ rotateWebhookSecret: { secret: string } }>(
      'mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret } }',
      { id: endpoint.id },
    );
    const secret = rotated.body.data!.rotateWebhookSecret.secret;
    expect(secret).not.toBe(endpoint.secret);
    await outsideWrite(stack, accountId, 'after rotation');
    await poll();
    await until(() => receiver.delivered().length >= 1, 'a delivery');
    const [during] = receiver.delivered();
    expect(String(during!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const key of [secret, endpoint.secret]) {
      expect(() =>
        new Webhook(key).verify(during!.body, during!.headers as Record<string, string>),
      ).not.toThrow();
    }
    // Past the overlap (24 h) only the new secret signs.
    stack.clock.advance(24 * 3_600_000 + 1);
    await outsideWrite(stack, accountId, 'after the overlap');
    await poll();
    await until(() => receiver.delivered().length >= 2, 'a second delivery');
    const after = receiver.delivered()[1]!;
    const headers = after.headers as Record<string, string>;
    expect(() => new Webhook(secret).verify(after.body, headers)).not.toThrow();
    expect(() => new Webhook(endpoint.secret).verify(after.body, headers)).toThrow();
    await deleteEndpoint(endpoint.id);
  });
});

describe('isolation between endpoints', () => {
  it('lets a slow endpoint hold only its own queue', async () => {
    const slow = await receiverFor();
    const fast = await receiverFor();
    slow.hold = true;
    const held = await createEndpoint(stack, slow.url, { kinds: ['TRANSACTIONS'] });
    const quick = await createEndpoint(stack, fast.url, { kinds: ['TRANSACTIONS'] });
    await outsideWrite(stack, accountId, 'first');
    await poll();
    await until(
      () => slow.heldCount() === 1 && fast.delivered().length === 1,
      'one held, one sent',
    );
    await outsideWrite(stack, accountId, 'second');
    await poll();
    // The fast endpoint gets the next event too; the slow one still has one request, unanswered.
    await until(() => fast.delivered().length === 2, 'the second to the fast endpoint');
    expect(slow.heldCount()).toBe(1);
    expect(slow.received).toEqual([]);
    slow.hold = false;
    slow.release();
    await until(() => slow.delivered().length === 2, 'the slow endpoint catching up');
    const memos = slow
      .delivered()
      .map((r) => (JSON.parse(r.body) as Body).data.transactions?.map((t) => t.memo));
    expect(memos).toEqual([['first'], ['second']]);
    await deleteEndpoint(held.id);
    await deleteEndpoint(quick.id);
  });
});

describe('giving up', () => {
  it('disables the endpoint after the retry window, with the reason, and resumes when enabled', async () => {
    // A gateway of its own whose window is 10 minutes instead of a day.
    const brief = await stack.addGateway({
      config: {
        webhooks: webhookConfig(`${dir.path}/brief.db`, { retryWindowMs: 600_000 }),
      },
    });
    receiver = await receiverFor();
    receiver.status = 500;
    const endpoint = await createEndpoint({ gql: brief.gql, planId: stack.planId }, receiver.url, {
      kinds: ['TRANSACTIONS'],
    });
    await outsideWrite(stack, accountId, 'never answered');
    await poll();
    const state = async () =>
      (
        await brief.gql<{
          webhookEndpoints: {
            enabled: boolean;
            disabledReason: string | null;
            deliveries: { state: string }[];
          }[];
        }>(ENDPOINTS)
      ).body.data!.webhookEndpoints[0]!;
    await until(async () => {
      await stack.scheduler.advance(60_000);
      return !(await state()).enabled;
    }, 'the endpoint disabled');
    const disabled = await state();
    expect(disabled.disabledReason).toContain('HTTP 500');
    expect(disabled.deliveries.map((d) => d.state)).toEqual(['PENDING']);
    const failures = receiver.received.length;
    expect(failures).toBeGreaterThan(3);
    await stack.scheduler.advance(3_600_000);
    expect(receiver.received).toHaveLength(failures);

    receiver.status = 204;
    const enabled = await brief.gql(
      'mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: { enabled: true }) { enabled } }',
      { id: endpoint.id },
    );
    expect(enabled.body.data).toEqual({ updateWebhookEndpoint: { enabled: true } });
    await until(() => receiver.delivered().length === 1, 'the waiting event delivered');
    expect(receiver.delivered()[0]!.body).toContain('never answered');
    await brief.close();
  });
});

describe('redelivery', () => {
  it('sends an event again with its id and body, for its owner only', async () => {
    receiver = await receiverFor();
    const endpoint = await createEndpoint(stack, receiver.url, { kinds: ['TRANSACTIONS'] });
    await outsideWrite(stack, accountId, 'to redeliver');
    await poll();
    await until(() => receiver.delivered().length === 1, 'a delivery');
    const [original] = receiver.delivered();
    const eventId = String(original!.headers['webhook-id']);
    const REDELIVER =
      'mutation($id: ID!) { redeliverWebhookEvent(eventId: $id) { eventId state } }';
    const refused = await stack.gql(REDELIVER, { id: eventId }, { token: OTHER });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const again = await stack.gql(REDELIVER, { id: eventId });
    expect(again.body.data).toEqual({ redeliverWebhookEvent: { eventId, state: 'PENDING' } });
    await until(() => receiver.delivered().length === 2, 'the redelivery');
    const copy = receiver.delivered()[1]!;
    expect(copy.headers['webhook-id']).toBe(eventId);
    expect(copy.body).toBe(original!.body);
    expect(() =>
      new Webhook(endpoint.secret).verify(copy.body, copy.headers as Record<string, string>),
    ).not.toThrow();
    await deleteEndpoint(endpoint.id);
  });
});

describe('budget', () => {
  it('shares the one poller of the token and plan with its subscriptions, however many endpoints', async () => {
    const endpoints = [];
    for (let i = 0; i < 3; i += 1) {
      endpoints.push(await createEndpoint(stack, (await receiverFor()).url));
    }
    const sse = sseClient(stack.url, stack.token);
    sse.subscribe('subscription($p: PlanId!) { planChanged(planId: $p) { serverKnowledge } }', {
      p: stack.planId,
    });
    // One feed for the three endpoints, one SSE subscriber: one channel, one poller.
    await subscribed(stack, 2);
    expect(stack.gateway.live.stats().channels).toBe(1);
    stack.sandbox.resetCalls();
    for (let i = 0; i < 10; i += 1) await poll();
    const deltas = callsOf(stack.sandbox, stack.token).filter((call) => call.includes('@'));
    expect(deltas).toHaveLength(10);
    await sse.close();
    for (const endpoint of endpoints) await deleteEndpoint(endpoint.id);
  });
});

/**
 * Renames a payee of its own through the gateway (created the first time, so that no transaction
 * of the plan changes with it).
 */
async function rename(name: string): Promise<void> {
  if (payeeId === undefined) {
    const created = await stack.gql<{ createPayee: { payee: { id: string } } }>(
      `mutation($planId: PlanId!) {
        createPayee(planId: $planId, input: { name: "Renamed by the webhook tests" }) {
          ... on CreatePayeePayload { payee { id } }
        }
      }`,
      { planId: stack.planId },
    );
    payeeId = created.body.data!.createPayee.payee.id;
  }
  const answer = await stack.gql(
    `mutation($planId: PlanId!, $payeeId: UUID!, $name: String!) {
      updatePayee(planId: $planId, payeeId: $payeeId, input: { name: $name }) { __typename }
    }`,
    { planId: stack.planId, payeeId, name },
  );
  expect(answer.body.errors).toBeUndefined();
}
let payeeId: string | undefined;

/** The plan's knowledge upstream, straight from the REST interface. */
async function upstreamKnowledge(): Promise<number> {
  const answer = await stack.rest<{ data: { server_knowledge: number } }>(
    `/plans/${stack.planId}/payees`,
  );
  return answer.body.data.server_knowledge;
}

function delivered(r: Receiver, text: string): boolean {
  return r.delivered().some((each) => each.body.includes(text));
}

/** What `r` received, verified with the reference library under `secret`. */
function bodies(r: Receiver, secret: string): Body[] {
  return r
    .delivered()
    .map(
      (each) =>
        new Webhook(secret).verify(each.body, each.headers as Record<string, string>) as Body,
    );
}

async function deleteEndpoint(id: string): Promise<void> {
  const answer = await stack.gql('mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }', { id });
  expect(answer.body.errors).toBeUndefined();
}
