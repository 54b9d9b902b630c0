/**
 * Two gateway instances with sign-in on, behind one public URL, share grants and the
 * authorization server's rows in a real `redis-server`: a sign-in begun at one is finished at the
 * other, a code issued by one is exchanged at the other (once), tokens work at both, and a
 * refresh token reused at one revokes the family at both. Redis holds no code, token or upstream
 * token in clear.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { type AuthorizationStack, startAuthorizationStack } from './support/authorization-stack.js';
import {
  codeFor,
  exchange,
  graphqlWith,
  publicClient,
  tokenRequest,
} from './support/oauth-client.js';

let redis: TestRedis;
let first: AuthorizationStack;
let second: AuthorizationStack;

beforeAll(async () => {
  redis = await startTestRedis();
  const cluster = { url: redis.url, keyPrefix: redis.prefix };
  const key = randomBytes(32);
  first = await startAuthorizationStack({ cluster, key });
  second = await startAuthorizationStack({ cluster, key, beside: first });
});
afterAll(async () => {
  await first?.close();
  await redis?.close();
});

it('shares registrations, codes, tokens and revocations between instances', async () => {
  const client = await publicClient(first);
  const resource = first.graphqlUrl;
  const { code, verifier } = await codeFor(first, client, { resource });

  // The code is exchanged at the other instance, once.
  const tokens = await exchange(second, client, code, verifier);
  expect(tokens.status).toBe(200);
  const again = await exchange(first, client, code, verifier);
  expect(again.body.error).toBe('invalid_grant');
  // (Its reuse revoked what it gave: sign in again.)
  const fresh = await codeFor(first, client, { resource });
  const issued = await exchange(first, client, fresh.code, fresh.verifier);
  const access = issued.body.access_token as string;
  const refresh = issued.body.refresh_token as string;

  for (const stack of [first, second]) expect((await graphqlWith(stack, access)).status).toBe(200);

  const rotated = await tokenRequest(second, {
    grant_type: 'refresh_token',
    client_id: client,
    refresh_token: refresh,
  });
  expect(rotated.status).toBe(200);
  const reused = await tokenRequest(first, {
    grant_type: 'refresh_token',
    client_id: client,
    refresh_token: refresh,
  });
  expect(reused.body.error).toBe('invalid_grant');
  for (const stack of [first, second])
    expect((await graphqlWith(stack, rotated.body.access_token as string)).status).toBe(401);

  const everything = [...(await redis.dump()).values()]
    .flat()
    .map((value) => value.toString('utf8'))
    .join('\n');
  const upstream = first.sandbox
    .calls()
    .find((call) => call.token?.startsWith('sandbox-') === false);
  for (const secret of [code, fresh.code, access, refresh, rotated.body.refresh_token as string])
    expect(everything).not.toContain(secret);
  expect(upstream?.token).toEqual(expect.any(String));
  expect(everything).not.toContain(upstream?.token);
});
