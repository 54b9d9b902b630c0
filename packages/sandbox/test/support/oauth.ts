/** Drives the sandbox's OAuth endpoints the way a browser and a server-side app would. */
import { isRecord } from './check-shape.js';

export interface OAuthApp {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

export interface AuthorizeResult {
  status: number;
  /** The redirect target, when the server redirected. */
  location: URL | null;
  text: string;
}

/** GET /oauth/authorize without following the redirect. */
export async function authorize(
  origin: string,
  params: Record<string, string>,
): Promise<AuthorizeResult> {
  const url = new URL('/oauth/authorize', origin);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  const response = await fetch(url, { redirect: 'manual' });
  const header = response.headers.get('location');
  return {
    status: response.status,
    location: header === null ? null : new URL(header, origin),
    text: await response.text(),
  };
}

export interface TokenResult {
  status: number;
  body: Record<string, unknown>;
}

/** POST /oauth/token with the fields as a form body, or (as the interface's example does) in the query. */
export async function requestToken(
  origin: string,
  fields: Record<string, string>,
  via: 'form' | 'query' = 'form',
): Promise<TokenResult> {
  const url = new URL('/oauth/token', origin);
  const form = new URLSearchParams(fields);
  let init: RequestInit = { method: 'POST' };
  if (via === 'query') url.search = form.toString();
  else
    init = {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    };
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    body = { unparsed: text };
  }
  return { status: response.status, body: isRecord(body) ? body : { unparsed: text } };
}

/** The `code` of a successful authorization-code redirect (throws otherwise). */
export function codeOf(result: AuthorizeResult): string {
  const code = result.location?.searchParams.get('code');
  if (code === null || code === undefined || code === '') {
    throw new Error(
      `expected a redirect with a code, got ${result.status} ${result.location?.href ?? result.text.slice(0, 200)}`,
    );
  }
  return code;
}

/** Runs the whole code grant and returns the token response body. */
export async function codeGrant(
  origin: string,
  app: OAuthApp,
  extra: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const code = codeOf(
    await authorize(origin, {
      client_id: app.clientId,
      redirect_uri: app.redirectUri,
      response_type: 'code',
      ...extra,
    }),
  );
  const token = await requestToken(origin, {
    client_id: app.clientId,
    client_secret: app.clientSecret,
    redirect_uri: app.redirectUri,
    grant_type: 'authorization_code',
    code,
  });
  if (token.status !== 200)
    throw new Error(`token exchange failed: ${token.status} ${JSON.stringify(token.body)}`);
  return token.body;
}

export function stringField(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value !== 'string')
    throw new Error(`token response without a string ${name}: ${JSON.stringify(body)}`);
  return value;
}
