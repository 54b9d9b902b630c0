import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as rawRequest } from 'node:http';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack.js';
import { countResolvers, type ResolverCounter } from './support/recorders.js';

const HEADER = '{ plan(id: "last-used") { id name accounts { id name balance } } }';

describe('HTTP caching of GET queries', () => {
  let stack: Stack;
  let resolvers: ResolverCounter;
  const start = Date.UTC(2026, 10, 20, 12);
  let now = start;

  beforeAll(async () => {
    resolvers = countResolvers();
    // The sandbox's clock stands at `start`; the gateway's (`now`) is the test's to move.
    stack = await startStack({
      clock: 'manual',
      start,
      deps: { now: () => now, plugins: [resolvers.plugin] },
    });
  });
  afterAll(() => stack.close());
  beforeEach(() => {
    now = start;
  });

  /** A GET as a browser's cache or a mobile HTTP stack sends it: no header added on its own. */
  async function get(
    query: string,
    headers: Record<string, string> = {},
    token = stack.token,
    params: Record<string, string> = {},
  ) {
    const url = new URL(stack.url);
    url.searchParams.set('query', query);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    const response = await request(url, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...headers },
    });
    const text = await response.body.text();
    const header = (name: string) => {
      const value = response.headers[name];
      return Array.isArray(value) ? value.join(', ') : (value ?? null);
    };
    return { status: response.statusCode, text, header };
  }

  /** Upstream and resolver calls made by `work`. */
  async function cost<T>(work: () => Promise<T>) {
    stack.resetUpstreamCalls();
    const before = resolvers.count();
    const result = await work();
    return { result, upstream: stack.upstreamCalls(), resolvers: resolvers.count() - before };
  }

  it('answers with a strong ETag and Cache-Control: private, no-cache, without per-request metrics', async () => {
    const first = await get(HEADER);
    expect(first.status).toBe(200);
    expect(first.header('etag')).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(first.header('cache-control')).toBe('private, no-cache');
    expect(first.header('vary')).toContain('Authorization');
    const body = JSON.parse(first.text) as { data: unknown; extensions?: Record<string, unknown> };
    expect(body.data).toMatchObject({ plan: { name: expect.any(String) } });
    expect(body.extensions?.upstream).toBeUndefined();
    // The same answer, the same ETag.
    expect((await get(HEADER)).header('etag')).toBe(first.header('etag'));
  });

  it('sends one Vary line naming everything the answer depends on, 304s included', async () => {
    /** The header lines as they crossed the wire, names lower-cased. */
    const varyLines = (headers: Record<string, string>) =>
      new Promise<string[]>((resolve, reject) => {
        const url = new URL(stack.url);
        url.searchParams.set('query', HEADER);
        rawRequest(
          url,
          { headers: { authorization: `Bearer ${stack.token}`, ...headers } },
          (res) => {
            res.resume();
            const lines: string[] = [];
            for (let i = 0; i < res.rawHeaders.length; i += 2)
              if (res.rawHeaders[i]?.toLowerCase() === 'vary')
                lines.push(res.rawHeaders[i + 1] ?? '');
            resolve(lines);
          },
        )
          .on('error', reject)
          .end();
      });
    const names = (line: string | undefined) => new Set(line?.split(/\s*,\s*/));
    const plain = await varyLines({ accept: 'application/json' });
    expect(plain).toHaveLength(1);
    expect(names(plain[0])).toEqual(new Set(['Authorization', 'Accept', 'Accept-Encoding']));
    const fromPage = await varyLines({
      accept: 'application/json',
      'accept-encoding': 'gzip',
      origin: 'http://localhost:5173',
    });
    expect(fromPage).toHaveLength(1);
    expect(names(fromPage[0])).toEqual(
      new Set(['Origin', 'Authorization', 'Accept', 'Accept-Encoding']),
    );
    const etag = (await get(HEADER)).header('etag')!;
    const notModified = await varyLines({ accept: 'application/json', 'if-none-match': etag });
    expect(notModified).toHaveLength(1);
    expect(names(notModified[0])).toContain('Authorization');
  });

  it('answers If-None-Match with 304: no upstream call, no resolver call', async () => {
    const etag = (await get(HEADER)).header('etag')!;
    const {
      result,
      upstream,
      resolvers: resolved,
    } = await cost(() => get(HEADER, { 'if-none-match': etag }));
    expect(result.status).toBe(304);
    expect(result.text).toBe('');
    expect(result.header('etag')).toBe(etag);
    expect(upstream).toEqual([]);
    expect(resolved).toBe(0);
  });

  it('past max-age, revalidates with one delta request and still executes nothing', async () => {
    const etag = (await get(HEADER)).header('etag')!;
    now = start + 60_000;
    const {
      result,
      upstream,
      resolvers: resolved,
    } = await cost(() => get(HEADER, { 'if-none-match': etag }));
    expect(result.status).toBe(304);
    expect(upstream).toEqual(['getPlanById']);
    expect(resolved).toBe(0);
  });

  it('a write through the gateway changes the ETag at once (read-your-writes)', async () => {
    const before = await get(HEADER);
    const accountId = (
      JSON.parse(before.text) as { data: { plan: { accounts: { id: string }[] } } }
    ).data.plan.accounts[0]!.id;
    const write = await stack.gql(
      `mutation($accountId: UUID!) { createTransaction(planId: "last-used", input: {
        accountId: $accountId, date: "2026-11-19", amount: -1000, payeeName: "Cache test" }) { __typename } }`,
      { accountId },
    );
    expect(write.body.errors).toBeUndefined();
    const after = await get(HEADER, { 'if-none-match': before.header('etag')! });
    expect(after.status).toBe(200);
    expect(after.header('etag')).not.toBe(before.header('etag'));
    expect(after.text).not.toBe(before.text);
  });

  it('never matches across tokens, variables or documents', async () => {
    const etag = (await get(HEADER)).header('etag')!;
    const other = await get(HEADER, { 'if-none-match': etag }, 'not-a-real-token');
    expect(other.status).not.toBe(304);
    const withVariables = await get(HEADER, { 'if-none-match': etag }, stack.token, {
      variables: JSON.stringify({ unused: 1 }),
    });
    expect(withVariables.status).toBe(200);
    const otherDocument = await get(`${HEADER} # another document`, { 'if-none-match': etag });
    expect(otherDocument.status).toBe(200);
  });

  it('gives a hash-only persisted query the ETag of its text', async () => {
    const sha256Hash = createHash('sha256').update(HEADER).digest('hex');
    const extensions = JSON.stringify({ persistedQuery: { version: 1, sha256Hash } });
    // Hash and text together register the text (APQ); then the hash alone names it.
    const byText = await get(HEADER, {}, stack.token, { extensions });
    expect(byText.status).toBe(200);
    const url = new URL(stack.url);
    url.searchParams.set('extensions', extensions);
    const response = await request(url, {
      headers: { authorization: `Bearer ${stack.token}`, accept: 'application/json' },
    });
    const text = await response.body.text();
    expect(response.statusCode, text).toBe(200);
    expect(response.headers.etag).toBe(byText.header('etag'));
  });

  it('sends no ETag for volatile answers (rateLimit), errors, or metrics asked for', async () => {
    expect((await get('{ rateLimit { used } }')).header('etag')).toBeNull();
    const missing = await get('{ plan(id: "00000000-0000-4000-8000-000000000000") { id } }');
    expect(missing.header('etag')).toBeNull();
    const metrics = await get(HEADER, { 'x-upstream-metrics': '1' });
    expect(metrics.header('etag')).toBeNull();
    expect(JSON.parse(metrics.text).extensions.upstream).toBeDefined();
  });

  it('revalidates answers that read REST collections by executing them, still answering 304', async () => {
    const query = '{ user { id } plan(id: "last-used") { id name } }';
    const etag = (await get(query)).header('etag')!;
    expect(etag).toBeTruthy();
    const { result, upstream } = await cost(() => get(query, { 'if-none-match': etag }));
    expect(result.status).toBe(304);
    expect(upstream).toEqual([]);
  });

  it('tags a compressed answer apart, and revalidates it', async () => {
    const dashboard = readFileSync(
      new URL('../../bench/dashboard.graphql', import.meta.url),
      'utf8',
    );
    const plain = await get(dashboard);
    const gzipped = await get(dashboard, { 'accept-encoding': 'gzip' });
    expect(gzipped.header('content-encoding')).toBe('gzip');
    expect(gzipped.header('etag')).toBe(`${plain.header('etag')!.slice(0, -1)}-gzip"`);
    const again = await get(dashboard, {
      'accept-encoding': 'gzip',
      'if-none-match': gzipped.header('etag')!,
    });
    expect(again.status).toBe(304);
  });
});
