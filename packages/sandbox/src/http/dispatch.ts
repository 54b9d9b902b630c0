/**
 * The request pipeline. For `/v1/...`: record the call, inject a fault if a rule fires, wait the
 * configured latency, read the body, authenticate (401), count against the rate limit (429), match
 * the route (404.1), check the account (403.1, 403.2), the scope (403.3) and the data limit
 * (403.4), parse the JSON body (400), run the handler.
 * `/oauth/...` skips faults, latency and the rate limit. Every response carries permissive CORS
 * headers so browser apps can call the sandbox directly.
 *
 * Successful responses carry no `X-Rate-Limit` header: the interface no longer promises one, and
 * the gateway counts its own requests.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OperationId } from '@plans-gateway/rest-contract';
import type { FaultKind, Principal, SandboxCall } from '../core/api.js';
import { isoDateOf } from '../core/dates.js';
import {
  ApiError,
  badRequest,
  internalError,
  notFound,
  serviceUnavailable,
  tooManyRequests,
  unauthorizedScope,
} from '../core/errors.js';
import type { HandlerContext } from '../handlers/context.js';
import { HANDLERS } from '../handlers/index.js';
import type { SandboxState, UserState } from '../store/state.js';
import { accessRefusal, dataLimitRefusal } from './account-state.js';
import type { TokenRegistry } from './auth.js';
import type { FaultEngine } from './faults.js';
import { isStreamed, streamJson, toJson } from './json-stream.js';
import type { OAuthResponse, OAuthService } from './oauth.js';
import type { RateLimiter } from './rate-limit.js';
import {
  BodyTooLargeError,
  formFields,
  parseJsonBody,
  presentedToken,
  queryRecord,
  readBody,
} from './request.js';
import type { Router } from './router.js';
import { isWriteMethod } from './routes.js';

export interface DispatchDeps {
  state: SandboxState;
  router: Router;
  tokens: TokenRegistry;
  rateLimiter: RateLimiter;
  faults: FaultEngine;
  oauth: OAuthService;
  calls: SandboxCall[];
  /** Waits `ms`, or less when the sandbox closes. */
  sleep(ms: number): Promise<void>;
  /** True once close() started: late work must not answer. */
  isClosing(): boolean;
  /** Requests that were told to hang, so close() can end them. */
  onHang(res: ServerResponse): void;
  /** Where unexpected errors go (never with tokens). */
  reportError(error: unknown): void;
}

const API_PREFIX = '/v1';
const CORS_HEADERS: Record<string, string> = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type, Accept',
  'access-control-max-age': '600',
};

function send(
  res: ServerResponse,
  call: SandboxCall,
  status: number,
  body: string | null,
  headers: Record<string, string> = {},
): void {
  call.status = status;
  if (res.destroyed || res.headersSent) return;
  const allHeaders: Record<string, string> = { ...CORS_HEADERS, ...headers };
  if (body !== null) {
    allHeaders['content-type'] ??= 'application/json; charset=utf-8';
    allHeaders['content-length'] = String(Buffer.byteLength(body));
  }
  res.writeHead(status, allHeaders);
  res.end(body ?? undefined);
}

function sendJson(
  res: ServerResponse,
  call: SandboxCall,
  status: number,
  value: unknown,
  headers?: Record<string, string>,
): void {
  send(res, call, status, toJson(value), headers);
}

/** Private: an answer too large for one string, streamed with chunked transfer encoding. */
async function sendStreamed(
  res: ServerResponse,
  call: SandboxCall,
  status: number,
  value: unknown,
): Promise<void> {
  call.status = status;
  if (res.destroyed || res.headersSent) return;
  res.writeHead(status, { ...CORS_HEADERS, 'content-type': 'application/json; charset=utf-8' });
  try {
    await streamJson(res, value);
  } catch (error) {
    // The status is out: all that is left is to cut the answer short, so the client sees it fail.
    res.destroy();
    throw error;
  }
}

function sendError(
  res: ServerResponse,
  call: SandboxCall,
  error: ApiError,
  headers?: Record<string, string>,
): void {
  sendJson(res, call, error.status, error.toBody(), headers);
}

/** Private: plays out an injected fault. */
function applyFault(
  kind: FaultKind,
  req: IncomingMessage,
  res: ServerResponse,
  call: SandboxCall,
  deps: DispatchDeps,
): void {
  switch (kind) {
    case 'silent':
      return; // not played out here: the write runs, silently (HandlerContext.silent)
    case 'status500':
      sendError(
        res,
        call,
        internalError('Injected fault: the sandbox was asked to fail this request'),
      );
      return;
    case 'status503':
      sendError(
        res,
        call,
        serviceUnavailable('Injected fault: the sandbox is pretending to be down for maintenance'),
      );
      return;
    case 'malformed':
      send(res, call, 200, '{"data": {"truncated": tr');
      return;
    case 'drop':
      call.status = null;
      req.socket.destroy();
      return;
    case 'hang':
      call.status = null;
      deps.onHang(res);
      return;
  }
}

export function createDispatcher(
  deps: DispatchDeps,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const { call, query } = recordCall(deps, req);
    route(deps, req, res, call, query).catch((error: unknown) =>
      answerFailure(deps, res, call, error),
    );
  };
}

/**
 * The request as the sandbox's call log keeps it (never the `access_token` parameter), and its
 * query as sent.
 */
function recordCall(
  deps: DispatchDeps,
  req: IncomingMessage,
): { call: SandboxCall; query: Record<string, string> } {
  const method = (req.method ?? 'GET').toUpperCase();
  const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
  const query = queryRecord(url.searchParams);
  const token = presentedToken(req, query);
  const recordedQuery = { ...query };
  delete recordedQuery.access_token;
  const call: SandboxCall = {
    operationId: null,
    endpoint: null,
    method,
    path,
    query: recordedQuery,
    status: null,
    token,
    at: deps.state.clock.now(),
  };
  deps.calls.push(call);
  return { call, query };
}

async function route(
  deps: DispatchDeps,
  req: IncomingMessage,
  res: ServerResponse,
  call: SandboxCall,
  query: Record<string, string>,
): Promise<void> {
  const { method, path } = call;
  if (method === 'OPTIONS') {
    send(res, call, 204, null);
    return;
  }
  if (path.startsWith('/oauth/')) {
    await handleOAuth(deps, req, res, call, query);
    return;
  }
  if (path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)) {
    await handleApi(deps, req, res, call, query);
    return;
  }
  throw notFound(`${method} ${path} does not exist; the interface lives under ${API_PREFIX}`);
}

/** REST errors as the interface answers them; anything unexpected is reported and masked. */
function answerFailure(
  deps: DispatchDeps,
  res: ServerResponse,
  call: SandboxCall,
  error: unknown,
): void {
  if (error instanceof ApiError) {
    sendError(res, call, error);
  } else if (error instanceof BodyTooLargeError) {
    sendError(res, call, badRequest(error.message), { connection: 'close' });
  } else {
    deps.reportError(error);
    sendError(
      res,
      call,
      internalError('The sandbox failed unexpectedly while handling this request'),
    );
  }
}

/** The OAuth endpoints' bodies are a few form fields. */
const MAX_OAUTH_BODY_BYTES = 64 * 1024;

/**
 * Pages must not be framed (clickjacking) nor cached, and nothing the endpoints answer (a
 * one-time request id, a code, tokens) may be kept or leak through a referrer.
 */
const OAUTH_HEADERS: Record<string, string> = {
  'cache-control': 'no-store',
  pragma: 'no-cache',
  'referrer-policy': 'no-referrer',
};
const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
};

function sendOAuth(res: ServerResponse, call: SandboxCall, result: OAuthResponse): void {
  const headers = { ...OAUTH_HEADERS, ...result.headers };
  if (result.html !== undefined)
    send(res, call, result.status, result.html, { ...headers, ...PAGE_HEADERS });
  else if (result.json !== undefined) sendJson(res, call, result.status, result.json, headers);
  else send(res, call, result.status, null, headers);
}

/** The token endpoint's calls, told apart by grant type so a test can count refreshes. */
function tokenEndpoint(grantType: string | undefined): string {
  return grantType === 'authorization_code' || grantType === 'refresh_token'
    ? `oauth.token.${grantType}`
    : 'oauth.token';
}

async function handleOAuth(
  deps: DispatchDeps,
  req: IncomingMessage,
  res: ServerResponse,
  call: SandboxCall,
  query: Record<string, string>,
): Promise<void> {
  const { path, method } = call;
  if (path === '/oauth/authorize' && method === 'GET') {
    call.endpoint = 'oauth.authorize';
    sendOAuth(res, call, deps.oauth.authorize(query));
    return;
  }
  if (path === '/oauth/authorize' && method === 'POST') {
    call.endpoint = 'oauth.consent';
    const fields = formFields(req, await readBody(req, MAX_OAUTH_BODY_BYTES));
    sendOAuth(res, call, deps.oauth.consent(fields));
    return;
  }
  if (path === '/oauth/token' && method === 'POST') {
    const params = { ...query, ...formFields(req, await readBody(req, MAX_OAUTH_BODY_BYTES)) };
    call.endpoint = tokenEndpoint(params.grant_type);
    sendOAuth(res, call, deps.oauth.token(params, req.headers.authorization));
    return;
  }
  sendError(res, call, notFound(`${method} ${path} does not exist`));
}

async function handleApi(
  deps: DispatchDeps,
  req: IncomingMessage,
  res: ServerResponse,
  call: SandboxCall,
  query: Record<string, string>,
): Promise<void> {
  const { method, path, token } = call;
  const match = deps.router.match(method, path.slice(API_PREFIX.length) || '/');
  call.operationId = match?.operationId ?? null;
  call.endpoint = call.operationId;
  const fault = deps.faults.pick(call.operationId, method);
  const delay = deps.faults.delayMs();
  if (delay > 0) await deps.sleep(delay);
  if (deps.isClosing()) return;
  if (fault && fault !== 'silent') {
    applyFault(fault, req, res, call, deps);
    return;
  }
  const text = await readBody(req);
  const principal = deps.tokens.authenticate(token);
  const decision = deps.rateLimiter.take(token ?? '');
  if (!decision.allowed) {
    const seconds = Math.ceil(decision.retryAfterMs / 1000);
    sendError(
      res,
      call,
      tooManyRequests(
        `Too many requests: the limit is reached for this access token; try again in ${seconds} seconds`,
      ),
      { 'retry-after': String(seconds) },
    );
    return;
  }
  if (!match) throw notFound(`${method} ${path} does not exist`);
  const user = admittedUser(deps, principal, method);
  const body = parseJsonBody(text);
  const now = deps.state.clock.now();
  const ctx: HandlerContext = {
    operationId: match.operationId,
    params: match.params,
    query,
    body,
    principal,
    user,
    state: deps.state,
    now,
    today: isoDateOf(now),
    silent: fault === 'silent',
  };
  const handler = HANDLERS[match.operationId as OperationId] as (ctx: HandlerContext) => {
    status: number;
    data: unknown;
  };
  const result = handler(ctx);
  if (isStreamed(result.data)) await sendStreamed(res, call, result.status, { data: result.data });
  else sendJson(res, call, result.status, { data: result.data });
}

/**
 * The user a request acts for, once the account's state (lapsed subscription, ended trial, data
 * limit) and the token's scope allow the method; throws the REST refusal otherwise.
 */
function admittedUser(deps: DispatchDeps, principal: Principal, method: string): UserState {
  const user = deps.state.users.get(principal.userId);
  if (!user) throw notFound('The token belongs to no sandbox user');
  const shutOut = accessRefusal(user.accountState);
  if (shutOut) throw shutOut;
  if (isWriteMethod(method) && principal.scope === 'read-only') {
    throw unauthorizedScope('This access token has the read-only scope and cannot change data');
  }
  const overLimit = dataLimitRefusal(user.accountState, method);
  if (overLimit) throw overLimit;
  return user;
}
