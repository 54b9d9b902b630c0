/**
 * The operations' counter and duration histogram are counted in plain numbers and handed to
 * prom-client at each scrape: what /metrics shows must be exactly what prom-client shows when
 * every sample is given to it as it comes (series, order, counts, buckets, sums).
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createGatewayMetrics, type OperationSample } from '../../src/telemetry/metrics.js';

const FAMILIES = ['gateway_operations_total', 'gateway_operation_duration_seconds'];
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The same two metrics, given every sample at once by prom-client's own `inc` and `observe`. */
function reference() {
  const registry = new Registry();
  const labelNames = ['operation', 'type', 'outcome'] as const;
  const operations = new Counter({
    name: 'gateway_operations_total',
    help: 'GraphQL operations by name, type and outcome (ok, partial, error, refused before running).',
    labelNames,
    registers: [registry],
  });
  const seconds = new Histogram({
    name: 'gateway_operation_duration_seconds',
    help: 'Execution time of GraphQL operations that ran.',
    labelNames,
    buckets: BUCKETS,
    registers: [registry],
  });
  return {
    registry,
    operation(sample: OperationSample) {
      const labels = {
        operation: sample.verified ? (sample.name ?? 'anonymous') : 'unverified',
        type: sample.type ?? 'unknown',
        outcome: sample.outcome,
      };
      operations.inc(labels);
      if (sample.durationMs !== undefined) seconds.observe(labels, sample.durationMs / 1000);
    },
  };
}

function gatewayMetrics() {
  return createGatewayMetrics({
    replicas: { stats: () => ({ replicas: 0, bytes: 0 }) },
    ledger: { limit: 200, usages: () => [] },
  });
}

/** The text of the two families only (the gateway's registry holds more). */
async function families(registry: Registry): Promise<string> {
  const texts = await Promise.all(FAMILIES.map((name) => registry.getSingleMetricAsString(name)));
  return texts.join('\n');
}

/** A small deterministic generator, so a failure names the samples it saw. */
function samples(count: number, seed: number): OperationSample[] {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const names = ['Dashboard', 'Accounts', null, 'Month'];
  const outcomes = ['ok', 'partial', 'error', 'refused'] as const;
  return Array.from({ length: count }, () => {
    const outcome = outcomes[Math.floor(next() * outcomes.length)]!;
    return {
      name: names[Math.floor(next() * names.length)]!,
      verified: next() < 0.8,
      type: next() < 0.9 ? 'query' : null,
      outcome,
      // Durations across every bucket and past the last (only +Inf holds those), rounded as
      // reports round them; refused operations have none.
      ...(outcome === 'refused'
        ? {}
        : { durationMs: Math.round(next() ** 4 * 40_000 * 100) / 100 }),
      errorCodes: [],
      staleReasons: [],
    };
  });
}

describe('operation figures counted between scrapes', () => {
  it('scrapes exactly what prom-client shows for the same samples, scrape after scrape', async () => {
    const metrics = gatewayMetrics();
    const expected = reference();
    // Nothing yet: no series in either.
    expect(await families(metrics.registry)).toBe(await families(expected.registry));
    for (const [round, batch] of [
      samples(500, 1),
      samples(3, 2),
      [],
      samples(2_000, 3),
    ].entries()) {
      for (const sample of batch) {
        metrics.operation(sample);
        expected.operation(sample);
      }
      const text = await families(metrics.registry);
      expect(text, `scrape ${round}`).toBe(await families(expected.registry));
      // A second scrape with no sample between counts nothing twice.
      expect(await families(metrics.registry)).toBe(text);
    }
  });

  it('counts N replays of one operation as N, with their durations', async () => {
    const metrics = gatewayMetrics();
    const replay: OperationSample = {
      name: 'Dashboard',
      verified: true,
      type: 'query',
      outcome: 'ok',
      durationMs: 0.04,
      errorCodes: [],
      staleReasons: [],
    };
    for (let i = 0; i < 1_000; i += 1) metrics.operation(replay);
    const text = await metrics.text();
    const labels = '{operation="Dashboard",type="query",outcome="ok"}';
    expect(text).toContain(`gateway_operations_total${labels} 1000`);
    expect(text).toContain(`gateway_operation_duration_seconds_count${labels} 1000`);
    expect(text).toContain(
      'gateway_operation_duration_seconds_bucket{le="0.005",operation="Dashboard",type="query",outcome="ok"} 1000',
    );
    for (let i = 0; i < 24; i += 1) metrics.operation(replay);
    expect(await metrics.text()).toContain(`gateway_operations_total${labels} 1024`);
  });
});
