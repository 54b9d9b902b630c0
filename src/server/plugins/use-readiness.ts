import { type Plugin, useReadinessCheck } from 'graphql-yoga';
import { type Clock, monotonicNow } from '../../time/clock.js';

/** A probe result is reused this long, so a flood of `/ready` requests costs one upstream probe. */
export const DEFAULT_READY_CACHE_MS = 2_000;
const PROBE_TIMEOUT_MS = 2_000;

export interface ReadinessOptions {
  /**
   * Asks the upstream for an HTTP status (`UpstreamClient.probe`: the gateway's own undici pool,
   * so the probe goes where and how its requests go); rejects when it cannot be reached.
   */
  probe: (signal: AbortSignal) => Promise<number>;
  /** True once the gateway is shutting down: load balancers must stop sending work. */
  draining: () => boolean;
  /** @default '/ready' */
  endpoint?: string;
  /** @default 2_000 */
  cacheMs?: number;
  /** Monotonic clock in ms. @default monotonicNow */
  now?: Clock;
}

export interface Readiness {
  ready: boolean;
  /** Why not, in a few words; absent when ready. */
  reason?: string;
  /** Absent while shutting down (not probed). */
  upstream?: { reachable: boolean; status: number | null };
}

/**
 * `/ready`, through yoga's own readiness check (`useReadinessCheck`), answers 200 or 503 with a
 * JSON body saying why. Ready means: not shutting down, and the upstream answers HTTP below 500
 * to a request without a token (the 401 it gets costs no quota and proves the upstream is up).
 */
export function useReadiness({
  probe,
  draining,
  endpoint = '/ready',
  cacheMs = DEFAULT_READY_CACHE_MS,
  now = monotonicNow,
}: ReadinessOptions): Plugin {
  let cached: { at: number; result: Promise<Readiness> } | undefined;
  const probeUpstream = async (): Promise<Readiness> => {
    const signal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
    try {
      const status = await probe(signal);
      const ok = status < 500;
      return {
        ready: ok,
        ...(ok ? {} : { reason: `upstream answers ${status}` }),
        upstream: { reachable: true, status },
      };
    } catch {
      return {
        ready: false,
        reason: `upstream ${signal.aborted ? 'timed out' : 'unreachable'}`,
        upstream: { reachable: false, status: null },
      };
    }
  };
  const readiness = useReadinessCheck({
    endpoint,
    async check({ fetchAPI }) {
      let result: Readiness;
      if (draining()) {
        result = { ready: false, reason: 'shutting down' };
      } else {
        if (cached === undefined || now() - cached.at > cacheMs)
          cached = { at: now(), result: probeUpstream() };
        result = await cached.result;
      }
      return new fetchAPI.Response(JSON.stringify(result), {
        status: result.ready ? 200 : 503,
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
    },
  });
  const { onRequest } = readiness;
  if (!onRequest) return readiness;
  return {
    ...readiness,
    // yoga's hook tests every request's URL against a URLPattern when its path is not the
    // endpoint (~1 % of a warm miss's CPU); that pattern (a plain path) matches exactly the
    // requests whose path is the endpoint, so only those, and those whose URL ends with it (the
    // hook's own first test), reach it.
    onRequest(payload) {
      const { request, url } = payload;
      if (request.url.endsWith(endpoint) || url.pathname === endpoint) return onRequest(payload);
    },
  };
}
