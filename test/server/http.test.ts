/**
 * The HTTP surface around the GraphQL answers: compression, the headers every answer carries,
 * the origin check, `/ready`, and GraphiQL served as shared immutable assets.
 */
import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { createSchema, createYoga } from 'graphql-yoga';
import { MockAgent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useGraphiQL } from '../../src/server/plugins/graphiql/use-graphiql.js';
import { preferredEncoding } from '../../src/server/plugins/use-compression.js';
import { type Stack, startGateway, startStack } from '../support/stack.js';

const PAGE = `{ plan(id: "last-used") { transactions(first: 500) { nodes {
  id date amount amountFormatted memo cleared payee { name } category { name } account { name } } } } }`;

/** POSTs with node:http, which (unlike fetch) hands back the bytes as they came. */
function rawPost(
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('answers', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ config: { corsOrigins: ['https://app.example'] } });
  });
  afterAll(() => stack.close());

  const post = (headers: Record<string, string>, query = PAGE) =>
    rawPost(stack.url, JSON.stringify({ query }), {
      'content-type': 'application/json',
      authorization: `Bearer ${stack.token}`,
      ...headers,
    });

  it('compresses a large answer with gzip or br as accepted, both decoding to the same JSON', async () => {
    const plain = await post({});
    const gzip = await post({ 'accept-encoding': 'gzip' });
    const br = await post({ 'accept-encoding': 'gzip;q=0.5, br' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(br.headers['content-encoding']).toBe('br');
    for (const answer of [plain, gzip, br])
      expect(answer.headers.vary).toContain('Accept-Encoding');
    const json = JSON.parse(plain.body.toString('utf8')) as {
      data: { plan: { transactions: { nodes: unknown[] } } };
    };
    expect(json.data.plan.transactions.nodes).toHaveLength(500);
    // Only `extensions` (replica age, cache hits) may differ between the three answers.
    expect(JSON.parse(gunzipSync(gzip.body).toString('utf8')).data).toEqual(json.data);
    expect(JSON.parse(brotliDecompressSync(br.body).toString('utf8')).data).toEqual(json.data);
    expect(gzip.body.length).toBeLessThan(plain.body.length / 3);
    expect(br.body.length).toBeLessThan(plain.body.length / 3);
  });

  it('sends small answers as they are', async () => {
    const small = await post(
      { 'accept-encoding': 'gzip, br' },
      '{ plan(id: "last-used") { name } }',
    );
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.body.toString('utf8'))).toEqual({
      data: { plan: { name: 'Demo Household' } },
      extensions: expect.any(Object),
    });
  });

  it('marks data answers no-store and nosniff, and returns a request id', async () => {
    const answer = await post({}, '{ plan(id: "last-used") { name } }');
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each(['null', 'https://evil.example'])(
    'refuses Origin %s when an origin list is configured',
    async (origin) => {
      const refused = await post({ origin }, '{ plan(id: "last-used") { name } }');
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.body.toString('utf8'))).toMatchObject({
        errors: [{ extensions: { code: 'FORBIDDEN_ORIGIN' } }],
      });
      expect(refused.headers['access-control-allow-origin']).not.toBe(origin);
    },
  );

  it('allows a listed origin and the gateway own origin', async () => {
    const listed = await post(
      { origin: 'https://app.example' },
      '{ plan(id: "last-used") { name } }',
    );
    expect(listed.status).toBe(200);
    expect(listed.headers['access-control-allow-origin']).toBe('https://app.example');
    const own = await post(
      { origin: new URL(stack.url).origin },
      '{ plan(id: "last-used") { name } }',
    );
    expect(own.status).toBe(200);
  });
});

describe('/ready', () => {
  it('says why it is or is not ready', async () => {
    const stack = await startStack();
    try {
      const ready = await fetch(stack.url.replace('/graphql', '/ready'));
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({
        ready: true,
        upstream: { reachable: true, status: 401 },
      });
      stack.gateway.drain();
      const draining = await fetch(stack.url.replace('/graphql', '/ready'));
      expect(draining.status).toBe(503);
      expect(await draining.json()).toMatchObject({ ready: false, reason: 'shutting down' });
    } finally {
      await stack.close();
    }
    // The sandbox is closed now: nothing listens at the upstream URL.
    const orphan = await startGateway(stack.sandbox.url);
    try {
      const unreachable = await fetch(orphan.url.replace('/graphql', '/ready'));
      expect(unreachable.status).toBe(503);
      expect(await unreachable.json()).toEqual({
        ready: false,
        reason: 'upstream unreachable',
        upstream: { reachable: false, status: null },
      });
    } finally {
      await orphan.close();
    }
  });

  it("probes the upstream through the gateway's own undici client, not the global fetch", async () => {
    // An upstream only the injected dispatcher knows: the global fetch could not reach it.
    for (const [answer, ready] of [
      [401, { ready: true, upstream: { reachable: true, status: 401 } }],
      [
        503,
        {
          ready: false,
          reason: 'upstream answers 503',
          upstream: { reachable: true, status: 503 },
        },
      ],
    ] as const) {
      const agent = new MockAgent();
      agent.disableNetConnect();
      agent
        .get('http://upstream.invalid')
        .intercept({ path: '/v1/user', method: 'GET' })
        .reply(answer, { error: { id: String(answer), name: 'refused', detail: 'Refused' } });
      const gateway = await startGateway('http://upstream.invalid/v1', {
        serve: 'fetch',
        deps: { dispatcher: agent },
      });
      try {
        const response = await gateway.fetch(gateway.url.replace('/graphql', '/ready'));
        expect(response.status).toBe(ready.ready ? 200 : 503);
        expect(await response.json()).toEqual(ready);
        agent.assertNoPendingInterceptors();
      } finally {
        await gateway.close();
        await agent.close();
      }
    }
  });
});

describe('GraphiQL', () => {
  const yoga = createYoga({
    schema: createSchema({ typeDefs: 'type Query { hello: String }' }),
    logging: false,
    graphiql: false,
    plugins: [
      useGraphiQL({
        defaultQuery: '{ hello } </script><script>alert(1)</script>',
        maxConcurrentReaders: 2,
        // Slots here free only as the test says (stalls and eviction: graphiql-readers.test.ts).
        stallMs: 3_600_000,
        evictIdleMs: 3_600_000,
      }),
    ],
  });
  const get = (path: string, headers: Record<string, string> = {}) =>
    yoga.fetch(`http://gateway.test${path}`, { headers });

  it('serves a small page with a CSP, no framing, and an ETag', async () => {
    const page = await get('/graphql', { accept: 'text/html' });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html.length).toBeLessThan(4096);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    // The default query travels as data: it cannot close the script element.
    expect(html).not.toContain('</script><script>alert(1)');
    const again = await get('/graphql', {
      accept: 'text/html',
      'if-none-match': page.headers.get('etag') ?? '',
    });
    expect(again.status).toBe(304);
  });

  it('serves the bundle as immutable bytes, precompressed once', async () => {
    const html = await (await get('/graphql', { accept: 'text/html' })).text();
    const base = /src="(\/graphiql\/[0-9a-f]+\/)app\.js"/.exec(html)?.[1] ?? '';
    const plain = await get(`${base}app.js`);
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const bytes = Buffer.from(await plain.arrayBuffer());
    const br = await get(`${base}app.js`, { 'accept-encoding': 'br' });
    expect(br.headers.get('content-encoding')).toBe('br');
    const compressed = Buffer.from(await br.arrayBuffer());
    expect(compressed.length).toBeLessThan(bytes.length / 3);
    expect(brotliDecompressSync(compressed).equals(bytes)).toBe(true);
    expect(br.headers.get('etag')).toBe(plain.headers.get('etag'));
    expect(
      (await get(`${base}app.js`, { 'if-none-match': plain.headers.get('etag') ?? '' })).status,
    ).toBe(304);
    expect((await get(`${base}missing.js`)).status).toBe(404);
  });

  it('bounds the downloads in flight; a slot frees when a reader finishes or leaves', async () => {
    const html = await (await get('/graphql', { accept: 'text/html' })).text();
    const base = /src="(\/graphiql\/[0-9a-f]+\/)app\.js"/.exec(html)?.[1] ?? '';
    const slow = [await get(`${base}app.js`), await get(`${base}app.css`)];
    expect(slow.map((r) => r.status)).toEqual([200, 200]);
    const busy = await get(`${base}json.worker.js`);
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('1');
    // The page itself is never held back.
    expect((await get('/graphql', { accept: 'text/html' })).status).toBe(200);
    await slow[0]?.body?.cancel();
    await slow[1]?.arrayBuffer();
    expect((await get(`${base}json.worker.js`)).status).toBe(200);
  });
});

describe('preferredEncoding', () => {
  it.each([
    [null, null],
    ['identity', null],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, br', 'br'],
    ['br;q=0.1, gzip;q=0.9', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['*', 'br'],
    ['*;q=0', null],
    ['deflate', null],
  ])('%s -> %s', (header, expected) => {
    expect(preferredEncoding(header)).toBe(expected);
  });
});
