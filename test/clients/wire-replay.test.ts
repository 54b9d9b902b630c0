import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { Plugin } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClockedStack, startStack } from '../support/stack.js';

const ACCOUNTS = '{ plan(id: "last-used") { id accounts { id name balance } } }';
const BY_ID = 'query($id: PlanId!) { plan(id: $id) { id accounts { id name } } }';
const TOKEN = 'wire-replay-token';
const OTHER_TOKEN = 'wire-replay-other-token';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

/**
 * Counts the answers yoga sent (`onResponse` runs for every one, also those a plugin ended at
 * the door): a replay at the wire never reaches yoga.
 */
function countYogaRequests(): { plugin: Plugin; count: () => number } {
  let seen = 0;
  return {
    plugin: {
      onResponse() {
        seen += 1;
      },
    },
    count: () => seen,
  };
}

describe('replays at the wire: held answers before yoga, compressed once per encoding', () => {
  let stack: ClockedStack;
  const yoga = countYogaRequests();
  const start = Date.UTC(2026, 10, 20, 12);

  beforeAll(async () => {
    stack = await startStack({
      clock: 'manual',
      start,
      log: true,
      token: TOKEN,
      // As deployed: per-request metrics only when asked, so a POST's held bytes are its answer.
      // Small answers compressed too, as a dashboard's are.
      config: { metrics: 'on-request', compressionMinBytes: 64 },
      sandbox: {
        rateLimit: false,
        users: [
          { token: TOKEN, plans: [{ seed: 5, transactions: 150 }] },
          { token: OTHER_TOKEN, plans: [{ seed: 6, transactions: 150 }] },
        ],
      },
      deps: { now: () => start, plugins: [yoga.plugin] },
    });
  });
  afterAll(() => stack.close());

  /** A raw exchange (no decoding of the body), as a client that reads bytes sees it. */
  function raw(
    method: 'GET' | 'POST',
    {
      query = ACCOUNTS,
      variables,
      token = TOKEN,
      headers = {},
    }: {
      query?: string;
      variables?: Record<string, unknown>;
      token?: string | null;
      headers?: Record<string, string>;
    } = {},
  ): Promise<Raw> {
    const url = new URL(stack.url);
    let body: string | undefined;
    if (method === 'GET') {
      url.searchParams.set('query', query);
      if (variables) url.searchParams.set('variables', JSON.stringify(variables));
    } else body = JSON.stringify({ query, ...(variables ? { variables } : {}) });
    return new Promise((resolve, reject) => {
      const sent = httpRequest(
        url,
        {
          method,
          headers: {
            accept: 'application/graphql-response+json, application/json',
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...(body ? { 'content-type': 'application/json' } : {}),
            ...headers,
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              bytes: Buffer.concat(chunks),
            }),
          );
        },
      );
      sent.on('error', reject);
      sent.end(body);
    });
  }

  function decoded({ headers, bytes }: Raw): unknown {
    const encoding = headers['content-encoding'];
    const plain =
      encoding === 'br'
        ? brotliDecompressSync(bytes)
        : encoding === 'gzip'
          ? gunzipSync(bytes)
          : bytes;
    return JSON.parse(plain.toString('utf8'));
  }

  /** The answer, then the same request again: what the second got, and whether yoga saw it. */
  /** `send` until its answer is kept (from its second sight), then once more. */
  async function twice(send: () => Promise<Raw>) {
    const first = await send();
    await send();
    const before = yoga.count();
    const again = await send();
    return { first, again, reachedYoga: yoga.count() > before };
  }

  it('answers a repeated POST from the wire with the bytes the pipeline sent', async () => {
    const { first, again, reachedYoga } = await twice(() => raw('POST'));
    expect(first.status).toBe(200);
    expect(reachedYoga).toBe(false);
    expect(again.status).toBe(200);
    expect(again.bytes.equals(first.bytes)).toBe(true);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.headers['x-content-type-options']).toBe('nosniff');
    expect(again.headers['cache-control']).toBe('no-store');
    expect(again.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(again.headers['content-length']).toBe(String(again.bytes.length));
    // Reported as the operation it answers, under the id the client got.
    const line = stack.log.findLast((entry) => entry.msg === 'operation');
    expect(line).toMatchObject({ requestId: again.headers['x-request-id'], outcome: 'ok' });
  });

  it('sends the encoding the client accepts, compressed once and kept', async () => {
    const plain = await raw('POST');
    const asData = decoded(plain);
    for (const [accept, expected] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['identity', undefined],
    ] as const) {
      const { first, again, reachedYoga } = await twice(() =>
        raw('POST', { headers: { 'accept-encoding': accept } }),
      );
      expect(reachedYoga).toBe(false);
      expect(again.headers['content-encoding']).toBe(expected);
      expect(again.headers.vary).toMatch(/Accept-Encoding/);
      expect(decoded(again)).toEqual(asData);
      // The same bytes each time: the copy compressed once, not a fresh compression.
      expect(again.bytes.equals(first.bytes)).toBe(true);
    }
  });

  it('never answers one token with what another was given', async () => {
    const mine = await raw('POST');
    const before = yoga.count();
    const theirs = await raw('POST', { token: OTHER_TOKEN });
    expect(yoga.count()).toBeGreaterThan(before);
    expect(decoded(theirs)).not.toEqual(decoded(mine));
    // Nor without a token: admission refuses it, as it would without the cache.
    const none = await raw('POST', { token: null });
    expect((decoded(none) as { errors?: unknown[] }).errors?.length).toBeGreaterThan(0);
  });

  it('answers other variables with their own answer', async () => {
    const { again: mine, reachedYoga } = await twice(() =>
      raw('POST', { query: BY_ID, variables: { id: 'last-used' } }),
    );
    expect(reachedYoga).toBe(false);
    const before = yoga.count();
    const other = await raw('POST', { query: BY_ID, variables: { id: 'default' } });
    expect(yoga.count()).toBeGreaterThan(before);
    expect(other.status).toBe(200);
    expect(decoded(mine)).toMatchObject({ data: { plan: { accounts: expect.any(Array) } } });
  });

  it('executes again after a write through the gateway (read-your-writes)', async () => {
    const { again } = await twice(() => raw('POST'));
    const before = decoded(again) as {
      data: { plan: { accounts: { id: string; balance: number }[] } };
    };
    const account = before.data.plan.accounts[0]!;
    const write = await stack.gql(
      `mutation($accountId: UUID!) { createTransaction(planId: "last-used", input: {
        accountId: $accountId, date: "2026-11-19", amount: -2000, payeeName: "Wire replay" }) { __typename } }`,
      { accountId: account.id },
    );
    expect(write.body.errors).toBeUndefined();
    const seen = yoga.count();
    const after = decoded(await raw('POST')) as typeof before;
    expect(yoga.count()).toBeGreaterThan(seen);
    expect(after.data.plan.accounts.find((a) => a.id === account.id)!.balance).toBe(
      account.balance - 2000,
    );
  });

  it('replays a GET with its ETag, per encoding, and answers If-None-Match with 304', async () => {
    const { first, again, reachedYoga } = await twice(() =>
      raw('GET', { headers: { 'accept-encoding': 'br' } }),
    );
    expect(reachedYoga).toBe(false);
    expect(again.status).toBe(200);
    expect(again.headers['content-encoding']).toBe('br');
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers.etag).toMatch(/-br"$/);
    expect(again.headers['cache-control']).toBe('private, no-cache');
    expect(again.headers.vary).toMatch(/Authorization/);
    const seen = yoga.count();
    const revalidated = await raw('GET', {
      headers: { 'if-none-match': String(again.headers.etag) },
    });
    expect(revalidated.status).toBe(304);
    expect(revalidated.bytes.length).toBe(0);
    expect(yoga.count()).toBe(seen);
  });

  it('answers no GET that CSRF prevention would refuse (a token in the query, no header)', async () => {
    await raw('GET');
    const url = new URL(stack.url);
    url.searchParams.set('query', ACCOUNTS);
    url.searchParams.set('access_token', TOKEN);
    const response = await fetch(url, {
      headers: { accept: 'application/graphql-response+json, application/json' },
    });
    expect(response.status).not.toBe(200);
    await response.arrayBuffer();
  });

  it('leaves browsers (Origin, cookies) and per-request metrics to the pipeline', async () => {
    await raw('POST');
    for (const headers of <Record<string, string>[]>[
      { origin: 'http://elsewhere.example' },
      { cookie: 'a=b' },
      { 'x-upstream-metrics': '1' },
      { 'cache-control': 'max-age=30' },
    ]) {
      const before = yoga.count();
      const answer = await raw('POST', { headers });
      expect(yoga.count()).toBeGreaterThan(before);
      expect([200, 403]).toContain(answer.status);
    }
  });
});
