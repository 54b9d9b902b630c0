import { GraphQLError } from 'graphql';
import type { LiveOperations } from '../live/hub.js';
import type { Credentials } from '../loaders/create-loaders.js';
import type { Loaders } from '../loaders/loaders.js';
import type { Freshness } from '../replica/types.js';
import { tokenKey } from '../upstream/token-key.js';
import type { OperationDeadline } from './deadline.js';
import type { OperationMeter } from './operation-meter.js';
import type { ReadLog } from './read-log.js';
import type { OperationSpan } from './telemetry/tracer.js';
import type { Writes } from './writes/pipeline.js';

export interface RateLimitUsage {
  readonly used: number;
  readonly limit: number;
  readonly remaining: number;
  /** Epoch ms when the oldest counted request leaves the rolling window; null when none. */
  readonly resetsAt: number | null;
}

/** The per-request context every resolver receives. */
export interface GatewayContext {
  readonly credentials: Credentials | null;
  readonly loaders: Loaders;
  readonly meter: OperationMeter;
  /** What this operation read and which versions (HTTP caching validates answers with it). */
  readonly reads: ReadLog;
  /** The request's id (its valid `X-Request-Id`, or a generated one), for logs. */
  readonly requestId: string;
  /** The operation's trace span when tracing is on. */
  readonly span?: OperationSpan;
  /** How long the operation waits for the upstream (lifted for subscriptions). */
  readonly deadline?: OperationDeadline;
  /** REST writes for mutations: sent once, applied to the replica, followed by one delta sync. */
  readonly writes: Writes;
  /** Subscriptions to a plan's changes (src/live). */
  readonly live: LiveOperations;
  /** This token's upstream usage as the gateway counted it (with a cluster: every instance's). */
  rateLimit(): RateLimitUsage | Promise<RateLimitUsage>;
}

/** Longer tokens are refused: real ones are a few dozen characters. */
export const MAX_TOKEN_LENGTH = 4_096;
/** What can travel as a bearer token in a header: visible ASCII, no spaces. */
const TOKEN_PATTERN = /^[\x21-\x7e]+$/;

/** The token a request presents: `Authorization: Bearer`, else the `access_token` parameter. */
export function presentedToken(request: Request): string | undefined {
  const header = request.headers.get('authorization');
  const fromHeader = header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
  return fromHeader ?? new URL(request.url).searchParams.get('access_token') ?? undefined;
}

/** Whether a token could be sent upstream as a bearer token at all. */
export function isUsableToken(token: string): boolean {
  return token.length <= MAX_TOKEN_LENGTH && TOKEN_PATTERN.test(token);
}

/**
 * The caller's token, from `Authorization: Bearer` or the `access_token` query parameter (the
 * two ways the REST interface accepts). Only its digest is kept beside it, for cache keys.
 * A token that could never be sent upstream (non-ASCII, control characters, over
 * MAX_TOKEN_LENGTH) throws UNAUTHENTICATED (HTTP 401); over HTTP `useTokenCheck` has answered
 * such a request before anything else reads it.
 */
export function credentialsFrom(request: Request): Credentials | null {
  const token = presentedToken(request);
  if (!token) return null;
  if (!isUsableToken(token)) throw unusableToken();
  return { token, tokenKey: tokenKey(token) };
}

/** The refusal of a token that cannot be one; its message never quotes the token. */
export function unusableToken(): GraphQLError {
  return new GraphQLError(
    `The access token cannot be a token: it must be at most ${MAX_TOKEN_LENGTH} visible ASCII characters without spaces.`,
    {
      extensions: {
        code: 'UNAUTHENTICATED',
        http: { status: 401, headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } },
      },
    },
  );
}

/**
 * Per-request freshness from `Cache-Control`: `no-cache` (or `max-age=0`) forces a delta sync,
 * `max-age=N` accepts data up to N seconds old, but never older than the gateway's own max-age:
 * a client may ask for fresher data, not for data the gateway would not serve anyway (a token
 * revoked upstream would otherwise be served from the replica for as long as it asks).
 * Unknown or malformed directives are ignored, as HTTP caches do.
 */
export function freshnessFrom(request: Request, defaultMaxAgeMs: number): Freshness {
  const header = request.headers.get('cache-control');
  if (!header) return { maxAgeMs: defaultMaxAgeMs };
  const directives = header
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  if (directives.includes('no-cache') || directives.includes('no-store')) return { maxAgeMs: 0 };
  for (const directive of directives) {
    const match = /^max-age=(\d+)$/.exec(directive);
    if (match) return { maxAgeMs: Math.min(Number(match[1]) * 1000, defaultMaxAgeMs) };
  }
  return { maxAgeMs: defaultMaxAgeMs };
}
