/**
 * What an operator sees of a running gateway: JSON log lines, Prometheus metrics that move with
 * traffic, and OpenTelemetry traces that continue the client's trace through every upstream call.
 */
import { Writable } from 'node:stream';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/telemetry/logger.js';
import { MAX_OPERATION_NAMES } from '../../src/telemetry/metrics.js';
import { createOtelTracing, type OtelTracing } from '../../src/telemetry/otel.js';
import { tokenKey } from '../../src/upstream/token-key.js';
import { type Stack, startStack } from '../support/stack.js';

const QUERY = 'query Accounts { plan(id: "last-used") { name accounts { name } } }';

/** A strict reader of the Prometheus text format: throws on any line it does not understand. */
function parsePrometheus(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  const typed = new Set<string>();
  const name = '[a-zA-Z_:][a-zA-Z0-9_:]*';
  const label = '[a-zA-Z_][a-zA-Z0-9_]*="(?:\\\\.|[^"\\\\\\n])*"';
  const sample = new RegExp(
    `^(${name})(\\{(?:${label}(?:,${label})*)?\\})? (-?(?:\\d+(?:\\.\\d+)?(?:e[+-]?\\d+)?|NaN|\\+Inf|-Inf))$`,
  );
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) (.+)$/.exec(line);
    if (meta) {
      if (meta[1] === 'TYPE') {
        expect(['counter', 'gauge', 'histogram', 'summary', 'untyped']).toContain(meta[3]);
        typed.add(meta[2] as string);
      }
      continue;
    }
    const match = sample.exec(line);
    if (!match) throw new Error(`not Prometheus text: ${line}`);
    const family = (match[1] as string).replace(/_(bucket|sum|count)$/, '');
    if (!typed.has(family) && !typed.has(match[1] as string))
      throw new Error(`sample before its # TYPE line: ${line}`);
    samples.set(`${match[1]}${match[2] ?? ''}`, Number(match[3]));
  }
  return samples;
}

function lineCollector() {
  const lines: Record<string, unknown>[] = [];
  let raw = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      raw += chunk.toString('utf8');
      for (const line of chunk.toString('utf8').split('\n'))
        if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { stream, lines, raw: () => raw };
}

describe('logs and metrics', () => {
  let stack: Stack;
  const log = lineCollector();

  beforeAll(async () => {
    const logger = await createLogger({ level: 'info', destination: log.stream });
    stack = await startStack({ deps: { logger } });
  });
  afterAll(() => stack.close());

  const metrics = async () => {
    const response = await fetch(stack.url.replace('/graphql', '/metrics'));
    expect(response.headers.get('content-type')).toContain('text/plain');
    return parsePrometheus(await response.text());
  };

  it('serves Prometheus text whose counters move with traffic', async () => {
    const ok = 'gateway_operations_total{operation="Accounts",type="query",outcome="ok"}';
    const exports = 'gateway_replica_syncs_total{kind="export",result="ok"}';
    const upstream =
      'gateway_upstream_request_duration_seconds_count{operation_id="getPlanById",status="200"}';
    const before = await metrics();
    expect(before.get(ok) ?? 0).toBe(0);

    await stack.gql(QUERY);
    const afterOne = await metrics();
    expect(afterOne.get(ok)).toBe(1);
    expect(afterOne.get(exports)).toBe(1);
    expect(afterOne.get(upstream)).toBe(1);
    expect(afterOne.get('gateway_replicas')).toBe(1);
    expect(afterOne.get('gateway_replica_bytes')).toBeGreaterThan(0);
    expect(
      afterOne.get(
        'gateway_operation_duration_seconds_count{operation="Accounts",type="query",outcome="ok"}',
      ),
    ).toBe(1);
    expect(afterOne.get('gateway_upstream_quota_tokens{remaining="151-200"}')).toBe(1);

    await stack.gql(QUERY, undefined, { headers: { 'cache-control': 'no-cache' } });
    const afterTwo = await metrics();
    expect(afterTwo.get(ok)).toBe(2);
    expect(afterTwo.get('gateway_replica_syncs_total{kind="delta",result="ok"}')).toBe(1);
    expect(afterTwo.get(upstream)).toBe(2);
  });

  it('never puts a token in a label', async () => {
    const text = await (await fetch(stack.url.replace('/graphql', '/metrics'))).text();
    expect(text).not.toContain(stack.token);
  });

  it('counts refused operations under "unverified", never under the name they carry', async () => {
    await stack.gql('query Broken { plan(id: "last-used") { noSuchField } }', undefined, {
      headers: { 'x-request-id': 'req-broken' },
    });
    const after = await metrics();
    expect(
      after.get('gateway_operations_total{operation="unverified",type="query",outcome="refused"}'),
    ).toBe(1);
    expect([...after.keys()].some((key) => key.includes('operation="Broken"'))).toBe(false);
    // The log still names it: a log line adds no series.
    expect(log.lines.find((entry) => entry.requestId === 'req-broken')).toMatchObject({
      operationName: 'Broken',
      outcome: 'refused',
    });
  });

  it('gives no name slot to callers without a good token, however many names they invent', async () => {
    const send = (query: string, token: string | null) =>
      stack.gql(query, undefined, { token, headers: { 'x-graphql-yoga-csrf': 'test' } });
    const aliases = Array.from({ length: 31 }, (_, i) => `a${i}: __typename`).join(' ');
    const kinds = [
      (i: number) => send(`query Junk${i} { __typename }`, null),
      (i: number) => send(`query NoToken${i} { user { id } }`, null),
      (i: number) => send(`query JunkToken${i} { user { id } }`, `junk-${i % 5}-0123456789`),
      (i: number) => send(`query Refused${i} { ${aliases} }`, stack.token),
    ];
    for (let i = 0; i < 240; i += 8)
      await Promise.all(Array.from({ length: 8 }, (_, j) => kinds[(i + j) % 4]!(i + j)));
    await stack.gql('query Dashboard { plan(id: "last-used") { name } }');
    const labels = new Set(
      [...(await metrics()).keys()]
        .filter((key) => key.startsWith('gateway_operations_total{'))
        .map((key) => /operation="([^"]*)"/.exec(key)?.[1]),
    );
    expect(
      [...labels].filter((name) => /^(Junk|NoToken|JunkToken|Refused)\d+$/.test(name ?? '')),
    ).toEqual([]);
    expect(labels).toContain('unverified');
    expect(labels).toContain('Dashboard');
  });

  it('logs one JSON line per operation with time, level and the caller request id', async () => {
    await stack.gql(QUERY, undefined, { headers: { 'x-request-id': 'req-42' } });
    const line = log.lines.find((entry) => entry.requestId === 'req-42');
    expect(line).toMatchObject({
      level: 'info',
      msg: 'operation',
      operationName: 'Accounts',
      operationType: 'query',
      outcome: 'ok',
      cacheHits: expect.any(Number),
      upstreamCalls: expect.any(Number),
      stale: false,
      errorCodes: [],
    });
    expect(new Date(String(line?.time)).toISOString()).toBe(line?.time);
  });

  it.each([
    ['too long', 'x'.repeat(129)],
    ['with spaces and quotes', 'id "injected" level=error'],
  ])('replaces an X-Request-Id %s with a generated one', async (_case, offered) => {
    const response = await fetch(stack.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${stack.token}`,
        'x-request-id': offered,
      },
      body: JSON.stringify({ query: QUERY }),
    });
    const id = response.headers.get('x-request-id') ?? '';
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(log.lines.some((entry) => entry.requestId === id)).toBe(true);
    expect(log.raw()).not.toContain(offered);
  });

  it('warns for an answer served stale, and never logs the token', async () => {
    stack.sandbox.setFaults([{ kind: 'status503' }]);
    try {
      const answer = await stack.gql(QUERY, undefined, {
        headers: { 'cache-control': 'no-cache', 'x-request-id': 'stale-1' },
      });
      expect(answer.body.extensions?.stale).toBeDefined();
    } finally {
      stack.sandbox.setFaults([]);
    }
    expect(log.lines.find((entry) => entry.requestId === 'stale-1')).toMatchObject({
      level: 'warn',
      stale: true,
      staleReasons: ['UPSTREAM_UNAVAILABLE'],
    });
    expect(
      (await metrics()).get('gateway_stale_answers_total{reason="UPSTREAM_UNAVAILABLE"}'),
    ).toBe(1);
    await stack.gql(QUERY, { token: stack.token }, { headers: { 'x-request-id': 'tok' } });
    expect(log.raw()).not.toContain(stack.token);
  });

  it('holds neither a token nor its digest in any log line or metric', async () => {
    // A refused token and an accepted one, over queries, a failure and a refusal.
    await stack.gql(QUERY, undefined, { token: 'refused-token-telemetry-01' });
    await stack.gql('query Broken { plan(id: "last-used") { noSuchField } }');
    await stack.gql(QUERY);
    const text = await (await fetch(stack.url.replace('/graphql', '/metrics'))).text();
    for (const secret of [
      stack.token,
      stack.tokenKey,
      'refused-token-telemetry-01',
      tokenKey('refused-token-telemetry-01'),
    ]) {
      expect(log.raw()).not.toContain(secret);
      expect(text).not.toContain(secret);
    }
  });

  it(`names the first ${MAX_OPERATION_NAMES} operations of verified callers, then "other"`, async () => {
    const names = (samples: Map<string, number>) =>
      new Set(
        [...samples.keys()]
          .filter((key) => key.startsWith('gateway_operations_total{'))
          .map((key) => /operation="([^"]*)"/.exec(key)?.[1])
          .filter((name) => !['unverified', 'anonymous', 'other'].includes(name ?? '')),
      );
    const before = names(await metrics()).size;
    // Enough new names to fill every slot left, and some more.
    for (let i = 0; i < MAX_OPERATION_NAMES - before + 5; i += 10) {
      await Promise.all(
        Array.from({ length: 10 }, (_, j) => stack.gql(`query Named${i + j} { __typename }`)),
      );
    }
    const after = await metrics();
    expect(names(after).size).toBe(MAX_OPERATION_NAMES);
    expect(
      after.get('gateway_operations_total{operation="other",type="query",outcome="ok"}'),
    ).toBeGreaterThanOrEqual(5);
  });
});

describe('traces', () => {
  let stack: Stack;
  let tracing: OtelTracing;
  let dispatcher: Dispatcher;
  const exporter = new InMemorySpanExporter();
  const sentUpstream: string[] = [];

  beforeAll(async () => {
    tracing = await createOtelTracing({ exporter });
    // Sees the headers of every upstream request, as the upstream would.
    dispatcher = new Agent().compose((dispatch) => (options, handler) => {
      const headers = options.headers as Record<string, string> | undefined;
      sentUpstream.push(headers?.traceparent ?? '');
      return dispatch(options, handler);
    });
    stack = await startStack({ deps: { tracer: tracing.tracer, dispatcher } });
  });
  afterAll(async () => {
    await stack.close();
    await dispatcher.close();
    await tracing.shutdown();
  });

  it('continues the client trace: one span per operation and one per upstream call', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const clientSpan = '00f067aa0ba902b7';
    const answer = await stack.gql(QUERY, undefined, {
      headers: { traceparent: `00-${traceId}-${clientSpan}-01` },
    });
    const calls = (answer.body.extensions?.upstream as { calls?: number } | undefined)?.calls ?? 0;
    expect(calls).toBeGreaterThanOrEqual(1);

    const spans = exporter.getFinishedSpans();
    const operation = spans.filter((s) => s.name === 'query Accounts');
    expect(operation).toHaveLength(1);
    const op = operation[0]!;
    expect(op.spanContext().traceId).toBe(traceId);
    expect(op.parentSpanContext?.spanId).toBe(clientSpan);

    const upstream = spans.filter((s) => s.name.startsWith('upstream '));
    expect(upstream).toHaveLength(calls);
    for (const span of upstream) {
      expect(span.spanContext().traceId).toBe(traceId);
      expect(span.parentSpanContext?.spanId).toBe(op.spanContext().spanId);
      expect(span.attributes['http.response.status_code']).toBe(200);
    }
    // The upstream received each attempt's own span as its parent.
    expect(sentUpstream).toEqual(
      upstream.map((span) => `00-${traceId}-${span.spanContext().spanId}-01`),
    );
  });

  it('starts a new trace when the client sends none or a malformed one', async () => {
    exporter.reset();
    await stack.gql(QUERY, undefined, { headers: { traceparent: 'garbage' } });
    const [op] = exporter.getFinishedSpans().filter((s) => s.name === 'query Accounts');
    expect(op?.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(op?.parentSpanContext).toBeUndefined();
  });
});
