/**
 * The pollers of a token inside its upstream budget, over simulated hours on a manual clock
 * (the sandbox counts and rate-limits by the same clock): polls stay within the configured
 * share in every rolling hour, they leave the token's last requests to reads and writes, they
 * back off on 429 for as long as `Retry-After` says, and a 401 ends the token's subscriptions.
 */
import type { SandboxCall } from '@plans-gateway/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { codeGrant, stringField } from '../../packages/sandbox/test/support/oauth.js';
import { DEFAULT_LIVE } from '../../src/config/config.js';
import { startStack } from '../support/stack.js';
import {
  DEFAULT_POLL_INTERVAL_MS,
  LIVE,
  type LiveStack,
  openAccount,
  outsideWrite,
  subscribed,
} from './support/live.js';
import { type Received, sseClient, type Transport, wsClient } from './support/subscribers.js';

const HOUR = 3_600_000;
const PLAN_CHANGED = `subscription($planId: PlanId!) {
  planChanged(planId: $planId) { serverKnowledge transactions { id } }
}`;
interface PlanChanged {
  planChanged: { serverKnowledge: number; transactions: { id: string }[] };
}

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

/** The most calls that fall in any window of `windowMs` (calls ordered by time). */
function busiestWindow(calls: readonly SandboxCall[], windowMs: number): number {
  let most = 0;
  for (let i = 0; i < calls.length; i += 1) {
    const end = calls[i]!.at + windowMs;
    let count = 0;
    for (let j = i; j < calls.length && calls[j]!.at < end; j += 1) count += 1;
    most = Math.max(most, count);
  }
  return most;
}

const pollsOf = (s: LiveStack, token: string) =>
  s.sandbox.calls().filter((call) => call.token === token && call.operationId === 'getPlanById');

const carries = (id: string) => (result: Received<PlanChanged>) =>
  result.data?.planChanged.transactions.some((tx) => tx.id === id) === true;

describe('the poll budget over simulated hours', () => {
  it('keeps the pollers of a token within its share in every rolling hour, across its plans', async () => {
    stack = await startStack({
      ...LIVE,
      sandbox: {
        users: [{ token: 'budget-token', plans: [{ seed: 1, transactions: 100 }, { seed: 2 }] }],
      },
    });
    const s = stack;
    const [planA, planB] = s.sandbox.users[0]!.planIds as [string, string];
    const accountId = await openAccount(s, s.token, planA);
    const sse = track(sseClient(s.url, s.token));
    const onA = [1, 2, 3].map(() => sse.subscribe<PlanChanged>(PLAN_CHANGED, { planId: planA }));
    const ws = track(wsClient(s.wsUrl, s.token));
    for (let i = 0; i < 2; i += 1) ws.subscribe(PLAN_CHANGED, { planId: planB });
    await subscribed(s, 5);
    s.sandbox.resetCalls();

    // Two simulated hours, an outside change every 5 minutes.
    for (let step = 0; step < 24; step += 1) {
      const written = await outsideWrite(s, accountId, `step ${step}`, { planId: planA });
      await s.scheduler.advance(5 * 60_000);
      await Promise.all(onA.map((subscriber) => subscriber.until(carries(written.id))));
    }

    const polls = pollsOf(s, s.token);
    const allowance = DEFAULT_LIVE.budgetShare * 200;
    expect(busiestWindow(polls, HOUR)).toBeLessThanOrEqual(allowance);
    // They use their share, evenly: 2 plans polled every 72 s, 50 polls each an hour.
    expect(busiestWindow(polls, HOUR)).toBeGreaterThanOrEqual(allowance - 4);
    for (const plan of [planA, planB]) {
      const ofPlan = polls.filter((call) => call.path === `/v1/plans/${plan}`);
      expect(busiestWindow(ofPlan, HOUR)).toBeLessThanOrEqual(allowance / 2);
    }
    expect(s.sandbox.calls().filter((call) => call.status === 429)).toEqual([]);
  });

  it("never takes a token's last requests: polls wait while reads and writes have spent the rest", async () => {
    const limit = 40; // allowance 20 (one poll every 180 s), headroom 2
    stack = await startStack({
      ...LIVE,
      sandbox: { rateLimit: { limit, windowMs: HOUR } },
      config: { rateLimit: { limit, windowMs: HOUR } },
    });
    const s = stack;
    track(sseClient(s.url, s.token)).subscribe(PLAN_CHANGED, { planId: s.planId });
    await subscribed(s, 1); // one export so far
    for (let read = 0; read < limit - 3; read += 1) {
      s.clock.advance(31_000); // past max-age: each read costs a delta
      const answer = await s.gql(
        'query($planId: PlanId!) { plan(id: $planId) { serverKnowledge } }',
        { planId: s.planId },
      );
      expect(answer.body.errors).toBeUndefined();
    }
    expect(s.gateway.ledger.usage(s.tokenKey)).toMatchObject({ used: limit - 2, remaining: 2 });
    s.sandbox.resetCalls();

    await s.scheduler.advance(HOUR - (limit - 3) * 31_000 - 1_000);
    expect(pollsOf(s, s.token)).toEqual([]); // 2 left: kept for a write and its delta
    await s.scheduler.advance(2 * 180_000);
    expect(pollsOf(s, s.token).length).toBeGreaterThan(0); // the first read left the window
    expect(s.sandbox.calls().filter((call) => call.status === 429)).toEqual([]);
  });

  it('backs off on 429 for as long as Retry-After says, then catches up', async () => {
    stack = await startStack({ ...LIVE, sandbox: { rateLimit: { limit: 40, windowMs: HOUR } } });
    const s = stack;
    const accountId = await openAccount(s);
    const subscriber = track(sseClient(s.url, s.token)).subscribe<PlanChanged>(PLAN_CHANGED, {
      planId: s.planId,
    });
    await subscribed(s, 1);
    // Another client of the token spends its whole quota behind the gateway's back.
    const written = await outsideWrite(s, accountId, 'last one');
    for (;;) {
      try {
        await s.writer.getUser({ token: s.token });
      } catch {
        break; // 429: the sandbox's window is full
      }
    }
    s.sandbox.resetCalls();

    await s.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
    const [refused] = pollsOf(s, s.token);
    expect(refused?.status).toBe(429);
    await s.scheduler.advance(HOUR - 2 * DEFAULT_POLL_INTERVAL_MS);
    expect(pollsOf(s, s.token)).toHaveLength(1); // nothing more while Retry-After runs
    expect(s.gateway.live.stats().subscribers).toBe(1); // the subscription stays open

    await s.scheduler.advance(DEFAULT_POLL_INTERVAL_MS + 1_000); // Retry-After ends at 1 h
    await subscriber.until(carries(written.id));
    expect(pollsOf(s, s.token).map((call) => call.status)).toEqual([429, 200]);
  });

  it('backs off, doubling the interval, while the upstream answers 503, then catches up', async () => {
    stack = await startStack(LIVE);
    const s = stack;
    const accountId = await openAccount(s);
    const subscriber = track(sseClient(s.url, s.token)).subscribe<PlanChanged>(PLAN_CHANGED, {
      planId: s.planId,
    });
    await subscribed(s, 1);
    const written = await outsideWrite(s, accountId, 'during the outage');
    s.sandbox.setFaults([{ kind: 'status503', operationId: 'getPlanById' }]);
    s.sandbox.resetCalls();

    const attempts = () => pollsOf(s, s.token).length;
    await s.scheduler.advance(DEFAULT_POLL_INTERVAL_MS); // a poll: 3 attempts (reads are retried)
    expect(attempts()).toBe(3);
    await s.scheduler.advance(DEFAULT_POLL_INTERVAL_MS - 1); // backing off one interval...
    expect(attempts()).toBe(3);
    await s.scheduler.advance(1);
    expect(attempts()).toBe(6);
    await s.scheduler.advance(2 * DEFAULT_POLL_INTERVAL_MS - 1); // ...then two
    expect(attempts()).toBe(6);
    expect(s.gateway.live.stats().subscribers).toBe(1);

    s.sandbox.setFaults([]);
    await s.scheduler.advance(1);
    await subscriber.until(carries(written.id));
    expect(pollsOf(s, s.token).map((call) => call.status)).toEqual([
      503, 503, 503, 503, 503, 503, 200,
    ]);
  });

  it("ends a token's subscriptions with UNAUTHENTICATED when the upstream stops accepting it", async () => {
    // Polls every 10 minutes: a 2-hour OAuth token expires after 12 of them.
    stack = await startStack({ ...LIVE, config: { maxAgeMs: 600_000 } });
    const s = stack;
    const grant = await codeGrant(s.sandbox.origin, {
      clientId: 'sandbox-demo-client',
      clientSecret: 'sandbox-demo-secret',
      redirectUri: 'http://localhost:8080/oauth/callback',
    });
    const oauthToken = stringField(grant, 'access_token');
    const oauth = track(wsClient(s.wsUrl, oauthToken));
    const changes = oauth.subscribe(PLAN_CHANGED, { planId: s.planId });
    const balances = oauth.subscribe(
      'subscription($planId: PlanId!) { accountBalancesChanged(planId: $planId) { serverKnowledge } }',
      { planId: s.planId },
    );
    const personal = track(sseClient(s.url, s.token)).subscribe(PLAN_CHANGED, {
      planId: s.planId,
    });
    await subscribed(s, 3);

    await s.scheduler.advance(2 * HOUR + 600_000);
    for (const ended of [changes, balances]) {
      await ended.finished;
      const errors = ended.received.at(-1)?.errors ?? [];
      expect(errors.map((error) => error.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    }
    expect(s.gateway.live.stats()).toMatchObject({ channels: 1, subscribers: 1 });
    expect(personal.received.every((result) => result.errors === undefined)).toBe(true);
  });
});
