import type { Freshness } from '../replica/types.js';

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
