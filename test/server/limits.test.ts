/**
 * Safety limits of docs/graph.md#limits, over real HTTP: each refused before any upstream call.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/config/config.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({
    config: {
      limits: {
        ...DEFAULT_LIMITS,
        depth: 8,
        complexity: 5_000,
        aliases: 5,
        tokens: 400,
        directives: 3,
        batch: 3,
        bodyBytes: 4_096,
      },
    },
  });
});

afterAll(() => stack.close());

beforeEach(() => stack.resetUpstreamCalls());

function codes(body: { errors?: { extensions?: Record<string, unknown> }[] }): unknown[] {
  return (body.errors ?? []).map((e) => e.extensions?.code);
}

describe('operation limits', () => {
  it('refuses an operation nested deeper than the depth limit', async () => {
    const response = await stack.gql(
      '{ plan(id: "last-used") { accounts { transferPayee { transferAccount { transferPayee { transferAccount { transferPayee { transferAccount { name } } } } } } } } }',
    );
    expect(codes(response.body)).toContain('OPERATION_TOO_COMPLEX');
    expect(response.body.errors?.[0]?.message).toMatch(/depth is \d+, over the limit of 8/);
    expect(stack.upstreamCalls()).toEqual([]);
  });

  it('prices connections by page size and refuses an operation over the cost limit', async () => {
    const response = await stack.gql(
      '{ plan(id: "last-used") { accounts { transactions(first: 500) { nodes { id amount memo payee { name } } } } } }',
    );
    expect(codes(response.body)).toContain('OPERATION_TOO_COMPLEX');
    expect(response.body.errors?.[0]?.extensions).toMatchObject({ limit: 'cost', max: 5_000 });
    expect(stack.upstreamCalls()).toEqual([]);
  });

  it('accepts the dashboard-sized operation under the default limits', async () => {
    const response = await stack.gql(
      '{ plan(id: "last-used") { transactions(first: 50) { nodes { id amount payee { name } category { name } } } } }',
    );
    expect(response.body.errors).toBeUndefined();
  });

  it('refuses a subscription nested deeper than the depth limit, before it starts', async () => {
    const response = await fetch(stack.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        authorization: `Bearer ${stack.token}`,
      },
      body: JSON.stringify({
        query:
          'subscription { accountBalancesChanged(planId: "last-used") { accounts { transferPayee { transferAccount { transferPayee { transferAccount { transferPayee { transferAccount { name } } } } } } } } }',
      }),
    });
    const text = await response.text();
    expect(text).toContain('OPERATION_TOO_COMPLEX');
    expect(text).toMatch(/depth is \d+, over the limit of 8/);
    expect(stack.upstreamCalls()).toEqual([]);
  });

  it('refuses more aliases than allowed', async () => {
    const aliases = Array.from({ length: 6 }, (_, i) => `a${i}: user { id }`).join(' ');
    const response = await stack.gql(`{ ${aliases} }`);
    expect(response.body.errors?.[0]?.message).toMatch(/alias/i);
    expect(response.body.data ?? null).toBeNull();
    expect(stack.upstreamCalls()).toEqual([]);
  });

  it('refuses a document with too many tokens', async () => {
    const fields = Array.from({ length: 450 }, () => 'id').join(' ');
    const response = await stack.gql(`{ user { ${fields} } }`);
    expect(response.body.errors?.[0]?.message).toMatch(/token/i);
    expect(stack.upstreamCalls()).toEqual([]);
  });

  it('refuses too many directives', async () => {
    const response = await stack.gql(
      '{ user @include(if: true) @include(if: true) @skip(if: false) @skip(if: false) { id } }',
    );
    expect(response.body.errors?.[0]?.message).toMatch(/directive/i);
    expect(stack.upstreamCalls()).toEqual([]);
  });
});

describe('HTTP limits', () => {
  async function post(body: string, headers: Record<string, string> = {}) {
    return fetch(stack.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${stack.token}`,
        ...headers,
      },
      body,
    });
  }

  it('answers a batch up to the batch limit and refuses a larger one', async () => {
    const op = { query: '{ user { id } }' };
    const ok = await post(JSON.stringify([op, op, op]));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toHaveLength(3);
    const tooMany = await post(JSON.stringify([op, op, op, op]));
    expect(tooMany.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(await tooMany.json())).toMatch(/batch/i);
  });

  it('refuses a request body over the size limit with 413 before reading it all', async () => {
    const response = await post(
      JSON.stringify({ query: '{ user { id } }', variables: { pad: 'x'.repeat(10_000) } }),
    );
    expect(response.status).toBe(413);
    expect(stack.upstreamCalls()).toEqual([]);
  });

  /** A body sent in chunks, without `Content-Length`: the gateway must count it as it reads. */
  async function postChunked(body: string) {
    const bytes = new TextEncoder().encode(body);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 1_000)
          controller.enqueue(bytes.slice(at, at + 1_000));
        controller.close();
      },
    });
    return fetch(stack.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.token}` },
      body: stream,
      duplex: 'half',
    } as RequestInit);
  }

  it('counts a body without Content-Length as it reads it: over the limit is 413', async () => {
    const small = await postChunked(JSON.stringify({ query: '{ user { id } }' }));
    expect(small.status).toBe(200);
    stack.resetUpstreamCalls();
    const large = await postChunked(
      JSON.stringify({ query: '{ user { id } }', variables: { pad: 'x'.repeat(10_000) } }),
    );
    expect(large.status).toBe(413);
    expect(codes((await large.json()) as Parameters<typeof codes>[0])).toEqual([
      'REQUEST_ENTITY_TOO_LARGE',
    ]);
    expect(stack.upstreamCalls()).toEqual([]);
  });

  it('prevents CSRF: a GET query without a preflight header is refused', async () => {
    const url = `${stack.url}?query=${encodeURIComponent('{ user { id } }')}&access_token=${stack.token}`;
    const simple = await fetch(url);
    expect(simple.status).toBe(403);
    const preflighted = await fetch(url, { headers: { 'x-graphql-yoga-csrf': '1' } });
    expect(preflighted.status).toBe(200);
    expect(((await preflighted.json()) as { data: { user: { id: string } } }).data.user.id).toBe(
      stack.sandbox.users[0]!.userId,
    );
  });

  it('serves GraphiQL to a browser and health endpoints to probes', async () => {
    const page = await fetch(stack.url, { headers: { accept: 'text/html' } });
    // graphiql is off in the test harness; the endpoint then does not serve HTML.
    expect(page.headers.get('content-type') ?? '').not.toContain('text/html');
    const health = await fetch(stack.url.replace('/graphql', '/health'));
    expect(health.status).toBe(200);
    const ready = await fetch(stack.url.replace('/graphql', '/ready'));
    expect(ready.status).toBe(200);
  });
});

describe('CORS', () => {
  it('allows configured origins only', async () => {
    const restricted = await startStack({ config: { corsOrigins: ['https://app.example'] } });
    try {
      const preflight = (origin: string) =>
        fetch(restricted.url, {
          method: 'OPTIONS',
          headers: {
            origin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization, content-type',
          },
        });
      const allowed = await preflight('https://app.example');
      expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
      expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
        'authorization',
      );
      const denied = await preflight('https://evil.example');
      expect(denied.headers.get('access-control-allow-origin')).not.toBe('https://evil.example');
    } finally {
      await restricted.close();
    }
  });
});
