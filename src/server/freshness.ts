import type { Freshness } from '../replica/types.js';
import type { Clock } from '../time/clock.js';

/**
 * What freshness reads of a request: its `Cache-Control`. A fetch `Request`, or the wire
 * replay's view of node's request (`wire-replay.ts`), which has no `Request` to make.
 */
export interface HeadersOf {
  readonly headers: Pick<Headers, 'get'>;
  /**
   * Where a carrier that makes its own request objects keeps their freshness once decided (the
   * wire replay's view): no weak map entry per request then. Absent on a fetch `Request`.
   */
  decidedFreshness?: Freshness | undefined;
}

/** The freshness of each request, decided once: see `requestFreshness`. */
export type FreshnessOf = (request: HeadersOf) => Freshness;

/**
 * Freshness decided once per request, at its first asking, with the request's arrival (`asOf`):
 * whatever reads for it (the answer cache revalidating at the door, then the executor, compiled
 * or not, each loader) asks the replicas for the same data. A `no-cache` read whose door
 * revalidation sent a delta is then answered by that delta, not by a second one sent a
 * millisecond later. Kept by request object: one per HTTP request (every operation of a batch),
 * one per WebSocket or MCP operation (each makes its own).
 */
export function requestFreshness(defaultMaxAgeMs: number, now: Clock): FreshnessOf {
  const decided = new WeakMap<HeadersOf, Freshness>();
  return (request) => {
    const slot = 'decidedFreshness' in request;
    let freshness = slot ? request.decidedFreshness : decided.get(request);
    if (!freshness) {
      // Fields named, not spread: one small object per request, made the same way each time.
      freshness = { maxAgeMs: maxAgeFrom(request, defaultMaxAgeMs), asOf: now() };
      if (slot) request.decidedFreshness = freshness;
      else decided.set(request, freshness);
    }
    return freshness;
  };
}

/**
 * Per-request freshness from `Cache-Control`: `no-cache` (or `max-age=0`) forces a delta sync,
 * `max-age=N` accepts data up to N seconds old, but never older than the gateway's own max-age:
 * a client may ask for fresher data, not for data the gateway would not serve anyway (a token
 * revoked upstream would otherwise be served from the replica for as long as it asks).
 * Unknown or malformed directives are ignored, as HTTP caches do.
 */
function maxAgeFrom(request: HeadersOf, defaultMaxAgeMs: number): number {
  const header = request.headers.get('cache-control');
  if (!header) return defaultMaxAgeMs;
  const directives = header
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  if (directives.includes('no-cache') || directives.includes('no-store')) return 0;
  for (const directive of directives) {
    const match = /^max-age=(\d+)$/.exec(directive);
    if (match) return Math.min(Number(match[1]) * 1000, defaultMaxAgeMs);
  }
  return defaultMaxAgeMs;
}
