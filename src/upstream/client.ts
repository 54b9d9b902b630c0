/**
 * The gateway's REST client: the only code that knows the upstream's URLs, headers and undici.
 * One typed method per operationId, all driven by the route table in `routes.ts`; errors are
 * built in `errors.ts`; reads are retried here, writes never.
 */
import { type Dispatcher, Pool } from 'undici';
import {
  errorFromResponse,
  errorFromTransport,
  type FailedCall,
  isUpstreamError,
  malformedResponse,
  responseTooLarge,
  type UpstreamError,
  type UpstreamErrorKind,
} from './errors.js';
import { createFairShare, type Release } from './fair-share.js';
import type { RequestLedger } from './ledger.js';
import { createReadBackoff, parseRetryAfter, type ReadBackoffOptions } from './read-backoff.js';
import { readBody } from './read-body.js';
import {
  createByteBudget,
  DEFAULT_MAX_BUFFERED_RESPONSE_BYTES,
  DEFAULT_RESPONSE_LIMITS,
  type ResponseKind,
  responseKind,
} from './response-limits.js';
import {
  buildRequestTarget,
  type HttpMethod,
  OPERATION_IDS,
  type OperationResult,
  type ParamsArgs,
  type RequestTarget,
  ROUTES,
} from './routes.js';
import {
  type Admission,
  createTokenGate,
  repeatRefusal,
  type TokenGateOptions,
} from './token-gate.js';
import { tokenKey as digestToken } from './token-key.js';
import type { OperationId } from './types.js';

export const DEFAULT_CONNECTIONS = 10;
/** Four of the ten: a cold screen of one token (export, user, plan list, money movements) at once. */
export const DEFAULT_CONNECTIONS_PER_TOKEN = 4;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** Generous: a plan export of 100,000 transactions takes the upstream a while to start sending. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 30_000;
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 10_000;
/** Far above the largest plan export we expect (about 100 MB for 100,000 transactions). */
export const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024 * 1024;
export const DEFAULT_USER_AGENT = 'plans-graphql-gateway';
export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 100, maxDelayMs: 2_000 };

/** Error bodies are small; a larger one is treated as "not a REST error" without reading it all. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** Shorter tokens are not redacted from upstream text: replacing them would garble it. */
const MIN_REDACTED_TOKEN_LENGTH = 8;

export interface RetryPolicy {
  /** Total attempts for a read, the first included. 1 disables retries. */
  attempts: number;
  /** Backoff cap of the first retry; doubles for each later retry. */
  baseDelayMs: number;
  /** Largest backoff cap. The actual delay is uniform in [0, cap) (full jitter). */
  maxDelayMs: number;
}

export interface UpstreamCallRecord {
  operationId: OperationId;
  method: HttpMethod;
  /** HTTP status, `null` when no response headers arrived. */
  status: number | null;
  /** 1 for the first attempt, 2 for the first retry, ... */
  attempt: number;
  durationMs: number;
  tokenKey: string;
  /** Why the attempt failed, `null` when it succeeded (or the caller aborted it). */
  errorKind: UpstreamErrorKind | null;
  /** Bytes of the decoded response body, `null` when none was read whole (e.g. the replica's memory estimate uses it). */
  responseBytes: number | null;
}

/**
 * Sees every HTTP attempt of the calls it is passed to, e.g. to count what one GraphQL
 * operation cost upstream.
 */
export interface UpstreamMeter {
  record(call: UpstreamCallRecord): void;
  /**
   * Optional: told as each attempt leaves; the headers it returns are sent with it (a W3C
   * `traceparent`), and `end` sees the same record as `record`. Used for tracing.
   */
  trace?(call: UpstreamCallStart): UpstreamAttemptTrace;
}

/** An attempt about to be sent. */
export interface UpstreamCallStart {
  operationId: OperationId;
  method: HttpMethod;
  attempt: number;
}

export interface UpstreamAttemptTrace {
  readonly headers: Readonly<Record<string, string>>;
  end(call: UpstreamCallRecord): void;
}

export interface CallOptions {
  /** The caller's access token, sent as `Authorization: Bearer`. */
  token: string;
  /** Aborts the call (including a pending retry); the call then rejects with `signal.reason`. */
  signal?: AbortSignal;
  meter?: UpstreamMeter;
}

export interface UpstreamClientOptions {
  /**
   * The REST base URL including the `/v1` version segment, e.g. `https://api.ynab.com/v1` or
   * the sandbox's `http://127.0.0.1:PORT/v1`. Tokens are only ever sent to this origin.
   */
  baseUrl: string;
  /**
   * Dispatcher to send requests through (an undici `MockAgent` in tests, a shared `Agent`).
   * The client does not close a dispatcher it was given.
   * @default a keep-alive `Pool` for the base URL's origin, owned and closed by the client
   */
  dispatcher?: Dispatcher;
  /** Connections the owned pool may open, and requests in flight at once. @default 10 */
  connections?: number;
  /**
   * Requests of one token in flight at once (see `fair-share.ts`): one tenant cannot hold
   * every connection, and waiting tokens take turns. @default 4
   */
  connectionsPerToken?: number;
  /** @default 10_000 */
  connectTimeoutMs?: number;
  /** Wait for the response headers. @default 30_000 */
  headersTimeoutMs?: number;
  /** Longest silence between two body chunks. @default 30_000 */
  bodyTimeoutMs?: number;
  /** Idle keep-alive sockets are closed after this. @default 10_000 */
  keepAliveTimeoutMs?: number;
  /**
   * Retries of reads (GET) on 5xx, network, timeout or malformed answers. Writes and 4xx
   * (429 included) are never retried.
   * @default { attempts: 3, baseDelayMs: 100, maxDelayMs: 2_000 }
   */
  retry?: Partial<RetryPolicy>;
  /** Uniform random number in [0, 1) for the backoff jitter. @default Math.random */
  random?: () => number;
  /**
   * Waits between retries; should reject with `signal.reason` when the signal aborts (the
   * client checks the signal again after it resolves either way).
   * @default a timer that honours the signal
   */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Monotonic clock for `durationMs` in meter records. @default performance.now */
  now?: () => number;
  /** Records every attempt per token key (feeds `Query.rateLimit`). @default none */
  ledger?: RequestLedger;
  /** @default 'plans-graphql-gateway' */
  userAgent?: string;
  /**
   * Larger bodies (after decompression) fail with kind `too_large`, whatever the operation.
   * @default 256 MiB
   */
  maxResponseBytes?: number;
  /**
   * Caps by what an operation returns (`response-limits.ts`), under `maxResponseBytes`.
   * @default { export: 256 MiB, list: 16 MiB, entity: 1 MiB }
   */
  responseLimits?: Partial<Record<ResponseKind, number>>;
  /**
   * Bytes every answer being read may hold together; an answer that would pass it fails with
   * kind `too_large`. @default 256 MiB
   */
  maxBufferedResponseBytes?: number;
  /** Ask for gzip / br bodies; plan exports shrink about tenfold. @default true */
  compression?: boolean;
  /**
   * After a read fails with 429, 5xx or no answer, this token's next reads are not sent for a
   * while and fail at once with the same error (see `read-backoff.ts`); `false` sends them all.
   * @default { failureMs: 5_000, rateLimitedMs: 30_000, maxMs: 600_000 }
   */
  readBackoff?: Omit<ReadBackoffOptions, 'clock'> | false;
  /** Wall clock in epoch ms, for back-off and `Retry-After` dates. @default Date.now */
  wallClock?: () => number;
  /**
   * Remembers refused tokens and sends an unproven token's requests one at a time until the
   * upstream has answered one (see `token-gate.ts`); `false` sends everything.
   * @default { rejectedMs: 60_000, acceptedMs: 600_000, maxTokens: 10_000 }
   */
  tokenGate?: TokenGateOptions | false;
  /** Sees every attempt of every call, whoever made it (metrics). @default none */
  observer?: UpstreamMeter;
}

export type OperationMethod<Op extends OperationId> = (
  call: CallOptions,
  ...params: ParamsArgs<Op>
) => Promise<OperationResult<Op>>;

export type UpstreamOperations = { readonly [Op in OperationId]: OperationMethod<Op> };

export interface UpstreamClient extends UpstreamOperations {
  /** The normalized base URL (origin and `/v1` path, no trailing slash). */
  readonly baseUrl: string;
  /** Any operation by id, for callers that are generic over operations. */
  call<Op extends OperationId>(
    operationId: Op,
    call: CallOptions,
    ...params: ParamsArgs<Op>
  ): Promise<OperationResult<Op>>;
  /** Waits for in-flight requests, then closes the owned pool. Later calls reject. */
  close(): Promise<void>;
}

export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const {
    baseUrl,
    dispatcher: injectedDispatcher,
    connections = DEFAULT_CONNECTIONS,
    connectionsPerToken = DEFAULT_CONNECTIONS_PER_TOKEN,
    connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS,
    headersTimeoutMs = DEFAULT_HEADERS_TIMEOUT_MS,
    bodyTimeoutMs = DEFAULT_BODY_TIMEOUT_MS,
    keepAliveTimeoutMs = DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    retry = {},
    random = Math.random,
    sleep = sleepWithSignal,
    now = () => performance.now(),
    ledger,
    userAgent = DEFAULT_USER_AGENT,
    maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES,
    responseLimits = {},
    maxBufferedResponseBytes = DEFAULT_MAX_BUFFERED_RESPONSE_BYTES,
    compression = true,
    readBackoff = {},
    wallClock = Date.now,
    tokenGate = {},
    observer,
  } = options;
  const backoff =
    readBackoff === false ? undefined : createReadBackoff({ ...readBackoff, clock: wallClock });
  const gate = tokenGate === false ? undefined : createTokenGate(tokenGate, wallClock);
  const { origin, basePath } = parseBaseUrl(baseUrl);
  const retryPolicy = resolveRetryPolicy(retry);
  requirePositiveInteger('connections', connections);
  requirePositiveInteger('connectionsPerToken', connectionsPerToken);
  const share = createFairShare({ slots: connections, perKey: connectionsPerToken });
  requirePositiveInteger('connectTimeoutMs', connectTimeoutMs);
  requirePositiveInteger('headersTimeoutMs', headersTimeoutMs);
  requirePositiveInteger('bodyTimeoutMs', bodyTimeoutMs);
  requirePositiveInteger('keepAliveTimeoutMs', keepAliveTimeoutMs);
  requirePositiveInteger('maxResponseBytes', maxResponseBytes);
  requirePositiveInteger('maxBufferedResponseBytes', maxBufferedResponseBytes);
  const limits = { ...DEFAULT_RESPONSE_LIMITS, ...responseLimits };
  for (const [kind, limit] of Object.entries(limits))
    requirePositiveInteger(`responseLimits.${kind}`, limit);
  const buffered = createByteBudget(maxBufferedResponseBytes);
  const limitOf = (operationId: OperationId) =>
    Math.min(maxResponseBytes, limits[responseKind(operationId)]);

  // The client owns (and closes) the pool it creates, never a dispatcher it was handed.
  const ownsDispatcher = injectedDispatcher === undefined;
  const dispatcher: Dispatcher =
    injectedDispatcher ??
    new Pool(origin, {
      connections,
      connectTimeout: connectTimeoutMs,
      headersTimeout: headersTimeoutMs,
      bodyTimeout: bodyTimeoutMs,
      keepAliveTimeout: keepAliveTimeoutMs,
    });
  let closed = false;

  async function send<Op extends OperationId>(
    operationId: Op,
    call: CallOptions,
    params: Readonly<Record<string, unknown>> | undefined,
  ): Promise<OperationResult<Op>> {
    const token = requireToken(operationId, call);
    const target = buildRequestTarget(operationId, basePath, params);
    const key = digestToken(token);
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
      'user-agent': userAgent,
    };
    if (compression) headers['accept-encoding'] = 'gzip, br';
    if (target.body !== undefined) headers['content-type'] = 'application/json';
    const redact =
      token.length >= MIN_REDACTED_TOKEN_LENGTH
        ? (text: string) => text.replaceAll(token, '[redacted]')
        : (text: string) => text;
    const outgoing: OutgoingRequest = { ...target, headers, tokenKey: key };
    const isRead = target.method === 'GET';
    const maxAttempts = isRead ? retryPolicy.attempts : 1;
    const held = isRead ? backoff?.blocked(key) : undefined;
    if (held) throw held;

    let admission: Admission | undefined;
    while (gate) {
      admission = gate.admit(key);
      if (admission.kind === 'refused') throw repeatRefusal(admission, operationId, target.method);
      if (admission.kind !== 'wait') break;
      await untilOrAbort(admission.until, call.signal);
    }
    const probe = admission?.kind === 'probe' ? admission : undefined;
    // Each answer tells the gate about the token; the probe lets the token's next request go
    // as soon as its status is known, not after its body.
    const heard = (status: number | null, error?: UpstreamError) => {
      gate?.observe(key, status, error);
      probe?.settle();
    };

    try {
      for (let attempt = 1; ; attempt++) {
        if (closed) throw new Error(`${operationId}: the upstream client is closed`);
        call.signal?.throwIfAborted();
        const failed: FailedCall = { operationId, method: target.method, attempt, redact };
        try {
          const result = (await sendOnce(failed, outgoing, call, heard)) as OperationResult<Op>;
          if (isRead) backoff?.succeeded(key);
          return result;
        } catch (error) {
          if (!shouldRetry(error) || attempt >= maxAttempts) {
            if (isRead && isUpstreamError(error)) backoff?.failed(key, error);
            throw error;
          }
        }
        const cap = Math.min(retryPolicy.maxDelayMs, retryPolicy.baseDelayMs * 2 ** (attempt - 1));
        await sleep(Math.floor(random() * cap), call.signal);
      }
    } finally {
      probe?.settle();
    }
  }

  // Private: one HTTP attempt, recorded in the ledger before it leaves (it costs quota whatever
  // happens next) and in the meter once it is over.
  async function sendOnce(
    failed: FailedCall,
    outgoing: OutgoingRequest,
    call: CallOptions,
    heard: (status: number | null, error?: UpstreamError) => void,
  ): Promise<unknown> {
    let release: Release;
    try {
      release = await share.acquire(outgoing.tokenKey, call.signal);
    } catch (error) {
      heard(null);
      throw error;
    }
    const started = now();
    let status: number | null = null;
    let errorKind: UpstreamErrorKind | null = null;
    const received: { bytes: number | null } = { bytes: null };
    ledger?.record(outgoing.tokenKey);
    const trace = safely(() =>
      call.meter?.trace?.({
        operationId: failed.operationId,
        method: failed.method,
        attempt: failed.attempt,
      }),
    );
    try {
      const response = await dispatcher.request({
        origin,
        path: outgoing.path,
        method: outgoing.method,
        headers: trace ? { ...trace.headers, ...outgoing.headers } : outgoing.headers,
        body: outgoing.body ?? null,
        signal: call.signal ?? null,
        headersTimeout: headersTimeoutMs,
        bodyTimeout: bodyTimeoutMs,
      });
      status = response.statusCode;
      if (status === 429) ledger?.release(outgoing.tokenKey);
      if (status !== 401) heard(status);
      return await decodeResponse(failed, response, received);
    } catch (error) {
      if (call.signal?.aborted) {
        heard(null);
        throw call.signal.reason;
      }
      const upstreamError = isUpstreamError(error)
        ? error
        : errorFromTransport(failed, error, status);
      heard(upstreamError?.status === 401 ? 401 : null, upstreamError);
      if (upstreamError === undefined) throw error;
      errorKind = upstreamError.kind;
      throw upstreamError;
    } finally {
      release();
      const record: UpstreamCallRecord = {
        operationId: failed.operationId,
        method: failed.method,
        status,
        attempt: failed.attempt,
        durationMs: now() - started,
        tokenKey: outgoing.tokenKey,
        errorKind,
        responseBytes: received.bytes,
      };
      // A metrics sink must never turn a completed (possibly written) call into a failure.
      safely(() => call.meter?.record(record));
      safely(() => observer?.record(record));
      safely(() => trace?.end(record));
    }
  }

  // Private: the single place a response becomes data or an error.
  async function decodeResponse(
    failed: FailedCall,
    response: Dispatcher.ResponseData,
    received: { bytes: number | null },
  ): Promise<unknown> {
    const status = response.statusCode;
    if (status < 200 || status >= 300) {
      const read = await readBody(response.body, response.headers, MAX_ERROR_BODY_BYTES);
      throw errorFromResponse(
        failed,
        status,
        read.kind === 'ok' ? read.bytes.toString('utf8') : null,
        parseRetryAfter(response.headers['retry-after'], wallClock()),
      );
    }
    const limit = limitOf(failed.operationId);
    const read = await readBody(response.body, response.headers, limit, buffered);
    if (read.kind === 'too_large') throw responseTooLarge(failed, status, limit);
    if (read.kind === 'undecodable') throw malformedResponse(failed, status, read.reason);
    received.bytes = read.bytes.length;
    let parsed: unknown;
    try {
      parsed = JSON.parse(read.bytes.toString('utf8'));
    } catch {
      throw malformedResponse(failed, status, 'not JSON');
    }
    const data =
      typeof parsed === 'object' && parsed !== null
        ? (parsed as { data?: unknown }).data
        : undefined;
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      throw malformedResponse(failed, status, 'no data object');
    }
    if (failed.operationId === 'importTransactions') {
      return { ...data, status: status === 201 ? 201 : 200 };
    }
    return data;
  }

  const operations = Object.fromEntries(
    OPERATION_IDS.map((operationId) => [
      operationId,
      (call: CallOptions, params?: Readonly<Record<string, unknown>>) =>
        send(operationId, call, params),
    ]),
  ) as unknown as UpstreamOperations;

  return {
    ...operations,
    baseUrl: `${origin}${basePath}`,
    call(operationId, call, ...params) {
      if (!Object.hasOwn(ROUTES, operationId)) {
        return Promise.reject(new TypeError(`call: unknown operationId "${String(operationId)}"`));
      }
      return send(operationId, call, params[0] as Readonly<Record<string, unknown>> | undefined);
    },
    async close() {
      if (closed) return;
      closed = true;
      if (ownsDispatcher) await dispatcher.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Private helpers

/** Everything one attempt sends; built once per call and reused by its retries. */
interface OutgoingRequest extends RequestTarget {
  readonly headers: Readonly<Record<string, string>>;
  readonly tokenKey: string;
}

// Private: only transient failures of reads reach here as retryable; a 429 is transient too but
// retrying it would only spend more of the quota it reports exhausted, so the caller decides.
function shouldRetry(error: unknown): boolean {
  return isUpstreamError(error) && error.retryable && error.status !== 429;
}

function parseBaseUrl(baseUrl: string): { origin: string; basePath: string } {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError('createUpstreamClient: baseUrl must be an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(
      `createUpstreamClient: baseUrl must use http or https, got ${url.protocol}`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new TypeError('createUpstreamClient: baseUrl must not carry credentials');
  }
  if (url.search !== '' || url.hash !== '') {
    throw new TypeError('createUpstreamClient: baseUrl must not have a query or fragment');
  }
  const basePath = url.pathname.replace(/\/+$/, '');
  if (!basePath.endsWith('/v1')) {
    const given = `${url.origin}${url.pathname}`;
    throw new TypeError(
      `createUpstreamClient: baseUrl must end with the /v1 version segment, got ${given}`,
    );
  }
  return { origin: url.origin, basePath };
}

function resolveRetryPolicy(retry: Partial<RetryPolicy>): RetryPolicy {
  const policy = { ...DEFAULT_RETRY, ...retry };
  requirePositiveInteger('retry.attempts', policy.attempts);
  if (!(policy.baseDelayMs >= 0) || !(policy.maxDelayMs >= 0)) {
    throw new RangeError('createUpstreamClient: retry delays must be non-negative numbers');
  }
  return policy;
}

function requirePositiveInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(`createUpstreamClient: ${name} must be a positive integer, got ${value}`);
  }
}

// Private: a token must be sendable as a header value as is; the message never echoes it.
function requireToken(operationId: OperationId, call: CallOptions): string {
  const token: unknown = call?.token;
  if (typeof token !== 'string' || token.length === 0) {
    throw new TypeError(`${operationId}: call.token must be a non-empty access token`);
  }
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new TypeError(`${operationId}: call.token contains characters not allowed in a token`);
  }
  return token;
}

/** Waits for `promise` unless `signal` aborts first (then rejects with its reason). */
function untilOrAbort(promise: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

// Private: meters and tracers are observers; their failures are theirs, never the call's.
function safely<T>(run: () => T): T | undefined {
  try {
    return run();
  } catch {
    return undefined;
  }
}

function sleepWithSignal(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
