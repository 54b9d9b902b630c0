/**
 * HTTP caching of query answers, in three parts (`http-caching/`): `fingerprint.ts` names a
 * request's operation at the door, `etag.ts` makes and recomputes an answer's validator, and
 * `replay.ts` answers at the door from them. This plugin wires them into yoga's hooks: name and
 * replay on the request, tag and keep the answer of a query that ran, fix the tag of a
 * compressed body, turn a matching answer into a `304`.
 */

import type { ExecutionResult } from 'graphql';
import { getOperationAST } from 'graphql';
import type { Plugin, YogaInitialContext } from 'graphql-yoga';
import type { Admission } from '../../admission/admission.js';
import { ownOriginsOf } from '../../admission/origin.js';
import type { Credentials } from '../../operation/credentials.js';
import type { ReplicaStore } from '../../replica/types.js';
import type { GatewayContext } from '../../schema/context.js';
import type { FreshnessOf } from '../freshness.js';
import type { AnswerCache } from './answer-cache.js';
import { asksExplain } from './explain.js';
import { createRevalidation, headersFor, matches, VARY } from './http-caching/etag.js';
import { createRequestNamer, type Named } from './http-caching/fingerprint.js';
import {
  createReplay,
  type Replay,
  type ReplayReporting,
  replayHeaders,
} from './http-caching/replay.js';
import { METRICS_HEADER } from './use-response-extensions.js';
import { addVary } from './vary.js';

export interface HttpCachingOptions {
  /**
   * Stage 1 of the admission path: a request is named (its variables walked for the key) only
   * once its variables and extensions are within the nesting bound; any other goes on to
   * admission, which refuses it.
   */
  admission: Pick<Admission, 'bounded' | 'presentedBy' | 'credentials' | 'admit'>;
  /** The request id of a request (use-request-id.ts), for admission's report of a replay. */
  requestIdOf: (request: Request) => string;
  /** Re-reads the replicas a remembered answer depended on: no upstream call within max-age. */
  replicas: Pick<ReplicaStore, 'read' | 'readFresh'>;
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
export interface HttpCaching {
  /** The plugin of one endpoint (`plugin`), and what the wire replay shares with it. */
  readonly plugin: Plugin<GatewayContext & YogaInitialContext>;
  readonly replay: Replay;
  readonly schemaDigest: string;
  readonly metrics: 'always' | 'on-request';
  readonly maxBodyBytes: number;
  /**
   * The plugin's hooks after execution, for the direct path (`../direct-miss.ts`), which runs an
   * operation without yoga's request handling: the same logic, called with the same request.
   */
  readonly direct: DirectCaching;
}

/** What the direct path asks of HTTP caching for one request (`HttpCaching.direct`). */
export interface DirectCaching {
  /** The request was named by its carrier (as the plugin's `onRequest` names it). */
  adopt(request: Request, name: Named): void;
  /** `onExecutionResult`: the result to answer with (an ETag's extensions, a kept copy's serializer). */
  executed(request: Request, context: unknown, result: ExecutionResult): ExecutionResult;
  /** `onResponse`, for the headers of the answer about to be written. */
  responded(request: Request, response: { status: number; headers: Headers }): void;
}

/**
 * The HTTP caching plugin, and what the wire replay (`../wire-replay.ts`) shares with it: the
 * same names, validators, answers and replay, so a request answered before yoga is answered
 * exactly as the plugin would answer it.
 */
export function createHttpCaching({
  admission,
  requestIdOf,
  replicas,
  freshnessOf,
  schemaDigest,
  maxEntries = 10_000,
  answers,
  metrics = 'on-request',
  maxBodyBytes = 1024 * 1024,
  report,
}: HttpCachingOptions): HttpCaching {
  const nameOf = createRequestNamer({
    admission,
    schemaDigest,
    readBodies: answers !== undefined,
    maxBodyBytes,
  });
  const revalidation = createRevalidation({ replicas, freshnessOf, maxEntries });
  const replay = createReplay({ revalidation, answers, metrics, admission, report });
  const named = new WeakMap<Request, Named>();
  const queries = new WeakSet<Request>();
  const etags = new WeakMap<Request, string>();
  /** Bodies as serialized for a response, kept once the response is known to be a plain 200. */
  const serialized = new WeakMap<
    Request,
    { etag: string; body: string; hasExtensions: boolean; operationName: string | null }
  >();
  /** The name of the query each request runs, kept with its answer for the replay's report. */
  const operationNames = new WeakMap<Request, string | null>();

  /**
   * Private: who sends the request, by admission's credentials stage; undefined when it would
   * refuse them (a token that cannot be one, or one the upstream refused): such a request names
   * no answer, and admission refuses it.
   */
  function callerOf(
    request: Request,
  ): Credentials | null | undefined | Promise<Credentials | null | undefined> {
    const presented = admission.presentedBy(request);
    if (presented === undefined) return null;
    const checked = admission.credentials(presented);
    // A session's or a gateway token's check is a look-up; an upstream token's stays synchronous.
    if (checked instanceof Promise)
      return checked.then((done) => (done.ok ? done.credentials : undefined));
    return checked.ok ? checked.credentials : undefined;
  }

  const plugin: Plugin<GatewayContext & YogaInitialContext> = {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      // An explanation is never a held answer, nor held (explain.ts).
      if (asksExplain(request)) return;
      const caller = callerOf(request);
      const credentials = caller instanceof Promise ? await caller : caller;
      if (credentials === undefined) return;
      const name = await nameOf(request, url, fetchAPI.Request, credentials);
      if (name === null) return;
      named.set(request, name);
      const replayed = await replay.answer(request, name, {
        presented: admission.presentedBy(request),
        origin: request.headers.get('origin'),
        ownOrigins: [url.origin, ...ownOriginsOf(request.headers.get('host'))],
        requestId: requestIdOf(request),
        request,
      });
      if (!replayed) return;
      const body = replayed.status === 304 ? null : replayed.body;
      endResponse(
        new fetchAPI.Response(body, { status: replayed.status, headers: replayHeaders(replayed) }),
      );
    },
    onExecute({ args }) {
      const request = args.contextValue.request;
      // The upstream calls of a revalidation that found no answer are the execution's.
      for (const call of replay.takeCarried(request)) args.contextValue.meter.record(call);
      if (!named.has(request)) return;
      const operation = getOperationAST(args.document, args.operationName ?? undefined);
      if (operation?.operation !== 'query') return;
      queries.add(request);
      operationNames.set(request, operation.name?.value ?? null);
    },
    onExecutionResult({ request, context, result, setResult }) {
      afterExecution(request, context, result, setResult);
    },
    onResponse({ request, response }) {
      beforeResponse(request, response);
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

  function afterExecution(
    request: Request,
    context: unknown,
    result: unknown,
    setResult: (result: ExecutionResult) => void,
  ): void {
    const name = named.get(request);
    if (name === undefined || !queries.has(request) || !isSingle(result)) return;
    if (result.errors?.length) return;
    const asked = request.headers.get(METRICS_HEADER) === '1';
    if (name.get && asked) return;
    const dependencies = (context as Partial<GatewayContext>).reads?.dependencies();
    if (!dependencies) return;
    const { etag, replayable } = revalidation.remember(name.fingerprint, dependencies);
    // `upstream` and `cost` are this request's own metrics: neither an ETag's answer nor a
    // stored copy carries them.
    const { upstream, cost: _cost, http, ...extensions } = result.extensions ?? {};
    const httpExtension = typeof http === 'object' && http !== null ? http : {};
    if (name.get) etags.set(request, etag);
    // Kept from an answer's second sight on: a miss asked once pays no copy of its body.
    const keep = answers !== undefined && replayable && answers.worthKeeping(etag);
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
              const { upstream: _own, cost: _price, ...rest } = sanitized.extensions ?? {};
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
  }

  function beforeResponse(request: Request, response: { status: number; headers: Headers }): void {
    const kept = serialized.get(request);
    const contentType = response.headers.get('content-type');
    if (kept && answers && response.status === 200 && contentType && isJson(contentType)) {
      answers.set(kept.etag, {
        bytes: Buffer.from(kept.body),
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
  }

  const direct: DirectCaching = {
    adopt: (request, name) => named.set(request, name),
    executed(request, context, result) {
      let answered = result;
      afterExecution(request, context, result, (set) => {
        answered = set;
      });
      return answered;
    },
    responded: beforeResponse,
  };
  return { plugin, replay, schemaDigest, metrics, maxBodyBytes, direct };
}

function isJson(contentType: string): boolean {
  const type = contentType.toLowerCase();
  return (
    type.startsWith('application/json') || type.startsWith('application/graphql-response+json')
  );
}

function isSingle(result: unknown): result is ExecutionResult {
  return (
    typeof result === 'object' &&
    result !== null &&
    !Array.isArray(result) &&
    !(Symbol.asyncIterator in result)
  );
}
