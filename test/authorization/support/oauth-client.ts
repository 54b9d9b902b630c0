/**
 * A hand-written OAuth client of the gateway's authorization server, for tests that must send
 * what a well-behaved client never would: registration, PKCE pairs, authorization URLs, the token
 * and revocation endpoints' forms, and GraphQL or MCP calls with a given access token.
 */
import { createHash, randomBytes } from 'node:crypto';
import { INITIALIZE } from '../../mcp/support/raw-mcp.js';
import { type AuthorizationStack, followSignIn } from './authorization-stack.js';

export const REDIRECT = 'http://127.0.0.1:41234/callback';

export interface Pkce {
  readonly verifier: string;
  readonly challenge: string;
}

export function pkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

/** Every refusal's text the helpers got (status 400 and up), to check none quotes a secret. */
export const refusalTexts: string[] = [];

async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  if (response.status >= 400)
    refusalTexts.push(`${text}\n${response.headers.get('www-authenticate') ?? ''}`);
  let body: Record<string, unknown> = {};
  try {
    body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
  } catch {
    body = { text };
  }
  return { status: response.status, headers: response.headers, body };
}

export async function register(
  stack: AuthorizationStack,
  metadata: Record<string, unknown> = {},
): Promise<Answer> {
  return answerOf(
    await fetch(`${stack.origin}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        client_name: 'test app',
        ...metadata,
      }),
    }),
  );
}

/** A registered public client's id. */
export async function publicClient(stack: AuthorizationStack): Promise<string> {
  const answer = await register(stack);
  if (answer.status !== 201) throw new Error(`registration: ${JSON.stringify(answer.body)}`);
  return answer.body.client_id as string;
}

/** `/oauth/authorize?…` with the usual parameters, over which `params` win (undefined: left out). */
export function authorizeUrl(
  stack: AuthorizationStack,
  clientId: string,
  challenge: string,
  params: Record<string, string | undefined> = {},
): URL {
  const url = new URL(`${stack.origin}/oauth/authorize`);
  const all: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'state-123',
    resource: stack.mcpUrl,
    ...params,
  };
  for (const [name, value] of Object.entries(all))
    if (value !== undefined) url.searchParams.set(name, value);
  return url;
}

/** GET the authorization URL without following: the gateway's own answer. */
export async function authorizeOnce(url: URL): Promise<Answer & { location: URL | null }> {
  const response = await fetch(url, { redirect: 'manual' });
  const location = response.headers.get('location');
  return { ...(await answerOf(response)), location: location === null ? null : new URL(location) };
}

/** A whole sign-in through the browser's redirects: the URL the client's redirect URI gets. */
export async function signIn(
  stack: AuthorizationStack,
  clientId: string,
  challenge: string,
  params: Record<string, string | undefined> = {},
): Promise<URL> {
  const landed = await followSignIn(
    authorizeUrl(stack, clientId, challenge, params),
    params.redirect_uri ?? REDIRECT,
    stack.sandbox.origin,
  );
  if (!(landed instanceof URL)) throw new Error(`sign-in stopped: ${landed.status} ${landed.text}`);
  return landed;
}

/** A code for a new sign-in of `clientId`, and its verifier. */
export async function codeFor(
  stack: AuthorizationStack,
  clientId: string,
  params: Record<string, string | undefined> = {},
): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = pkce();
  const landed = await signIn(stack, clientId, challenge, params);
  const code = landed.searchParams.get('code');
  if (code === null) throw new Error(`no code: ${landed.href}`);
  return { code, verifier };
}

export async function tokenRequest(
  stack: AuthorizationStack,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return answerOf(
    await fetch(`${stack.origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    }),
  );
}

export async function revokeRequest(
  stack: AuthorizationStack,
  fields: Record<string, string>,
): Promise<Answer> {
  return answerOf(
    await fetch(`${stack.origin}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    }),
  );
}

/** The code exchanged as a well-behaved client does. */
export async function exchange(
  stack: AuthorizationStack,
  clientId: string,
  code: string,
  verifier: string,
  extra: Record<string, string> = {},
): Promise<Answer> {
  return tokenRequest(stack, {
    grant_type: 'authorization_code',
    client_id: clientId,
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT,
    ...extra,
  });
}

/** Tokens for a new sign-in (for `resource`, `/mcp` unless said). */
export async function tokensFor(
  stack: AuthorizationStack,
  clientId: string,
  resource: string | undefined = stack.mcpUrl,
): Promise<{ access: string; refresh: string }> {
  const { code, verifier } = await codeFor(stack, clientId, { resource });
  const answer = await exchange(stack, clientId, code, verifier);
  if (answer.status !== 200) throw new Error(`exchange: ${JSON.stringify(answer.body)}`);
  return {
    access: answer.body.access_token as string,
    refresh: answer.body.refresh_token as string,
  };
}

/** `{ user { id } }` at `/graphql` with `token` as a bearer (or in the URL). */
export async function graphqlWith(
  stack: AuthorizationStack,
  token: string | null,
  via: 'header' | 'url' = 'header',
): Promise<Answer> {
  const url = new URL(stack.graphqlUrl);
  if (token !== null && via === 'url') url.searchParams.set('access_token', token);
  return answerOf(
    await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token !== null && via === 'header' ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({ query: '{ user { id } }' }),
    }),
  );
}

/** An MCP initialize at `/mcp` with `token` as a bearer. */
export async function mcpInitialize(
  stack: AuthorizationStack,
  token: string | null,
): Promise<Answer> {
  return answerOf(
    await fetch(stack.mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      },
      body: JSON.stringify(INITIALIZE),
    }),
  );
}
