/**
 * What happens to grants after authorization: a restricted application's 25 tokens for users
 * other than its owner, ending grants the way a user removing an application would
 * (`revokeOAuthGrants`), and the call counts a gateway test reads to assert "one refresh".
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../src/core/api.js';
import { createManualClock, createSandbox } from '../src/index.js';
import { TEST_NOW } from './support/dates.js';
import { expectError } from './support/expect-response.js';
import {
  answerConsent,
  approvedCode,
  authorize,
  codeGrant,
  type OAuthApp,
  pageText,
  registration,
  requestToken,
  stringField,
} from './support/oauth.js';
import { createRest } from './support/rest.js';

const RESTRICTED: OAuthApp = {
  clientId: 'new-app',
  clientSecret: 'new-secret',
  redirectUri: 'https://new.example/cb',
};
const REVIEWED: OAuthApp = {
  clientId: 'reviewed-app',
  clientSecret: 'reviewed-secret',
  redirectUri: 'https://reviewed.example/cb',
};
const LIMIT = 25;

let sandbox: Sandbox;

beforeEach(async () => {
  sandbox = await createSandbox({
    clock: createManualClock(TEST_NOW),
    rateLimit: false,
    users: [
      { token: 'owner-pat', name: 'Owner', plans: [{ transactions: 10 }] },
      { token: 'user-pat', name: 'Customer', plans: [{ seed: 2, transactions: 10 }] },
      { token: 'third-pat', name: 'Third', plans: [{ seed: 3, transactions: 10 }] },
    ],
    oauthClients: [
      registration(RESTRICTED, { name: 'New App', restricted: true, owner: 0 }),
      registration(REVIEWED),
    ],
  });
});

afterEach(() => sandbox.close());

const statusWith = async (token: string) =>
  (await createRest(sandbox.url, token).get('/user')).status;

const refresh = (app: OAuthApp, refreshToken: string) =>
  requestToken(sandbox.origin, {
    client_id: app.clientId,
    client_secret: app.clientSecret,
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
  });

const consentUrl = (app: OAuthApp, extra: Record<string, string> = {}) => {
  const url = new URL('/oauth/authorize', sandbox.origin);
  url.search = new URLSearchParams({
    client_id: app.clientId,
    redirect_uri: app.redirectUri,
    response_type: 'code',
    ...extra,
  }).toString();
  return url;
};

describe("a restricted application's 25 tokens", () => {
  it('refuses new authorizations of other users after 25 tokens, on the authorization page', async () => {
    // A code approved now and exchanged once the limit is reached gets no token.
    const pendingCode = await approvedCode(sandbox.origin, RESTRICTED, { sandbox_user: '2' });
    let lastGrant: Record<string, unknown> = {};
    for (let i = 0; i < LIMIT - 1; i++)
      lastGrant = await codeGrant(sandbox.origin, RESTRICTED, {
        sandbox_user: String(1 + (i % 2)),
      });
    // The implicit grant counts as well: the 25th token.
    const implicit = await authorize(sandbox.origin, {
      client_id: RESTRICTED.clientId,
      redirect_uri: RESTRICTED.redirectUri,
      response_type: 'token',
      sandbox_consent: 'approve',
      sandbox_user: '1',
    });
    expect(
      new URLSearchParams(implicit.location?.hash.slice(1)).get('access_token'),
    ).not.toBeNull();

    const page = await fetch(consentUrl(RESTRICTED, { sandbox_user: '1' }));
    const text = await page.text();
    expect(page.status).toBe(403);
    expect(pageText(text)).toContain('New App is in restricted mode');
    expect(pageText(text)).toContain('25 access tokens');
    expect(text).not.toContain('value="approve"');
    expect(text).toContain('value="deny"');

    const atOnce = await authorize(sandbox.origin, {
      client_id: RESTRICTED.clientId,
      redirect_uri: RESTRICTED.redirectUri,
      response_type: 'code',
      sandbox_consent: 'approve',
      sandbox_user: '2',
    });
    expect(atOnce.status).toBe(403);
    expect(atOnce.location).toBeNull();

    const late = await requestToken(sandbox.origin, {
      client_id: RESTRICTED.clientId,
      client_secret: RESTRICTED.clientSecret,
      redirect_uri: RESTRICTED.redirectUri,
      grant_type: 'authorization_code',
      code: pendingCode,
    });
    expect(late.status).toBe(400);
    expect(late.body.error).toBe('invalid_grant');
    expect(String(late.body.error_description)).toMatch(/restricted mode/);

    // Tokens already given keep working and refreshing; the owner is not limited.
    const refreshed = await refresh(RESTRICTED, stringField(lastGrant, 'refresh_token'));
    expect(refreshed.status).toBe(200);
    expect(await statusWith(stringField(refreshed.body, 'access_token'))).toBe(200);
    const owners = await codeGrant(sandbox.origin, RESTRICTED, { sandbox_user: '0' });
    expect(await statusWith(stringField(owners, 'access_token'))).toBe(200);
    // Other applications are not affected.
    const other = await codeGrant(sandbox.origin, REVIEWED, { sandbox_user: '1' });
    expect(await statusWith(stringField(other, 'access_token'))).toBe(200);
  });

  it('lets a consent page opened before the limit refuse an answer given after it', async () => {
    const opened = await fetch(consentUrl(RESTRICTED, { sandbox_user: '1' }));
    const ticket = /name="request" value="([^"]+)"/.exec(await opened.text())?.[1] ?? '';
    for (let i = 0; i < LIMIT; i++)
      await codeGrant(sandbox.origin, RESTRICTED, { sandbox_user: '2' });
    const answer = await fetch(new URL('/oauth/authorize', sandbox.origin), {
      method: 'POST',
      body: new URLSearchParams({ request: ticket, decision: 'approve' }),
      redirect: 'manual',
    });
    expect(answer.status).toBe(403);
    expect(answer.headers.get('location')).toBeNull();
    expect(pageText(await answer.text())).toContain('restricted mode');
    // Its owner still gets through the pages.
    const owner = await answerConsent(consentUrl(RESTRICTED), { user: '0' });
    expect(owner.status).toBe(303);
    expect(owner.location?.searchParams.get('code')).not.toBeNull();
  });
});

describe('revokeOAuthGrants', () => {
  it('ends the grant a token names: its access tokens get 401, its refresh token invalid_grant', async () => {
    const ended = await codeGrant(sandbox.origin, REVIEWED, { sandbox_user: '1' });
    const kept = await codeGrant(sandbox.origin, REVIEWED, { sandbox_user: '1' });
    expect(sandbox.revokeOAuthGrants({ token: stringField(ended, 'access_token') })).toBe(1);
    expectError(
      await createRest(sandbox.url, stringField(ended, 'access_token')).get('/user'),
      401,
      '401',
      'not_authorized',
      /revoked/,
    );
    const refused = await refresh(REVIEWED, stringField(ended, 'refresh_token'));
    expect(refused.body.error).toBe('invalid_grant');
    expect(await statusWith(stringField(kept, 'access_token'))).toBe(200);
    // Found by its refresh token too, and a grant ends once.
    expect(sandbox.revokeOAuthGrants({ token: stringField(kept, 'refresh_token') })).toBe(1);
    expect(await statusWith(stringField(kept, 'access_token'))).toBe(401);
    expect(sandbox.revokeOAuthGrants({ token: stringField(kept, 'access_token') })).toBe(0);
  });

  it('ends every token the grant ever issued, the refreshed ones included', async () => {
    const first = await codeGrant(sandbox.origin, REVIEWED);
    const second = await refresh(REVIEWED, stringField(first, 'refresh_token'));
    const newest = stringField(second.body, 'access_token');
    expect(await statusWith(newest)).toBe(200);
    expect(sandbox.revokeOAuthGrants({ token: stringField(first, 'access_token') })).toBe(1);
    expect(await statusWith(newest)).toBe(401);
    expect((await refresh(REVIEWED, stringField(second.body, 'refresh_token'))).body.error).toBe(
      'invalid_grant',
    );
  });

  it("ends a user's grants, or an application's, and leaves the rest", async () => {
    const customer = sandbox.users[1]?.userId ?? '';
    const customerRestricted = await codeGrant(sandbox.origin, RESTRICTED, { sandbox_user: '1' });
    const customerReviewed = await codeGrant(sandbox.origin, REVIEWED, { sandbox_user: '1' });
    const thirdReviewed = await codeGrant(sandbox.origin, REVIEWED, { sandbox_user: '2' });
    expect(sandbox.revokeOAuthGrants({ userId: customer, clientId: REVIEWED.clientId })).toBe(1);
    expect(await statusWith(stringField(customerReviewed, 'access_token'))).toBe(401);
    expect(await statusWith(stringField(customerRestricted, 'access_token'))).toBe(200);
    expect(sandbox.revokeOAuthGrants({ clientId: REVIEWED.clientId })).toBe(1);
    expect(await statusWith(stringField(thirdReviewed, 'access_token'))).toBe(401);
    expect(sandbox.revokeOAuthGrants({ userId: customer.toUpperCase() })).toBe(1);
    expect(await statusWith(stringField(customerRestricted, 'access_token'))).toBe(401);
    // Personal tokens are not OAuth grants.
    expect(sandbox.revokeOAuthGrants({ token: 'user-pat' })).toBe(0);
    expect(await statusWith('user-pat')).toBe(200);
  });

  it('ends a grant whose code is not exchanged yet', async () => {
    const code = await approvedCode(sandbox.origin, REVIEWED);
    expect(sandbox.revokeOAuthGrants({ clientId: REVIEWED.clientId })).toBe(1);
    const exchanged = await requestToken(sandbox.origin, {
      client_id: REVIEWED.clientId,
      client_secret: REVIEWED.clientSecret,
      redirect_uri: REVIEWED.redirectUri,
      grant_type: 'authorization_code',
      code,
    });
    expect(exchanged.body.error).toBe('invalid_grant');
  });

  it('wants at least one criterion', () => {
    expect(() => sandbox.revokeOAuthGrants({})).toThrow(/give a token, a userId or a clientId/);
  });
});

describe('call counts', () => {
  it('counts each endpoint, refreshes apart from code exchanges, refused calls included', async () => {
    const first = await codeGrant(sandbox.origin, REVIEWED);
    const second = await refresh(REVIEWED, stringField(first, 'refresh_token'));
    await refresh(REVIEWED, stringField(first, 'refresh_token')); // used already: refused
    await createRest(sandbox.url, stringField(second.body, 'access_token')).get('/user');
    await requestToken(sandbox.origin, {
      client_id: REVIEWED.clientId,
      client_secret: REVIEWED.clientSecret,
    });
    await fetch(new URL('/v1/nowhere', sandbox.origin));
    expect(sandbox.callCounts()).toEqual({
      'oauth.authorize': 1,
      'oauth.token.authorization_code': 1,
      'oauth.token.refresh_token': 2,
      'oauth.token': 1,
      getUser: 1,
    });
    const refreshes = sandbox
      .calls()
      .filter((call) => call.endpoint === 'oauth.token.refresh_token')
      .map((call) => call.status);
    expect(refreshes).toEqual([200, 400]);
    sandbox.resetCalls();
    expect(sandbox.callCounts()).toEqual({});
  });

  it('counts the consent page and its answer apart', async () => {
    await answerConsent(consentUrl(REVIEWED), { user: '1' });
    expect(sandbox.callCounts()).toEqual({ 'oauth.authorize': 1, 'oauth.consent': 1 });
  });
});
