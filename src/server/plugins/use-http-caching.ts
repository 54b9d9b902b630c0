import { createHash } from 'node:crypto';
import { type ExecutionResult, getOperationAST } from 'graphql';
import type { Plugin, YogaInitialContext } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import type { Admission, Bounded } from '../../admission/admission.js';
import type { Dependencies, ReplicaDependency } from '../../loaders/read-log.js';
import type { Credentials } from '../../operation/credentials.js';
import {
  createOperationMeter,
  type OperationCost,
  type OperationMeter,
} from '../../operation/meter.js';
import type { OperationTracer } from '../../operation/tracer.js';
import type { ReplicaStore } from '../../replica/types.js';
import type { GatewayContext } from '../../schema/context.js';
import type { OperationReport, OperationReportSink } from '../../telemetry/operation-report.js';
import type { UpstreamCallRecord } from '../../upstream/client.js';
import type { FreshnessOf } from '../freshness.js';
import type { AnswerCache, StoredAnswer } from './answer-cache.js';
import { isPreflighted } from './use-csrf-prevention.js';
import { METRICS_HEADER } from './use-response-extensions.js';
import { addVary } from './vary.js';

export interface HttpCachingOptions {
  /**
   * Stage 1 of the admission path: a request is named (its variables walked for the key) only
   * once its variables and extensions are within the nesting bound; any other goes on to
   * admission, which refuses it.
   */
  admission: Pick<Admission, 'bounded' | 'presentedBy' | 'credentials'>;
  /** Re-reads the replicas a remembered answer depended on: no upstream call within max-age. */
  replicas: Pick<ReplicaStore, 'read'>;
  /**
   * The request's freshness, decided once per request: revalidating at the door and executing
   * afterwards ask for the same data (one delta for a `no-cache` read, not two).
   */
  freshnessOf: FreshnessOf;
  /** Answers of another schema are other representations: part of every ETag. */
  schemaDigest: string;
  /** Operations whose dependencies are remembered for revalidation. @default 10_000 */
  maxEntries?: number;
  /** The answers themselves, by ETag, to answer a repeated operation without executing it. @default none */
  answers?: AnswerCache;
  /** Whether answers carry `extensions.upstream` without `X-Upstream-Metrics: 1`. @default 'on-request' */
  metrics?: 'always' | 'on-request';
  /** The largest POST body read at the door to look its answer up. @default 1 MiB */
  maxBodyBytes?: number;
  /**
   * Where an answer replayed from the cache is reported, as an operation that ran: its log line,
   * its metrics, its trace span. @default not reported
   */
  report?: ReplayReporting;
}

export interface ReplayReporting {
  sinks: readonly OperationReportSink[];
  requestIdOf: (request: Request) => string;
  /** Whether the upstream has accepted the token (the token gate). */
  isAccepted: (tokenKey: string) => boolean;
  tracer?: OperationTracer | undefined;
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
 * A request the door could name: its operation's fingerprint, whether it came as GET, and who
 * sends it (admission's credentials stage, asked at the door: the same value admission keeps).
 */
interface Named {
  readonly fingerprint: string;
  readonly get: boolean;
  readonly credentials: Credentials | null;
}

/**
 * `ETag` and `304 Not Modified` for queries sent with GET, and the answer cache for queries sent
 * with GET or POST. An answer is determined by the token, the document, the variables, the
 * accepted media type, the schema, and the version of every replica (and REST answer) it read;
 * the strong ETag is a SHA-256 of exactly these. Answers with errors, stale parts, or volatile
 * fields (`rateLimit`) get none, and an ETagged answer leaves out `extensions.upstream`, whose
 * figures differ on every request (ask with `X-Upstream-Metrics: 1` to see them, without an ETag).
 *
 * Revalidation first tries without executing: for an operation seen before, the ETag is
 * recomputed from the replicas it read, re-read under the request's freshness (no upstream call
 * within max-age, one delta past it). A GET whose `If-None-Match` matches gets `304`; any other
 * request whose answer is held under that ETag (`answers`) gets that answer: both before parsing
 * or executing anything. Otherwise, or when the answer also read REST answers, the operation runs
 * (and a matching ETag still turns the answer into a `304`). A write through the gateway changes
 * the version of the replica it wrote, hence the ETag: the next request executes again.
 */
export function useHttpCaching({
  admission,
  replicas,
  freshnessOf,
  schemaDigest,
  maxEntries = 10_000,
  answers,
  metrics = 'on-request',
  maxBodyBytes = 1024 * 1024,
  report,
}: HttpCachingOptions): Plugin<GatewayContext & YogaInitialContext> {
  const remembered = new LRUCache<string, Remembered>({ max: maxEntries });
  const named = new WeakMap<Request, Named>();
  const queries = new WeakSet<Request>();
  const etags = new WeakMap<Request, string>();
  /** Bodies as serialized for a response, kept once the response is known to be a plain 200. */
  const serialized = new WeakMap<
    Request,
    { etag: string; body: string; hasExtensions: boolean; operationName: string | null }
  >();
  /** Upstream calls a request's revalidation made, charged to its execution if it runs. */
  const carried = new WeakMap<Request, UpstreamCallRecord[]>();
  /** The name of the query each request runs, kept with its answer for the replay's report. */
  const operationNames = new WeakMap<Request, string | null>();

  async function revalidate(
    request: Request,
    { fingerprint, credentials }: Named,
    meter?: OperationMeter,
  ): Promise<{ etag: string; ages: number[] } | null> {
    const entry = remembered.get(fingerprint);
    if (!entry?.replayable || !credentials) return null;
    const freshness = freshnessOf(request);
    const dependencies: ReplicaDependency[] = [];
    const ages: number[] = [];
    for (const planId of entry.plans) {
      const read = await replicas
        .read({ ...credentials, planId, freshness, ...(meter ? { meter } : {}) })
        .catch(() => null);
      if (!read || read.stale) return null;
      ages.push(read.ageMs);
      dependencies.push({
        requested: planId,
        planId: read.snapshot.planId,
        version: read.version,
        currentMonth: read.snapshot.currentMonth(),
      });
    }
    return { etag: etagOf(fingerprint, { replicas: dependencies, rest: [] }), ages };
  }

  /** Private: the held answer for this request, as a response, when its replicas have not moved. */
  async function replay(
    request: Request,
    name: Named,
    fetchAPI: { Response: typeof Response },
  ): Promise<Response | null> {
    const { get } = name;
    const candidates = get ? request.headers.get('if-none-match') : null;
    // A GET is answered here only if the CSRF rule would let it run (a JSON POST always would).
    if (get && !isPreflighted(request)) return null;
    if (candidates === null && !answers) return null;
    const started = performance.now();
    // What revalidating costs is this request's, answered from the cache or executed after all.
    const revalidation = createOperationMeter();
    const calls: UpstreamCallRecord[] = [];
    const meter: OperationMeter = {
      ...revalidation,
      record(call) {
        calls.push(call);
        revalidation.record(call);
      },
    };
    carried.set(request, calls);
    const current = await revalidate(request, name, meter);
    if (current === null) return null;
    if (candidates !== null && matches(candidates, current.etag))
      return new fetchAPI.Response(null, { status: 304, headers: headersFor(current.etag) });
    const answer = answers?.get(current.etag);
    if (!answer) return null;
    const asked = request.headers.get(METRICS_HEADER) === '1';
    // A GET asking for metrics is not the ETagged answer: it runs. An ETagged GET shows none.
    if (get && asked) return null;
    const showMetrics = !get && (metrics === 'always' || asked);
    etags.set(request, current.etag);
    if (report) {
      const durationMs = performance.now() - started;
      reportReplay(report, request, name.credentials, answer, meter.cost(), durationMs);
    }
    return new fetchAPI.Response(
      showMetrics ? withUpstream(answer, meter.cost(), current.ages) : answer.body,
      {
        status: 200,
        headers: {
          'Content-Type': answer.contentType,
          ...(get ? headersFor(current.etag) : {}),
        },
      },
    );
  }

  /** Private: names the request's one operation (GET's query string, POST's JSON body). */
  async function nameOf(
    request: Request,
    url: URL,
    RequestClass: unknown,
    credentials: Credentials | null,
  ): Promise<Named | null> {
    const tokenKey = credentials?.tokenKey ?? null;
    if (request.method === 'GET') {
      const params = paramsOfUrl(url);
      const bounded = params && admission.bounded(params);
      const fingerprint = bounded && fingerprintOf(request, url, bounded, schemaDigest, tokenKey);
      return fingerprint ? { fingerprint, get: true, credentials } : null;
    }
    if (request.method !== 'POST' || !answers) return null;
    // Only yoga's own request class keeps the parsed body for yoga to read again; only a JSON
    // body of a known, bounded length is read here (yoga refuses the others before reading).
    if (!(request instanceof (RequestClass as typeof Request))) return null;
    if (!request.headers.get('content-type')?.toLowerCase().startsWith('application/json'))
      return null;
    const length = Number(request.headers.get('content-length'));
    if (!Number.isSafeInteger(length) || length <= 0 || length > maxBodyBytes) return null;
    const body: unknown = await request.json().catch(() => null);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
    const bounded = admission.bounded(body as OperationParams);
    const fingerprint = bounded && fingerprintOf(request, url, bounded, schemaDigest, tokenKey);
    return fingerprint ? { fingerprint, get: false, credentials } : null;
  }

  /**
   * Private: who sends the request, by admission's credentials stage; undefined when it would
   * refuse them (a token that cannot be one, or one the upstream refused): such a request names
   * no answer, and admission refuses it.
   */
  function callerOf(request: Request): Credentials | null | undefined {
    const presented = admission.presentedBy(request);
    if (presented === undefined) return null;
    const checked = admission.credentials(presented);
    return checked.ok ? checked.credentials : undefined;
  }

  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      const credentials = callerOf(request);
      if (credentials === undefined) return;
      const name = await nameOf(request, url, fetchAPI.Request, credentials);
      if (name === null) return;
      named.set(request, name);
      const response = await replay(request, name, fetchAPI);
      if (response) endResponse(response);
    },
    onExecute({ args }) {
      const request = args.contextValue.request;
      // The upstream calls of a revalidation that found no answer are the execution's.
      for (const call of carried.get(request) ?? []) args.contextValue.meter.record(call);
      carried.delete(request);
      if (!named.has(request)) return;
      const operation = getOperationAST(args.document, args.operationName ?? undefined);
      if (operation?.operation !== 'query') return;
      queries.add(request);
      operationNames.set(request, operation.name?.value ?? null);
    },
    onExecutionResult({ request, context, result, setResult }) {
      const name = named.get(request);
      if (name === undefined || !queries.has(request) || !isSingle(result)) return;
      if (result.errors?.length) return;
      const asked = request.headers.get(METRICS_HEADER) === '1';
      if (name.get && asked) return;
      const dependencies = (context as Partial<GatewayContext>).reads?.dependencies();
      if (!dependencies) return;
      const etag = etagOf(name.fingerprint, dependencies);
      const replayable = dependencies.rest.length === 0;
      remembered.set(name.fingerprint, {
        plans: dependencies.replicas.map((dependency) => dependency.requested),
        replayable,
      });
      const { upstream, http, ...extensions } = result.extensions ?? {};
      const httpExtension = typeof http === 'object' && http !== null ? http : {};
      if (name.get) etags.set(request, etag);
      const keep = answers !== undefined && replayable;
      const sent = name.get
        ? { ...extensions, http: { ...httpExtension, headers: headersFor(etag) } }
        : (result.extensions ?? {});
      setResult({
        ...result,
        ...(Object.keys(sent).length > 0 ? { extensions: sent } : {}),
        // The body is serialized once, as sent; the copy kept leaves the request's metrics out.
        ...(keep
          ? {
              stringify: (sanitized: ExecutionResult) => {
                const sent = JSON.stringify(sanitized);
                const { upstream: _own, ...rest } = sanitized.extensions ?? {};
                const hasExtensions = Object.keys(rest).length > 0;
                const body =
                  upstream === undefined
                    ? sent
                    : JSON.stringify({
                        ...sanitized,
                        extensions: hasExtensions ? rest : undefined,
                      });
                serialized.set(request, {
                  etag,
                  body,
                  hasExtensions,
                  operationName: operationNames.get(request) ?? null,
                });
                return sent;
              },
            }
          : {}),
      });
    },
    onResponse({ request, response }) {
      const kept = serialized.get(request);
      const contentType = response.headers.get('content-type');
      if (kept && answers && response.status === 200 && contentType && isJson(contentType)) {
        answers.set(kept.etag, {
          body: kept.body,
          contentType,
          hasExtensions: kept.hasExtensions,
          operationName: kept.operationName,
        });
      }
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

/** Private: a replayed answer is reported as the operation it answers, which ran without error. */
function reportReplay(
  { sinks, requestIdOf, isAccepted, tracer }: ReplayReporting,
  request: Request,
  credentials: Credentials | null,
  answer: StoredAnswer,
  cost: OperationCost,
  durationMs: number,
): void {
  const described = { name: answer.operationName, type: 'query' };
  const span = tracer?.startOperation(request);
  span?.describe(described);
  span?.end({ errorCodes: [], stale: false });
  const tokenKey = credentials?.tokenKey;
  const operationReport: OperationReport = {
    requestId: requestIdOf(request),
    traceId: span?.traceId ?? null,
    operationName: described.name,
    operationType: described.type,
    outcome: 'ok',
    verified: tokenKey !== undefined && isAccepted(tokenKey),
    durationMs: Math.round(durationMs * 100) / 100,
    upstreamCalls: cost.calls,
    upstreamOperations: { ...cost.operations },
    cacheHits: cost.cacheHits,
    stale: [],
    errorCodes: [],
  };
  for (const sink of sinks) {
    try {
      sink(operationReport);
    } catch {
      // An observer's failure must never fail the answer it observes.
    }
  }
}

/**
 * Private: a held answer with this request's own `extensions.upstream`: what revalidating it
 * cost (a delta past max-age, else nothing) and the age of the replicas it read.
 */
function withUpstream(answer: StoredAnswer, cost: OperationCost, ages: number[]): string {
  const upstream = JSON.stringify({
    calls: cost.calls,
    operations: cost.operations,
    cacheHits: ages.length - cost.calls,
    replicaAgeMs: ages.length === 0 ? null : Math.max(...ages),
  });
  // The body is one JSON object: its closing brace is its last character.
  const open = answer.body.slice(0, -1);
  return answer.hasExtensions
    ? `${open.slice(0, -1)},"upstream":${upstream}}}`
    : `${open},"extensions":{"upstream":${upstream}}}`;
}

function isJson(contentType: string): boolean {
  const type = contentType.toLowerCase();
  return (
    type.startsWith('application/json') || type.startsWith('application/graphql-response+json')
  );
}

/** Lower-case names, so later plugins' `set` replaces them (see `addVary`); `Vary` goes there. */
function headersFor(etag: string): Record<string, string> {
  return { etag, 'cache-control': CACHE_CONTROL };
}

/** The GraphQL request's parts that name its operation, as sent by GET or in a POST body. */
interface OperationParams {
  readonly query?: unknown;
  readonly operationName?: unknown;
  readonly variables?: unknown;
  readonly extensions?: unknown;
}

/** Private: GET's parameters as a POST body would carry them; undefined where one is not JSON. */
function paramsOfUrl(url: URL): OperationParams | null {
  const params = url.searchParams;
  const json = (name: string): unknown => JSON.parse(params.get(name) || 'null');
  try {
    return {
      query: params.get('query'),
      operationName: params.get('operationName'),
      variables: json('variables'),
      extensions: json('extensions'),
    };
  } catch {
    return null;
  }
}

/**
 * Private: names one operation of one token. The document counts by its SHA-256, which is also
 * the hash a hash-only APQ request sends, so both forms share entries; GET and POST of the same
 * operation share them too. Null when the request names no document. The variables are walked
 * (recursively, for their canonical form): only once admission's first stage has bounded them.
 */
function fingerprintOf(
  request: Request,
  url: URL,
  params: Bounded<OperationParams>,
  schemaDigest: string,
  tokenKey: string | null,
): string | null {
  const { query, operationName, variables = null, extensions } = params;
  const document =
    typeof query === 'string' && query !== '' ? sha256(query) : persistedHashOf(extensions);
  if (document === null) return null;
  return sha256(
    JSON.stringify([
      schemaDigest,
      url.pathname,
      tokenKey,
      document,
      typeof operationName === 'string' && operationName !== '' ? operationName : null,
      canonical(variables),
      request.headers.get('accept') ?? '',
    ]),
  );
}

/** Private: the strong validator of an answer with these dependencies. */
function etagOf(fingerprint: string, { replicas, rest }: Dependencies): string {
  const plans = [...replicas]
    .sort((a, b) => byCodeUnits(a.requested, b.requested))
    .map((d) => [d.requested, d.planId, d.version, d.currentMonth]);
  const answers = [...rest]
    .sort((a, b) => byCodeUnits(a.key, b.key))
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

function persistedHashOf(extensions: unknown): string | null {
  if (typeof extensions !== 'object' || extensions === null) return null;
  const hash = (extensions as { persistedQuery?: { sha256Hash?: unknown } }).persistedQuery
    ?.sha256Hash;
  return typeof hash === 'string' ? hash : null;
}

/** Private: JSON with object keys sorted, so key order never splits one operation in two. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => byCodeUnits(a, b))
        .map(([key, inner]) => [key, canonical(inner)]),
    );
  }
  return value;
}

/**
 * Private: a fixed order for keys, which is all a fingerprint needs. Not `localeCompare`: its
 * first call loads ICU's collator (about 10 ms, on the first request with variables), and each
 * call after it still costs more than comparing code units.
 */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
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
