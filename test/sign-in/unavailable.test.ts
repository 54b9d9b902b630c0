/**
 * Redis down while a gateway with sign-in on checks credentials: a session cookie and a gateway
 * access token both answer 503 `SIGN_IN_UNAVAILABLE` with `Retry-After` (the credentials may be
 * good: not 401, which would send the person to sign in again, and not a masked 500); the token
 * endpoint answers `503 temporarily_unavailable`; an upstream bearer token goes on working. Nothing
 * quotes a token or a session. A real `redis-server`, stopped under the running gateway.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/sign-in/cookies.js';
import {
  type AuthorizationStack,
  startAuthorizationStack,
} from '../authorization/support/authorization-stack.js';
import { publicClient, tokenRequest, tokensFor } from '../authorization/support/oauth-client.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { signIn } from './support/browser.js';

let redis: TestRedis;
let stack: AuthorizationStack;

beforeAll(async () => {
  redis = await startTestRedis();
  stack = await startAuthorizationStack({ cluster: { url: redis.url, keyPrefix: redis.prefix } });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await redis?.close();
});

async function userWith(headers: Record<string, string>) {
  const response = await fetch(stack.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query: '{ user { id } }' }),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    text: await response.text(),
  };
}

it('answers 503 SIGN_IN_UNAVAILABLE for a session and a gateway token while Redis is down', async () => {
  const client = await publicClient(stack);
  const { access, refresh } = await tokensFor(stack, client, stack.graphqlUrl);
  const forMcp = await tokensFor(stack, client, stack.mcpUrl);
  const session = await signIn(stack.origin);
  const cookie = { cookie: `${SESSION_COOKIE}=${session}` };
  expect((await userWith({ authorization: `Bearer ${access}` })).status).toBe(200);
  expect((await userWith(cookie)).status).toBe(200);

  await redis.stop();
  for (const headers of [{ authorization: `Bearer ${access}` }, cookie]) {
    const answer = await userWith(headers);
    expect(answer.status).toBe(503);
    expect(answer.retryAfter).toBe('1');
    const body = JSON.parse(answer.text) as { errors: { extensions: { code: string } }[] };
    expect(body.errors[0]?.extensions.code).toBe('SIGN_IN_UNAVAILABLE');
    for (const secret of [access, session]) expect(answer.text).not.toContain(secret);
  }
  // /mcp says the same in JSON-RPC: 503 with Retry-After, not a 401 that restarts sign-in.
  const mcp = await fetch(stack.mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${forMcp.access}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(mcp.status).toBe(503);
  expect(mcp.headers.get('retry-after')).toBe('1');
  expect(mcp.headers.get('www-authenticate')).toBeNull();
  const mcpText = await mcp.text();
  expect(mcpText).toContain('Sign-in could not check');
  expect(mcpText).not.toContain(forMcp.access);

  const refreshed = await tokenRequest(stack, {
    grant_type: 'refresh_token',
    client_id: client,
    refresh_token: refresh,
  });
  expect(refreshed.status).toBe(503);
  expect(refreshed.body.error).toBe('temporarily_unavailable');
  // An upstream token needs no store.
  const bearer = await userWith({ authorization: `Bearer ${stack.sandbox.users[0]?.token}` });
  expect(bearer.status).toBe(200);

  const logged = stack.logged();
  for (const secret of [access, refresh, session, forMcp.access])
    expect(logged).not.toContain(secret);
}, 60_000);
