/**
 * THE TEST'S STAND-IN for the gateway's browser sign-in (issue 31, "backend for frontend"), to be
 * replaced by the gateway's own `/auth` endpoints once they exist. Nothing in src uses it and it
 * must never ship: it lets the example app's end-to-end test sign in for real, now, through the
 * contract the gateway will serve. It is a real HTTP server on loopback in front of a real
 * gateway, and it is driven by the sandbox's real consent page:
 *
 * - `GET /auth/login?return_to=<absolute URL>`: `return_to` must be this server's origin or one of
 *   `corsOrigins` (else 400). Starts the upstream's authorization code grant with a fresh `state`,
 *   also kept in a short-lived HttpOnly cookie so the callback only completes in the browser
 *   that began it.
 * - `GET /auth/callback?code&state`: checks `state` (known, unexpired, this browser's), exchanges
 *   the code with the application's secret, keeps the upstream token server-side under a random
 *   session id, sets the session cookie (HttpOnly, SameSite=Lax, Path=/, Secure over https) and
 *   answers 303 to `return_to`. A denial (`error=access_denied`) goes back to `return_to` with no
 *   session.
 * - `GET /auth/session` (credentials): 200 `{ signedIn: true, user: { id }, plans: [{ id, name }],
 *   expiresAt }` or 200 `{ signedIn: false, loginUrl: '/auth/login' }`; `Cache-Control: no-store`.
 * - `POST /auth/logout` (credentials, a CSRF header or a JSON body): 204; the session ends
 *   everywhere, its WebSockets closed with 4401 (graphql-ws's Unauthorized, which its client does
 *   not retry).
 * - `/graphql` over HTTP (SSE included) and WebSocket: the session's token travels on to the
 *   gateway as `Authorization: Bearer`. Cookie-authenticated HTTP requests must be non-simple
 *   (a non-form content type or one of CSRF_HEADERS), and every request from a browser origin
 *   must come from an allowed one. Without a session, or when the gateway answers
 *   `UNAUTHENTICATED` for the session's token (the upstream ended the grant), the answer is
 *   `UNAUTHENTICATED` with `extensions.signIn = { url: '/auth/login' }`, and the session ends.
 *
 * CORS is answered here, with credentials, for the allowed origins only: the gateway behind never
 * sees a browser's `Origin` (this server has checked it), so its own CORS headers are dropped.
 */
import { randomBytes } from 'node:crypto';
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { type RawData, WebSocket, WebSocketServer } from 'ws';

export const SESSION_COOKIE = 'plans_session';
const STATE_COOKIE = 'plans_sign_in';
const LOGIN_PATH = '/auth/login';
const CALLBACK_PATH = '/auth/callback';
/** A sign-in not finished within this time is forgotten (the sandbox's consent request lives as long). */
const SIGN_IN_TTL_MS = 10 * 60_000;
/** Sign-ins in progress kept at most; a flood pushes out the oldest, never grows the map. */
const MAX_SIGN_INS = 1_000;
/** Headers that make a request non-simple, so a browser preflights it (yoga's, Apollo's, ours). */
export const CSRF_HEADERS = [
  'x-requested-with',
  'x-graphql-yoga-csrf',
  'graphql-preflight',
  'apollo-require-preflight',
  'x-apollo-operation-name',
] as const;
/** graphql-ws's close code for a connection whose credentials are gone. */
export const UNAUTHORIZED_CLOSE_CODE = 4401;
const SIGN_IN = { url: LOGIN_PATH } as const;
/** Content types a page may send without a preflight (yoga's CSRF prevention lists the same). */
const SIMPLE_CONTENT_TYPES = [
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'text/plain',
];
/** Hop-by-hop headers and those this server answers itself: never relayed. */
const NOT_RELAYED = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'host',
  'cookie',
  'origin',
  'referer',
  'authorization',
  'content-length',
  // Answers come back uncompressed, so an UNAUTHENTICATED one can be read and marked.
  'accept-encoding',
]);

export interface SignInStandInOptions {
  /** The gateway's GraphQL endpoint over HTTP; its WebSocket is at the same path. */
  readonly gateway: string;
  /** The upstream's authorization server and this application's registration there. */
  readonly oauth: {
    readonly origin: string;
    readonly clientId: string;
    readonly clientSecret: string;
  };
  /** Origins besides this server's own that may call it with credentials and be sent back to. */
  readonly corsOrigins: readonly string[];
  /** The upstream's clock, epoch ms (its tokens' `created_at` is by it). @default Date.now */
  readonly now?: () => number;
}

export interface SignInStandIn {
  /** Scheme, host and port: what the app is built with as its gateway. */
  readonly url: string;
  /** Sessions alive now. */
  sessionCount(): number;
  close(): Promise<void>;
}

interface Session {
  readonly token: string;
  readonly expiresAt: number;
  readonly sockets: Set<WebSocket>;
}

interface PendingSignIn {
  readonly returnTo: string;
  readonly startedAt: number;
}

interface TokenAnswer {
  access_token: string;
  expires_in: number;
  created_at: number;
}

interface GraphQLErrorShape {
  message?: unknown;
  extensions?: Record<string, unknown>;
}

export async function startSignInStandIn(options: SignInStandInOptions): Promise<SignInStandIn> {
  const now = options.now ?? Date.now;
  const gateway = new URL(options.gateway);
  const sessions = new Map<string, Session>();
  const signIns = new Map<string, PendingSignIn>();
  const webSockets = new WebSocketServer({
    noServer: true,
    handleProtocols: (protocols) => protocols.values().next().value ?? false,
  });
  let origin = '';
  let secure = false;

  const isAllowedOrigin = (candidate: string) =>
    candidate === origin || options.corsOrigins.includes(candidate);
  /** A browser request from an origin not allowed (no `Origin`: not a browser's, let through). */
  const foreignOrigin = (request: IncomingMessage): string | null => {
    const from = request.headers.origin;
    return from !== undefined && !isAllowedOrigin(from) ? from : null;
  };
  const sessionOf = (request: IncomingMessage): [string, Session] | null => {
    const id = cookiesOf(request.headers)[SESSION_COOKIE];
    const session = id === undefined ? undefined : sessions.get(id);
    if (id === undefined || !session) return null;
    if (session.expiresAt <= now()) {
      endSession(id);
      return null;
    }
    return [id, session];
  };
  function endSession(id: string): void {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    for (const socket of session.sockets) socket.close(UNAUTHORIZED_CLOSE_CODE, 'Unauthorized');
  }
  const cookie = (name: string, value: string, attributes: string) =>
    `${name}=${value}; ${attributes}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;

  function cors(request: IncomingMessage, response: ServerResponse): void {
    const from = request.headers.origin;
    if (from === undefined || !isAllowedOrigin(from)) return;
    response.setHeader('access-control-allow-origin', from);
    response.setHeader('access-control-allow-credentials', 'true');
    response.setHeader('vary', 'Origin');
  }

  function login(url: URL, response: ServerResponse) {
    const returnTo = returnTarget(url.searchParams.get('return_to'), isAllowedOrigin);
    if (typeof returnTo !== 'string') return text(response, 400, returnTo.refusal);
    const state = randomBytes(24).toString('base64url');
    if (signIns.size >= MAX_SIGN_INS) signIns.delete(signIns.keys().next().value ?? '');
    signIns.set(state, { returnTo, startedAt: now() });
    const authorize = new URL('/oauth/authorize', options.oauth.origin);
    authorize.search = new URLSearchParams({
      client_id: options.oauth.clientId,
      redirect_uri: `${origin}${CALLBACK_PATH}`,
      response_type: 'code',
      state,
    }).toString();
    response.writeHead(302, {
      location: authorize.href,
      'set-cookie': cookie(STATE_COOKIE, state, `Path=${CALLBACK_PATH}; Max-Age=600`),
      'cache-control': 'no-store',
    });
    response.end();
  }

  async function callback(
    url: URL,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    const state = url.searchParams.get('state') ?? '';
    const pending = signIns.get(state);
    signIns.delete(state);
    const clearState = cookie(STATE_COOKIE, '', `Path=${CALLBACK_PATH}; Max-Age=0`);
    if (!pending || now() - pending.startedAt > SIGN_IN_TTL_MS)
      return text(response, 400, 'This sign-in is unknown or expired: start it again.', clearState);
    if (cookiesOf(request.headers)[STATE_COOKIE] !== state)
      return text(
        response,
        400,
        'This sign-in began in another browser: start it again.',
        clearState,
      );
    if (url.searchParams.has('error')) {
      // A denial: back to the app, which finds no session and offers to sign in again.
      response.writeHead(303, { location: pending.returnTo, 'set-cookie': clearState });
      response.end();
      return;
    }
    const exchanged = await exchangeCode(url.searchParams.get('code') ?? '');
    if ('refusal' in exchanged) return text(response, 502, exchanged.refusal, clearState);
    const id = randomBytes(32).toString('base64url');
    const expiresAt = (exchanged.created_at + exchanged.expires_in) * 1000;
    sessions.set(id, { token: exchanged.access_token, expiresAt, sockets: new Set() });
    response.writeHead(303, {
      location: pending.returnTo,
      'set-cookie': [
        clearState,
        cookie(SESSION_COOKIE, id, `Path=/; Max-Age=${exchanged.expires_in}`),
      ],
      'cache-control': 'no-store',
    });
    response.end();
  }

  async function exchangeCode(code: string): Promise<TokenAnswer | { refusal: string }> {
    const answer = await fetch(new URL('/oauth/token', options.oauth.origin), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: `${origin}${CALLBACK_PATH}`,
        client_id: options.oauth.clientId,
        client_secret: options.oauth.clientSecret,
      }),
    });
    const body = (await answer.json()) as Partial<TokenAnswer> & { error?: string };
    if (!answer.ok || typeof body.access_token !== 'string')
      return { refusal: `The upstream refused the sign-in: ${body.error ?? answer.status}.` };
    return {
      access_token: body.access_token,
      expires_in: Number(body.expires_in),
      created_at: Number(body.created_at),
    };
  }

  async function session(request: IncomingMessage, response: ServerResponse): Promise<void> {
    response.setHeader('cache-control', 'no-store');
    const found = sessionOf(request);
    const signedOut = { signedIn: false, loginUrl: LOGIN_PATH };
    if (!found) return json(response, 200, signedOut);
    const [id, { token, expiresAt }] = found;
    const answer = await fetch(gateway, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: '{ user { id } plans { id name } }' }),
    });
    const body = (await answer.json()) as {
      data?: { user: { id: string }; plans: { id: string; name: string }[] } | null;
      errors?: GraphQLErrorShape[];
    };
    if (body.errors?.some(isUnauthenticated)) {
      endSession(id);
      return json(response, 200, signedOut);
    }
    if (!body.data)
      return json(response, 502, { error: 'The gateway did not answer who this is.' });
    json(response, 200, {
      signedIn: true,
      user: { id: body.data.user.id },
      plans: body.data.plans.map(({ id: planId, name }) => ({ id: planId, name })),
      expiresAt: new Date(expiresAt).toISOString(),
    });
  }

  function logout(request: IncomingMessage, response: ServerResponse) {
    if (!isPreflighted(request.headers))
      return json(response, 403, {
        error: `Signing out needs a header a page cannot send without a preflight: ${CSRF_HEADERS[0]}.`,
      });
    const found = sessionOf(request);
    if (found) endSession(found[0]);
    response.writeHead(204, {
      'set-cookie': cookie(SESSION_COOKIE, '', 'Path=/; Max-Age=0'),
      'cache-control': 'no-store',
    });
    response.end();
  }

  function graphql(url: URL, request: IncomingMessage, response: ServerResponse) {
    if (!isPreflighted(request.headers))
      return json(response, 403, {
        errors: [
          { message: 'Required CSRF header(s) not present', extensions: { code: 'FORBIDDEN' } },
        ],
      });
    const found = sessionOf(request);
    if (!found) return unauthenticated(request, response, 'Sign in first: there is no session.');
    const [id, { token }] = found;
    const target = new URL(gateway);
    target.search = url.search;
    const forward = httpRequest(target, {
      method: request.method,
      headers: { ...relayedHeaders(request.headers), authorization: `Bearer ${token}` },
    });
    forward.on('response', (answer) => {
      const headers = relayedHeaders(answer.headers);
      for (const name of Object.keys(headers))
        if (name.startsWith('access-control-')) delete headers[name];
      const type = String(answer.headers['content-type'] ?? '');
      if (!/json/.test(type)) {
        // Streams (SSE, multipart) go through as they come.
        response.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(response);
        return;
      }
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        let body = Buffer.concat(chunks).toString('utf8');
        const parsed = parseJson(body) as { errors?: GraphQLErrorShape[] } | null;
        if (parsed?.errors?.some(isUnauthenticated)) {
          // The upstream ended this grant: the session ends with it, and the app is told where
          // to sign in again.
          endSession(id);
          body = JSON.stringify({ ...parsed, errors: parsed.errors.map(withSignIn) });
        }
        response.writeHead(answer.statusCode ?? 502, headers);
        response.end(body);
      });
    });
    forward.on('error', () => {
      if (!response.headersSent)
        json(response, 502, { errors: [{ message: 'Gateway unreachable.' }] });
      else response.destroy();
    });
    request.pipe(forward);
  }

  function unauthenticated(request: IncomingMessage, response: ServerResponse, message: string) {
    const accept = String(request.headers.accept ?? '');
    response.writeHead(401, {
      'content-type': accept.includes('application/graphql-response+json')
        ? 'application/graphql-response+json; charset=utf-8'
        : 'application/json; charset=utf-8',
    });
    response.end(
      JSON.stringify({
        errors: [withSignIn({ message, extensions: { code: 'UNAUTHENTICATED' } })],
      }),
    );
  }

  /** graphql-ws at /graphql: relayed message by message to the gateway with the session's token. */
  function upgrade(request: IncomingMessage, socket: Duplex, head: Buffer) {
    const url = new URL(request.url ?? '/', origin);
    const refused = (status: number, message: string) => {
      socket.end(
        `HTTP/1.1 ${status} Refused\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n${message}`,
      );
    };
    if (url.pathname !== gateway.pathname) return refused(404, 'No WebSocket endpoint here.');
    if (foreignOrigin(request)) return refused(403, 'This origin may not connect.');
    const found = sessionOf(request);
    webSockets.handleUpgrade(request, socket, head, (client) => {
      const target = new URL(gateway);
      target.protocol = gateway.protocol === 'https:' ? 'wss:' : 'ws:';
      const upstream = new WebSocket(target, client.protocol, {
        headers: found ? { authorization: `Bearer ${found[1].token}` } : {},
      });
      found?.[1].sockets.add(client);
      const early: string[] = [];
      client.on('message', (data: RawData) => {
        if (upstream.readyState === WebSocket.OPEN) upstream.send(String(data));
        else early.push(String(data));
      });
      upstream.on('open', () => {
        for (const message of early.splice(0)) upstream.send(message);
      });
      upstream.on('message', (data: RawData) => {
        const { message, unauthenticated: refused } = signInOnSocket(String(data));
        client.send(message);
        if (refused && found) endSession(found[0]);
      });
      client.on('close', (code) => {
        found?.[1].sockets.delete(client);
        upstream.close(sendable(code) ? code : 1000);
      });
      upstream.on('close', (code, reason) => client.close(sendable(code) ? code : 1011, reason));
      upstream.on('error', () => client.close(1011, 'Gateway unreachable'));
      client.on('error', () => upstream.terminate());
    });
  }

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', origin);
    cors(request, response);
    const from = foreignOrigin(request);
    if (from !== null && url.pathname !== CALLBACK_PATH && url.pathname !== LOGIN_PATH)
      return json(response, 403, { error: `The origin ${from} may not call this gateway.` });
    if (request.method === 'OPTIONS') {
      response.writeHead(204, {
        'access-control-allow-methods': 'GET, POST',
        'access-control-allow-headers': request.headers['access-control-request-headers'] ?? '',
        'access-control-max-age': '600',
      });
      response.end();
      return;
    }
    const route = `${request.method} ${url.pathname}`;
    const handled = (() => {
      if (route === `GET ${LOGIN_PATH}`) return login(url, response);
      if (route === `GET ${CALLBACK_PATH}`) return callback(url, request, response);
      if (route === 'GET /auth/session') return session(request, response);
      if (route === 'POST /auth/logout') return logout(request, response);
      if (url.pathname === gateway.pathname) return graphql(url, request, response);
      return json(response, 404, { error: `Nothing at ${request.method} ${url.pathname}.` });
    })();
    void Promise.resolve(handled).catch((failure: unknown) => {
      if (!response.headersSent) json(response, 500, { error: String(failure) });
      else response.destroy();
    });
  });
  server.on('upgrade', upgrade);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  secure = origin.startsWith('https:');

  return {
    url: origin,
    sessionCount: () => sessions.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of webSockets.clients) client.terminate();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Where to send the browser back after sign-in, or why not. */
function returnTarget(
  value: string | null,
  isAllowed: (origin: string) => boolean,
): string | { refusal: string } {
  if (!value)
    return { refusal: 'return_to is required: the absolute URL of the page to go back to.' };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { refusal: 'return_to must be an absolute URL.' };
  }
  if (!isAllowed(url.origin))
    return {
      refusal: `return_to must be on this gateway's origin or one of its CORS origins, not ${url.origin}.`,
    };
  return url.href;
}

/** Whether a browser must have preflighted this request, so CORS has ruled on it. */
function isPreflighted(headers: IncomingHttpHeaders): boolean {
  if (CSRF_HEADERS.some((name) => headers[name] !== undefined)) return true;
  const type = headers['content-type'];
  return type !== undefined && !SIMPLE_CONTENT_TYPES.some((simple) => type.startsWith(simple));
}

function cookiesOf(headers: IncomingHttpHeaders): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const pair of (headers.cookie ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0) cookies[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return cookies;
}

function relayedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const relayed: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !NOT_RELAYED.has(name)) relayed[name] = value;
  return relayed;
}

const isUnauthenticated = (error: GraphQLErrorShape) =>
  error.extensions?.code === 'UNAUTHENTICATED';

const withSignIn = (error: GraphQLErrorShape): GraphQLErrorShape =>
  isUnauthenticated(error)
    ? { ...error, extensions: { ...error.extensions, signIn: SIGN_IN } }
    : error;

/** A graphql-ws message from the gateway, with the sign-in hint added to UNAUTHENTICATED errors. */
function signInOnSocket(raw: string): { message: string; unauthenticated: boolean } {
  const message = parseJson(raw) as {
    type?: string;
    payload?: GraphQLErrorShape[] | { errors?: GraphQLErrorShape[] };
  } | null;
  const errors = Array.isArray(message?.payload) ? message.payload : message?.payload?.errors;
  if (!message || !errors?.some(isUnauthenticated)) return { message: raw, unauthenticated: false };
  const marked = errors.map(withSignIn);
  const payload = Array.isArray(message.payload) ? marked : { ...message.payload, errors: marked };
  return { message: JSON.stringify({ ...message, payload }), unauthenticated: true };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Close codes an endpoint may send (1005, 1006 and 1015 only describe what happened). */
const sendable = (code: number) =>
  code === 1000 ||
  (code >= 1001 && code <= 1014 && ![1004, 1005, 1006].includes(code)) ||
  (code >= 3000 && code <= 4999);

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

function text(response: ServerResponse, status: number, message: string, setCookie?: string) {
  response.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
    ...(setCookie ? { 'set-cookie': setCookie } : {}),
  });
  response.end(message);
}
