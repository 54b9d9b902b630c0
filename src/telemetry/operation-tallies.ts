/**
 * The per-operation figures of /metrics (`gateway_operations_total` and
 * `gateway_operation_duration_seconds`), counted on the request path in plain numbers and added
 * into their prom-client metrics only when /metrics is scraped (each metric's `collect`).
 *
 * Why: prom-client hashes and validates an operation's labels on every `inc` and `observe`, which
 * a replayed answer (a few tens of microseconds in all) paid on every request. Here a series is
 * found by one map look-up and counted in integers; what a scrape shows is what prom-client
 * would have shown had every sample reached it: the same series, in the order of their first
 * samples, with the same counts, buckets and sums (each sum adds the same values in the same
 * order, from 0, as prom-client's own `observe` does).
 */
import type { Counter, Histogram } from 'prom-client';

export interface OperationLabels {
  readonly operation: string;
  readonly type: string;
  readonly outcome: string;
}

/** Private: one series' figures: counted here, handed to prom-client at each scrape. */
interface Tally {
  readonly labels: OperationLabels;
  /** The histogram series' own key (any string unique per series; never an integer's form). */
  readonly key: string;
  count: number;
  /** Of `count`, what the counter has been given already. */
  counted: number;
  /** Samples with a duration, their per-bucket counts (by upper bound) and their sum in seconds. */
  timed: number;
  readonly buckets: Float64Array;
  seconds: number;
}

export interface OperationTallies {
  /** One operation's sample; `seconds` when it ran (refusals have none). */
  record(labels: OperationLabels, seconds: number | undefined): void;
  /** Gives `counter` what it was not given yet (its `collect`). */
  flushCounts(counter: Counter<keyof OperationLabels>): void;
  /** Sets `histogram`'s series to the figures counted here (its `collect`). */
  writeDurations(histogram: Histogram<keyof OperationLabels>): void;
}

/** `bounds`: the histogram's bucket upper bounds, ascending (as it was made with). */
export function createOperationTallies(bounds: readonly number[]): OperationTallies {
  const byKey = new Map<string, Tally>();
  /** In the order of their first sample: the order prom-client would have made the series in. */
  const counted: Tally[] = [];
  /** In the order of their first sample with a duration. */
  const timed: Tally[] = [];
  return {
    record(labels, seconds) {
      // Newlines cannot occur in an operation's name label (GraphQL names), nor in the others.
      const key = `${labels.operation}\n${labels.type}\n${labels.outcome}`;
      let tally = byKey.get(key);
      if (tally === undefined) {
        tally = {
          labels: { operation: labels.operation, type: labels.type, outcome: labels.outcome },
          key: `s${counted.length}`,
          count: 0,
          counted: 0,
          timed: 0,
          buckets: new Float64Array(bounds.length),
          seconds: 0,
        };
        byKey.set(key, tally);
        counted.push(tally);
      }
      tally.count += 1;
      // prom-client refuses a value that is not a finite number, leaving its series as it was.
      if (seconds === undefined || !Number.isFinite(seconds)) return;
      if (tally.timed === 0) timed.push(tally);
      tally.timed += 1;
      tally.seconds += seconds;
      const bucket = bucketOf(bounds, seconds);
      if (bucket !== -1) tally.buckets[bucket]! += 1;
    },
    flushCounts(counter) {
      for (const tally of counted) {
        if (tally.count === tally.counted) continue;
        counter.inc(tally.labels, tally.count - tally.counted);
        tally.counted = tally.count;
      }
    },
    writeDurations(histogram) {
      const series = seriesOf(histogram);
      for (const tally of timed) {
        const bucketValues: Record<string, number> = {};
        for (let i = 0; i < bounds.length; i += 1) bucketValues[bounds[i]!] = tally.buckets[i]!;
        series[tally.key] = {
          labels: { ...tally.labels },
          bucketValues,
          sum: tally.seconds,
          count: tally.timed,
        };
      }
    },
  };
}

/** Private: the first bucket whose upper bound holds `value`; -1 past the last (+Inf only). */
function bucketOf(bounds: readonly number[], value: number): number {
  for (let i = 0; i < bounds.length; i += 1) if (value <= bounds[i]!) return i;
  return -1;
}

/** Private: a histogram series as prom-client 15 keeps it (what its `observe` creates). */
interface HistogramSeries {
  labels: Record<string, string>;
  bucketValues: Record<string, number>;
  sum: number;
  count: number;
}

/**
 * Private: the series a prom-client histogram exports (its `hashMap`, which `get()` reads right
 * after calling `collect`). prom-client has no public call that sets a series' buckets and sum;
 * `operation-tallies.test.ts` compares the whole exposition with prom-client's own `observe`, so
 * a prom-client that kept them otherwise fails there.
 */
function seriesOf(histogram: Histogram<string>): Record<string, HistogramSeries> {
  return (histogram as unknown as { hashMap: Record<string, HistogramSeries> }).hashMap;
}
