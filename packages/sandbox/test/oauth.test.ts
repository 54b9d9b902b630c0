/**
 * OAuth's token side, approved at once (`sandbox_consent=approve`; the consent pages have their
 * own suite): the authorization code grant (form fields, query string, HTTP Basic), the 7200 s
 * lifetime by the manual clock, one-time refresh tokens and the revocation of the old access
 * token on first use of the new one, the implicit grant, the read-only scope, and the RFC 6749
 * errors.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock, Sandbox } from '../src/core/api.js';
import { createManualClock, createSandbox } from '../src/index.js';
import { TEST_NOW } from './support/dates.js';
import { expectError } from './support/expect-response.js';
import {
  authorize,
  basicAuth,
  codeGrant,
  codeOf,
  type OAuthApp,
  registration,
  requestToken,
  stringField,
} from './support/oauth.js';
import { createRest } from './support/rest.js';

const APP: OAuthApp = {
  clientId: 'test-client',
  clientSecret: 'test-secret',
  redirectUri: 'https://app.example/callback',
};
const OTHER_APP: OAuthApp = {
  clientId: 'other-client',
  clientSecret: 'other-secret',
  redirectUri: 'https://other.example/cb',
};
const DEFAULT_PLAN_APP: OAuthApp = {
  clientId: 'picker-client',
  clientSecret: 'picker-secret',
  redirectUri: 'https://picker.example/cb',
};
/** Registered without a port: on loopback any port matches (RFC 8252). */
const LOOPBACK_APP: OAuthApp = {
  clientId: 'loopback-client',
  clientSecret: 'loopback-secret',
  redirectUri: 'http://127.0.0.1/callback',
};
const LOOPBACK_AT_5000 = 'http://127.0.0.1:5000/callback';
const SECOND = 1_000;

let sandbox: Sandbox;
let clock: ManualClock;

beforeEach(async () => {
  clock = createManualClock(TEST_NOW);
  sandbox = await createSandbox({
    port: 0,
    clock,
    rateLimit: false,
    users: [
      { token: 'owner-pat', plans: [{ seed: 2, transactions: 20 }] },
      {
        token: 'second-pat',
        plans: [
          { seed: 3, transactions: 20 },
          { seed: 4, transactions: 20 },
        ],
      },
    ],
    oauthClients: [
      registration(APP),
      registration(OTHER_APP),
      registration(DEFAULT_PLAN_APP, { defaultPlanSelection: true }),
      registration(LOOPBACK_APP),
    ],
  });
});

afterEach(async () => {
  await sandbox.close();
});

const userIdWith = async (token: string): Promise<{ status: number; id: unknown }> => {
  const response = await createRest(sandbox.url, token).get('/user');
  const body = response.body as { data?: { user?: { id?: unknown } } } | undefined;
  return { status: response.status, id: body?.data?.user?.id };
};

const codeParams = (app: OAuthApp = APP): Record<string, string> => ({
  client_id: app.clientId,
  redirect_uri: app.redirectUri,
  response_type: 'code',
  sandbox_consent: 'approve',
});

const exchangeFields = (code: string, app: OAuthApp = APP): Record<string, string> => ({
  client_id: app.clientId,
  client_secret: app.clientSecret,
  redirect_uri: app.redirectUri,
  grant_type: 'authorization_code',
  code,
});

function expectTokenResponse(body: Record<string, unknown>, withRefresh = true): void {
  expect(typeof body.access_token).toBe('string');
  expect(body.token_type).toBe('bearer');
  expect(body.expires_in).toBe(7_200);
  if (withRefresh) expect(typeof body.refresh_token).toBe('string');
}

function expectOAuthError(
  result: { status: number; body: Record<string, unknown> },
  error: string,
  statuses: number[] = [400],
): void {
  expect(statuses, JSON.stringify(result.body)).toContain(result.status);
  expect(result.body.error).toBe(error);
  expect(result.body.access_token).toBeUndefined();
}

describe('authorization code grant', () => {
  it('redirects to the redirect_uri with a code and the state unchanged', async () => {
    const state = 'csrf-1 & more/é=?';
    const result = await authorize(sandbox.origin, { ...codeParams(), state });
    expect([302, 303]).toContain(result.status);
    expect(`${result.location?.origin ?? ''}${result.location?.pathname ?? ''}`).toBe(
      APP.redirectUri,
    );
    expect(result.location?.searchParams.get('state')).toBe(state);
    expect(codeOf(result).length).toBeGreaterThan(0);
    expect(result.location?.hash).toBe('');
  });

  it('exchanges the code with form fields for a bearer token of 7200 s that works', async () => {
    const code = codeOf(await authorize(sandbox.origin, codeParams()));
    const token = await requestToken(sandbox.origin, exchangeFields(code));
    expect(token.status).toBe(200);
    expectTokenResponse(token.body);
    expect(await userIdWith(stringField(token.body, 'access_token'))).toEqual({
      status: 200,
      id: sandbox.users[0]?.userId,
    });
    const plans = await createRest(sandbox.url, stringField(token.body, 'access_token')).get(
      '/plans',
    );
    expect(plans.status).toBe(200);
  });

  it('exchanges the code with the fields in the query string', async () => {
    const code = codeOf(await authorize(sandbox.origin, codeParams()));
    const token = await requestToken(sandbox.origin, exchangeFields(code), 'query');
    expect(token.status).toBe(200);
    expectTokenResponse(token.body);
    expect((await userIdWith(stringField(token.body, 'access_token'))).status).toBe(200);
  });

  it('lets the access token expire after 7200 s by the sandbox clock', async () => {
    const token = stringField(await codeGrant(sandbox.origin, APP), 'access_token');
    clock.advance(7_199 * SECOND);
    expect((await userIdWith(token)).status).toBe(200);
    clock.advance(2 * SECOND);
    expectError(await createRest(sandbox.url, token).get('/user'), 401, '401', 'not_authorized');
    expectError(
      await createRest(sandbox.url, token).request('GET', '/user', { tokenIn: 'query' }),
      401,
      '401',
      'not_authorized',
    );
  });
});

describe('the approving user and the default plan (sandbox-only parameters, see the README)', () => {
  it('approves for the user named by sandbox_user, by index or by id', async () => {
    const second = sandbox.users[1];
    for (const choice of ['1', second?.userId ?? '']) {
      const token = stringField(
        await codeGrant(sandbox.origin, APP, { sandbox_user: choice }),
        'access_token',
      );
      expect(await userIdWith(token)).toEqual({ status: 200, id: second?.userId });
      const plans = await createRest(sandbox.url, token).get('/plans');
      const ids = (plans.body as { data: { plans: { id: string }[] } }).data.plans
        .map((p) => p.id)
        .sort();
      expect(ids).toEqual([...(second?.planIds ?? [])].sort());
    }
  });

  it('lets an application with default plan selection use `default` for the chosen plan', async () => {
    const chosen = sandbox.users[1]?.planIds[1] ?? '';
    const token = stringField(
      await codeGrant(sandbox.origin, DEFAULT_PLAN_APP, {
        sandbox_user: '1',
        sandbox_default_plan: chosen,
      }),
      'access_token',
    );
    const rest = createRest(sandbox.url, token);
    const plan = await rest.get('/plans/default');
    expect((plan.body as { data: { plan: { id: string } } }).data.plan.id).toBe(chosen);
    expect((await rest.get('/plans/default/accounts')).status).toBe(200);

    const withoutSelection = stringField(
      await codeGrant(sandbox.origin, APP, { sandbox_user: '1' }),
      'access_token',
    );
    expectError(
      await createRest(sandbox.url, withoutSelection).get('/plans/default'),
      404,
      '404.2',
      'resource_not_found',
    );
  });
});

describe('refresh grant', () => {
  const refresh = (refreshToken: string, app: OAuthApp = APP) =>
    requestToken(sandbox.origin, {
      client_id: app.clientId,
      client_secret: app.clientSecret,
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    });

  it('returns a new pair; the refresh token is single-use', async () => {
    const first = await codeGrant(sandbox.origin, APP);
    const refreshed = await refresh(stringField(first, 'refresh_token'));
    expect(refreshed.status).toBe(200);
    expectTokenResponse(refreshed.body);
    expect(refreshed.body.access_token).not.toBe(first.access_token);
    expect(refreshed.body.refresh_token).not.toBe(first.refresh_token);
    expectOAuthError(await refresh(stringField(first, 'refresh_token')), 'invalid_grant');
    const again = await refresh(stringField(refreshed.body, 'refresh_token'));
    expect(again.status).toBe(200);
  });

  it('keeps the old access token until the new one is first used, then revokes it', async () => {
    const first = await codeGrant(sandbox.origin, APP);
    const oldToken = stringField(first, 'access_token');
    const refreshed = await refresh(stringField(first, 'refresh_token'));
    const newToken = stringField(refreshed.body, 'access_token');
    expect((await userIdWith(oldToken)).status).toBe(200);
    expect((await userIdWith(oldToken)).status).toBe(200);
    expect((await userIdWith(newToken)).status).toBe(200);
    expectError(await createRest(sandbox.url, oldToken).get('/user'), 401, '401', 'not_authorized');
    expect((await userIdWith(newToken)).status).toBe(200);
  });

  it('revokes every token it replaced when refreshes follow one another before any use', async () => {
    const first = await codeGrant(sandbox.origin, APP);
    const second = (await refresh(stringField(first, 'refresh_token'))).body;
    const third = (await refresh(stringField(second, 'refresh_token'))).body;
    expect((await userIdWith(stringField(first, 'access_token'))).status).toBe(200);
    expect((await userIdWith(stringField(third, 'access_token'))).status).toBe(200);
    expect((await userIdWith(stringField(second, 'access_token'))).status).toBe(401);
    expect((await userIdWith(stringField(first, 'access_token'))).status).toBe(401);
  });

  it('gives the new access token a fresh lifetime', async () => {
    const first = await codeGrant(sandbox.origin, APP);
    clock.advance(7_000 * SECOND);
    const newToken = stringField(
      (await refresh(stringField(first, 'refresh_token'))).body,
      'access_token',
    );
    clock.advance(7_100 * SECOND);
    expect((await userIdWith(newToken)).status).toBe(200);
    clock.advance(101 * SECOND);
    expect((await userIdWith(newToken)).status).toBe(401);
  });

  it('refuses a refresh token presented by another client', async () => {
    const first = await codeGrant(sandbox.origin, APP);
    expectOAuthError(
      await refresh(stringField(first, 'refresh_token'), OTHER_APP),
      'invalid_grant',
    );
  });
});

describe('implicit grant', () => {
  it('redirects with the access token in the fragment and no refresh token', async () => {
    const result = await authorize(sandbox.origin, {
      client_id: APP.clientId,
      redirect_uri: APP.redirectUri,
      response_type: 'token',
      sandbox_consent: 'approve',
      state: 'imp-1',
    });
    expect([302, 303]).toContain(result.status);
    expect(`${result.location?.origin ?? ''}${result.location?.pathname ?? ''}`).toBe(
      APP.redirectUri,
    );
    expect(result.location?.searchParams.get('code')).toBeNull();
    const fragment = new URLSearchParams(result.location?.hash.slice(1) ?? '');
    const token = fragment.get('access_token');
    expect(token).not.toBeNull();
    expect(fragment.get('token_type')).toBe('bearer');
    expect(fragment.get('expires_in')).toBe('7200');
    expect(fragment.get('state')).toBe('imp-1');
    expect(fragment.get('refresh_token')).toBeNull();
    expect((await userIdWith(token ?? '')).status).toBe(200);
    clock.advance(7_201 * SECOND);
    expect((await userIdWith(token ?? '')).status).toBe(401);
  });
});

describe('read-only scope', () => {
  it('gives a token that reads but is refused with 403.3 on writes', async () => {
    const token = stringField(
      await codeGrant(sandbox.origin, APP, { scope: 'read-only' }),
      'access_token',
    );
    const rest = createRest(sandbox.url, token);
    const planId = sandbox.users[0]?.planIds[0] ?? '';
    expect((await rest.get(`/plans/${planId}/accounts`)).status).toBe(200);
    expectError(
      await rest.post(`/plans/${planId}/payees`, { payee: { name: 'Nope' } }),
      403,
      '403.3',
      'unauthorized_scope',
    );
    expectError(
      await rest.patch(`/plans/${planId}/months/current/categories/x`, {
        category: { budgeted: 1 },
      }),
      403,
      '403.3',
      'unauthorized_scope',
    );
  });

  it('keeps the scope through a refresh and in the implicit grant', async () => {
    const first = await codeGrant(sandbox.origin, APP, { scope: 'read-only' });
    const refreshed = await requestToken(sandbox.origin, {
      client_id: APP.clientId,
      client_secret: APP.clientSecret,
      grant_type: 'refresh_token',
      refresh_token: stringField(first, 'refresh_token'),
    });
    const planId = sandbox.users[0]?.planIds[0] ?? '';
    const viaRefresh = createRest(sandbox.url, stringField(refreshed.body, 'access_token'));
    expectError(
      await viaRefresh.post(`/plans/${planId}/payees`, { payee: { name: 'Nope' } }),
      403,
      '403.3',
      'unauthorized_scope',
    );

    const implicit = await authorize(sandbox.origin, {
      client_id: APP.clientId,
      redirect_uri: APP.redirectUri,
      response_type: 'token',
      sandbox_consent: 'approve',
      scope: 'read-only',
    });
    const token =
      new URLSearchParams(implicit.location?.hash.slice(1) ?? '').get('access_token') ?? '';
    expectError(
      await createRest(sandbox.url, token).post(`/plans/${planId}/payees`, {
        payee: { name: 'Nope' },
      }),
      403,
      '403.3',
      'unauthorized_scope',
    );
  });
});

describe('OAuth errors', () => {
  it('refuses a wrong client secret', async () => {
    const code = codeOf(await authorize(sandbox.origin, codeParams()));
    expectOAuthError(
      await requestToken(sandbox.origin, { ...exchangeFields(code), client_secret: 'wrong' }),
      'invalid_client',
      [400, 401],
    );
    // The code was not spent by the failed attempt.
    expect((await requestToken(sandbox.origin, exchangeFields(code))).status).toBe(200);
  });

  it("refuses a redirect_uri that differs from the authorization's", async () => {
    const code = codeOf(await authorize(sandbox.origin, codeParams()));
    expectOAuthError(
      await requestToken(sandbox.origin, {
        ...exchangeFields(code),
        redirect_uri: 'https://evil.example/cb',
      }),
      'invalid_grant',
    );
  });

  it('refuses a code used twice, an unknown code, and a code of another client', async () => {
    const code = codeOf(await authorize(sandbox.origin, codeParams()));
    expect((await requestToken(sandbox.origin, exchangeFields(code))).status).toBe(200);
    expectOAuthError(await requestToken(sandbox.origin, exchangeFields(code)), 'invalid_grant');
    expectOAuthError(
      await requestToken(sandbox.origin, exchangeFields('made-up-code')),
      'invalid_grant',
    );
    const otherCode = codeOf(await authorize(sandbox.origin, codeParams(OTHER_APP)));
    expectOAuthError(
      await requestToken(sandbox.origin, {
        ...exchangeFields(otherCode),
        redirect_uri: APP.redirectUri,
      }),
      'invalid_grant',
    );
  });

  it('refuses a code exchanged after it expired (10 minutes, as the README says)', async () => {
    const code = codeOf(await authorize(sandbox.origin, codeParams()));
    clock.advance(11 * 60 * SECOND);
    expectOAuthError(await requestToken(sandbox.origin, exchangeFields(code)), 'invalid_grant');
  });

  it('refuses an unknown client and a mismatched redirect_uri at authorization without redirecting', async () => {
    for (const params of [
      { ...codeParams(), client_id: 'nobody' },
      { ...codeParams(), redirect_uri: 'https://evil.example/cb' },
    ]) {
      const result = await authorize(sandbox.origin, params);
      expect(result.status).toBe(400);
      expect(result.location).toBeNull();
    }
  });

  it('refuses an unsupported response_type and grant_type', async () => {
    const result = await authorize(sandbox.origin, {
      ...codeParams(),
      response_type: 'password',
      state: 's',
    });
    if (result.location !== null) {
      expect(result.location.searchParams.get('error')).toBe('unsupported_response_type');
      expect(result.location.searchParams.get('state')).toBe('s');
    } else expect(result.status).toBe(400);
    expectOAuthError(
      await requestToken(sandbox.origin, {
        client_id: APP.clientId,
        client_secret: APP.clientSecret,
        grant_type: 'password',
      }),
      'unsupported_grant_type',
    );
  });

  it('refuses a token request without a code', async () => {
    const { code: _code, ...fields } = exchangeFields('unused');
    expectOAuthError(await requestToken(sandbox.origin, fields), 'invalid_request');
  });
});

describe('client authentication and RFC 6749 details', () => {
  it('accepts the client credentials as HTTP Basic instead of form fields', async () => {
    const code = codeOf(await authorize(sandbox.origin, codeParams()));
    const { client_secret: _secret, client_id: _id, ...fields } = exchangeFields(code);
    const token = await requestToken(
      sandbox.origin,
      fields,
      'form',
      basicAuth(APP.clientId, APP.clientSecret),
    );
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    expect((await userIdWith(stringField(token.body, 'access_token'))).status).toBe(200);
  });

  it('refuses wrong Basic credentials with 401 and a Basic challenge, and both methods at once', async () => {
    const code = codeOf(await authorize(sandbox.origin, codeParams()));
    const { client_secret: _secret, ...fields } = exchangeFields(code);
    const wrong = await requestToken(
      sandbox.origin,
      fields,
      'form',
      basicAuth(APP.clientId, 'not-the-secret'),
    );
    expectOAuthError(wrong, 'invalid_client', [401]);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic /);
    const both = await requestToken(
      sandbox.origin,
      exchangeFields(code),
      'form',
      basicAuth(APP.clientId, APP.clientSecret),
    );
    expectOAuthError(both, 'invalid_request');
    // Neither spent the code.
    expect((await requestToken(sandbox.origin, exchangeFields(code))).status).toBe(200);
  });

  it('refuses a token request that names no client with 401 invalid_client', async () => {
    const { client_id: _id, client_secret: _secret, ...fields } = exchangeFields('whatever');
    expectOAuthError(await requestToken(sandbox.origin, fields), 'invalid_client', [401]);
  });

  it('answers tokens and errors with no-store caching', async () => {
    const code = codeOf(await authorize(sandbox.origin, codeParams()));
    for (const result of [
      await requestToken(sandbox.origin, exchangeFields(code)),
      await requestToken(sandbox.origin, exchangeFields(code)),
    ]) {
      expect(result.headers.get('cache-control')).toBe('no-store');
      expect(result.headers.get('pragma')).toBe('no-cache');
      expect(result.headers.get('content-type')).toMatch(/^application\/json/);
    }
  });

  it('wants the redirect_uri of the authorization, and a missing one does not spend the code', async () => {
    const code = codeOf(await authorize(sandbox.origin, codeParams()));
    const { redirect_uri: _uri, ...fields } = exchangeFields(code);
    expectOAuthError(await requestToken(sandbox.origin, fields), 'invalid_request');
    expect((await requestToken(sandbox.origin, exchangeFields(code))).status).toBe(200);
  });

  it('revokes the tokens a code gave when the code is presented again (RFC 6749, 4.1.2)', async () => {
    const code = codeOf(await authorize(sandbox.origin, codeParams()));
    const first = await requestToken(sandbox.origin, exchangeFields(code));
    const access = stringField(first.body, 'access_token');
    expect((await userIdWith(access)).status).toBe(200);
    const replay = await requestToken(sandbox.origin, exchangeFields(code));
    expectOAuthError(replay, 'invalid_grant');
    expect(String(replay.body.error_description)).toMatch(/already used/);
    expectError(await createRest(sandbox.url, access).get('/user'), 401, '401', 'not_authorized');
    expectOAuthError(
      await requestToken(sandbox.origin, {
        client_id: APP.clientId,
        client_secret: APP.clientSecret,
        grant_type: 'refresh_token',
        refresh_token: stringField(first.body, 'refresh_token'),
      }),
      'invalid_grant',
    );
  });

  it('refuses a code at exactly 10 minutes and takes it a second before', async () => {
    const late = codeOf(await authorize(sandbox.origin, codeParams()));
    const inTime = codeOf(await authorize(sandbox.origin, codeParams()));
    clock.advance(10 * 60 * SECOND - SECOND);
    expect((await requestToken(sandbox.origin, exchangeFields(inTime))).status).toBe(200);
    clock.advance(SECOND);
    expectOAuthError(await requestToken(sandbox.origin, exchangeFields(late)), 'invalid_grant');
  });

  it('binds a code to the exact redirect URI it was issued for, among the registered ones', async () => {
    const code = codeOf(
      await authorize(sandbox.origin, {
        ...codeParams(LOOPBACK_APP),
        redirect_uri: LOOPBACK_AT_5000,
      }),
    );
    expectOAuthError(
      await requestToken(sandbox.origin, {
        ...exchangeFields(code, LOOPBACK_APP),
        redirect_uri: LOOPBACK_APP.redirectUri,
      }),
      'invalid_grant',
    );
    const again = codeOf(
      await authorize(sandbox.origin, {
        ...codeParams(LOOPBACK_APP),
        redirect_uri: LOOPBACK_AT_5000,
      }),
    );
    const token = await requestToken(sandbox.origin, {
      ...exchangeFields(again, LOOPBACK_APP),
      redirect_uri: LOOPBACK_AT_5000,
    });
    expect(token.status, JSON.stringify(token.body)).toBe(200);
  });
});
