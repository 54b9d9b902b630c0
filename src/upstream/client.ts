/**
 * The gateway's REST client: the only code that knows the upstream's URLs, headers and undici.
 * One typed method per operationId, all driven by the route table in `routes.ts`; a request is
 * built in `outgoing-request.ts`, an answer read in `decode-response.ts`, errors made in
 * `src/errors/upstream-error.ts`; reads are retried here, writes never.
 */
import {
  type HttpMethod,
  OPERATION_IDS,
  type OperationId,
  type OperationResult,
  type Params,
  type ParamsArgs,
  ROUTES,
} from '@plans-gateway/rest-contract';
import { type Dispatcher, Pool } from 'undici';
import {
  errorFromTransport,
  type FailedCall,
  isUpstreamError,
  quotaSpent,
  type UpstreamError,
  type UpstreamErrorKind,
} from '../errors/upstream-error.js';
import { decodeResponse, type Received, type StreamReading } from './decode-response.js';
import { createFairShare, type FairShare, type Release } from './fair-share.js';
import {
  type BuiltRequest,
  buildOutgoingRequest,
  type HeaderSettings,
  type OutgoingRequest,
} from './outgoing-request.js';
import { createReadBackoff, type ReadBackoff, type ReadBackoffOptions } from './read-backoff.js';
import type { RequestLedger } from './request-ledger.js';
import {
  type ByteBudget,
  createByteBudget,
  DEFAULT_MAX_BUFFERED_RESPONSE_BYTES,
  DEFAULT_RESPONSE_LIMITS,
  type ResponseKind,
  responseKind,
} from './response-limits.js';
import {
  type Admission,
  createTokenGate,
  repeatRefusal,
  type TokenGate,
  type TokenGateOptions,
  type TokenStatus,
} from './token-gate.js';

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
  /**
   * The token's key (`tokenKey(token)`), when the caller holds it already: an operation's
   * `Credentials` carry it, made once by admission, so the client does not digest the token
   * again for its gate, ledger and fair share. @default the token's digest
   */
  tokenKey?: string;
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
  /**
   * An operation with its params as one object, for callers generic over operations whose
   * params always exist (the writes): rest arguments cannot be spread from a generic there.
   */
  callWithParams<Op extends OperationId>(
    operationId: Op,
    call: CallOptions,
    params: Params<Op>,
  ): Promise<OperationResult<Op>>;
  /**
   * A read whose answer is parsed as it streams (see `StreamReading`): the array members of the
   * object at `reading.at` below `data` go to the taker `reading.open()` returns for each attempt,
   * in batches, and are never held; resolves to the rest of `data`, those arrays left empty.
   * Retried like any read; a body over `reading.maxBytes` fails with kind `too_large`, never
   * retried.
   */
  stream<Op extends OperationId>(
    operationId: Op,
    call: CallOptions,
    reading: StreamReading,
    ...params: ParamsArgs<Op>
  ): Promise<unknown>;
  /** Connection slots in use and requests waiting for one (see `fair-share.ts`). */
  connectionStats(): { inUse: number; waiting: number };
  /**
   * What the token gate knows of a token by its digest (see `token-gate.ts`); `unknown` when the
   * gate is off.
   */
  tokenStatus(tokenKey: string): TokenStatus;
  /** The remembered 401 of a token the upstream refused (see `token-gate.ts`), if any. */
  tokenRefusal(tokenKey: string): UpstreamError | undefined;
  /**
   * Asks the upstream whether it is up: `GET /user` without a token, through the client's own
   * dispatcher (not the global `fetch`), outside the ledger and the token's fair share. Resolves
   * with the HTTP status (a 401 costs no quota and proves the upstream answers); rejects when no
   * answer came, or when `signal` aborts first.
   */
  probe(signal: AbortSignal): Promise<number>;
  /** Waits for in-flight requests, then closes the owned pool. Later calls reject. */
  close(): Promise<void>;
}

export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const settings = resolveSettings(options);
  const { origin, basePath } = settings;
  // The client owns (and closes) the pool it creates, never a dispatcher it was handed.
  const ownsDispatcher = options.dispatcher === undefined;
  const dispatcher = options.dispatcher ?? createPool(settings);
  let closed = false;
  const calls: CallContext = {
    ...settings,
    transport: { ...settings, dispatcher },
    isClosed: () => closed,
  };
  const send = <Op extends OperationId>(
    operationId: Op,
    call: CallOptions,
    params: Readonly<Record<string, unknown>> | undefined,
  ) => sendCall(calls, operationId, call, params) as Promise<OperationResult<Op>>;
  const known = (operationId: OperationId, method: string) => {
    if (!Object.hasOwn(ROUTES, operationId)) {
      throw new TypeError(`${method}: unknown operationId "${String(operationId)}"`);
    }
  };

  return {
    ...buildOperations(
      (operationId) =>
        (call, ...params) =>
          send(operationId, call, paramsObject(params)),
    ),
    baseUrl: `${origin}${basePath}`,
    call(operationId, call, ...params) {
      if (!Object.hasOwn(ROUTES, operationId)) {
        return Promise.reject(new TypeError(`call: unknown operationId "${String(operationId)}"`));
      }
      return send(operationId, call, paramsObject(params));
    },
    callWithParams(operationId, call, params) {
      if (!Object.hasOwn(ROUTES, operationId)) {
        return Promise.reject(
          new TypeError(`callWithParams: unknown operationId "${String(operationId)}"`),
        );
      }
      return send(operationId, call, params);
    },
    async stream(operationId, call, reading, ...params) {
      known(operationId, 'stream');
      requirePositiveInteger('stream maxBytes', reading.maxBytes);
      return sendCall(calls, operationId, call, paramsObject(params), reading);
    },
    connectionStats: () => settings.share.stats(),
    tokenStatus: (tokenKey) => settings.gate?.status(tokenKey) ?? 'unknown',
    tokenRefusal: (tokenKey) => settings.gate?.refusal(tokenKey),
    async probe(signal) {
      if (closed) throw new Error('probe: the upstream client is closed');
      const response = await dispatcher.request({
        origin,
        path: `${basePath}/user`,
        method: 'GET',
        headers: { 'user-agent': settings.headerSettings.userAgent, accept: 'application/json' },
        signal,
        headersTimeout: settings.headersTimeoutMs,
        bodyTimeout: settings.bodyTimeoutMs,
      });
      await response.body.dump();
      return response.statusCode;
    },
    async close() {
      if (closed) return;
      closed = true;
      if (ownsDispatcher) await dispatcher.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Settings

/** The options with their defaults, checked, and the parts built from them once per client. */
interface ClientSettings {
  readonly origin: string;
  readonly basePath: string;
  readonly connections: number;
  readonly connectTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly retry: RetryPolicy;
  readonly random: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now: () => number;
  readonly wallClock: () => number;
  readonly ledger: RequestLedger | undefined;
  readonly observer: UpstreamMeter | undefined;
  readonly headerSettings: HeaderSettings;
  readonly backoff: ReadBackoff | undefined;
  readonly gate: TokenGate | undefined;
  readonly share: FairShare;
  readonly buffered: ByteBudget;
  readonly limitOf: (operationId: OperationId) => number;
}

function resolveSettings(options: UpstreamClientOptions): ClientSettings {
  const { readBackoff = {}, wallClock = Date.now, tokenGate = {} } = options;
  const backoff =
    readBackoff === false ? undefined : createReadBackoff({ ...readBackoff, clock: wallClock });
  const gate = tokenGate === false ? undefined : createTokenGate(tokenGate, wallClock);
  const { origin, basePath } = parseBaseUrl(options.baseUrl);
  const retry = resolveRetryPolicy(options.retry ?? {});
  return {
    origin,
    basePath,
    ...resolveConnections(options),
    ...resolveTimeouts(options),
    retry,
    random: options.random ?? Math.random,
    sleep: options.sleep ?? sleepWithSignal,
    now: options.now ?? (() => performance.now()),
    wallClock,
    ledger: options.ledger,
    observer: options.observer,
    headerSettings: {
      userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
      compression: options.compression ?? true,
    },
    backoff,
    gate,
    ...resolveResponseBudgets(options),
  };
}

function resolveConnections(
  options: UpstreamClientOptions,
): Pick<ClientSettings, 'connections' | 'share'> {
  const { connections = DEFAULT_CONNECTIONS, connectionsPerToken = DEFAULT_CONNECTIONS_PER_TOKEN } =
    options;
  requirePositiveInteger('connections', connections);
  requirePositiveInteger('connectionsPerToken', connectionsPerToken);
  return {
    connections,
    share: createFairShare({ slots: connections, perKey: connectionsPerToken }),
  };
}

function resolveTimeouts(
  options: UpstreamClientOptions,
): Pick<
  ClientSettings,
  'connectTimeoutMs' | 'headersTimeoutMs' | 'bodyTimeoutMs' | 'keepAliveTimeoutMs'
> {
  const {
    connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS,
    headersTimeoutMs = DEFAULT_HEADERS_TIMEOUT_MS,
    bodyTimeoutMs = DEFAULT_BODY_TIMEOUT_MS,
    keepAliveTimeoutMs = DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  } = options;
  requirePositiveInteger('connectTimeoutMs', connectTimeoutMs);
  requirePositiveInteger('headersTimeoutMs', headersTimeoutMs);
  requirePositiveInteger('bodyTimeoutMs', bodyTimeoutMs);
  requirePositiveInteger('keepAliveTimeoutMs', keepAliveTimeoutMs);
  return { connectTimeoutMs, headersTimeoutMs, bodyTimeoutMs, keepAliveTimeoutMs };
}

/** The size limit of each operation's answer, and the budget all answers being read share. */
function resolveResponseBudgets(
  options: UpstreamClientOptions,
): Pick<ClientSettings, 'buffered' | 'limitOf'> {
  const {
    maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES,
    responseLimits = {},
    maxBufferedResponseBytes = DEFAULT_MAX_BUFFERED_RESPONSE_BYTES,
  } = options;
  requirePositiveInteger('maxResponseBytes', maxResponseBytes);
  requirePositiveInteger('maxBufferedResponseBytes', maxBufferedResponseBytes);
  const limits = { ...DEFAULT_RESPONSE_LIMITS, ...responseLimits };
  for (const [kind, limit] of Object.entries(limits))
    requirePositiveInteger(`responseLimits.${kind}`, limit);
  return {
    buffered: createByteBudget(maxBufferedResponseBytes),
    limitOf: (operationId) => Math.min(maxResponseBytes, limits[responseKind(operationId)]),
  };
}

function createPool(settings: ClientSettings): Dispatcher {
  return new Pool(settings.origin, {
    connections: settings.connections,
    connectTimeout: settings.connectTimeoutMs,
    headersTimeout: settings.headersTimeoutMs,
    bodyTimeout: settings.bodyTimeoutMs,
    keepAliveTimeout: settings.keepAliveTimeoutMs,
  });
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

// ---------------------------------------------------------------------------------------------
// The operation table

type OperationTable = { -readonly [Op in OperationId]?: OperationMethod<Op> };

/** One method per route of the table, each made by `methodFor`. */
function buildOperations(
  methodFor: <Op extends OperationId>(operationId: Op) => OperationMethod<Op>,
): UpstreamOperations {
  const table: OperationTable = {};
  for (const operationId of OPERATION_IDS) setMethod(table, operationId, methodFor(operationId));
  if (!hasEveryOperation(table)) throw new Error('createUpstreamClient: an operation is missing');
  return table;
}

function setMethod<Op extends OperationId>(
  table: { -readonly [K in Op]?: OperationMethod<K> },
  operationId: Op,
  method: OperationMethod<Op>,
): void {
  table[operationId] = method;
}

function hasEveryOperation(table: OperationTable): table is UpstreamOperations {
  return OPERATION_IDS.every((operationId) => typeof table[operationId] === 'function');
}

/**
 * Private: the params object of a method's rest arguments. The route table (through
 * `ParamsArgs`) types it for callers; `buildRequestTarget` checks every value it reads.
 */
function paramsObject(params: readonly unknown[]): Readonly<Record<string, unknown>> | undefined {
  return params[0] as Readonly<Record<string, unknown>> | undefined;
}

// ---------------------------------------------------------------------------------------------
// One call: admission, retries and backoff

/** What every call of one client shares. */
interface CallContext extends ClientSettings {
  readonly transport: Transport;
  readonly isClosed: () => boolean;
}

/**
 * Reports what one answer told about the token: its status (null when none came) to the token
 * gate (see `token-gate.ts`), and that the token's probe may let the next request go.
 */
type ReportAnswer = (status: number | null, error?: UpstreamError) => void;

async function sendCall(
  context: CallContext,
  operationId: OperationId,
  call: CallOptions,
  params: Readonly<Record<string, unknown>> | undefined,
  stream?: StreamReading,
): Promise<unknown> {
  const request = buildOutgoingRequest(
    operationId,
    call?.token,
    call?.tokenKey,
    context.basePath,
    params,
    context.headerSettings,
  );
  const { tokenKey: key, method } = request.outgoing;
  const held = method === 'GET' ? context.backoff?.blocked(key) : undefined;
  if (held) throw held;
  const { gate } = context;
  const admission = gate
    ? await admitToken(gate, key, operationId, method, call.signal)
    : undefined;
  const probe = admission?.kind === 'probe' ? admission : undefined;
  // Each answer tells the gate about the token; the probe lets the token's next request go
  // as soon as its status is known, not after its body.
  const reportAnswer: ReportAnswer = (status, error) => {
    gate?.observe(key, status, error);
    probe?.settle();
  };
  try {
    return await sendWithRetries(context, operationId, request, call, reportAnswer, stream);
  } finally {
    probe?.settle();
  }
}

/** Private: waits while the gate holds the token back; throws when the gate refuses it. */
async function admitToken(
  gate: TokenGate,
  key: string,
  operationId: OperationId,
  method: HttpMethod,
  signal: AbortSignal | undefined,
): Promise<Admission> {
  for (;;) {
    const admission = gate.admit(key);
    if (admission.kind === 'refused') throw repeatRefusal(admission, operationId, method);
    if (admission.kind !== 'wait') return admission;
    await untilOrAbort(admission.until, signal);
  }
}

/** Private: reads are retried on transient failures with full-jitter backoff; writes never. */
async function sendWithRetries(
  context: CallContext,
  operationId: OperationId,
  { outgoing, redact }: BuiltRequest,
  call: CallOptions,
  reportAnswer: ReportAnswer,
  stream: StreamReading | undefined,
): Promise<unknown> {
  const isRead = outgoing.method === 'GET';
  const maxAttempts = isRead ? context.retry.attempts : 1;
  for (let attempt = 1; ; attempt++) {
    if (context.isClosed()) throw new Error(`${operationId}: the upstream client is closed`);
    call.signal?.throwIfAborted();
    const failed: FailedCall = { operationId, method: outgoing.method, attempt, redact };
    try {
      const result = await sendOnce(
        context.transport,
        failed,
        outgoing,
        call,
        reportAnswer,
        stream,
      );
      if (isRead) context.backoff?.succeeded(outgoing.tokenKey);
      return result;
    } catch (error) {
      if (!shouldRetry(error) || attempt >= maxAttempts) {
        if (isRead && isUpstreamError(error)) context.backoff?.failed(outgoing.tokenKey, error);
        throw error;
      }
    }
    await context.sleep(retryDelay(context.retry, attempt, context.random), call.signal);
  }
}

// Private: only transient failures of reads reach here as retryable; a 429 is transient too but
// retrying it would only spend more of the quota it reports exhausted, so the caller decides.
function shouldRetry(error: unknown): boolean {
  return isUpstreamError(error) && error.retryable && error.status !== 429;
}

/**
 * The wait before retry number `attempt` (1 for the first): uniform in [0, cap) where the cap
 * doubles from `baseDelayMs` per retry up to `maxDelayMs` (full jitter). `random` is in [0, 1).
 */
export function retryDelay(policy: RetryPolicy, attempt: number, random: () => number): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(random() * cap);
}

// ---------------------------------------------------------------------------------------------
// One attempt: a connection slot, the request, the answer, and its record

/** What every attempt of one client shares: the connections, budgets and observers. */
interface Transport {
  readonly dispatcher: Dispatcher;
  readonly origin: string;
  readonly share: FairShare;
  readonly ledger: RequestLedger | undefined;
  readonly observer: UpstreamMeter | undefined;
  readonly now: () => number;
  readonly wallClock: () => number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly buffered: ByteBudget;
  readonly limitOf: (operationId: OperationId) => number;
}

// Private: one HTTP attempt, recorded in the ledger before it leaves (it costs quota whatever
// happens next) and in the meter once it is over. An attempt the ledger has no room for is not
// sent: checked once the attempt holds its connection slot, right before it would leave, so
// attempts queued behind others of the token see what those spent.
async function sendOnce(
  transport: Transport,
  failed: FailedCall,
  outgoing: OutgoingRequest,
  call: CallOptions,
  reportAnswer: ReportAnswer,
  stream: StreamReading | undefined,
): Promise<unknown> {
  const release = await acquireSlot(transport.share, outgoing.tokenKey, call.signal, reportAnswer);
  const spent = spentQuota(transport, failed, outgoing.tokenKey);
  if (spent) {
    release();
    reportAnswer(null);
    throw spent;
  }
  const started = transport.now();
  let status: number | null = null;
  let errorKind: UpstreamErrorKind | null = null;
  const received: Received = { bytes: null };
  transport.ledger?.record(outgoing.tokenKey);
  const { operationId, method, attempt } = failed;
  const trace = safely(() => call.meter?.trace?.({ operationId, method, attempt }));
  try {
    const response = await dispatch(transport, outgoing, call.signal, trace);
    status = response.statusCode;
    if (status === 429) transport.ledger?.release(outgoing.tokenKey);
    if (status !== 401) reportAnswer(status);
    return await decodeResponse(failed, response, received, {
      limit: transport.limitOf(operationId),
      buffered: transport.buffered,
      wallClock: transport.wallClock,
      ...(stream ? { stream } : {}),
    });
  } catch (error) {
    const upstreamError = attemptFailure(failed, error, status, call.signal, reportAnswer);
    errorKind = upstreamError.kind;
    throw upstreamError;
  } finally {
    release();
    reportAttempt([call.meter, transport.observer], trace, {
      operationId,
      method,
      status,
      attempt,
      durationMs: transport.now() - started,
      tokenKey: outgoing.tokenKey,
      errorKind,
      responseBytes: received.bytes,
    });
  }
}

/**
 * Private: the refusal of an attempt the token's ledger has no room for (every request the
 * upstream allows it in the window already counted), answered from the ledger instead of the
 * upstream's 429; undefined while it has room, or without a ledger.
 */
function spentQuota(
  transport: Transport,
  failed: FailedCall,
  tokenKey: string,
): UpstreamError | undefined {
  const { ledger } = transport;
  const usage = ledger?.usage(tokenKey);
  if (!ledger || !usage || usage.remaining > 0) return undefined;
  const retryAfterMs = Math.max(0, (usage.resetsAt ?? 0) - transport.wallClock());
  return quotaSpent(failed, { limit: usage.limit, windowMs: ledger.windowMs }, retryAfterMs);
}

/** Private: tells the meters and the tracer how an attempt went. */
function reportAttempt(
  meters: readonly (UpstreamMeter | undefined)[],
  trace: UpstreamAttemptTrace | undefined,
  record: UpstreamCallRecord,
): void {
  // A metrics sink must never turn a completed (possibly written) call into a failure.
  for (const meter of meters) safely(() => meter?.record(record));
  safely(() => trace?.end(record));
}

function dispatch(
  transport: Transport,
  outgoing: OutgoingRequest,
  signal: AbortSignal | undefined,
  trace: UpstreamAttemptTrace | undefined,
): Promise<Dispatcher.ResponseData> {
  return transport.dispatcher.request({
    origin: transport.origin,
    path: outgoing.path,
    method: outgoing.method,
    headers: trace ? { ...trace.headers, ...outgoing.headers } : outgoing.headers,
    body: outgoing.body ?? null,
    signal: signal ?? null,
    headersTimeout: transport.headersTimeoutMs,
    bodyTimeout: transport.bodyTimeoutMs,
  });
}

/** Private: a connection slot of the token's fair share; the gate hears of a wait given up. */
async function acquireSlot(
  share: FairShare,
  key: string,
  signal: AbortSignal | undefined,
  reportAnswer: ReportAnswer,
): Promise<Release> {
  try {
    return await share.acquire(key, signal);
  } catch (error) {
    reportAnswer(null);
    throw error;
  }
}

/**
 * Private: error mapping of a failed attempt. Returns the UpstreamError to throw, after telling
 * the gate; throws instead the caller's abort reason, or an error that is no upstream failure
 * (a bug, surfaced as is).
 */
function attemptFailure(
  failed: FailedCall,
  error: unknown,
  status: number | null,
  signal: AbortSignal | undefined,
  reportAnswer: ReportAnswer,
): UpstreamError {
  if (signal?.aborted) {
    reportAnswer(null);
    throw signal.reason;
  }
  const upstreamError = isUpstreamError(error) ? error : errorFromTransport(failed, error, status);
  reportAnswer(upstreamError?.status === 401 ? 401 : null, upstreamError);
  if (upstreamError === undefined) throw error;
  return upstreamError;
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
