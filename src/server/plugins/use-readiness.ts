import type { Plugin } from 'graphql-yoga';

/** A probe result is reused this long, so a flood of `/ready` requests costs one upstream probe. */
export const DEFAULT_READY_CACHE_MS = 2_000;
const PROBE_TIMEOUT_MS = 2_000;

export interface ReadinessOptions {
  upstreamUrl: string;
  /** True once the gateway is shutting down: load balancers must stop sending work. */
  draining: () => boolean;
  /** @default '/ready' */
  endpoint?: string;
  /** @default 2_000 */
  cacheMs?: number;
  /** Monotonic clock in ms. @default performance.now */
  now?: () => number;
}

export interface Readiness {
  ready: boolean;
  /** Why not, in a few words; absent when ready. */
  reason?: string;
  /** Absent while shutting down (not probed). */
  upstream?: { reachable: boolean; status: number | null };
}

/**
 * `/ready` answers 200 or 503 with a JSON body saying why. Ready means: not shutting down, and
 * the upstream answers HTTP below 500 to a request without a token (the 401 it gets costs no
 * quota and proves the upstream is up).
 */
export function useReadiness({
  upstreamUrl,
  draining,
  endpoint = '/ready',
  cacheMs = DEFAULT_READY_CACHE_MS,
  now = () => performance.now(),
}: ReadinessOptions): Plugin {
  let cached: { at: number; result: Promise<Readiness> } | undefined;
  const probe = async (): Promise<Readiness> => {
    try {
      const response = await fetch(`${upstreamUrl}/user`, {
        signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      });
      await response.body?.cancel();
      const ok = response.status < 500;
      return {
        ready: ok,
        ...(ok ? {} : { reason: `upstream answers ${response.status}` }),
        upstream: { reachable: true, status: response.status },
      };
    } catch (error) {
      const cause =
        error instanceof Error && error.name === 'TimeoutError' ? 'timed out' : 'unreachable';
      return {
        ready: false,
        reason: `upstream ${cause}`,
        upstream: { reachable: false, status: null },
      };
    }
  };
  return {
    async onRequest({ url, endResponse, fetchAPI }) {
      if (url.pathname !== endpoint) return;
      let result: Readiness;
      if (draining()) {
        result = { ready: false, reason: 'shutting down' };
      } else {
        if (cached === undefined || now() - cached.at > cacheMs)
          cached = { at: now(), result: probe() };
        result = await cached.result;
      }
      endResponse(
        new fetchAPI.Response(JSON.stringify(result), {
          status: result.ready ? 200 : 503,
          headers: { 'content-type': 'application/json; charset=utf-8' },
        }),
      );
    },
  };
}
