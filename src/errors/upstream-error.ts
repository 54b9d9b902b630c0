/**
 * Every way an upstream call can fail becomes one `UpstreamError`, built here and nowhere else,
 * and `gatewayErrorCode` maps it to the stable code the GraphQL layer puts in
 * `extensions.code` (docs/graph.md#errors). Nothing in this file knows GraphQL.
 */
import type { HttpMethod, OperationId } from '@plans-gateway/rest-contract';
import type { ErrorCodeFrom } from './catalogue.js';

export type UpstreamErrorKind =
  /** The upstream answered with a non-2xx status. */
  | 'http'
  /** No (complete) answer: refused or dropped connection, DNS failure, reset mid-body. */
  | 'network'
  /** Connecting, waiting for headers or waiting for the next body chunk took too long. */
  | 'timeout'
  /** A 2xx whose body is not JSON, not an object with `data`, or cannot be decoded. */
  | 'malformed'
  /** A body larger than the client's `maxResponseBytes`. */
  | 'too_large';

/**
 * The REST error as the upstream sent it, plus the HTTP status. When the upstream answered
 * without the REST error wrapper (an HTML page from a proxy, an empty body) the client
 * synthesizes one from the status: `id` is the status as a string, `name` the conventional
 * snake_case name (`service_unavailable`, `bad_gateway`, ...) and `detail` starts with
 * "The upstream answered HTTP <status>".
 */
export interface UpstreamRestError {
  status: number;
  id: string;
  name: string;
  detail: string;
}

export interface UpstreamErrorInit {
  message: string;
  operationId: OperationId;
  method: HttpMethod;
  status: number | null;
  kind: UpstreamErrorKind;
  upstream: UpstreamRestError | null;
  retryable: boolean;
  outcomeUnknown: boolean;
  attempts: number;
  /** From the upstream's `Retry-After`, or how long the client holds back this token's reads. */
  retryAfterMs?: number | null;
  /** Kind `too_large`: the limit passed, and the setting that raises it, if one does. */
  sizeLimit?: SizeLimit | null;
  /** Set when the token's request ledger held the call back: it was never sent. */
  quota?: SpentQuota | null;
  cause?: unknown;
}

/** The upstream's quota of a token, spent by the gateway's count (its request ledger). */
export interface SpentQuota {
  /** Requests the upstream allows a token per window. */
  readonly limit: number;
  readonly windowMs: number;
}

/** The size limit an answer passed (kind `too_large`). */
export interface SizeLimit {
  readonly bytes: number;
  /** The setting that raises it (e.g. `REPLICA_MAX_MB`), for the person who can. */
  readonly setting?: string;
}

export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';
  readonly operationId: OperationId;
  readonly method: HttpMethod;
  /** The HTTP status, or `null` when no response headers arrived. */
  readonly status: number | null;
  readonly kind: UpstreamErrorKind;
  /**
   * The REST error (verbatim, or synthesized for non-JSON error bodies); `null` unless `kind`
   * is `http`.
   */
  readonly upstream: UpstreamRestError | null;
  /**
   * Sending the same request again later may succeed and is safe: a transient failure of a read
   * (5xx, 429, network, timeout, malformed), or of a write that certainly was not applied (429,
   * connection never established). Reads were already retried by the client when this is set.
   */
  readonly retryable: boolean;
  /**
   * Writes only: the request may or may not have been applied upstream (timeout or dropped
   * connection after sending, a 5xx, or a 2xx whose body could not be read). Resync before
   * deciding anything; never resend blindly. Always `false` for reads.
   */
  readonly outcomeUnknown: boolean;
  /** HTTP attempts made for this call, retries included; 0 when the client held it back. */
  readonly attempts: number;
  /** When to try again, in ms from the failure, if the upstream (or the client's back-off) said. */
  readonly retryAfterMs: number | null;
  /** Kind `too_large`: the limit the answer passed, and what raises it. */
  readonly sizeLimit: SizeLimit | null;
  /**
   * The token's quota as the gateway counted it, when its request ledger held the call back: a
   * 429 answered from the ledger, the call never sent (`attempts: 0`, `upstream: null`).
   */
  readonly quota: SpentQuota | null;

  constructor(init: UpstreamErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.operationId = init.operationId;
    this.method = init.method;
    this.status = init.status;
    this.kind = init.kind;
    this.upstream = init.upstream;
    this.retryable = init.retryable;
    this.outcomeUnknown = init.outcomeUnknown;
    this.attempts = init.attempts;
    this.retryAfterMs = init.retryAfterMs ?? null;
    this.sizeLimit = init.sizeLimit ?? null;
    this.quota = init.quota ?? null;
  }
}

export function isUpstreamError(value: unknown): value is UpstreamError {
  return value instanceof UpstreamError;
}

// ---------------------------------------------------------------------------------------------
// The code table (docs/graph.md#errors)

/** The codes an upstream failure translates to, as the catalogue marks them. */
export type GatewayErrorCode = ErrorCodeFrom<'upstream'>;

const FORBIDDEN_CODES: Readonly<Record<string, GatewayErrorCode>> = {
  '403.1': 'SUBSCRIPTION_LAPSED',
  '403.2': 'TRIAL_EXPIRED',
  '403.3': 'READ_ONLY_SCOPE',
  '403.4': 'DATA_LIMIT_REACHED',
};

const STATUS_CODES: Readonly<Record<number, GatewayErrorCode>> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  429: 'RATE_LIMITED',
  500: 'UPSTREAM_ERROR',
  502: 'UPSTREAM_UNAVAILABLE',
  503: 'UPSTREAM_UNAVAILABLE',
  504: 'UPSTREAM_UNAVAILABLE',
};

/**
 * The stable `extensions.code` for an upstream failure. Statuses the interface does not list
 * fall back by class: other 4xx are BAD_REQUEST, anything else (3xx, other 5xx) is
 * UPSTREAM_ERROR. A response we cannot read (malformed, too large) is UPSTREAM_ERROR: the
 * upstream is up but answered something unusable.
 */
export function gatewayErrorCode(error: UpstreamError): GatewayErrorCode {
  switch (error.kind) {
    case 'network':
    case 'timeout':
      return 'UPSTREAM_UNAVAILABLE';
    case 'malformed':
    case 'too_large':
      return 'UPSTREAM_ERROR';
    case 'http':
      break;
  }
  const status = error.status ?? 0;
  if (status === 403) return FORBIDDEN_CODES[error.upstream?.id ?? ''] ?? 'FORBIDDEN';
  const code = STATUS_CODES[status];
  if (code !== undefined) return code;
  return status >= 400 && status < 500 ? 'BAD_REQUEST' : 'UPSTREAM_ERROR';
}

// ---------------------------------------------------------------------------------------------
// Factories: the one place responses and transport failures turn into errors

/** What every factory needs to know about the call that failed. */
export interface FailedCall {
  operationId: OperationId;
  method: HttpMethod;
  attempt: number;
  /** Removes the caller's token from text the upstream sent back. */
  redact: (text: string) => string;
}

const MAX_DETAIL_IN_MESSAGE = 200;

const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'bad_request',
  401: 'not_authorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  429: 'too_many_requests',
  500: 'internal_server_error',
  502: 'bad_gateway',
  503: 'service_unavailable',
  504: 'gateway_timeout',
};

/**
 * A non-2xx answer. `bodyText` is the body, `null` when it could not be read (over the error
 * body limit, undecodable); when it holds the REST error wrapper the
 * error is kept verbatim (only the caller's token, should the upstream ever echo it, is
 * redacted), otherwise one is synthesized from the status.
 */
export function errorFromResponse(
  call: FailedCall,
  status: number,
  bodyText: string | null,
  retryAfterMs: number | null = null,
): UpstreamError {
  const upstream =
    parseRestError(status, bodyText, call.redact) ?? synthesizeRestError(status, bodyText);
  const isWrite = call.method !== 'GET';
  const transient = status >= 500 || status === 429;
  const outcomeUnknown = isWrite && status >= 500;
  return new UpstreamError({
    message:
      `${prefix(call)} the upstream answered ${status} ${upstream.id} ${upstream.name}: ` +
      truncate(upstream.detail),
    operationId: call.operationId,
    method: call.method,
    status,
    kind: 'http',
    upstream,
    retryable: transient && !outcomeUnknown,
    outcomeUnknown,
    attempts: call.attempt,
    retryAfterMs,
  });
}

/**
 * A call the token's request ledger has no room for: the upstream would refuse it (429), so it
 * is not sent. Retryable once the oldest counted request leaves the window (`retryAfterMs`);
 * a write held back here was certainly not applied.
 */
export function quotaSpent(
  call: Pick<FailedCall, 'operationId' | 'method'>,
  quota: SpentQuota,
  retryAfterMs: number,
): UpstreamError {
  return new UpstreamError({
    message: `${prefix(call)} not sent: the token has made the ${quota.limit} requests the upstream allows it in ${windowOf(quota.windowMs)}, by the gateway's count; the next may go in ${Math.ceil(retryAfterMs / 1000)} s`,
    operationId: call.operationId,
    method: call.method,
    status: 429,
    kind: 'http',
    upstream: null,
    retryable: true,
    outcomeUnknown: false,
    attempts: 0,
    retryAfterMs,
    quota,
  });
}

/** How a rate window reads in a message: `an hour`, `60 s`. */
export function windowOf(windowMs: number): string {
  return windowMs === 3_600_000 ? 'an hour' : `${Math.round(windowMs / 1000)} s`;
}

/** A 2xx whose body is not a valid response. `reason` is ours, never upstream text. */
export function malformedResponse(call: FailedCall, status: number, reason: string): UpstreamError {
  const isWrite = call.method !== 'GET';
  return new UpstreamError({
    message: `${prefix(call)} the upstream answered ${status} with an unusable body (${reason})`,
    operationId: call.operationId,
    method: call.method,
    status,
    kind: 'malformed',
    upstream: null,
    retryable: !isWrite,
    // The write was applied (2xx) but its result is unknown to us: same handling as unknown.
    outcomeUnknown: isWrite,
    attempts: call.attempt,
  });
}

/**
 * A body over its size limit. Deterministic (the same answer is as large again): never retried.
 * `setting` names what raises the limit, for the operator reading the message.
 */
export function responseTooLarge(
  call: FailedCall,
  status: number,
  limit: number,
  setting?: string,
): UpstreamError {
  const isWrite = call.method !== 'GET';
  const raise = setting === undefined ? '' : ` (raise ${setting} to read it)`;
  return new UpstreamError({
    message: `${prefix(call)} the upstream answered ${status} with a body over the ${limit}-byte limit${raise}`,
    operationId: call.operationId,
    method: call.method,
    status,
    kind: 'too_large',
    upstream: null,
    retryable: false,
    outcomeUnknown: isWrite && status >= 200 && status < 300,
    attempts: call.attempt,
    sizeLimit: setting === undefined ? { bytes: limit } : { bytes: limit, setting },
  });
}

const TIMEOUT_CODES: Readonly<Record<string, string>> = {
  UND_ERR_CONNECT_TIMEOUT: 'connecting',
  UND_ERR_HEADERS_TIMEOUT: 'waiting for the response headers',
  UND_ERR_BODY_TIMEOUT: 'waiting for the response body',
};

/** Failures before the request could reach the upstream: a write certainly was not applied. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

const NETWORK_CODES = new Set([
  ...NOT_SENT_CODES,
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'UND_ERR_HEADERS_OVERFLOW',
  'HPE_INVALID_CONSTANT',
  'HPE_INVALID_CHUNK_SIZE',
  'HPE_UNEXPECTED_CONTENT_LENGTH',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

/**
 * A failure of the transport (undici or node:net), or `undefined` when `error` is not one (a bug
 * that should surface as is). `status` is set when headers had arrived before the failure.
 */
export function errorFromTransport(
  call: FailedCall,
  error: unknown,
  status: number | null,
): UpstreamError | undefined {
  const code = errorCode(error);
  if (code === undefined) return undefined;
  const isWrite = call.method !== 'GET';
  const timeoutPhase = TIMEOUT_CODES[code];
  if (timeoutPhase === undefined && !NETWORK_CODES.has(code) && !code.startsWith('HPE_')) {
    return undefined;
  }
  const notSent = NOT_SENT_CODES.has(code);
  const outcomeUnknown = isWrite && !notSent;
  return new UpstreamError({
    message:
      timeoutPhase === undefined
        ? `${prefix(call)} network failure talking to the upstream (${code})`
        : `${prefix(call)} timed out ${timeoutPhase}`,
    operationId: call.operationId,
    method: call.method,
    status,
    kind: timeoutPhase === undefined ? 'network' : 'timeout',
    upstream: null,
    retryable: !outcomeUnknown,
    outcomeUnknown,
    attempts: call.attempt,
    cause: error,
  });
}

// Private: error codes sit on `code` (Node and undici errors); the happy-eyeballs connect of
// Node wraps per-address failures in an AggregateError whose first entry carries it.
function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  if (error instanceof AggregateError) return errorCode(error.errors[0]);
  return undefined;
}

function prefix(call: Pick<FailedCall, 'operationId' | 'method'>): string {
  return `${call.operationId} (${call.method}):`;
}

function truncate(text: string): string {
  return text.length <= MAX_DETAIL_IN_MESSAGE ? text : `${text.slice(0, MAX_DETAIL_IN_MESSAGE)}…`;
}

// Private: accepts only the interface's wrapper `{ error: { id, name, detail } }` with string
// fields (detail may be absent or null on odd proxies; it becomes '').
function parseRestError(
  status: number,
  bodyText: string | null,
  redact: (text: string) => string,
): UpstreamRestError | undefined {
  if (bodyText === null || bodyText.length === 0) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null) return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { id, name, detail } = error as { id?: unknown; name?: unknown; detail?: unknown };
  if (typeof id !== 'string' || typeof name !== 'string') return undefined;
  if (detail !== undefined && detail !== null && typeof detail !== 'string') return undefined;
  return { status, id: redact(id), name: redact(name), detail: redact(detail ?? '') };
}

// Private: the body is never copied into the detail (it may be an HTML page with a stack trace).
function synthesizeRestError(status: number, bodyText: string | null): UpstreamRestError {
  const what =
    bodyText === null
      ? 'an unreadable body'
      : bodyText.length === 0
        ? 'an empty body'
        : 'a body that is not a REST error';
  return {
    status,
    id: String(status),
    name: STATUS_NAMES[status] ?? `http_${status}`,
    detail: `The upstream answered HTTP ${status} with ${what}`,
  };
}
