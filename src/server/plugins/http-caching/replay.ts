/**
 * Answers at the door, before admission parses or runs anything: a GET whose `If-None-Match`
 * still matches its answer's current ETag gets `304`; a request whose answer is held under that
 * ETag (the answer cache) gets that answer, reported as the operation it answers. What
 * revalidating cost (a delta past max-age) is the request's: charged to its execution when no
 * answer came from here (`carried`).
 */

import { SPECIFICATION_VERSION } from '@plans-gateway/rest-contract';
import type { Credentials } from '../../../operation/credentials.js';
import type { OperationCost, OperationMeter } from '../../../operation/meter.js';
import { createOperationMeter } from '../../../operation/meter.js';
import type { OperationTracer } from '../../../operation/tracer.js';
import type { UpstreamCallRecord } from '../../../operation/upstream-calls.js';
import type { OperationReport, OperationReportSink } from '../../../telemetry/operation-report.js';
import { monotonicNow } from '../../../time/clock.js';
import type { AnswerCache, StoredAnswer } from '../answer-cache.js';
import { isPreflighted } from '../use-csrf-prevention.js';
import { METRICS_HEADER } from '../use-response-extensions.js';
import { headersFor, matches, type Revalidation } from './etag.js';
import type { Named } from './fingerprint.js';

export interface ReplayReporting {
  sinks: readonly OperationReportSink[];
  requestIdOf: (request: Request) => string;
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
  /** Where a replayed answer is reported. @default not reported */
  report?: ReplayReporting | undefined;
}

export interface Replay {
  /**
   * The answer to `request` from here, and the ETag of a replayed `200` (its representation may
   * still be compressed); null when the operation must run.
   */
  answer(
    request: Request,
    name: Named,
    fetchAPI: { Response: typeof Response },
  ): Promise<{ response: Response; etag?: string } | null>;
  /** The upstream calls revalidating `request` made, once: its execution's to count. */
  takeCarried(request: Request): readonly UpstreamCallRecord[];
}

export function createReplay({ revalidation, answers, metrics, report }: ReplayOptions): Replay {
  /** Upstream calls a request's revalidation made, charged to its execution if it runs. */
  const carried = new WeakMap<Request, UpstreamCallRecord[]>();
  return {
    async answer(request, name, fetchAPI) {
      const { get } = name;
      const candidates = get ? request.headers.get('if-none-match') : null;
      // A GET is answered here only if the CSRF rule would let it run (a JSON POST always would).
      if (get && !isPreflighted(request)) return null;
      if (candidates === null && !answers) return null;
      const started = monotonicNow();
      // What revalidating costs is this request's, answered from the cache or executed after all.
      const revalidating = createOperationMeter();
      const calls: UpstreamCallRecord[] = [];
      const meter: OperationMeter = {
        ...revalidating,
        record(call) {
          calls.push(call);
          revalidating.record(call);
        },
      };
      carried.set(request, calls);
      const current = await revalidation.current(request, name, meter);
      if (current === null) return null;
      if (candidates !== null && matches(candidates, current.etag)) {
        const headers = headersFor(current.etag);
        return { response: new fetchAPI.Response(null, { status: 304, headers }) };
      }
      const answer = answers?.get(current.etag);
      if (!answer) return null;
      const asked = request.headers.get(METRICS_HEADER) === '1';
      // A GET asking for metrics is not the ETagged answer: it runs. An ETagged GET shows none.
      if (get && asked) return null;
      const showMetrics = !get && (metrics === 'always' || asked);
      if (report) {
        const durationMs = monotonicNow() - started;
        reportReplay(report, request, name.credentials, answer, meter.cost(), durationMs);
      }
      const response = new fetchAPI.Response(
        showMetrics ? withUpstream(answer, meter.cost(), current.ages) : answer.body,
        {
          status: 200,
          headers: {
            'Content-Type': answer.contentType,
            ...(get ? headersFor(current.etag) : {}),
          },
        },
      );
      return { response, etag: current.etag };
    },
    takeCarried(request) {
      const calls = carried.get(request) ?? [];
      carried.delete(request);
      return calls;
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
    specification: SPECIFICATION_VERSION,
  });
  // The body is one JSON object: its closing brace is its last character.
  const open = answer.body.slice(0, -1);
  return answer.hasExtensions
    ? `${open.slice(0, -1)},"upstream":${upstream}}}`
    : `${open},"extensions":{"upstream":${upstream}}}`;
}
