/**
 * Every refusal of the gateway's authorization server, with the OAuth error its RFC names, and
 * what it leaves behind: no code, token or grant (browser sign-in's grants, counted), no secret in
 * a log line, no gateway token sent upstream. The gateway runs with sign-in on, over the
 * sandbox's real OAuth and consent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuthorizationStack,
  followSignIn,
  startAuthorizationStack,
} from './support/authorization-stack.js';
import {
  authorizeOnce,
  authorizeUrl,
  codeFor,
  exchange,
  graphqlWith,
  mcpInitialize,
  pkce,
  publicClient,
  REDIRECT,
  refusalTexts,
  register,
  revokeRequest,
  tokenRequest,
  tokensFor,
} from './support/oauth-client.js';

let stack: AuthorizationStack;
let client: string;
/** Every code and token the tests were given: none may show in a log line. */
const secrets: string[] = [];

beforeAll(async () => {
  stack = await startAuthorizationStack();
  client = await publicClient(stack);
});
afterAll(async () => {
  // No code or token in a log line, a refusal (its body or WWW-Authenticate) or the metrics.
  const logged = stack.logged();
  const refusals = refusalTexts.join('\n');
  const metrics = await (await fetch(`${stack.origin}/metrics`)).text();
  expect(metrics).toContain('# TYPE');
  expect(refusals).toContain('invalid_grant');
  for (const secret of secrets) {
    expect(logged).not.toContain(secret);
    expect(refusals).not.toContain(secret);
    expect(metrics).not.toContain(secret);
  }
  // No gateway token ever went upstream.
  expect(stack.sandbox.calls().some((call) => call.token?.startsWith('pgw_'))).toBe(false);
  await stack.close();
});

const keep = <T extends string>(secret: T): T => {
  secrets.push(secret);
  return secret;
};

describe('metadata', () => {
  it('serves RFC 8414 and RFC 9728 documents that point at each other', async () => {
    const as = (await (
      await fetch(`${stack.origin}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(as).toMatchObject({
      issuer: stack.origin,
      authorization_endpoint: `${stack.origin}/oauth/authorize`,
      token_endpoint: `${stack.origin}/oauth/token`,
      registration_endpoint: `${stack.origin}/oauth/register`,
      revocation_endpoint: `${stack.origin}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
    });
    for (const path of ['/graphql', '/mcp']) {
      const resource = (await (
        await fetch(`${stack.origin}/.well-known/oauth-protected-resource${path}`)
      ).json()) as Record<string, unknown>;
      expect(resource).toMatchObject({
        resource: `${stack.origin}${path}`,
        authorization_servers: [stack.origin],
      });
    }
  });

  it('names the resource metadata in WWW-Authenticate on a 401, at /graphql and /mcp', async () => {
    const graphql = await graphqlWith(stack, null);
    expect(graphql.status).toBe(401);
    expect(graphql.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${stack.origin}/.well-known/oauth-protected-resource/graphql"`,
    );
    const mcp = await mcpInitialize(stack, null);
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toContain(
      `resource_metadata="${stack.origin}/.well-known/oauth-protected-resource/mcp"`,
    );
  });
});

describe('registration', () => {
  it.each([
    [{ redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
    [{ redirect_uris: ['http://app.example/callback'] }, 'invalid_redirect_uri'],
    [{ redirect_uris: ['https://app.example/cb#frag'] }, 'invalid_redirect_uri'],
    [{ redirect_uris: [] }, 'invalid_redirect_uri'],
    [{ grant_types: ['client_credentials'] }, 'invalid_client_metadata'],
    [{ token_endpoint_auth_method: 'private_key_jwt' }, 'invalid_client_metadata'],
  ])('refuses %j with %s', async (metadata, error) => {
    const answer = await register(stack, metadata);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe(error);
    expect(answer.body.error_description).toEqual(expect.any(String));
  });

  it('accepts an app scheme and loopback http, and gives a confidential client a secret', async () => {
    const answer = await register(stack, {
      redirect_uris: ['com.example.app:/oauth', 'http://127.0.0.1/cb'],
      token_endpoint_auth_method: 'client_secret_post',
    });
    expect(answer.status).toBe(201);
    expect(answer.body.client_secret).toMatch(/^pgw_cs_/);
    keep(answer.body.client_secret as string);
  });
});

describe('/oauth/authorize', () => {
  it('shows an error page, never a redirect, for an unknown client or a redirect URI it did not register', async () => {
    const { challenge } = pkce();
    for (const url of [
      authorizeUrl(stack, 'no-such-client', challenge),
      authorizeUrl(stack, client, challenge, { redirect_uri: 'https://attacker.example/cb' }),
      authorizeUrl(stack, client, challenge, { redirect_uri: undefined }),
    ]) {
      const answer = await authorizeOnce(url);
      expect(answer.status).toBe(400);
      expect(answer.location).toBeNull();
      expect(answer.body.text).toContain('<span class="error-code">invalid_request</span>');
    }
  });

  it.each([
    ['no PKCE challenge', { code_challenge: undefined }, 'invalid_request'],
    ['the plain method', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['a foreign resource', { resource: 'https://attacker.example/mcp' }, 'invalid_target'],
    ['another path of this host', { resource: 'RESOURCE/subgraph' }, 'invalid_target'],
    ['the implicit grant', { response_type: 'token' }, 'unsupported_response_type'],
    ['an unknown scope', { scope: 'admin' }, 'invalid_scope'],
  ])(
    'sends %s back to the client as %s, with its state, and starts no sign-in',
    async (_what, params, error) => {
      const before = (await stack.counts()).request;
      const resolved = Object.fromEntries(
        Object.entries(params).map(([k, v]) => [k, v?.replace('RESOURCE', stack.origin)]),
      );
      const answer = await authorizeOnce(authorizeUrl(stack, client, pkce().challenge, resolved));
      expect(answer.status).toBe(302);
      const location = answer.location as URL;
      expect(location.origin + location.pathname).toBe(REDIRECT);
      expect(location.searchParams.get('error')).toBe(error);
      expect(location.searchParams.get('state')).toBe('state-123');
      expect(location.searchParams.get('iss')).toBe(stack.origin);
      expect((await stack.counts()).request).toBe(before);
    },
  );

  it('accepts a loopback redirect on another port (RFC 8252) and hands the code back with state', async () => {
    const { challenge } = pkce();
    const answer = await authorizeOnce(
      authorizeUrl(stack, client, challenge, { redirect_uri: 'http://127.0.0.1:50000/callback' }),
    );
    expect(answer.status).toBe(302);
    expect(answer.location?.origin).toBe(stack.sandbox.origin);
  });
});

describe('the end of the upstream consent', () => {
  it('sends a declined consent back to the client as access_denied, with its state', async () => {
    const held = await stack.grants();
    stack.sandbox.setOAuthConsent({ mode: 'deny' });
    try {
      const landed = await followSignIn(
        authorizeUrl(stack, client, pkce().challenge),
        REDIRECT,
        'http://never.invalid',
      );
      expect(landed).toBeInstanceOf(URL);
      const url = landed as URL;
      expect(url.searchParams.get('error')).toBe('access_denied');
      expect(url.searchParams.get('state')).toBe('state-123');
      expect(url.searchParams.has('code')).toBe(false);
    } finally {
      stack.sandbox.setOAuthConsent({ mode: 'page' });
    }
    expect(await stack.grants()).toBe(held);
  });

  it('refuses a consent that took longer than ten minutes, with no code and no grant', async () => {
    const held = await stack.grants();
    const started = await authorizeOnce(authorizeUrl(stack, client, pkce().challenge));
    expect((await stack.counts()).request).toBeGreaterThan(0);
    stack.clock.advance(10 * 60_000 + 1);
    // The browser's sign-in and the client's request end together: the callback refuses it.
    const landed = await followSignIn(started.location as URL, REDIRECT, stack.sandbox.origin);
    expect(landed).not.toBeInstanceOf(URL);
    const page = landed as { status: number; text: string };
    expect(page.status).toBe(400);
    expect(JSON.parse(page.text)).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringMatching(/expired: start it again/),
    });
    expect(await stack.grants()).toBe(held);
    expect(await stack.counts()).toMatchObject({ request: 0, code: 0 });
  });

  it("refuses the upstream's answer replayed at the callback, and a made-up state: one code, one grant", async () => {
    const started = await authorizeOnce(authorizeUrl(stack, client, pkce().challenge));
    const consent = new URL(started.location as URL);
    consent.searchParams.set('sandbox_consent', 'approve');
    const approved = await fetch(consent, { redirect: 'manual' });
    await approved.body?.cancel();
    const back = new URL(approved.headers.get('location') ?? '');
    expect(back.pathname).toBe('/auth/callback');
    const held = await stack.grants();
    const first = await fetch(back, { redirect: 'manual' });
    await first.body?.cancel();
    expect(new URL(first.headers.get('location') ?? '').searchParams.get('code')).toBeTruthy();
    expect(await stack.grants()).toBe(held + 1);

    const replayed = await fetch(back, { redirect: 'manual' });
    expect(replayed.status).toBe(400);
    expect(replayed.headers.get('location')).toBeNull();
    expect(await replayed.json()).toMatchObject({ error: 'invalid_request' });
    const madeUp = new URL(back);
    madeUp.searchParams.set('state', 'made-up');
    const foreign = await fetch(madeUp, { redirect: 'manual' });
    expect(foreign.status).toBe(400);
    await foreign.body?.cancel();
    expect(await stack.grants()).toBe(held + 1);
    // The code the first answer gave, never exchanged, expires; the next sweep (on a token
    // request) ends its grant.
    stack.clock.advance(60_001);
    await tokenRequest(stack, { grant_type: 'password', client_id: client });
    expect(await stack.grants()).toBe(held);
  });

  it("the error page says only the server's own words, whatever its URL says", async () => {
    const page = await fetch(
      `${stack.origin}/oauth/error?reason=toString&error_description=Call+0800+now`,
    );
    expect(page.status).toBe(400);
    const text = await page.text();
    expect(text).not.toContain('0800');
    expect(text).toContain('start again from the app');
  });
});

describe('/oauth/token: codes', () => {
  it('refuses a wrong verifier (invalid_grant), spends the code and ends its grant', async () => {
    const held = await stack.grants();
    const { code, verifier } = await codeFor(stack, client);
    keep(code);
    expect(await stack.grants()).toBe(held + 1);
    const wrong = await exchange(stack, client, code, pkce().verifier);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    expect(await stack.grants()).toBe(held);
    const again = await exchange(stack, client, code, verifier);
    expect(again.body.error).toBe('invalid_grant');
  });

  it('refuses a missing verifier (invalid_request) and leaves no grant', async () => {
    const held = await stack.grants();
    const { code } = await codeFor(stack, client);
    keep(code);
    const answer = await tokenRequest(stack, {
      grant_type: 'authorization_code',
      client_id: client,
      code,
      redirect_uri: REDIRECT,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_request');
    expect(answer.body.error_description).toMatch(/code_verifier/);
    expect(await stack.grants()).toBe(held);
  });

  it('refuses a code used twice, and revokes the tokens the first use gave', async () => {
    const held = await stack.grants();
    const { code, verifier } = await codeFor(stack, client);
    const first = await exchange(stack, client, code, verifier);
    expect(first.status).toBe(200);
    const access = keep(first.body.access_token as string);
    keep(first.body.refresh_token as string);
    expect((await mcpInitialize(stack, access)).status).toBe(200);

    const second = await exchange(stack, client, code, verifier);
    expect(second.status).toBe(400);
    expect(second.body.error).toBe('invalid_grant');
    expect((await mcpInitialize(stack, access)).status).toBe(401);
    expect(await stack.grants()).toBe(held);
  });

  it('refuses a code past its minute (invalid_grant) and ends the grant it was made for', async () => {
    const held = await stack.grants();
    const { code, verifier } = await codeFor(stack, client);
    keep(code);
    stack.clock.advance(60_001);
    const answer = await exchange(stack, client, code, verifier);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_grant');
    expect(await stack.grants()).toBe(held);
  });

  it.each([
    ['another redirect URI', { redirect_uri: 'http://127.0.0.1:41234/other' }, 'invalid_grant'],
    ['another resource', { resource: 'RESOURCE/graphql' }, 'invalid_target'],
  ])('refuses %s than the authorization named (%s)', async (_what, extra, error) => {
    const held = await stack.grants();
    const { code, verifier } = await codeFor(stack, client);
    keep(code);
    const resolved = Object.fromEntries(
      Object.entries(extra).map(([k, v]) => [k, v.replace('RESOURCE', stack.origin)]),
    );
    const answer = await exchange(stack, client, code, verifier, resolved);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe(error);
    expect(await stack.grants()).toBe(held);
  });

  it("refuses another client's code (invalid_grant)", async () => {
    const other = await publicClient(stack);
    const { code, verifier } = await codeFor(stack, client);
    keep(code);
    const answer = await exchange(stack, other, code, verifier);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_grant');
  });

  it('refuses an unknown client (invalid_client, 401) and an unknown grant type', async () => {
    const unknown = await tokenRequest(stack, {
      grant_type: 'authorization_code',
      client_id: 'nobody',
      code: 'x',
    });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toBe('invalid_client');
    const grantType = await tokenRequest(stack, { grant_type: 'password', client_id: client });
    expect(grantType.status).toBe(400);
    expect(grantType.body.error).toBe('unsupported_grant_type');
  });
});

describe('/oauth/token: refresh', () => {
  it('rotates, and a refresh token used twice revokes the whole family and ends the grant', async () => {
    const held = await stack.grants();
    const { refresh } = await tokensFor(stack, client);
    keep(refresh);
    expect(await stack.grants()).toBe(held + 1);
    const rotated = await tokenRequest(stack, {
      grant_type: 'refresh_token',
      client_id: client,
      refresh_token: refresh,
    });
    expect(rotated.status).toBe(200);
    const access = keep(rotated.body.access_token as string);
    const next = keep(rotated.body.refresh_token as string);
    expect(next).not.toBe(refresh);
    expect((await mcpInitialize(stack, access)).status).toBe(200);

    const reused = await tokenRequest(stack, {
      grant_type: 'refresh_token',
      client_id: client,
      refresh_token: refresh,
    });
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');
    // The thief's copy and the client's alike: every token of the family is gone.
    expect((await mcpInitialize(stack, access)).status).toBe(401);
    const afterwards = await tokenRequest(stack, {
      grant_type: 'refresh_token',
      client_id: client,
      refresh_token: next,
    });
    expect(afterwards.body.error).toBe('invalid_grant');
    expect(await stack.grants()).toBe(held);
  });

  it("refuses another client's refresh token without spending it", async () => {
    const { refresh } = await tokensFor(stack, client);
    keep(refresh);
    const other = await publicClient(stack);
    const stolen = await tokenRequest(stack, {
      grant_type: 'refresh_token',
      client_id: other,
      refresh_token: refresh,
    });
    expect(stolen.body.error).toBe('invalid_grant');
    const own = await tokenRequest(stack, {
      grant_type: 'refresh_token',
      client_id: client,
      refresh_token: refresh,
    });
    expect(own.status).toBe(200);
  });
});

describe('access tokens at the resources', () => {
  it('admits a token at the resource it was issued for, and refuses it at another (invalid_token)', async () => {
    const forGraphql = await tokensFor(stack, client, stack.graphqlUrl);
    keep(forGraphql.access);
    const ok = await graphqlWith(stack, forGraphql.access);
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual({ user: { id: expect.any(String) } });
    const atMcp = await mcpInitialize(stack, forGraphql.access);
    expect(atMcp.status).toBe(401);
    expect(atMcp.headers.get('www-authenticate')).toContain('error="invalid_token"');

    const forMcp = await tokensFor(stack, client, stack.mcpUrl);
    keep(forMcp.access);
    const atGraphql = await graphqlWith(stack, forMcp.access);
    expect(atGraphql.status).toBe(401);
    const [error] = atGraphql.body.errors as { message: string; extensions: { code: string } }[];
    expect(error?.extensions.code).toBe('UNAUTHENTICATED');
    expect(error?.message).toMatch(/issued for another resource/);
    expect(atGraphql.headers.get('www-authenticate')).toMatch(
      /^Bearer error="invalid_token", .*resource_metadata=".*\/graphql"$/,
    );
  });

  it('refuses a gateway token in the URL, and a made-up one, without asking the upstream', async () => {
    const { access } = await tokensFor(stack, client, stack.graphqlUrl);
    keep(access);
    stack.sandbox.resetCalls();
    const inUrl = await graphqlWith(stack, access, 'url');
    expect(inUrl.status).toBe(401);
    const madeUp = await graphqlWith(stack, `pgw_at_${'A'.repeat(43)}`);
    expect(madeUp.status).toBe(401);
    expect(stack.sandbox.calls()).toEqual([]);
  });

  it('refuses a token once its grant ended elsewhere (sign-out)', async () => {
    const { access } = await tokensFor(stack, client, stack.graphqlUrl);
    keep(access);
    expect((await graphqlWith(stack, access)).status).toBe(200);
    const checked = await stack.authorization.access(access, '/graphql');
    if (!checked.ok) throw new Error(checked.description);
    // Ended as browser sign-out ends a session's grant.
    await stack.signIn.grants.end(checked.grantId);
    expect((await graphqlWith(stack, access)).status).toBe(401);
  });
});

describe('/oauth/revoke', () => {
  it('revokes the family of a refresh token (RFC 7009), and answers 200 for an unknown token', async () => {
    const { access, refresh } = await tokensFor(stack, client, stack.graphqlUrl);
    keep(access);
    keep(refresh);
    const revoked = await revokeRequest(stack, { client_id: client, token: refresh });
    expect(revoked.status).toBe(200);
    expect((await graphqlWith(stack, access)).status).toBe(401);
    const unknown = await revokeRequest(stack, { client_id: client, token: 'pgw_rt_nothing' });
    expect(unknown.status).toBe(200);
  });

  it("refuses to revoke another client's token (unauthorized_client)", async () => {
    const { access } = await tokensFor(stack, client, stack.graphqlUrl);
    keep(access);
    const other = await publicClient(stack);
    const answer = await revokeRequest(stack, { client_id: other, token: access });
    expect(answer.body.error).toBe('unauthorized_client');
    expect((await graphqlWith(stack, access)).status).toBe(200);
  });
});
