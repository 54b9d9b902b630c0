/**
 * Drives the sandbox's OAuth endpoints the way a browser and a server-side app would: at once
 * (`sandbox_consent=approve`), or through the sign-in and consent pages' forms without a browser.
 */
import type { OAuthClientOptions, SandboxUserOptions } from '../../src/core/api.js';
import { isRecord } from './check-shape.js';

/** An application as its code sees itself: the one redirect URI it sends. */
export interface OAuthApp {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

/** Two users to choose from at sign-in; Bob has two plans, the second his default. */
export const ALICE_AND_BOB: SandboxUserOptions[] = [
  { token: 'alice-pat', name: 'Alice', plans: [{ seed: 2, transactions: 10 }] },
  {
    token: 'bob-pat',
    name: 'Bob',
    plans: [
      { seed: 3, transactions: 10, name: 'Household' },
      { seed: 4, transactions: 10, name: 'Side business' },
    ],
    defaultPlan: 1,
  },
];

/** The sandbox registration of an application (its redirect URI the only one registered). */
export const registration = (
  app: OAuthApp,
  extra: Partial<OAuthClientOptions> = {},
): OAuthClientOptions => ({
  clientId: app.clientId,
  clientSecret: app.clientSecret,
  redirectUris: [app.redirectUri],
  ...extra,
});

export interface AuthorizeResult {
  status: number;
  /** The redirect target, when the server redirected. */
  location: URL | null;
  text: string;
}

async function resultOf(response: Response, origin: string): Promise<AuthorizeResult> {
  const header = response.headers.get('location');
  return {
    status: response.status,
    location: header === null ? null : new URL(header, origin),
    text: await response.text(),
  };
}

/** GET /oauth/authorize without following the redirect. */
export async function authorize(
  origin: string,
  params: Record<string, string>,
): Promise<AuthorizeResult> {
  const url = new URL('/oauth/authorize', origin);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return resultOf(await fetch(url, { redirect: 'manual' }), origin);
}

/** The value of a named field in a page's form (`null` when the page has none). */
export function formField(html: string, name: string): string | null {
  const input = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(html);
  return input?.[1] === undefined ? null : decodeHtml(input[1]);
}

const decodeHtml = (text: string): string =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** What a page says, as a reader sees it: no tags, entities decoded, spaces folded. */
export function pageText(html: string): string {
  return decodeHtml(html.replace(/<style>[^<]*<\/style>/, '').replace(/<[^>]*>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
}

/** The error code an error page names. */
export function pageError(html: string): string | null {
  return /<span class="error-code">([^<]*)<\/span>/.exec(html)?.[1] ?? null;
}

export interface ConsentAnswer {
  /** A user id or index, as `sandbox_user` takes it; needed when the sandbox has several users. */
  user?: string;
  decision?: 'approve' | 'deny';
  /** The plan picked as default (applications with default plan selection). */
  defaultPlan?: string;
}

/**
 * What a person does in a browser, as plain HTTP: opens the authorization URL (an application
 * built it), signs in as `user`, and answers the consent page. Returns the consent page's answer
 * (a redirect back to the application, or a page).
 */
export async function answerConsent(
  authorizeUrl: string | URL,
  answer: ConsentAnswer = {},
): Promise<AuthorizeResult> {
  const url = new URL(authorizeUrl);
  if (answer.user !== undefined) url.searchParams.set('sandbox_user', answer.user);
  const shown = await resultOf(await fetch(url, { redirect: 'manual' }), url.origin);
  const ticket = formField(shown.text, 'request');
  if (ticket === null) return shown;
  const form = new URLSearchParams({ request: ticket, decision: answer.decision ?? 'approve' });
  if (answer.defaultPlan !== undefined) form.set('default_plan', answer.defaultPlan);
  const response = await fetch(new URL('/oauth/authorize', url.origin), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
    redirect: 'manual',
  });
  return resultOf(response, url.origin);
}

export interface TokenResult {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/** An `Authorization: Basic` header for client credentials (RFC 6749, 2.3.1). */
export const basicAuth = (id: string, secret: string): Record<string, string> => {
  const part = (text: string) => new URLSearchParams({ x: text }).toString().slice(2);
  return {
    Authorization: `Basic ${Buffer.from(`${part(id)}:${part(secret)}`).toString('base64')}`,
  };
};

/** POST /oauth/token with the fields as a form body, or (as the interface's example does) in the query. */
export async function requestToken(
  origin: string,
  fields: Record<string, string>,
  via: 'form' | 'query' = 'form',
  headers: Record<string, string> = {},
): Promise<TokenResult> {
  const url = new URL('/oauth/token', origin);
  const form = new URLSearchParams(fields);
  let init: RequestInit = { method: 'POST', headers };
  if (via === 'query') url.search = form.toString();
  else
    init = {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
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
  return {
    status: response.status,
    headers: response.headers,
    body: isRecord(body) ? body : { unparsed: text },
  };
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

/** A code approved at once (`sandbox_consent=approve`; `extra` may name `sandbox_user`). */
export async function approvedCode(
  origin: string,
  app: OAuthApp,
  extra: Record<string, string> = {},
): Promise<string> {
  return codeOf(
    await authorize(origin, {
      client_id: app.clientId,
      redirect_uri: app.redirectUri,
      response_type: 'code',
      sandbox_consent: 'approve',
      ...extra,
    }),
  );
}

/**
 * Runs the whole code grant, approved at once (`extra` may name the user with `sandbox_user`),
 * and returns the token response body.
 */
export async function codeGrant(
  origin: string,
  app: OAuthApp,
  extra: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const code = await approvedCode(origin, app, extra);
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
