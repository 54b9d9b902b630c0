/**
 * The authorization pages over plain HTTP (the Chromium suite clicks the same forms): sign in as
 * one of several users, consent with Authorize or Deny, the default plan picked there, the
 * one-time consent request, the pages that must never redirect (bad client or redirect URI), the
 * loopback redirect URI rule, and the `oauthConsent` modes a test uses to skip the pages.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock, Sandbox } from '../src/core/api.js';
import { createManualClock, createSandbox } from '../src/index.js';
import { TEST_NOW } from './support/dates.js';
import {
  ALICE_AND_BOB,
  type AuthorizeResult,
  answerConsent,
  authorize,
  codeOf,
  formField,
  type OAuthApp,
  pageError,
  pageText,
  registration,
  requestToken,
  stringField,
} from './support/oauth.js';
import { createRest } from './support/rest.js';

const APP: OAuthApp = {
  clientId: 'budget-buddy',
  clientSecret: 'buddy-secret',
  redirectUri: 'https://buddy.example/callback',
};
const PICKER: OAuthApp = {
  clientId: 'plan-picker',
  clientSecret: 'picker-secret',
  redirectUri: 'https://picker.example/cb',
};
const LOOPBACK: OAuthApp = {
  clientId: 'local-tool',
  clientSecret: 'local-secret',
  redirectUri: 'http://127.0.0.1/callback',
};
const MINUTE = 60_000;

let sandbox: Sandbox;
let clock: ManualClock;

beforeAll(async () => {
  clock = createManualClock(TEST_NOW);
  sandbox = await createSandbox({
    clock,
    rateLimit: false,
    users: ALICE_AND_BOB,
    oauthClients: [
      registration(APP, { name: 'Budget <Buddy>' }),
      registration(PICKER, { name: 'Plan Picker', defaultPlanSelection: true }),
      registration(LOOPBACK),
    ],
  });
});

afterAll(() => sandbox.close());

beforeEach(() => sandbox.setOAuthConsent({ mode: 'page' }));

const bob = () => sandbox.users[1] ?? expect.unreachable('no second user');

function authorizeUrl(app: OAuthApp, extra: Record<string, string> = {}): URL {
  const url = new URL('/oauth/authorize', sandbox.origin);
  const params = {
    client_id: app.clientId,
    redirect_uri: app.redirectUri,
    response_type: 'code',
    state: 'st-1',
    ...extra,
  };
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url;
}

async function show(url: URL): Promise<AuthorizeResult & { headers: Headers }> {
  const response = await fetch(url, { redirect: 'manual' });
  const location = response.headers.get('location');
  return {
    status: response.status,
    headers: response.headers,
    location: location === null ? null : new URL(location, sandbox.origin),
    text: await response.text(),
  };
}

async function exchange(app: OAuthApp, result: AuthorizeResult): Promise<string> {
  const token = await requestToken(sandbox.origin, {
    client_id: app.clientId,
    client_secret: app.clientSecret,
    redirect_uri: app.redirectUri,
    grant_type: 'authorization_code',
    code: codeOf(result),
  });
  expect(token.status, JSON.stringify(token.body)).toBe(200);
  return stringField(token.body, 'access_token');
}

async function userOf(accessToken: string): Promise<unknown> {
  const response = await createRest(sandbox.url, accessToken).get('/user');
  return (response.body as { data?: { user?: { id?: unknown } } }).data?.user?.id;
}

describe('signing in and consenting', () => {
  it('asks which user signs in when there are several, then consents for the one picked', async () => {
    const signIn = await show(authorizeUrl(APP));
    expect(signIn.status).toBe(200);
    expect(signIn.headers.get('content-type')).toMatch(/^text\/html/);
    expect(signIn.text).toContain('Sign in to the Plans sandbox');
    expect(signIn.text).toContain(`value="${bob().userId}">Bob`);
    expect(signIn.text).toMatch(/value="[^"]+">Alice/);
    // The chooser sends the application's request again, unchanged, with the user picked.
    expect(formField(signIn.text, 'client_id')).toBe(APP.clientId);
    expect(formField(signIn.text, 'redirect_uri')).toBe(APP.redirectUri);
    expect(formField(signIn.text, 'state')).toBe('st-1');

    const consent = await show(authorizeUrl(APP, { sandbox_user: bob().userId }));
    expect(consent.status).toBe(200);
    expect(consent.text).toContain('Authorize Budget &lt;Buddy&gt;');
    expect(consent.text).toContain('<strong class="user">Bob</strong>');
    expect(consent.text).toContain('read and change your plans');
    expect(consent.text).toMatch(/<button[^>]*value="approve"[^>]*>Authorize<\/button>/);
    expect(consent.text).toMatch(/<button[^>]*value="deny"[^>]*>Deny<\/button>/);
    expect(consent.text).toContain('Use another account');
    expect(consent.text).toContain('https://buddy.example');
    expect(consent.text).not.toContain('default_plan');

    const approved = await answerConsent(authorizeUrl(APP), { user: '1' });
    expect(approved.status).toBe(303);
    expect(approved.location?.origin).toBe('https://buddy.example');
    expect(approved.location?.searchParams.get('state')).toBe('st-1');
    expect(await userOf(await exchange(APP, approved))).toBe(bob().userId);
  });

  it('serves its pages unframeable, uncached and without referrers', async () => {
    const consent = await show(authorizeUrl(APP, { sandbox_user: '0' }));
    expect(consent.headers.get('x-frame-options')).toBe('DENY');
    expect(consent.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(consent.headers.get('cache-control')).toBe('no-store');
    expect(consent.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('says when the application asks for read-only access, and the token it gets cannot write', async () => {
    const url = authorizeUrl(APP, { scope: 'read-only', sandbox_user: '0' });
    const consent = await show(url);
    expect(consent.text).toContain('<span class="scope">read-only</span>');
    expect(consent.text).toContain('it cannot change anything');
    const token = await exchange(APP, await answerConsent(url));
    const planId = sandbox.users[0]?.planIds[0] ?? '';
    const write = await createRest(sandbox.url, token).post(`/plans/${planId}/payees`, {
      payee: { name: 'Nope' },
    });
    expect(write.status).toBe(403);
  });

  it("offers the user's plans as the default plan, and `default` then means the one picked", async () => {
    const consent = await show(authorizeUrl(PICKER, { sandbox_user: '1' }));
    const [household, side] = bob().planIds;
    expect(consent.text).toContain('Default plan');
    // Bob's own default plan comes checked.
    expect(consent.text).toContain(`value="${side}" checked> Side business`);
    expect(consent.text).toContain(`value="${household}"> Household`);

    for (const [picked, expected] of [
      [household, household],
      [undefined, side],
    ] as const) {
      const answer = await answerConsent(authorizeUrl(PICKER), {
        user: '1',
        ...(picked === undefined ? {} : { defaultPlan: picked }),
      });
      const rest = createRest(sandbox.url, await exchange(PICKER, answer));
      const plan = (await rest.get('/plans/default')).body as { data: { plan: { id: string } } };
      expect(plan.data.plan.id).toBe(expected);
    }
  });

  it("refuses a default plan that is not the user's", async () => {
    const alicePlan = sandbox.users[0]?.planIds[0] ?? '';
    const answer = await answerConsent(authorizeUrl(PICKER), { user: '1', defaultPlan: alicePlan });
    expect(answer.status).toBe(400);
    expect(answer.location).toBeNull();
    expect(pageError(answer.text)).toBe('invalid_request');
    expect(pageText(answer.text)).toContain('is not a plan of the signed-in user');
  });

  it('redirects Deny with access_denied and the state (in the fragment for the implicit grant)', async () => {
    const denied = await answerConsent(authorizeUrl(APP, { state: 'no thanks' }), {
      user: '0',
      decision: 'deny',
    });
    expect(denied.status).toBe(303);
    expect(denied.location?.searchParams.get('error')).toBe('access_denied');
    expect(denied.location?.searchParams.get('state')).toBe('no thanks');
    expect(denied.location?.searchParams.get('code')).toBeNull();

    const implicit = await answerConsent(authorizeUrl(APP, { response_type: 'token' }), {
      user: '0',
      decision: 'deny',
    });
    const fragment = new URLSearchParams(implicit.location?.hash.slice(1) ?? '');
    expect(fragment.get('error')).toBe('access_denied');
    expect(fragment.get('state')).toBe('st-1');
    expect(implicit.location?.search).toBe('');
  });

  it('approves the implicit grant from the page with the token in the fragment', async () => {
    const approved = await answerConsent(authorizeUrl(APP, { response_type: 'token' }), {
      user: '1',
    });
    const fragment = new URLSearchParams(approved.location?.hash.slice(1) ?? '');
    expect(fragment.get('expires_in')).toBe('7200');
    expect(fragment.get('refresh_token')).toBeNull();
    expect(await userOf(fragment.get('access_token') ?? '')).toBe(bob().userId);
  });

  it('takes an answer once, within 10 minutes, and names a bad one', async () => {
    const consent = await show(authorizeUrl(APP, { sandbox_user: '0' }));
    const ticket = formField(consent.text, 'request') ?? '';
    const post = (fields: Record<string, string>) =>
      fetch(new URL('/oauth/authorize', sandbox.origin), {
        method: 'POST',
        body: new URLSearchParams(fields),
        redirect: 'manual',
      });
    const odd = await post({ request: ticket, decision: 'maybe' });
    expect(odd.status).toBe(400);
    expect(pageText(await odd.text())).toContain("decision must be 'approve' or 'deny'");
    expect((await post({ request: ticket, decision: 'approve' })).status).toBe(303);
    const again = await post({ request: ticket, decision: 'approve' });
    expect(again.status).toBe(400);
    expect(again.headers.get('location')).toBeNull();
    expect(pageText(await again.text())).toContain('expired or was already answered');

    const late = formField((await show(authorizeUrl(APP, { sandbox_user: '0' }))).text, 'request');
    clock.advance(10 * MINUTE);
    const expired = await post({ request: late ?? '', decision: 'approve' });
    expect(expired.status).toBe(400);
    expect(expired.headers.get('location')).toBeNull();
    expect((await post({ decision: 'approve' })).status).toBe(400);
  });

  it('escapes what the request carries', async () => {
    const hostile = '"><script>alert(1)</script>';
    for (const url of [
      authorizeUrl(APP, { state: hostile }),
      authorizeUrl(APP, { state: hostile, sandbox_user: '0' }),
    ]) {
      const shown = await show(url);
      expect(shown.text).not.toContain('<script>');
      expect(shown.text).not.toContain('<Buddy>');
    }
    const bad = await show(authorizeUrl(APP, { redirect_uri: `https://x.example/${hostile}` }));
    expect(bad.status).toBe(400);
    expect(bad.text).not.toContain('<script>');
  });
});

describe('requests that cannot go back to the application', () => {
  const cases: [string, Record<string, string>, string, RegExp][] = [
    ['no client_id', { client_id: '' }, 'invalid_request', /client_id is required/],
    ['an unknown client_id', { client_id: 'nobody' }, 'invalid_client', /'nobody'/],
    ['no redirect_uri', { redirect_uri: '' }, 'invalid_request', /redirect_uri is required/],
    [
      'a redirect_uri on another host',
      { redirect_uri: 'https://evil.example/callback' },
      'invalid_request',
      /not registered for Budget/,
    ],
    [
      'a redirect_uri with another path',
      { redirect_uri: 'https://buddy.example/callback/more' },
      'invalid_request',
      /not registered/,
    ],
    [
      'a redirect_uri with another port on a non-loopback host',
      { redirect_uri: 'https://buddy.example:8443/callback' },
      'invalid_request',
      /not registered/,
    ],
    [
      'a redirect_uri with a query added',
      { redirect_uri: 'https://buddy.example/callback?next=/evil' },
      'invalid_request',
      /not registered/,
    ],
  ];

  it.each(cases)('shows an error page for %s and never redirects', async (_, change, code, why) => {
    const params: Record<string, string> = {
      client_id: APP.clientId,
      redirect_uri: APP.redirectUri,
      response_type: 'code',
      state: 's',
      sandbox_consent: 'approve',
      ...change,
    };
    for (const [key, value] of Object.entries(params)) if (value === '') delete params[key];
    const result = await authorize(sandbox.origin, params);
    expect(result.status).toBe(400);
    expect(result.location).toBeNull();
    expect(pageError(result.text)).toBe(code);
    expect(pageText(result.text)).toMatch(why);
  });

  it('lets a loopback redirect URI take any port, and nothing else about it change', async () => {
    const base = { ...LOOPBACK, redirectUri: 'http://127.0.0.1:5555/callback' };
    const approved = await answerConsent(authorizeUrl(base), { user: '0' });
    expect(approved.location?.href).toMatch(/^http:\/\/127\.0\.0\.1:5555\/callback\?code=/);
    expect(await userOf(await exchange(base, approved))).toBe(sandbox.users[0]?.userId);
    for (const other of [
      'http://127.0.0.1:5555/other',
      'https://127.0.0.1:5555/callback',
      'http://127.0.0.2:5555/callback',
      'http://localhost:5555/callback',
    ]) {
      const refused = await authorize(sandbox.origin, {
        client_id: LOOPBACK.clientId,
        redirect_uri: other,
        response_type: 'code',
      });
      expect(refused.status, other).toBe(400);
      expect(refused.location, other).toBeNull();
    }
  });

  it('redirects a bad response_type or scope at once, with the state', async () => {
    const type = await authorize(sandbox.origin, {
      client_id: APP.clientId,
      redirect_uri: APP.redirectUri,
      response_type: 'password',
      state: 'x',
    });
    expect(type.location?.searchParams.get('error')).toBe('unsupported_response_type');
    expect(type.location?.searchParams.get('state')).toBe('x');
    const missing = await authorize(sandbox.origin, {
      client_id: APP.clientId,
      redirect_uri: APP.redirectUri,
    });
    expect(missing.location?.searchParams.get('error')).toBe('invalid_request');
    const scope = await authorize(sandbox.origin, {
      client_id: APP.clientId,
      redirect_uri: APP.redirectUri,
      response_type: 'code',
      scope: 'admin',
    });
    expect(scope.location?.searchParams.get('error')).toBe('invalid_scope');
  });

  it('names a bad sandbox_user or sandbox_consent on a page', async () => {
    for (const [extra, why] of [
      [{ sandbox_user: '7' }, /sandbox_user '7'/],
      [{ sandbox_user: 'nobody' }, /sandbox_user 'nobody'/],
      [{ sandbox_consent: 'later' }, /sandbox_consent must be/],
    ] as const) {
      const result = await show(authorizeUrl(APP, extra));
      expect(result.status).toBe(400);
      expect(result.location).toBeNull();
      expect(pageText(result.text)).toMatch(why);
    }
  });
});

describe('answering at once (oauthConsent, sandbox_consent)', () => {
  /** An authorization request whose answer is a redirect (no page in between). */
  const atOnce = (app: OAuthApp, extra: Record<string, string> = {}) =>
    authorize(sandbox.origin, Object.fromEntries(authorizeUrl(app, extra).searchParams));

  it('approves as the configured user and plan, or as the user a request names', async () => {
    const [household] = bob().planIds;
    sandbox.setOAuthConsent({ mode: 'approve', user: 1, defaultPlanId: household ?? '' });
    const approved = await atOnce(PICKER);
    expect(approved.status).toBe(302);
    const token = await exchange(PICKER, approved);
    expect(await userOf(token)).toBe(bob().userId);
    const plan = (await createRest(sandbox.url, token).get('/plans/default')).body as {
      data: { plan: { id: string } };
    };
    expect(plan.data.plan.id).toBe(household);

    const named = await atOnce(APP, { sandbox_user: '0' });
    expect(await userOf(await exchange(APP, named))).toBe(sandbox.users[0]?.userId);
  });

  it('denies every request in deny mode, and a request can ask for either', async () => {
    sandbox.setOAuthConsent({ mode: 'deny' });
    const denied = await atOnce(APP);
    expect(denied.status).toBe(302);
    expect(denied.location?.searchParams.get('error')).toBe('access_denied');
    const asked = await atOnce(APP, { sandbox_consent: 'approve' });
    expect(asked.location?.searchParams.get('code')).not.toBeNull();
    sandbox.setOAuthConsent({ mode: 'page' });
    const refused = await atOnce(APP, { sandbox_consent: 'deny' });
    expect(refused.location?.searchParams.get('error')).toBe('access_denied');
  });

  it('refuses a consent setting that names no user or a plan of someone else', () => {
    expect(() => sandbox.setOAuthConsent({ mode: 'approve', user: 5 })).toThrow(/user '5'/);
    expect(() =>
      sandbox.setOAuthConsent({
        mode: 'approve',
        user: 0,
        defaultPlanId: bob().planIds[0] ?? '',
      }),
    ).toThrow(/not a plan of that user/);
    expect(() => sandbox.setOAuthConsent({ mode: 'sometimes' as unknown as 'page' })).toThrow(
      /mode must be one of page, approve, deny/,
    );
  });
});

describe('a sandbox with one user', () => {
  it('goes straight to the consent page, signed in as that user, with no other account to use', async () => {
    const single = await createSandbox({
      clock,
      users: [{ token: 'solo', plans: [{ transactions: 10 }] }],
    });
    try {
      const page = await fetch(
        `${single.origin}/oauth/authorize?client_id=sandbox-demo-client&redirect_uri=${encodeURIComponent('http://127.0.0.1:4000/auth/callback')}&response_type=code`,
      );
      const text = await page.text();
      expect(page.status).toBe(200);
      expect(text).toContain('Authorize Plans Sandbox Demo App');
      expect(text).toContain('<strong class="user">Demo User</strong>');
      expect(text).not.toContain('Use another account');
      expect(single.users[0]?.name).toBe('Demo User');
    } finally {
      await single.close();
    }
  });
});
