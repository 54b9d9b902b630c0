/**
 * Answers at the door, before yoga parses or runs anything (and, for the wire replay, before
 * yoga sees the request at all): a GET whose `If-None-Match` still matches its answer's current
 * ETag gets `304`; a request whose answer is held under that ETag (the answer cache) gets that
 * answer's bytes, compressed once per encoding, reported as the operation it answers. Either is
 * admitted first, by the admission path every operation passes (a document admission knows is
 * a digest look-up). What
 * revalidating cost (a delta past max-age) is the request's: charged to its execution when no
 * answer came from here (`carried`).
 */

import { SPECIFICATION_VERSION } from '@plans-gateway/rest-contract';
import type { Admission } from '../../../admission/admission.js';
import type { Presented } from '../../../admission/presented.js';
import type { Credentials } from '../../../operation/credentials.js';
import type { OperationCost, OperationMeter, StaleNotice } from '../../../operation/meter.js';
import { createOperationMeter } from '../../../operation/meter.js';
import type { OperationTracer } from '../../../operation/tracer.js';
import type { UpstreamCallRecord } from '../../../operation/upstream-calls.js';
import type { OperationReport, OperationReportSink } from '../../../telemetry/operation-report.js';
import { monotonicNow } from '../../../time/clock.js';
import type { AnswerCache, StoredAnswer } from '../answer-cache.js';
import { type Encoding, preferredEncoding } from '../use-compression.js';
import { isPreflighted } from '../use-csrf-prevention.js';
import { METRICS_HEADER } from '../use-response-extensions.js';
import { headersFor, matches, type Revalidation } from './etag.js';
import type { Named } from './fingerprint.js';

export interface ReplayReporting {
  sinks: readonly OperationReportSink[];
  /** Whether the upstream has accepted the token (the token gate). */
  isAccepted: (tokenKey: string) => boolean;
  tracer?: OperationTracer | undefined;
}

export interface ReplayOptions {
  revalidation: Revalidation;
  /** The answers themselves, by ETag. @default none: only `304`s */
  answers?: AnswerCache | undefined;
  /** Whether answers carry `extensions.upstream` without `X-Upstream-Metrics: 1`. */
  metrics: 'always' | 'on-request';
  /** Every replay is admitted as the operation it answers would be (the one admission path). */
  admission: Pick<Admission, 'admit'>;
  /** Where a replayed answer is reported. @default not reported */
  report?: ReplayReporting | undefined;
}

/** A request as the replay reads it: a fetch `Request`, or node's request seen as one. */
export interface ReplayRequest {
  readonly headers: Pick<Headers, 'get' | 'has'>;
}

/** What carried the request, as admission takes it (the same values yoga's admission gets). */
export interface Carrier {
  readonly presented: Presented | undefined;
  readonly origin: string | null;
  readonly ownOrigins: readonly string[];
  readonly requestId: string;
  /** The request itself when it is a fetch `Request`: its trace span starts from it. */
  readonly request?: Request;
  /**
   * The carrier admitted this operation already: its parameters passed every stage once (with
   * nothing else that could change their verdict), and stage 5 (credentials) passed for this
   * very request, just now (the wire replay's memo). Then admission is not asked again.
   */
  readonly admitted?: true;
}

/** A replay: `304`, or the held answer's bytes in the encoding the client accepts. */
export type Replayed =
  | { readonly status: 304; readonly etag: string }
  | {
      readonly status: 200;
      readonly etag: string;
      readonly contentType: string;
      /** The held bytes, or (with this request's own metrics spliced in) a string. */
      readonly body: Buffer<ArrayBuffer> | string;
      readonly encoding: Encoding | null;
      /** A GET's answer carries its ETag and `Cache-Control` (a POST's neither). */
      readonly get: boolean;
    };

export interface Replay {
  /**
   * The answer to `request` from here; null when the operation must run. Admitted first, as
   * the operation would be: a refusal is left to the pipeline, which refuses it in its words.
   */
  answer(request: ReplayRequest, name: Named, carrier: Carrier): Promise<Replayed | null>;
  /** The upstream calls revalidating `request` made, once: its execution's to count. */
  takeCarried(request: ReplayRequest): readonly UpstreamCallRecord[];
}

export function createReplay({
  revalidation,
  answers,
  metrics,
  admission,
  report,
}: ReplayOptions): Replay {
  /** Upstream calls a request's revalidation made, charged to its execution if it runs. */
  const carried = new WeakMap<ReplayRequest, UpstreamCallRecord[]>();
  return {
    async answer(request, name, carrier) {
      const { get } = name;
      const candidates = get ? request.headers.get('if-none-match') : null;
      // A GET is answered here only if the CSRF rule would let it run (a JSON POST always would).
      if (get && !isPreflighted(request)) return null;
      if (name.registersText) return null;
      if (candidates === null && !answers) return null;
      const started = monotonicNow();
      // What revalidating costs is this request's, answered from the cache or executed after all.
      const meter = new RevalidationMeter();
      const revalidated = revalidation.current(request, name, meter);
      const current = revalidated instanceof Promise ? await revalidated : revalidated;
      if (current === null) return miss(carried, request, meter);
      const notModified = candidates !== null && matches(candidates, current.etag);
      const answer = notModified ? undefined : answers?.get(current.etag);
      if (!notModified && !answer) return miss(carried, request, meter);
      const asked = request.headers.get(METRICS_HEADER) === '1';
      // A GET asking for metrics is not the ETagged answer: it runs. An ETagged GET shows none.
      if (!notModified && get && asked) return miss(carried, request, meter);
      if (!carrier.admitted && !(await admitted(admission, name, carrier)))
        return miss(carried, request, meter);
      if (notModified || !answer) return { status: 304, etag: current.etag };
      if (report) {
        const durationMs = monotonicNow() - started;
        reportReplay(report, carrier, name.credentials, answer, meter.cost(), durationMs);
      }
      const showMetrics = !get && (metrics === 'always' || asked);
      if (showMetrics) {
        // Every such body differs (its own figures): sent as it is, compressed by the pipeline.
        const body = withUpstream(answer, meter.cost(), current.ages);
        return {
          status: 200,
          etag: current.etag,
          contentType: answer.contentType,
          body,
          encoding: null,
          get,
        };
      }
      const chosen = preferredEncoding(request.headers.get('accept-encoding'));
      const held = answers!.representation(current.etag, answer, chosen);
      const { body, encoding } = held instanceof Promise ? await held : held;
      return {
        status: 200,
        etag: current.etag,
        contentType: answer.contentType,
        body,
        encoding,
        get,
      };
    },
    takeCarried(request) {
      const calls = carried.get(request) ?? [];
      carried.delete(request);
      return calls;
    },
  };
}

/**
 * Private: no answer from here: the calls revalidating made (if any) are the execution's. A
 * function of the module, not a closure made per request.
 */
function miss(
  carried: WeakMap<ReplayRequest, UpstreamCallRecord[]>,
  request: ReplayRequest,
  meter: RevalidationMeter,
): null {
  if (meter.calls) carried.set(request, meter.calls);
  return null;
}

/** Nothing spent: what a revalidation within max-age costs (no call, no cache count). */
const NO_COST: OperationCost = Object.freeze({
  calls: 0,
  operations: Object.freeze({}),
  cacheHits: 0,
  replicaAgeMs: null,
  stale: Object.freeze([]) as unknown as OperationCost['stale'],
});

/**
 * Private: the meter of one revalidation, which within max-age records nothing: the operation
 * meter (and the list of calls) are made only once an upstream call is recorded.
 */
class RevalidationMeter implements OperationMeter {
  /** The upstream calls made, in order; undefined while there are none. */
  calls: UpstreamCallRecord[] | undefined;
  private meter: OperationMeter | undefined;
  private counted(): OperationMeter {
    this.meter ??= createOperationMeter();
    return this.meter;
  }
  record(call: UpstreamCallRecord): void {
    this.calls ??= [];
    this.calls.push(call);
    this.counted().record(call);
  }
  track<T>(work: Promise<T>): Promise<T> {
    return this.counted().track(work);
  }
  idle(): Promise<void> {
    return this.counted().idle();
  }
  cacheHit(): void {
    this.counted().cacheHit();
  }
  replicaRead(ageMs: number): void {
    this.counted().replicaRead(ageMs);
  }
  stale(notice: StaleNotice): void {
    this.counted().stale(notice);
  }
  cost(): OperationCost {
    return this.meter ? this.meter.cost() : NO_COST;
  }
}

/**
 * Private: the replay passes the admission path as the operation would (trusted documents,
 * limits, credentials, origin), with the parameters the request sent. A session's or gateway
 * token's credentials are a look-up; an upstream token's verdict comes in the same turn.
 */
async function admitted(
  admission: Pick<Admission, 'admit'>,
  { params }: Named,
  carrier: Carrier,
): Promise<boolean> {
  const { query, operationName, variables, extensions } = params;
  const verdict = admission.admit({
    query: typeof query === 'string' ? query : null,
    operationName: typeof operationName === 'string' ? operationName : null,
    variables:
      typeof variables === 'object' && variables !== null
        ? (variables as Readonly<Record<string, unknown>>)
        : null,
    extensions,
    presented: carrier.presented,
    origin: carrier.origin,
    ownOrigins: carrier.ownOrigins,
    requestId: carrier.requestId,
  });
  return (verdict instanceof Promise ? await verdict : verdict).admitted;
}

/** Private: a replayed answer is reported as the operation it answers, which ran without error. */
function reportReplay(
  { sinks, isAccepted, tracer }: ReplayReporting,
  carrier: Carrier,
  credentials: Credentials | null,
  answer: StoredAnswer,
  cost: OperationCost,
  durationMs: number,
): void {
  const described = { name: answer.operationName, type: 'query' };
  const span = carrier.request ? tracer?.startOperation(carrier.request) : undefined;
  span?.describe(described);
  span?.end({ errorCodes: [], stale: false });
  const tokenKey = credentials?.tokenKey;
  const operationReport: OperationReport = {
    requestId: carrier.requestId,
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
    specification: SPECIFICATION_VERSION,
  });
  // The body is one JSON object: its closing brace is its last character.
  const open = answer.bytes.toString('utf8').slice(0, -1);
  return answer.hasExtensions
    ? `${open.slice(0, -1)},"upstream":${upstream}}}`
    : `${open},"extensions":{"upstream":${upstream}}}`;
}

/**
 * The headers of a replay, whichever carrier sends it: its type, length and encoding (`Vary:
 * Accept-Encoding`, as compressed answers have), and a GET's validator. A compressed copy is
 * another representation: its strong ETag differs (RFC 9110 8.8.3).
 */
export function replayHeaders(replayed: Replayed): Record<string, string> {
  if (replayed.status === 304) return headersFor(replayed.etag);
  const { etag, contentType, body, encoding, get } = replayed;
  return {
    'content-type': contentType,
    'content-length': String(typeof body === 'string' ? Buffer.byteLength(body) : body.length),
    // Caches must keep one copy per encoding, whichever this one is.
    vary: 'Accept-Encoding',
    ...(encoding ? { 'content-encoding': encoding } : {}),
    ...(get ? headersFor(encoding ? `${etag.slice(0, -1)}-${encoding}"` : etag) : {}),
  };
}
