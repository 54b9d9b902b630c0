/**
 * A session outlives its upstream token: on the stack's manual clock, the grant's token is
 * refreshed once ahead of its expiry (the sandbox counts the refresh calls), the replica and the
 * caller's key stay (no second export), and a refresh the upstream refuses (the user revoked the
 * application) ends the sign-in with UNAUTHENTICATED and where to sign in again. A 401 for a
 * token not yet due refreshes the grant; a subscription goes on over a refresh. Then two
 * gateway instances on a real redis-server find the grant expiring at once: one refresh call in
 * the cluster, and both answer.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import {
  DEFAULT_POLL_INTERVAL_MS,
  LIVE,
  openAccount,
  outsideWrite,
  subscribed,
} from '../live/support/live.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { startStack } from '../support/stack.js';
import { gqlWithSession, signIn } from './support/browser.js';

/** An upstream access token lives 2 hours; the gateway refreshes 5 minutes ahead. */
const TOKEN_LIFE_MS = 7_200_000;
const INSIDE_REFRESH_WINDOW_MS = TOKEN_LIFE_MS - 60_000;
const PLAN = '{ plan(id: "last-used") { id accounts { id balance } } }';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe('refresh on the manual clock', () => {
  it('refreshes once ahead of expiry, keeps the replica (no second export), and ends a revoked grant with the sign-in hint', async () => {
    const s = await startStack({ clock: 'manual', signIn: true });
    cleanup.push(() => s.close());
    const origin = new URL(s.url).origin;
    const session = await signIn(origin);
    const exports = () =>
      s.sandbox
        .calls()
        .filter(
          (call) => call.operationId === 'getPlanById' && !call.query.last_knowledge_of_server,
        ).length;
    const first = await gqlWithSession(s.url, session, PLAN);
    expect(first.body.errors).toBeUndefined();
    expect(exports()).toBe(1);

    s.clock.advance(INSIDE_REFRESH_WINDOW_MS);
    const later = await gqlWithSession(s.url, session, PLAN, { 'cache-control': 'no-cache' });
    expect(later.body.errors).toBeUndefined();
    expect(later.body.data).toEqual(first.body.data);
    // Twice more: the new pair is stored, nothing refreshes again.
    await gqlWithSession(s.url, session, PLAN, { 'cache-control': 'no-cache' });
    expect(s.sandbox.callCounts()['oauth.token.refresh_token']).toBe(1);
    expect(exports()).toBe(1);

    // The user revokes the application upstream; the next refresh is refused.
    expect(s.sandbox.revokeOAuthGrants({ clientId: 'sandbox-demo-client' })).toBe(1);
    s.clock.advance(TOKEN_LIFE_MS);
    const ended = await gqlWithSession(s.url, session, PLAN);
    expect(ended.status).toBe(401);
    expect(ended.body.errors?.[0]?.extensions).toMatchObject({
      code: 'UNAUTHENTICATED',
      signIn: { url: '/auth/login' },
    });
    expect(JSON.stringify(ended.body)).not.toContain(session);
    expect(await s.gateway.signIn?.counts()).toMatchObject({ grant: 0, session: 0 });
  });
});

describe('a 401 for a grant not yet due', () => {
  it('refreshes the grant: the operation that met it fails, the next runs with the new token', async () => {
    // Never due ahead of expiry: the upstream's 401 is what finds the token spent.
    const s = await startStack({ clock: 'manual', signIn: { refreshAheadMs: -600_000 } });
    cleanup.push(() => s.close());
    const session = await signIn(new URL(s.url).origin);
    expect((await gqlWithSession(s.url, session, PLAN)).body.errors).toBeUndefined();
    s.clock.advance(TOKEN_LIFE_MS + 60_000);
    const met = await gqlWithSession(s.url, session, PLAN, { 'cache-control': 'no-cache' });
    expect(met.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    await expect.poll(() => s.sandbox.callCounts()['oauth.token.refresh_token']).toBe(1);
    const next = await gqlWithSession(s.url, session, PLAN, { 'cache-control': 'no-cache' });
    expect(next.body.errors).toBeUndefined();
    expect(s.sandbox.callCounts()['oauth.token.refresh_token']).toBe(1);
    expect(await s.gateway.signIn?.counts()).toMatchObject({ grant: 1, session: 1 });
  });
});

describe('a subscription over a refresh', () => {
  it('goes on: its poller polls with the new token, and an outside write arrives', async () => {
    const s = await startStack({ ...LIVE, signIn: true });
    cleanup.push(() => s.close());
    const session = await signIn(new URL(s.url).origin);
    const socket = new WebSocket(s.wsUrl, 'graphql-transport-ws', {
      headers: { cookie: `plans_session=${session}` },
    });
    cleanup.push(async () => socket.terminate());
    const events: string[] = [];
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; payload?: unknown };
      if (message.type === 'connection_ack')
        socket.send(
          JSON.stringify({
            id: '1',
            type: 'subscribe',
            payload: {
              query: `subscription { planChanged(planId: "${s.planId}") { transactions { memo } } }`,
            },
          }),
        );
      else events.push(`${message.type} ${JSON.stringify(message.payload)}`);
    });
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ type: 'connection_init', payload: {} }));
    await subscribed(s, 1);

    // The grant is refreshed by another request, whose use of the new token revokes the old.
    s.clock.advance(INSIDE_REFRESH_WINDOW_MS);
    const later = await gqlWithSession(s.url, session, PLAN, { 'cache-control': 'no-cache' });
    expect(later.body.errors).toBeUndefined();
    expect(s.sandbox.callCounts()['oauth.token.refresh_token']).toBe(1);

    const account = await openAccount(s);
    await outsideWrite(s, account, 'after the refresh');
    await s.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
    await expect.poll(() => events.join('\n')).toContain('after the refresh');
    expect(events.join('\n')).not.toContain('UNAUTHENTICATED');
    expect(s.gateway.live.stats().subscribers).toBe(1);
  });
});

describe('two instances on redis-server', () => {
  let redis: TestRedis | undefined;

  it('make one refresh call when both find the grant expiring at once, and both answer', async () => {
    redis = await startTestRedis();
    const shared = redis;
    cleanup.push(() => shared.close());
    const key = randomBytes(32);
    const cluster = { url: shared.url, keyPrefix: shared.prefix };
    const a = await startStack({ clock: 'manual', signIn: { key }, cluster });
    cleanup.push(() => a.close());
    const b = await a.addGateway({ signIn: { key }, cluster });
    await a.gateway.cluster?.ready(5_000);
    await b.gateway.cluster?.ready(5_000);
    const session = await signIn(new URL(a.url).origin);
    expect((await gqlWithSession(b.url, session, PLAN)).body.errors).toBeUndefined();

    a.clock.advance(INSIDE_REFRESH_WINDOW_MS);
    const answers = await Promise.all([
      gqlWithSession(a.url, session, PLAN, { 'cache-control': 'no-cache' }),
      gqlWithSession(b.url, session, PLAN, { 'cache-control': 'no-cache' }),
    ]);
    for (const answer of answers) expect(answer.body.errors).toBeUndefined();
    expect(a.sandbox.callCounts()['oauth.token.refresh_token']).toBe(1);
    // Nothing of the grant is in Redis in clear: no token, no session value.
    const stored = [...(await shared.dump()).values()].flat().map((value) => value.toString());
    expect(stored.some((value) => value.includes(session))).toBe(false);
  });
});
