import { createHash } from 'node:crypto';
import { type ExecutionResult, getOperationAST } from 'graphql';
import type { Plugin, YogaInitialContext } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import type { Dependencies, ReplicaDependency } from '../../loaders/read-log.js';
import { credentialsFrom, isUsableToken, presentedToken } from '../../operation/credentials.js';
import type { ReplicaStore } from '../../replica/types.js';
import type { GatewayContext } from '../../schema/context.js';
import { freshnessFrom } from '../freshness.js';
import { isPreflighted } from './use-csrf-prevention.js';
import { METRICS_HEADER } from './use-response-extensions.js';
import { addVary } from './vary.js';

export interface HttpCachingOptions {
  /** Re-reads the replicas a remembered answer depended on: no upstream call within max-age. */
  replicas: Pick<ReplicaStore, 'read'>;
  /** Freshness when the request's `Cache-Control` says nothing. */
  defaultMaxAgeMs: number;
  /** Answers of another schema are other representations: part of every ETag. */
  schemaDigest: string;
  /** Operations whose dependencies are remembered for revalidation. @default 10_000 */
  maxEntries?: number;
}

/**
 * Browsers may keep an answer but must ask before reusing it: a write through the gateway changes
 * the next answer at once (read-your-writes), so no age is safe to promise. Revalidation within
 * max-age costs no upstream call. `private`: answers are per token.
 */
export const CACHE_CONTROL = 'private, no-cache';
/** What else an answer depends on besides its URL. */
const VARY = ['Authorization', 'Accept'];

/** What a remembered answer read, by the plan ids and aliases it asked for. */
interface Remembered {
  readonly plans: readonly string[];
  /** False when it also read REST answers outside the replica: those need the execution. */
  readonly replayable: boolean;
}

/**
 * `ETag` and `304 Not Modified` for queries sent with GET. An answer is determined by the token,
 * the document, the variables, the accepted media type, the schema, and the version of every
 * replica (and REST answer) it read; the strong ETag is a SHA-256 of exactly these. Answers with
 * errors, stale parts, or volatile fields (`rateLimit`) get none, and an ETagged answer leaves out
 * `extensions.upstream`, whose figures differ on every request (ask with `X-Upstream-Metrics: 1`
 * to see them, without an ETag).
 *
 * Revalidation first tries without executing: for an operation seen before, `If-None-Match` is
 * checked against the ETag recomputed from the replicas it read, re-read under the request's
 * freshness (no upstream call within max-age, one delta past it). On a match the answer is `304`
 * before parsing or executing anything. Otherwise, or when the answer also read REST answers, the
 * operation runs and a matching ETag still turns the answer into a `304`.
 */
export function useHttpCaching({
  replicas,
  defaultMaxAgeMs,
  schemaDigest,
  maxEntries = 10_000,
}: HttpCachingOptions): Plugin<GatewayContext & YogaInitialContext> {
  const remembered = new LRUCache<string, Remembered>({ max: maxEntries });
  const fingerprints = new WeakMap<Request, string>();
  const queries = new WeakSet<Request>();
  const etags = new WeakMap<Request, string>();

  async function revalidate(request: Request, fingerprint: string): Promise<string | null> {
    const entry = remembered.get(fingerprint);
    const credentials = credentialsFrom(request);
    if (!entry?.replayable || !credentials) return null;
    const freshness = freshnessFrom(request, defaultMaxAgeMs);
    const dependencies: ReplicaDependency[] = [];
    for (const planId of entry.plans) {
      const read = await replicas.read({ ...credentials, planId, freshness }).catch(() => null);
      if (!read || read.stale) return null;
      dependencies.push({
        requested: planId,
        planId: read.snapshot.planId,
        version: read.version,
        currentMonth: read.snapshot.currentMonth(),
      });
    }
    return etagOf(fingerprint, { replicas: dependencies, rest: [] });
  }

  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (request.method !== 'GET') return;
      // A token that cannot be one is refused by admission; it names no answer to revalidate.
      const token = presentedToken(request);
      if (token !== undefined && !isUsableToken(token)) return;
      const fingerprint = fingerprintOf(request, url, schemaDigest);
      if (fingerprint === null) return;
      fingerprints.set(request, fingerprint);
      const candidates = request.headers.get('if-none-match');
      // A conditional request is answered here only if the CSRF rule would let it run.
      if (candidates === null || !isPreflighted(request)) return;
      const etag = await revalidate(request, fingerprint);
      if (etag !== null && matches(candidates, etag))
        endResponse(new fetchAPI.Response(null, { status: 304, headers: headersFor(etag) }));
    },
    onExecute({ args }) {
      const request = args.contextValue.request;
      if (fingerprints.has(request) && isQuery(args.document, args.operationName))
        queries.add(request);
    },
    onExecutionResult({ request, context, result, setResult }) {
      const fingerprint = fingerprints.get(request);
      if (fingerprint === undefined || !queries.has(request) || !isSingle(result)) return;
      if (result.errors?.length || request.headers.get(METRICS_HEADER) === '1') return;
      const dependencies = (context as Partial<GatewayContext>).reads?.dependencies();
      if (!dependencies) return;
      const etag = etagOf(fingerprint, dependencies);
      remembered.set(fingerprint, {
        plans: dependencies.replicas.map((dependency) => dependency.requested),
        replayable: dependencies.rest.length === 0,
      });
      etags.set(request, etag);
      const { upstream: _perRequest, http, ...extensions } = result.extensions ?? {};
      const httpExtension = typeof http === 'object' && http !== null ? http : {};
      setResult({
        ...result,
        extensions: { ...extensions, http: { ...httpExtension, headers: headersFor(etag) } },
      });
    },
    onResponse({ request, response }) {
      if (response.headers.has('etag')) addVary(response.headers, ...VARY);
      // A compressed body is another representation: its strong ETag must differ (RFC 9110 8.8.3).
      const etag = etags.get(request);
      const encoding = response.headers.get('content-encoding');
      if (etag !== undefined && encoding && response.headers.get('etag') === etag)
        response.headers.set('etag', `${etag.slice(0, -1)}-${encoding}"`);
    },
    onResultProcess({ request, setResultProcessor }) {
      const etag = etags.get(request);
      const candidates = request.headers.get('if-none-match');
      if (etag === undefined || candidates === null || !matches(candidates, etag)) return;
      setResultProcessor(
        (_result, fetchAPI) =>
          new fetchAPI.Response(null, { status: 304, headers: headersFor(etag) }),
        'application/json',
      );
    },
  };
}

/** Lower-case names, so later plugins' `set` replaces them (see `addVary`); `Vary` goes there. */
function headersFor(etag: string): Record<string, string> {
  return { etag, 'cache-control': CACHE_CONTROL };
}

/**
 * Private: names one operation of one token, as sent with GET. The document counts by its
 * SHA-256, which is also the hash a hash-only APQ request sends, so both forms share entries.
 * Null when the request names no document or its variables are not JSON.
 */
export function fingerprintOf(request: Request, url: URL, schemaDigest: string): string | null {
  const params = url.searchParams;
  const query = params.get('query');
  const document = query ? sha256(query) : persistedHashOf(params.get('extensions'));
  if (document === null) return null;
  let variables: unknown = null;
  try {
    variables = JSON.parse(params.get('variables') || 'null');
  } catch {
    return null;
  }
  return sha256(
    JSON.stringify([
      schemaDigest,
      credentialsFrom(request)?.tokenKey ?? null,
      document,
      params.get('operationName') || null,
      canonical(variables),
      request.headers.get('accept') ?? '',
    ]),
  );
}

/** Private: the strong validator of an answer with these dependencies. */
function etagOf(fingerprint: string, { replicas, rest }: Dependencies): string {
  const plans = [...replicas]
    .sort((a, b) => a.requested.localeCompare(b.requested))
    .map((d) => [d.requested, d.planId, d.version, d.currentMonth]);
  const answers = [...rest]
    .sort((a, b) => a.key.localeCompare(b.key))
    .map((d) => [d.key, sha256(JSON.stringify(d.value) ?? '')]);
  return `"${createHash('sha256')
    .update(JSON.stringify([fingerprint, plans, answers]))
    .digest('base64url')}"`;
}

/**
 * Private: `If-None-Match` uses the weak comparison (RFC 9110 §13.1.2). A tag of a compressed
 * copy (`"…-gzip"`) validates the same answer: the client holds that answer, however encoded.
 */
function matches(header: string, etag: string): boolean {
  return header
    .split(',')
    .map((tag) =>
      tag
        .trim()
        .replace(/^W\//, '')
        .replace(/-(?:gzip|br|deflate)"$/, '"'),
    )
    .some((tag) => tag === '*' || tag === etag);
}

function persistedHashOf(extensions: string | null): string | null {
  if (!extensions) return null;
  try {
    const hash: unknown = JSON.parse(extensions)?.persistedQuery?.sha256Hash;
    return typeof hash === 'string' ? hash : null;
  } catch {
    return null;
  }
}

/** Private: JSON with object keys sorted, so key order never splits one operation in two. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, inner]) => [key, canonical(inner)]),
    );
  }
  return value;
}

function isQuery(document: Parameters<typeof getOperationAST>[0], name?: string | null): boolean {
  return getOperationAST(document, name ?? undefined)?.operation === 'query';
}

function isSingle(result: unknown): result is ExecutionResult {
  return (
    typeof result === 'object' &&
    result !== null &&
    !Array.isArray(result) &&
    !(Symbol.asyncIterator in result)
  );
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
