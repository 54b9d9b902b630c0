/**
 * The authorization server as the gateway wires it with sign-in on (`config.signIn`): over
 * browser sign-in's real grants and the upstream's consent (the sandbox's demo application).
 * `/oauth/authorize` sends the browser to the upstream's consent, which comes back
 * through `/auth/callback`; that finishes the authorization request with a code for the client,
 * whose token then admits GraphQL as the person who consented, and ends with the grant.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startStack } from '../support/stack.js';
import { followSignIn } from './support/authorization-stack.js';
import { pkce, REDIRECT } from './support/oauth-client.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function form(url: string, fields: Record<string, string>) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function userWith(graphqlUrl: string, token: string) {
  const response = await fetch(graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: '{ user { id } }' }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('the authorization server, wired with sign-in', () => {
  it('goes through the upstream consent and /auth/callback, and its token admits GraphQL', async () => {
    const s = await startStack({ clock: 'ticking', signIn: true });
    close = () => s.close();
    const origin = new URL(s.url).origin;
    const graphqlUrl = `${origin}/graphql`;

    const registered = await fetch(`${origin}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
    });
    expect(registered.status).toBe(201);
    const clientId = ((await registered.json()) as { client_id: string }).client_id;

    const { verifier, challenge } = pkce();
    const authorize = new URL(`${origin}/oauth/authorize`);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'state-1',
      resource: graphqlUrl,
    }))
      authorize.searchParams.set(name, value);
    // The first hop is the upstream's consent, and the way back is browser sign-in's callback.
    const first = await fetch(authorize, { redirect: 'manual' });
    const consent = new URL(first.headers.get('location') ?? '');
    await first.body?.cancel();
    expect(consent.origin).toBe(s.sandbox.origin);
    expect(consent.searchParams.get('redirect_uri')).toBe(`${origin}/auth/callback`);

    const landed = await followSignIn(authorize, REDIRECT, s.sandbox.origin);
    if (!(landed instanceof URL))
      throw new Error(`sign-in stopped: ${landed.status} ${landed.text}`);
    expect(landed.searchParams.get('state')).toBe('state-1');
    const code = landed.searchParams.get('code');
    expect(code).toBeTruthy();

    const tokens = await form(`${origin}/oauth/token`, {
      grant_type: 'authorization_code',
      client_id: clientId,
      code: code ?? '',
      code_verifier: verifier,
      redirect_uri: REDIRECT,
    });
    expect(tokens.status).toBe(200);
    const access = tokens.body.access_token as string;
    expect(access.startsWith('pgw_at_')).toBe(true);

    const me = await userWith(graphqlUrl, access);
    expect(me.status).toBe(200);
    expect(me.body.data).toEqual({ user: { id: s.sandbox.users[0]?.userId } });

    // Revoked at the gateway: the grant's token no longer admits anything.
    const revoked = await fetch(`${origin}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: access, client_id: clientId }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect((await userWith(graphqlUrl, access)).status).toBe(401);
  });
});
