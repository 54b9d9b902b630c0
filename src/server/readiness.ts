/** @default 5 s: a load balancer probing every second costs the upstream one request in five. */
export const DEFAULT_READINESS_TTL_MS = 5_000;

/**
 * `/ready`'s probe of the upstream, remembered for `ttlMs` and shared by concurrent probes:
 * however many clients ask, the upstream sees at most one request per `ttlMs` from it. (Each
 * probe is a request the upstream may count against the gateway's address.)
 */
export function createReadinessProbe(
  check: () => Promise<boolean>,
  { ttlMs = DEFAULT_READINESS_TTL_MS, now = Date.now }: { ttlMs?: number; now?: () => number } = {},
): () => Promise<boolean> {
  let last: { at: number; ready: Promise<boolean> } | undefined;
  return () => {
    const at = now();
    if (!last || at - last.at >= ttlMs) last = { at, ready: check() };
    return last.ready;
  };
}

/**
 * Ready when the upstream answers HTTP at all. The probe sends no token (so it costs no
 * quota); the 401 it gets proves the upstream is up.
 */
export async function upstreamReachable(baseUrl: string): Promise<boolean> {
  try {
    const response = await fetch(`${baseUrl}/user`, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.status < 500;
  } catch {
    return false;
  }
}
