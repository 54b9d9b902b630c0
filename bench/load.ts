/**
 * A closed-loop load generator: `concurrency` workers each run one operation after another
 * until the phase has run `requests` operations or `durationMs` has passed, whichever is first.
 * Latency is measured per operation on the monotonic clock; a short warm-up is not recorded.
 */

export interface LoadOptions {
  concurrency: number;
  requests: number;
  durationMs: number;
  /** Operations run (and thrown away) before measuring, to warm the JIT and connections. */
  warmup?: number;
}

export interface LatencySummary {
  count: number;
  errors: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  meanMs: number;
  maxMs: number;
  throughputPerS: number;
  elapsedMs: number;
}

/** Nearest-rank percentile of sorted samples. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function summarize(
  samples: readonly number[],
  errors: number,
  elapsedMs: number,
): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((total, value) => total + value, 0);
  return {
    count: sorted.length,
    errors,
    p50Ms: percentile(sorted, 50),
    p95Ms: percentile(sorted, 95),
    p99Ms: percentile(sorted, 99),
    meanMs: sorted.length === 0 ? Number.NaN : sum / sorted.length,
    maxMs: sorted.at(-1) ?? Number.NaN,
    throughputPerS: elapsedMs > 0 ? (sorted.length * 1000) / elapsedMs : 0,
    elapsedMs,
  };
}

/**
 * What one operation reports: good or not (a bad one is counted as an error, its latency still
 * recorded), and optionally the milliseconds of its timed part when untimed work preceded it.
 */
export type Outcome = boolean | { ok: boolean; ms: number };

/** Runs `operation` under load; a throw counts as an error. */
export async function runLoad(
  operation: () => Promise<Outcome>,
  options: LoadOptions,
): Promise<LatencySummary> {
  const { concurrency, requests, durationMs, warmup = Math.min(50, requests) } = options;
  for (let i = 0; i < warmup; i += Math.max(1, concurrency)) {
    await Promise.all(
      Array.from({ length: Math.min(concurrency, warmup - i) }, () =>
        operation().catch(() => false),
      ),
    );
  }

  const samples: number[] = [];
  let errors = 0;
  let started = 0;
  const begin = performance.now();
  const deadline = begin + durationMs;
  const worker = async () => {
    while (started < requests && performance.now() < deadline) {
      started += 1;
      const t0 = performance.now();
      let outcome: Outcome = false;
      try {
        outcome = await operation();
      } catch {
        outcome = false;
      }
      const ms = typeof outcome === 'boolean' ? performance.now() - t0 : outcome.ms;
      samples.push(ms);
      if (!(typeof outcome === 'boolean' ? outcome : outcome.ok)) errors += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return summarize(samples, errors, performance.now() - begin);
}
