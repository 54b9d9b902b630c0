/**
 * MCP over Streamable HTTP at `/mcp` on the gateway's port: the SDK's
 * `StreamableHTTPServerTransport`, one per session, behind the gateway's own door.
 *
 * - Origin: a browser page may use `/mcp` only from an origin `CORS_ORIGINS` lists or from the
 *   gateway's own address when that is an IP address or localhost (`origin.ts`: DNS rebinding),
 *   whatever `CORS_ORIGINS=*` grants GraphQL; others get 403 before anything is read. Allowed
 *   origins get CORS headers, preflights included, with the MCP headers allowed and exposed.
 * - Credentials: the bearer token (`Authorization: Bearer`, or `access_token`, as for GraphQL) is
 *   the upstream token, or an access token of the gateway's own authorization server (sign-in,
 *   `src/authorization`). None: 401 with `WWW-Authenticate: Bearer realm="plans-gateway"`; one
 *   that cannot be a token, that the upstream refused, or a gateway token refused: 401 with
 *   `error="invalid_token"`. With an authorization server, each 401 also names the resource's
 *   metadata (`resource_metadata`, RFC 9728), where an MCP client starts signing in. A gateway
 *   token that could not be checked (sign-in's store down) answers 503 with `Retry-After`. A new
 *   session proves its token first (one upstream call for a token not yet accepted, shared by the
 *   token gate), so made-up tokens cannot fill the session table.
 * - Sessions: bound to the token that opened them (another token gets 404, as for an unknown
 *   session); at most `sessionsPerToken` per token (a new one closes that token's oldest) and
 *   `maxSessions` in all: a newcomer to a full table is never refused, someone gives way (one
 *   without a request or stream idle past `sessionIdleWhenFullMs`, else the longest-idle
 *   session of the token holding the most). Closed after `sessionIdleMs` without a request or an
 *   open stream (on the gateway's clock and timers), on `DELETE`, and when the gateway stops.
 * - Notifications: handed to the SDK only while the session's GET stream takes them
 *   (`updates.ts` keeps the rest, bounded by `SUBSCRIPTION_PENDING_KB`).
 * - Bodies: at most `limits.bodyBytes` (413), JSON (else a JSON-RPC parse error, 400).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { ownOriginsOf } from '../admission/origin.js';
import { type Presented, presentedByHeaders } from '../admission/presented.js';
import { logInternalError } from '../errors/internal-errors.js';
import type { Gateway } from '../gateway/gateway.js';
import { prepareOperation } from '../server/run-operation.js';
import type { TimerHandle } from '../time/scheduler.js';
import { FOREIGN_ORIGIN, isMcpOrigin } from './origin.js';
import { createMcpSession, type McpParts, type McpSession } from './session.js';

const REALM = 'Bearer realm="plans-gateway"';
const ALLOWED_HEADERS =
  'authorization, content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id';
const EXPOSED_HEADERS = 'mcp-session-id, mcp-protocol-version, www-authenticate';

interface HttpSession {
  readonly id: string;
  readonly tokenKey: string;
  readonly mcp: McpSession;
  readonly transport: StreamableHTTPServerTransport;
  readonly events: EventStream;
  /** Requests and streams open now: the session is idle only without any. */
  open: number;
  /** When its last request came (the gateway's clock). */
  lastSeen: number;
  idleTimer?: TimerHandle | undefined;
}

/** Private: the session's GET event stream (notifications), while one is open. */
interface EventStream {
  response?: ServerResponse | undefined;
}

export interface McpHttp {
  /** Whether a request is for MCP (its path). */
  matches(request: IncomingMessage): boolean;
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
  /** Sessions open now. */
  sessions(): number;
  /** Closes every session (their streams end). */
  close(): Promise<void>;
}

export function createMcpHttp(parts: McpParts): McpHttp {
  const { gateway, config } = parts;
  const path = config.path || '/mcp';
  const resourceMetadata = gateway.authorization?.resourceMetadataUrl(path);
  const sessions = new Map<string, HttpSession>();
  // Idle times run on the gateway's clock and timers, as polls do (tests move them by hand).
  const scheduler = gateway.scheduler;

  const closeSession = async (session: HttpSession) => {
    if (sessions.get(session.id) !== session) return;
    sessions.delete(session.id);
    session.idleTimer?.cancel();
    await session.mcp.close().catch(() => {});
  };
  const watchIdle = (session: HttpSession) => {
    session.idleTimer?.cancel();
    session.idleTimer = undefined;
    if (session.open > 0) return;
    session.idleTimer = scheduler.setTimeout(() => closeSession(session), config.sessionIdleMs);
  };

  // Private: the session that gives way to `newcomer` in a full table: one without a request
  // or stream idle past `sessionIdleWhenFullMs`, else the longest-idle session of the token
  // holding the most (a token's flood displaces its own sessions before anyone else's).
  const giving = (newcomer: HttpSession): HttpSession | undefined => {
    const others = [...sessions.values()].filter((s) => s !== newcomer);
    const now = scheduler.now();
    const idle = others.filter(
      (s) => s.open === 0 && now - s.lastSeen >= config.sessionIdleWhenFullMs,
    );
    if (idle.length > 0) return longestIdle(idle);
    const byToken = new Map<string, HttpSession[]>();
    for (const s of others) {
      const group = byToken.get(s.tokenKey);
      if (group) group.push(s);
      else byToken.set(s.tokenKey, [s]);
    }
    let most: HttpSession[] = [];
    for (const group of byToken.values())
      if (
        group.length > most.length ||
        (group.length === most.length && longestIdle(group).lastSeen < longestIdle(most).lastSeen)
      )
        most = group;
    return most.length > 0 ? longestIdle(most) : undefined;
  };

  // Private: the bounds, kept once a new session is in the table (so concurrent initializes
  // cannot pass them): its token's oldest past `sessionsPerToken`, then room in the table.
  const makeRoom = (newcomer: HttpSession) => {
    const own = [...sessions.values()].filter(
      (s) => s.tokenKey === newcomer.tokenKey && s !== newcomer,
    );
    if (own.length >= config.sessionsPerToken) void closeSession(longestIdle(own));
    while (sessions.size > config.maxSessions) {
      const session = giving(newcomer);
      if (!session) break;
      void closeSession(session);
    }
  };

  // Private: whether a token not yet accepted upstream is accepted now (one call, gated).
  const proven = async (presented: Presented, tokenKey: string): Promise<boolean> => {
    if (gateway.upstream.tokenStatus(tokenKey) === 'accepted') return true;
    const prepared = await prepareOperation(gateway, {
      query: 'query McpSessionUser { user { id } }',
      operationName: 'McpSessionUser',
      presented,
      path,
      own: true,
    });
    const result = prepared.ok ? await prepared.execute() : { errors: prepared.errors };
    return !(result.errors ?? []).some((error) => error.extensions.code === 'UNAUTHENTICATED');
  };

  const openSession = async (
    request: IncomingMessage,
    response: ServerResponse,
    body: unknown,
    presented: Presented,
    tokenKey: string,
  ) => {
    if (!(await proven(presented, tokenKey)))
      return unauthorized(
        response,
        'The upstream refused this access token.',
        true,
        resourceMetadata,
      );
    let session: HttpSession | undefined;
    const events: EventStream = {};
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // Answers as JSON (notifications go over the session's GET stream).
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        session = {
          id,
          tokenKey,
          mcp,
          transport,
          events,
          open: 1,
          lastSeen: scheduler.now(),
        };
        sessions.set(id, session);
        makeRoom(session);
      },
      onsessionclosed: (id) => {
        const closing = sessions.get(id);
        if (closing) void closeSession(closing);
      },
    });
    const mcp = createMcpSession(parts, callerOf, {
      // The SDK queues whatever it is handed for the GET stream: hand it notifications only
      // while that stream's socket takes them (src/mcp/updates.ts holds the rest, bounded).
      backedUp: () => drained(events.response),
      end: () => transport.closeStandaloneSSEStream(),
    });
    await mcp.server.connect(transport);
    try {
      await transport.handleRequest(request, response, body);
    } finally {
      if (session) {
        session.open -= 1;
        watchIdle(session);
      } else {
        await mcp.close().catch(() => {});
      }
    }
  };

  return {
    matches: (request) => pathOf(request) === path,
    sessions: () => sessions.size,
    async handle(request, response) {
      const origin = request.headers.origin ?? null;
      const ownOrigins = ownOriginsOf(request.headers.host);
      if (!isMcpOrigin(origin, request.headers.host, gateway.config.corsOrigins))
        return rpcError(response, 403, -32000, FOREIGN_ORIGIN);
      if (origin) {
        response.setHeader('access-control-allow-origin', origin);
        response.setHeader('vary', 'origin');
        response.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
      }
      if (request.method === 'OPTIONS') {
        response.writeHead(204, {
          'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
          'access-control-allow-headers': ALLOWED_HEADERS,
          'access-control-max-age': '600',
        });
        response.end();
        return;
      }

      // Read once here: every operation of this request carries this value, which admission
      // checks and digests once (its credentials stage, asked here at the door first).
      const presented = presentedByHeaders(request.headers.authorization, request.url);
      if (presented === undefined)
        return unauthorized(
          response,
          'No access token: send Authorization: Bearer <token>.',
          false,
          resourceMetadata,
        );
      const checked = await gateway.admission.credentials(presented);
      // The store that checks gateway tokens did not answer: the token may be good, so the
      // client retries rather than signing in again (as /graphql answers).
      if (!checked.ok && checked.error.extensions.code === 'SIGN_IN_UNAVAILABLE') {
        response.setHeader('retry-after', '1');
        return rpcError(response, 503, -32001, checked.error.message);
      }
      if (!checked.ok)
        return unauthorized(
          response,
          presented.kind === 'grant-token'
            ? checked.error.message
            : checked.reason === 'unusable'
              ? 'The access token cannot be a token.'
              : 'The upstream refused this access token.',
          true,
          resourceMetadata,
        );
      const { tokenKey } = checked.credentials;
      (request as IncomingMessage & { auth?: AuthInfo }).auth = {
        token: presented.token,
        clientId: 'bearer',
        scopes: [],
        extra: { origin, ownOrigins, presented },
      };

      let body: unknown;
      if (request.method === 'POST') {
        const read = await readJson(request, gateway.config.limits.bodyBytes);
        if ('code' in read) return rpcError(response, read.status, read.code, read.message);
        body = read.body;
      }

      const sessionId = request.headers['mcp-session-id'];
      if (typeof sessionId !== 'string') {
        if (request.method === 'POST' && isInitializeRequest(body))
          return openSession(request, response, body, presented, tokenKey);
        return rpcError(
          response,
          400,
          -32000,
          'No mcp-session-id: start with an initialize request.',
        );
      }
      const session = sessions.get(sessionId);
      // Another token's session is as unknown as one that never existed.
      if (!session || session.tokenKey !== tokenKey)
        return rpcError(response, 404, -32001, 'Session not found: initialize a new one.');
      session.open += 1;
      session.lastSeen = scheduler.now();
      session.idleTimer?.cancel();
      if (request.method === 'GET' && !session.events.response) {
        // Most likely the notification stream (the SDK refuses a second one with 409).
        const events = session.events;
        events.response = response;
        response.once('close', () => {
          if (events.response === response) events.response = undefined;
        });
      }
      response.once('close', () => {
        session.open -= 1;
        watchIdle(session);
      });
      await session.transport.handleRequest(request, response, body);
    },
    async close() {
      await Promise.all([...sessions.values()].map(closeSession));
    },
  };
}

/**
 * The gateway's request listener with MCP at its path; every other request goes to yoga
 * (GraphQL, GraphiQL, `/health`, `/ready`, `/metrics`), whose plugins are unchanged.
 */
export function withMcp(gateway: Gateway, mcp: McpHttp | undefined): RequestListener {
  if (!mcp) return gateway.yoga;
  return (request, response) => {
    if (!mcp.matches(request)) return void gateway.yoga(request, response);
    mcp.handle(request, response).catch((error: unknown) => {
      logInternalError(gateway.logger, error, 'mcp request failed');
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  };
}

/** Private: the session that stays idle longest. */
function longestIdle(sessions: readonly HttpSession[]): HttpSession {
  return sessions.reduce((a, b) => (b.lastSeen < a.lastSeen ? b : a));
}

/** Private: undefined while `response` takes writes; else when it drains (or closes). */
function drained(response: ServerResponse | undefined): Promise<void> | undefined {
  if (!response?.writableNeedDrain || response.destroyed) return undefined;
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

/** Private: who sends a request, from what `handle` put in its AuthInfo. */
function callerOf(extra: { authInfo?: AuthInfo | undefined }) {
  const info = extra.authInfo;
  const { origin, ownOrigins, presented } = (info?.extra ?? {}) as {
    origin?: string | null;
    ownOrigins?: string[];
    presented?: Presented;
  };
  return { presented, origin: origin ?? null, ownOrigins: ownOrigins ?? [] };
}

function pathOf(request: IncomingMessage): string {
  return new URL(request.url ?? '/', 'http://mcp.invalid').pathname;
}

function unauthorized(
  response: ServerResponse,
  message: string,
  invalid: boolean,
  resourceMetadata: string | undefined,
): void {
  response.setHeader(
    'www-authenticate',
    `${REALM}${invalid ? ', error="invalid_token"' : ''}${
      resourceMetadata ? `, resource_metadata="${resourceMetadata}"` : ''
    }`,
  );
  rpcError(response, 401, -32001, message);
}

function rpcError(response: ServerResponse, status: number, code: number, message: string): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-content-type-options': 'nosniff',
  });
  response.end(body);
}

/** Private: a JSON body of at most `max` bytes, or the status and JSON-RPC error to answer. */
async function readJson(
  request: IncomingMessage,
  max: number,
): Promise<{ body: unknown } | { status: number; code: number; message: string }> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > max)
    return { status: 413, code: -32000, message: `The body is over ${max} bytes.` };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > max) {
      request.resume();
      return { status: 413, code: -32000, message: `The body is over ${max} bytes.` };
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return { body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
  } catch {
    return { status: 400, code: -32700, message: 'Parse error: the body is not JSON.' };
  }
}
