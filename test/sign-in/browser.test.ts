/**
 * Browser sign-in against the sandbox's OAuth (its demo application) and a real gateway on a
 * loopback port: `/auth/login` → consent → `/auth/callback` → the session cookie, which admits
 * GraphQL over HTTP like a bearer token; `/auth/session`; `/auth/logout` ending the grant. Then
 * every refusal: an open redirect, a replayed or foreign `state`, a denial, a forged or expired
 * cookie, a cookie from another origin, a simple (CSRF-able) request, a flood of sign-ins. Each
 * leaves no session or grant behind.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startStack } from '../support/stack.js';
import {
  beginSignIn,
  callback,
  consent,
  gqlWithSession,
  setCookieOf,
  signIn,
  withSession,
} from './support/browser.js';

const APP = 'http://127.0.0.1:5173';
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function stack(signInOptions: Parameters<typeof startStack>[0] = {}) {
  const started = await startStack({
    clock: 'ticking',
    signIn: true,
    config: { corsOrigins: [APP] },
    ...signInOptions,
  });
  close = () => started.close();
  const origin = new URL(started.url).origin;
  const counts = () => {
    const part = started.gateway.signIn;
    if (!part) throw new Error('sign-in is off');
    return part.counts();
  };
  return { ...started, origin, counts };
}

const USER = '{ user { id } }';

describe('browser sign-in', () => {
  it('signs in through consent, admits the session cookie, tells who is signed in, and signs out everywhere', async () => {
    const s = await stack({ log: true });
    const session = await signIn(s.origin, `${APP}/dashboard`);
    const me = await gqlWithSession(s.url, session, USER);
    expect(me.status).toBe(200);
    expect(me.body.data).toEqual({ user: { id: s.sandbox.users[0]?.userId } });

    const answer = await fetch(`${s.origin}/auth/session`, {
      headers: { cookie: `plans_session=${session}` },
    });
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const body = (await answer.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ signedIn: true, user: { id: s.sandbox.users[0]?.userId } });
    expect((body.plans as unknown[]).length).toBeGreaterThan(0);
    expect(await s.counts()).toMatchObject({ grant: 1, session: 1, 'sign-in': 0 });

    const out = await fetch(`${s.origin}/auth/logout`, {
      method: 'POST',
      headers: withSession(session),
      body: '{}',
    });
    expect(out.status).toBe(204);
    expect(setCookieOf(out, 'plans_session')).toBe('');
    const after = await gqlWithSession(s.url, session, USER);
    expect(after.body.errors?.[0]?.extensions).toMatchObject({
      code: 'UNAUTHENTICATED',
      signIn: { url: '/auth/login' },
    });
    expect(await s.counts()).toMatchObject({ grant: 0, session: 0 });
    const signedOut = await fetch(`${s.origin}/auth/session`, {
      headers: { cookie: `plans_session=${session}` },
    });
    expect(await signedOut.json()).toEqual({ signedIn: false, loginUrl: '/auth/login' });
    // The log tells each step, never a session, code, state or token.
    expect(s.log.map((line) => line.signIn).filter(Boolean)).toEqual(['signed-in', 'signed-out']);
    const logged = JSON.stringify(s.log);
    expect(logged).not.toContain(session);
    expect(logged).not.toMatch(/code=|state=|access_token|refresh_token/);
  });

  it('refuses an open redirect: return_to on an origin not listed', async () => {
    const s = await stack();
    for (const target of ['https://evil.example/', '//evil.example/x', 'javascript:alert(1)']) {
      const answer = await fetch(`${s.origin}/auth/login?return_to=${encodeURIComponent(target)}`, {
        redirect: 'manual',
      });
      expect(answer.status, target).toBe(400);
      expect(await answer.json()).toMatchObject({ error: 'invalid_request' });
    }
    expect(await s.counts()).toMatchObject({ 'sign-in': 0 });
  });

  it('refuses a replayed state, a state from another browser, and an unknown one, leaving no session', async () => {
    const s = await stack();
    const begun = await beginSignIn(s.origin, `${APP}/`);
    const back = await consent(begun.authorize);
    // Another browser (without the state cookie) cannot finish it; that spends the state.
    const foreign = await callback(back, undefined);
    expect(foreign.status).toBe(400);
    expect(await foreign.json()).toMatchObject({ error: 'invalid_request' });
    const replayed = await callback(back, begun.stateCookie);
    expect(replayed.status).toBe(400);
    expect(setCookieOf(replayed, 'plans_session')).toBeUndefined();

    const again = await beginSignIn(s.origin, `${APP}/`);
    const ok = await callback(await consent(again.authorize), again.stateCookie);
    expect(ok.status).toBe(303);
    const replay = await callback(await consent(again.authorize), again.stateCookie);
    expect(replay.status).toBe(400);
    const unknown = await fetch(`${s.origin}/auth/callback?code=x&state=made-up`, {
      redirect: 'manual',
      headers: { cookie: 'plans_sign_in=made-up' },
    });
    expect(unknown.status).toBe(400);
    expect(await s.counts()).toMatchObject({ session: 1, grant: 1, 'sign-in': 0 });
  });

  it('sends a denial back to the app with no session', async () => {
    const s = await stack();
    const begun = await beginSignIn(s.origin, `${APP}/back`);
    const answer = await callback(await consent(begun.authorize, 'deny'), begun.stateCookie);
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(`${APP}/back`);
    expect(setCookieOf(answer, 'plans_session')).toBeUndefined();
    expect(await s.counts()).toMatchObject({ session: 0, grant: 0, 'sign-in': 0 });
  });

  it('refuses a forged and an expired session cookie with the sign-in hint', async () => {
    const s = await stack({ signIn: { sessionTtlMs: 3_600_000 } });
    const forged = await gqlWithSession(s.url, 'forged-session-value', USER);
    expect(forged.status).toBe(401);
    expect(forged.body.errors?.[0]?.extensions).toMatchObject({
      code: 'UNAUTHENTICATED',
      signIn: { url: '/auth/login' },
    });
    const session = await signIn(s.origin);
    expect((await gqlWithSession(s.url, session, USER)).status).toBe(200);
    s.clock.advance(3_600_001);
    const expired = await gqlWithSession(s.url, session, USER);
    expect(expired.status).toBe(401);
    expect(expired.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('refuses the cookie from an origin not listed, even with CORS_ORIGINS=*, and a simple request', async () => {
    const s = await stack({ config: { corsOrigins: '*' } });
    const session = await signIn(s.origin);
    const foreign = await gqlWithSession(s.url, session, USER, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    // The gateway's own page may use it.
    const own = await gqlWithSession(s.url, session, USER, { origin: s.origin });
    expect(own.status).toBe(200);
    // A form post (no preflight) with the cookie: CSRF prevention refuses it.
    const form = await fetch(s.url, {
      method: 'POST',
      headers: {
        cookie: `plans_session=${session}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: `query=${encodeURIComponent(USER)}`,
    });
    expect(form.status).toBe(403);
    const logout = await fetch(`${s.origin}/auth/logout`, {
      method: 'POST',
      headers: { cookie: `plans_session=${session}`, 'content-type': 'text/plain' },
    });
    expect(logout.status).toBe(403);
    expect(await s.counts()).toMatchObject({ session: 1 });
  });

  it('admits the cookie over WebSocket, closes the socket with 4401 on sign-out, and refuses an upgrade from an origin not listed', async () => {
    const s = await stack({ serve: 'websocket' });
    const session = await signIn(s.origin);
    const cookie = `plans_session=${session}`;
    const foreign = new WebSocket(s.wsUrl, 'graphql-transport-ws', {
      headers: { cookie },
      origin: 'https://evil.example',
    });
    foreign.on('error', () => {});
    const refused = await new Promise<number>((resolve) =>
      foreign.once('unexpected-response', (_request, response) =>
        resolve(response.statusCode ?? 0),
      ),
    );
    expect(refused).toBe(403);
    foreign.terminate();

    const socket = new WebSocket(s.wsUrl, 'graphql-transport-ws', { headers: { cookie } });
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    const messages: { type: string; payload?: unknown }[] = [];
    const next = new Promise<void>((resolve) =>
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as { type: string; payload?: unknown };
        messages.push(message);
        if (message.type === 'connection_ack')
          socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: USER } }));
        if (message.type === 'next') resolve();
      }),
    );
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ type: 'connection_init', payload: {} }));
    await next;
    expect(messages.find((m) => m.type === 'next')?.payload).toMatchObject({
      data: { user: { id: s.sandbox.users[0]?.userId } },
    });
    const out = await fetch(`${s.origin}/auth/logout`, {
      method: 'POST',
      headers: { cookie, 'x-requested-with': 'test' },
    });
    expect(out.status).toBe(204);
    expect(await closed).toBe(4401);
  });

  it('keeps a flood of sign-ins within its bound', async () => {
    const s = await stack({ signIn: { maxPendingSignIns: 20 } });
    for (let i = 0; i < 60; i += 1) await beginSignIn(s.origin, `${APP}/`);
    expect((await s.counts())['sign-in']).toBe(20);
  });
});
