/**
 * Browser sign-in (backend for frontend): the gateway's `/auth/*` endpoints, as fetch handlers
 * (`Request` in, `Response` out; the server's plugin hands them their requests), and the
 * sessions they make. The contract a web app codes against:
 *
 * - `GET /auth/login?return_to=<URL>`: `return_to` on the gateway's own origin or a listed one
 *   (`CORS_ORIGINS`), else 400 `invalid_request`. Starts the upstream's authorization code grant
 *   with a fresh `state`, also kept in a short-lived HttpOnly cookie, so only the browser that
 *   began it can finish it. Sign-ins in progress are bounded (a flood pushes out the oldest).
 * - `GET /auth/callback?code&state`: `state` known, unexpired, unused and this browser's (else
 *   400 `invalid_request`), the code exchanged with the application's secret, a grant and a
 *   session made, the session cookie set (HttpOnly, SameSite=Lax, Path=/, Secure over https),
 *   303 to `return_to`. A denial goes back to `return_to` with no session; a refused exchange is a
 *   400 page naming the OAuth error. Either way, nothing is left behind. The callback also
 *   finishes sign-ins begun for the gateway's own authorization server (`SignInPurpose`).
 * - `GET /auth/session`: `{ signedIn: true, user: { id }, plans: [{ id, name }], expiresAt }` or
 *   `{ signedIn: false, loginUrl }`; `Cache-Control: no-store`.
 * - `POST /auth/logout` (a CSRF header or a non-form body, and an allowed origin): 204; the grant
 *   ends everywhere, with every session and WebSocket on it (4401).
 *
 * What is logged: the outcome and the OAuth error code, never a code, state, cookie or token.
 */
import { randomBytes } from 'node:crypto';
import type { GraphQLError } from 'graphql';
import type { Credentials } from '../operation/credentials.js';
import type { OAuthClient } from '../upstream/oauth.js';
import { cookieValue, SESSION_COOKIE, SIGN_IN_COOKIE, setCookie } from './cookies.js';
import { GrantEndedError, type Grants, SIGN_IN_PATH, signInAgain } from './grants.js';
import type { CompleteAuthorization, SignInPurpose, UpstreamSignIn } from './ports.js';
import type { Vault } from './vault.js';

export const CALLBACK_PATH = '/auth/callback';
const SESSION_PATH = '/auth/session';
const LOGOUT_PATH = '/auth/logout';
/** A sign-in not finished within this is forgotten (the upstream's consent request lives as long). */
const SIGN_IN_TTL_MS = 10 * 60_000;
/** Headers a page cannot send without a preflight (yoga's, Apollo's, and the common one). */
export const SIGN_OUT_HEADERS = [
  'x-requested-with',
  'x-graphql-yoga-csrf',
  'graphql-preflight',
  'apollo-require-preflight',
  'x-apollo-operation-name',
] as const;
const SIMPLE_CONTENT_TYPES = [
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'text/plain',
];

interface PendingSignIn {
  readonly purpose: SignInPurpose;
  readonly expiresAt: number;
}

interface SessionRecord {
  readonly grantId: string;
  readonly expiresAt: number;
}

export interface BrowserSignInOptions {
  vault: Vault;
  grants: Grants;
  oauth: OAuthClient;
  /** The gateway's public origin: where `/auth/callback` is. */
  publicOrigin: string;
  /** Origins besides the gateway's own that may be sent back to and call with the cookie. */
  allowedOrigins: readonly string[];
  sessionTtlMs: number;
  now: () => number;
  /** The user's plans for `/auth/session` (through the gateway's REST cache). */
  plansOf: (credentials: Credentials) => Promise<readonly { id: string; name: string }[]>;
  /** Finishes sign-ins begun for the gateway's own authorization server. @default none */
  completeAuthorization?: CompleteAuthorization;
  /** Each outcome, without any secret (the operator's log). */
  onEvent?: (event: { kind: string; error?: string }) => void;
}

export interface BrowserSignIn extends UpstreamSignIn {
  /** The answer of an `/auth/*` request, or undefined for any other path. */
  handle(request: Request): Promise<Response> | undefined;
  /** A session cookie's credentials (stage 5 of admission); rejects with the refusal. */
  credentials(session: string): Promise<Credentials>;
}

export function createBrowserSignIn(options: BrowserSignInOptions): BrowserSignIn {
  const { vault, grants, oauth, publicOrigin, now } = options;
  const secure = publicOrigin.startsWith('https:');
  const event = (kind: string, error?: string) =>
    options.onEvent?.({ kind, ...(error ? { error } : {}) });
  const isAllowed = (origin: string) =>
    origin === publicOrigin || options.allowedOrigins.includes(origin);

  async function begin(purpose: SignInPurpose): Promise<URL> {
    const state = randomBytes(24).toString('base64url');
    const pending: PendingSignIn = { purpose, expiresAt: now() + SIGN_IN_TTL_MS };
    await vault.write('sign-in', state, pending);
    return oauth.authorizeUrl(state);
  }

  async function login(url: URL): Promise<Response> {
    const returnTo = returnTarget(url.searchParams.get('return_to'), isAllowed);
    if ('refusal' in returnTo) {
      event('login-refused', 'invalid_request');
      return oauthError(400, 'invalid_request', returnTo.refusal);
    }
    const authorize = await begin({ kind: 'session', returnTo: returnTo.url });
    const state = authorize.searchParams.get('state') ?? '';
    return new Response(null, {
      status: 302,
      headers: {
        location: authorize.href,
        'set-cookie': setCookie(SIGN_IN_COOKIE, state, {
          path: CALLBACK_PATH,
          maxAgeSeconds: SIGN_IN_TTL_MS / 1000,
          secure,
        }),
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
      },
    });
  }

  async function callback(request: Request, url: URL): Promise<Response> {
    const clearState = setCookie(SIGN_IN_COOKIE, '', {
      path: CALLBACK_PATH,
      maxAgeSeconds: 0,
      secure,
    });
    const refuse = (status: number, error: string, description: string) => {
      event('callback-refused', error);
      const response = oauthError(status, error, description);
      response.headers.append('set-cookie', clearState);
      return response;
    };
    const state = url.searchParams.get('state') ?? '';
    // Taken at once: a state is good once, whatever follows.
    const pending = state === '' ? undefined : await vault.take<PendingSignIn>('sign-in', state);
    if (!pending)
      return refuse(
        400,
        'invalid_request',
        'This sign-in is unknown, used or expired: start it again.',
      );
    const { purpose } = pending;
    // The state cookie binds the sign-in to the browser that began it (an authorization
    // request's browser too: it went through /auth/login's twin, `begin`, in this browser).
    if (
      purpose.kind === 'session' &&
      cookieValue(request.headers.get('cookie'), SIGN_IN_COOKIE) !== state
    )
      return refuse(
        400,
        'invalid_request',
        'This sign-in began in another browser: start it again.',
      );
    const upstreamError = url.searchParams.get('error');
    const code = url.searchParams.get('code');
    const redirect = (location: string, cookies: string[]) => {
      const headers = new Headers({
        location,
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
      });
      for (const cookie of cookies) headers.append('set-cookie', cookie);
      return new Response(null, { status: 303, headers });
    };
    if (upstreamError !== null || !code) {
      const error =
        upstreamError !== null && /^[a-z_]{1,64}$/.test(upstreamError)
          ? upstreamError
          : 'access_denied';
      event('callback-denied', error);
      if (purpose.kind === 'session') return redirect(purpose.returnTo, [clearState]);
      return redirect((await finishAuthorization(purpose.requestId, { error })).href, [clearState]);
    }
    const pair = await oauth.exchangeCode(code);
    if ('error' in pair)
      return refuse(
        pair.final ? 400 : 502,
        pair.error,
        `The upstream refused the sign-in: ${pair.error}.`,
      );
    const grant = await grants.create(pair);
    if (purpose.kind === 'authorization') {
      event('signed-in-authorization');
      return redirect((await finishAuthorization(purpose.requestId, { grant })).href, [clearState]);
    }
    const session = randomBytes(32).toString('base64url');
    const record: SessionRecord = { grantId: grant.id, expiresAt: now() + options.sessionTtlMs };
    await vault.write('session', session, record);
    event('signed-in');
    return redirect(purpose.returnTo, [
      clearState,
      setCookie(SESSION_COOKIE, session, {
        path: '/',
        maxAgeSeconds: Math.floor(options.sessionTtlMs / 1000),
        secure,
      }),
    ]);
  }

  async function finishAuthorization(
    requestId: string,
    outcome: Parameters<CompleteAuthorization>[1],
  ): Promise<URL> {
    if (!options.completeAuthorization) throw new Error('no authorization server to complete');
    return options.completeAuthorization(requestId, outcome);
  }

  /** The session's grant and end, or undefined (missing, forged, expired, its grant ended). */
  async function sessionOf(session: string | undefined) {
    if (!session) return undefined;
    const record = await vault.read<SessionRecord>('session', session);
    if (!record) return undefined;
    const grant = await grants.get(record.grantId);
    if (!grant) {
      await vault.remove('session', session);
      return undefined;
    }
    return { record, grant };
  }

  async function sessionAnswer(request: Request): Promise<Response> {
    const signedOut = json(200, { signedIn: false, loginUrl: SIGN_IN_PATH });
    const session = cookieValue(request.headers.get('cookie'), SESSION_COOKIE);
    const found = await sessionOf(session);
    if (!found || session === undefined) return signedOut;
    let credentials: Credentials;
    try {
      credentials = await grants.credentials(found.record.grantId);
    } catch (error) {
      if (error instanceof GrantEndedError) return signedOut;
      throw error;
    }
    const plans = await options.plansOf(credentials);
    return json(200, {
      signedIn: true,
      user: { id: found.grant.userId },
      plans: plans.map(({ id, name }) => ({ id, name })),
      expiresAt: new Date(found.record.expiresAt).toISOString(),
    });
  }

  async function logout(request: Request): Promise<Response> {
    if (!isPreflighted(request.headers))
      return json(403, {
        error: 'invalid_request',
        error_description: `Signing out needs a header a page cannot send without a preflight: ${SIGN_OUT_HEADERS[0]}.`,
      });
    const session = cookieValue(request.headers.get('cookie'), SESSION_COOKIE);
    const found = await sessionOf(session);
    if (found && session !== undefined) {
      await vault.remove('session', session);
      await grants.end(found.record.grantId);
      event('signed-out');
    }
    return new Response(null, {
      status: 204,
      headers: {
        'set-cookie': setCookie(SESSION_COOKIE, '', { path: '/', maxAgeSeconds: 0, secure }),
        'cache-control': 'no-store',
      },
    });
  }

  return {
    begin,
    handle(request) {
      const url = new URL(request.url);
      const route = `${request.method} ${url.pathname}`;
      if (route === `GET ${SIGN_IN_PATH}`) return login(url);
      if (route === `GET ${CALLBACK_PATH}`) return callback(request, url);
      if (route === `GET ${SESSION_PATH}`) return sessionAnswer(request);
      if (route === `POST ${LOGOUT_PATH}`) return logout(request);
      if (url.pathname.startsWith('/auth/'))
        return Promise.resolve(
          json(request.method === 'GET' || request.method === 'POST' ? 404 : 405, {
            error: 'invalid_request',
            error_description: `Nothing at ${request.method} ${url.pathname}.`,
          }),
        );
      return undefined;
    },
    async credentials(session) {
      const record = await vault.read<SessionRecord>('session', session);
      if (!record)
        throw signInAgain('There is no such session (signed out, expired or never made): sign in.');
      try {
        return await grants.credentials(record.grantId);
      } catch (error) {
        if (!(error instanceof GrantEndedError)) throw error;
        await vault.remove('session', session);
        throw signInAgain(error.message) as GraphQLError;
      }
    },
  };
}

/** Where to send the browser back after sign-in, or why not. */
function returnTarget(
  value: string | null,
  isAllowed: (origin: string) => boolean,
): { url: string } | { refusal: string } {
  if (!value)
    return { refusal: 'return_to is required: the absolute URL of the page to go back to.' };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { refusal: 'return_to must be an absolute URL.' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { refusal: 'return_to must be an http(s) URL.' };
  if (!isAllowed(url.origin))
    return {
      refusal: `return_to must be on this gateway's origin or one of its CORS origins, not ${url.origin}.`,
    };
  return { url: url.href };
}

/** Whether a browser must have preflighted this request, so CORS has ruled on it. */
function isPreflighted(headers: Headers): boolean {
  if (SIGN_OUT_HEADERS.some((name) => headers.has(name))) return true;
  const type = headers.get('content-type');
  return type !== null && !SIMPLE_CONTENT_TYPES.some((simple) => type.startsWith(simple));
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
  });
}

/** An OAuth error (RFC 6749, 4.1.2.1 shape) as the browser's page: JSON, no secret in it. */
function oauthError(status: number, error: string, description: string): Response {
  return json(status, { error, error_description: description });
}
