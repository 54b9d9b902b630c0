/**
 * What a caller presents to prove who it is, read from whatever carried it: the only code that
 * reads a credential out of a header, a URL or `connectionParams`. A transport reads it once per
 * request (or per WebSocket connection, or per MCP request) and hands it to admission, which alone
 * turns it into `Credentials` (`admission.ts`, stage 5); everything after admission takes those as
 * they are and never looks at a header again.
 *
 * Three kinds: the upstream token as a bearer token; the gateway's own access token (issued by
 * its authorization server, `src/authorization`), told apart by its prefix (`pgw_`) without a
 * lookup, so a gateway token is never taken for an upstream one and sent upstream; and a
 * browser's session cookie (sign-in, `src/sign-in`), a reference to a grant held on the server.
 */
import { isGatewayToken } from '../authorization/secrets.js';
import { cookieValue, SESSION_COOKIE } from '../sign-in/cookies.js';

/** A bearer token as presented, not checked yet (it may not even be a token). */
export interface BearerPresented {
  readonly kind: 'bearer';
  /** The text after `Bearer ` (or the `access_token` parameter), as sent. */
  readonly token: string;
}

/** A token the gateway issued (`pgw_…`): a reference to a grant held on the server. */
export interface GrantTokenPresented {
  readonly kind: 'grant-token';
  readonly token: string;
  /** The path it was presented at (`/graphql`, `/mcp`): its resource must be that one. */
  readonly path: string;
  /** Sent in the URL (`access_token`), where OAuth 2.1 forbids it (logs, history, referrers). */
  readonly inUrl: boolean;
}

/** A session cookie as presented: the cookie's value, not checked yet. */
export interface SessionPresented {
  readonly kind: 'session';
  readonly session: string;
}

/** A credential as presented, not checked yet. */
export type Presented = BearerPresented | GrantTokenPresented | SessionPresented;

/** A token the server itself holds (stdio MCP's from the environment, a webhook feed's stored one). */
export function bearer(token: string): BearerPresented {
  return { kind: 'bearer', token };
}

/**
 * What an HTTP request presents: `Authorization: Bearer <token>`, else the `access_token` query
 * parameter (the two ways the REST interface accepts), else the session cookie. Undefined:
 * nothing.
 */
export function presentedByRequest(request: Request): Presented | undefined {
  return (
    presentedBy(request.headers.get('authorization') ?? undefined, request.url) ??
    sessionOf(request.headers.get('cookie'))
  );
}

/** A browser's session cookie in a `Cookie` header, if any. */
export function sessionOf(cookie: string | null | undefined): SessionPresented | undefined {
  const session = cookieValue(cookie, SESSION_COOKIE);
  return session ? { kind: 'session', session } : undefined;
}

/** The same, from node's view of a request (MCP's): its header and URL; tokens only, no cookie. */
export function presentedByHeaders(
  authorization: string | undefined,
  url: string | undefined,
): BearerPresented | GrantTokenPresented | undefined {
  return presentedBy(authorization, new URL(url ?? '/', 'http://request.invalid').href);
}

/**
 * What a GraphQL-over-WebSocket connection presents: in `connectionParams`, as
 * `{ authorization: 'Bearer <t>' }` (or `{ token: '<t>' }`, `{ access_token: '<t>' }`), else
 * as its upgrade request did over HTTP (routers forward `Authorization` there; a browser sends
 * its cookies).
 */
export function presentedByConnection(
  params: Readonly<Record<string, unknown>> | undefined,
  upgrade: {
    readonly authorization: string | undefined;
    readonly url: string | undefined;
    readonly cookie?: string | undefined;
  },
): Presented | undefined {
  const fromParams = params ? connectionParamsToken(params) : undefined;
  const url = new URL(upgrade.url ?? '/', 'http://upgrade.invalid').href;
  if (fromParams !== undefined) return byKind(fromParams, url, false);
  return presentedBy(upgrade.authorization, url) ?? sessionOf(upgrade.cookie);
}

// Private: a header that is not `Bearer <one word>` presents nothing; the parameter is the fallback.
function presentedBy(
  authorization: string | undefined,
  url: string,
): BearerPresented | GrantTokenPresented | undefined {
  const fromHeader = authorization ? bearerToken(authorization) : undefined;
  if (fromHeader) return byKind(fromHeader, url, false);
  const param = new URL(url).searchParams.get('access_token');
  return param === null ? undefined : byKind(param, url, true);
}

// Private: a gateway token is kept apart from the start, with where it was presented.
function byKind(token: string, url: string, inUrl: boolean): BearerPresented | GrantTokenPresented {
  return isGatewayToken(token)
    ? { kind: 'grant-token', token, path: new URL(url).pathname, inUrl }
    : bearer(token);
}

function bearerToken(header: string): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}

function connectionParamsToken(params: Readonly<Record<string, unknown>>): string | undefined {
  const header = params.authorization ?? params.Authorization;
  if (typeof header === 'string') {
    const token = bearerToken(header);
    if (token) return token;
  }
  const token = params.token ?? params.access_token;
  return typeof token === 'string' && /^\S+$/.test(token) ? token : undefined;
}
