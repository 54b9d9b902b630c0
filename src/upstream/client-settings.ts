/**
 * The upstream client's options: their defaults, their checks (a bad value fails naming the
 * option), and the parts built from them once per client (the pool, the token gate, the read
 * back-off, the fair share, the response budgets).
 */

import type { OperationId } from '@plans-gateway/rest-contract';
import { type Dispatcher, Pool } from 'undici';
import type { UpstreamMeter } from '../operation/upstream-calls.js';
import { type Clock, epochNow, monotonicNow } from '../time/clock.js';
import type { RetryPolicy } from './call.js';
import { createFairShare, type FairShare } from './fair-share.js';
import type { HeaderSettings } from './outgoing-request.js';
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
import { createTokenGate, type TokenGate, type TokenGateOptions } from './token-gate.js';

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
  /** Monotonic clock for `durationMs` in meter records. @default monotonicNow */
  now?: Clock;
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
  readBackoff?: Omit<ReadBackoffOptions, 'now'> | false;
  /** Wall clock in epoch ms, for back-off and `Retry-After` dates. @default epochNow */
  wallClock?: Clock;
  /**
   * Remembers refused tokens and sends an unproven token's requests one at a time until the
   * upstream has answered one (see `token-gate.ts`); `false` sends everything.
   * @default { rejectedMs: 60_000, acceptedMs: 600_000, maxTokens: 10_000 }
   */
  tokenGate?: TokenGateOptions | false;
  /** Sees every attempt of every call, whoever made it (metrics). @default none */
  observer?: UpstreamMeter;
}

/** The options with their defaults, checked, and the parts built from them once per client. */
export interface ClientSettings {
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
  readonly now: Clock;
  readonly wallClock: Clock;
  readonly ledger: RequestLedger | undefined;
  readonly observer: UpstreamMeter | undefined;
  readonly headerSettings: HeaderSettings;
  readonly backoff: ReadBackoff | undefined;
  readonly gate: TokenGate | undefined;
  readonly share: FairShare;
  readonly buffered: ByteBudget;
  readonly limitOf: (operationId: OperationId) => number;
}

export function resolveSettings(options: UpstreamClientOptions): ClientSettings {
  const { readBackoff = {}, wallClock = epochNow, tokenGate = {} } = options;
  const backoff =
    readBackoff === false ? undefined : createReadBackoff({ ...readBackoff, now: wallClock });
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
    now: options.now ?? monotonicNow,
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

export function createPool(settings: ClientSettings): Dispatcher {
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

export function requirePositiveInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(`createUpstreamClient: ${name} must be a positive integer, got ${value}`);
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
