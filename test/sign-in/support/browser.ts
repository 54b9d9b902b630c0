/**
 * A browser's part in sign-in, as plain HTTP against a gateway with sign-in on and the sandbox's
 * OAuth: `/auth/login`, the consent approved at once (`sandbox_consent=approve`, or a denial),
 * `/auth/callback` with the state cookie, and the session cookie it sets. Nothing follows a
 * redirect by itself, so each step's answer can be checked.
 */
import { SESSION_COOKIE, SIGN_IN_COOKIE } from '../../../src/sign-in/cookies.js';

/** The value a response sets for cookie `name` (undefined: it sets none). */
export function setCookieOf(response: Response, name: string): string | undefined {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const at = pair?.indexOf('=') ?? -1;
    if (pair && at > 0 && pair.slice(0, at) === name) return pair.slice(at + 1);
  }
  return undefined;
}

export interface BegunSignIn {
  /** `/auth/login`'s answer. */
  readonly login: Response;
  /** The upstream's consent URL it sends the browser to. */
  readonly authorize: URL;
  /** The state cookie it set. */
  readonly stateCookie: string;
}

/** `GET /auth/login?return_to=…`, expecting the redirect to the upstream's consent. */
export async function beginSignIn(origin: string, returnTo: string): Promise<BegunSignIn> {
  const login = await fetch(`${origin}/auth/login?return_to=${encodeURIComponent(returnTo)}`, {
    redirect: 'manual',
  });
  const location = login.headers.get('location');
  const stateCookie = setCookieOf(login, SIGN_IN_COOKIE);
  if (login.status !== 302 || !location || !stateCookie)
    throw new Error(`expected a redirect to consent, got ${login.status} ${await login.text()}`);
  return { login, authorize: new URL(location), stateCookie };
}

/** The consent answered at once: the URL the upstream sends the browser back to. */
export async function consent(
  authorize: URL,
  decision: 'approve' | 'deny' = 'approve',
  user?: string,
): Promise<URL> {
  const url = new URL(authorize);
  url.searchParams.set('sandbox_consent', decision);
  if (user !== undefined) url.searchParams.set('sandbox_user', user);
  const answer = await fetch(url, { redirect: 'manual' });
  const location = answer.headers.get('location');
  if (!location) throw new Error(`expected a redirect back, got ${answer.status}`);
  return new URL(location);
}

/** `GET /auth/callback…` as the browser holding `stateCookie` (or none). */
export function callback(back: URL, stateCookie: string | undefined): Promise<Response> {
  return fetch(back, {
    redirect: 'manual',
    headers: stateCookie === undefined ? {} : { cookie: `${SIGN_IN_COOKIE}=${stateCookie}` },
  });
}

/** The whole sign-in; resolves with the session cookie's value. */
export async function signIn(origin: string, returnTo = `${origin}/graphql`): Promise<string> {
  const begun = await beginSignIn(origin, returnTo);
  const answer = await callback(await consent(begun.authorize), begun.stateCookie);
  const session = setCookieOf(answer, SESSION_COOKIE);
  if (answer.status !== 303 || !session)
    throw new Error(`expected a session, got ${answer.status} ${await answer.text()}`);
  return session;
}

/** Headers of a page's GraphQL request with the session (JSON: not a simple request). */
export function withSession(session: string, extra: Record<string, string> = {}) {
  return { cookie: `${SESSION_COOKIE}=${session}`, 'content-type': 'application/json', ...extra };
}

/** POSTs an operation with the session cookie, as the gateway's own page would. */
export async function gqlWithSession(
  url: string,
  session: string,
  query: string,
  extra: Record<string, string> = {},
): Promise<{ status: number; body: GraphQLBody }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: withSession(session, extra),
    body: JSON.stringify({ query }),
  });
  return { status: response.status, body: (await response.json()) as GraphQLBody };
}

export interface GraphQLBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}
