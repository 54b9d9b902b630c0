/**
 * What a flood costs the authorization server: a client registering a thousand times, a table of
 * clients that fills up, unused clients that expire, authorization requests that never come
 * back. Bounds are small here so the test stays quick; time moves on the stack's manual clock.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type AuthorizationStack,
  followSignIn,
  startAuthorizationStack,
} from './support/authorization-stack.js';
import {
  authorizeOnce,
  authorizeUrl,
  pkce,
  publicClient,
  REDIRECT,
  register,
  tokenRequest,
  tokensFor,
} from './support/oauth-client.js';

const HOUR = 60 * 60_000;

let stack: AuthorizationStack;

beforeAll(async () => {
  stack = await startAuthorizationStack({
    limits: {
      registrationsPerAddress: 20,
      registrationWindowMs: HOUR,
      maxClients: 25,
      maxRequests: 10,
      // Shorter than browser sign-in's ten minutes, so the server's own check is what refuses.
      requestMs: 5 * 60_000,
    },
  });
});
afterAll(() => stack.close());

/** The flooding client's address. */
const FLOODER = '198.51.100.7';

/**
 * `n` registrations from `FLOODER`, handed to the authorization server as yoga hands them over
 * (a thousand HTTP round trips would time the test, not the server); the HTTP path and its
 * address are the other tests' (`register`).
 */
async function registrations(n: number) {
  const answers = [];
  for (let i = 0; i < n; i += 1) {
    const response = await stack.authorization.handle(
      new Request(`${stack.origin}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          redirect_uris: ['http://127.0.0.1/cb'],
          token_endpoint_auth_method: 'none',
        }),
      }),
      FLOODER,
    );
    answers.push({
      status: response.status,
      body: (await response.json()) as Record<string, unknown>,
    });
    // Let the loop turn: without I/O in between, the gateway's keep-alive timers and the client's
    // view of its idle sockets stand still, and the next real request could reuse a socket in
    // the very tick the gateway closes it (ECONNRESET).
    await new Promise((resolve) => setImmediate(resolve));
  }
  return answers;
}

const clients = async () => (await stack.counts()).client;

it('bounds registrations per address, then the table, keeping the clients that signed someone in', async () => {
  const used = await publicClient(stack);
  const { refresh } = await tokensFor(stack, used);

  const answers = await registrations(1_000);
  const accepted = answers.filter((a) => a.status === 201);
  const refused = answers.filter((a) => a.status === 429);
  expect(accepted).toHaveLength(20);
  expect(refused).toHaveLength(980);
  expect(refused[0]?.body.error).toBe('slow_down');
  expect(await clients()).toBe(21);
  // Another address is not held back by the flood.
  expect((await register(stack)).status).toBe(201);

  // A new window: the table is what bounds it now; the oldest unused clients give way.
  stack.clock.advance(HOUR);
  await registrations(100);
  expect(await clients()).toBe(25);
  const refreshed = await tokenRequest(stack, {
    grant_type: 'refresh_token',
    client_id: used,
    refresh_token: refresh,
  });
  expect(refreshed.status).toBe(200);

  // Clients that never signed anyone in expire after a day; the one that did stays.
  stack.clock.advance(25 * HOUR);
  expect(await clients()).toBe(1);
});

it('keeps at most maxRequests authorization requests waiting for consent', async () => {
  const client = await publicClient(stack);
  for (let i = 0; i < 50; i += 1) {
    const answer = await authorizeOnce(authorizeUrl(stack, client, pkce().challenge));
    expect(answer.status).toBe(302);
  }
  expect((await stack.counts()).request).toBe(10);
});

it('shows an error page for a consent that took longer than requestMs, and ends its grant', async () => {
  const client = await publicClient(stack);
  const held = await stack.grants();
  const started = await authorizeOnce(authorizeUrl(stack, client, pkce().challenge));
  stack.clock.advance(5 * 60_000 + 1);
  const landed = await followSignIn(started.location as URL, REDIRECT, stack.sandbox.origin);
  expect(landed).not.toBeInstanceOf(URL);
  const page = landed as { status: number; text: string };
  expect(page.status).toBe(400);
  expect(page.text).toContain('<span class="error-code">invalid_request</span>');
  expect(page.text).toContain('took too long');
  // The grant the upstream's consent made was for nothing: it ended.
  expect(await stack.grants()).toBe(held);
});
