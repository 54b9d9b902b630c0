/**
 * Cache hints for routers (issue 36, docs/federation.md#cache-hints): `/subgraph` answers a query
 * with `Cache-Control: private, max-age=<what is left of the replicas' max-age>`, and a mutation,
 * a subscription or an answer with errors with `no-store`. Through Hive Gateway's response cache
 * configured as the docs say (one cache per Authorization header), two tokens never see each
 * other's data, and a token's repeated query is answered by the router within the hint.
 */
import type { Plugin } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gqlAt } from '../support/graphql.js';
import { type ServedGateway, type Stack, startStack } from '../support/stack.js';
import { PLANS_SDL } from './support/federation.js';
import { compose, mapCache, type Router, startRouter } from './support/router.js';
import { subgraphUrl } from './support/subgraph.js';

const TOKEN = 'cache-hints-token-0001';
const OTHER_TOKEN = 'cache-hints-token-0002';
const MAX_AGE_SECONDS = 30;

const PLANS = '{ plans { id name } }';

let stack: Stack;
let gateway: ServedGateway;
let router: Router;
let subgraphRequests = 0;

beforeAll(async () => {
  stack = await startStack({
    token: TOKEN,
    config: { maxAgeMs: MAX_AGE_SECONDS * 1000 },
    sandbox: {
      rateLimit: false,
      users: [
        { token: TOKEN, plans: [{ seed: 21, transactions: 20 }] },
        { token: OTHER_TOKEN, plans: [{ seed: 22, transactions: 20 }] },
      ],
    },
  });
  const count: Plugin = {
    onParams() {
      subgraphRequests += 1;
    },
  };
  gateway = await stack.addGateway({ deps: { plugins: [count] } });
  const composed = compose('guild', [{ name: 'plans', url: subgraphUrl(gateway), sdl: PLANS_SDL }]);
  if ('errors' in composed) throw new Error(composed.errors.join('; '));
  router = await startRouter(composed.supergraphSdl, {
    // As docs/federation.md configures it: one cache per token. Hive Gateway reads the
    // subgraph's max-age as the entries' lifetime.
    cache: mapCache(),
    responseCaching: { session: (request: Request) => request.headers.get('authorization') },
  });
});
afterAll(async () => {
  await router?.close();
  await stack.close();
});

async function subgraphPost(query: string, token: string | null): Promise<Response> {
  return gateway.fetch(subgraphUrl(gateway), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ query }),
  });
}

describe('Cache-Control on /subgraph', () => {
  it("hints a query private, for what is left of the replicas' max-age", async () => {
    const response = await subgraphPost(PLANS, TOKEN);
    expect(response.status).toBe(200);
    const header = response.headers.get('cache-control') ?? '';
    const match = /^private, max-age=(\d+)$/.exec(header);
    expect(match, header).not.toBeNull();
    const seconds = Number(match![1]);
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(MAX_AGE_SECONDS);
  });

  it('says no-store for a mutation, whatever it answers', async () => {
    const response = await subgraphPost(
      'mutation { updatePayee(planId: "last-used", payeeId: "00000000-0000-4000-8000-00000000dead", input: { name: "x" }) { __typename } }',
      TOKEN,
    );
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('says no-store for an answer with errors (the next one may succeed)', async () => {
    const response = await subgraphPost(PLANS, null);
    const body = (await response.json()) as { errors?: unknown[] };
    expect(body.errors?.length).toBeGreaterThan(0);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it("leaves /graphql's answers as they were (no-store)", async () => {
    const response = await gateway.fetch(gateway.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: `Bearer ${TOKEN}`,
      },
      body: JSON.stringify({ query: PLANS }),
    });
    expect(response.headers.get('cache-control')).toBe('no-store');
  });
});

describe("through Hive Gateway's response cache", () => {
  const viaRouter = (query: string, token: string) =>
    gqlAt<{ plans: { id: string; name: string }[] }>(router.url, query, {}, token);

  it("never serves one token's data to another, and reuses a token's own within the hint", async () => {
    const before = subgraphRequests;
    const first = await viaRouter(PLANS, TOKEN);
    expect(first.body.errors).toBeUndefined();
    const mine = first.body.data!.plans.map((p) => p.id);
    expect(mine.length).toBeGreaterThan(0);
    expect(subgraphRequests).toBe(before + 1);

    // The same query again: the router answers it from its cache.
    const again = await viaRouter(PLANS, TOKEN);
    expect(again.body.data!.plans.map((p) => p.id)).toEqual(mine);
    expect(subgraphRequests).toBe(before + 1);

    // Another token, the same query text: its own plans, fetched, never the first token's.
    const other = await viaRouter(PLANS, OTHER_TOKEN);
    expect(other.body.errors).toBeUndefined();
    const theirs = other.body.data!.plans.map((p) => p.id);
    expect(theirs.length).toBeGreaterThan(0);
    expect(theirs.some((id) => mine.includes(id))).toBe(false);
    expect(subgraphRequests).toBe(before + 2);

    // And each keeps getting its own.
    expect((await viaRouter(PLANS, TOKEN)).body.data!.plans.map((p) => p.id)).toEqual(mine);
    expect((await viaRouter(PLANS, OTHER_TOKEN)).body.data!.plans.map((p) => p.id)).toEqual(theirs);
  });

  it('does not cache a mutation', async () => {
    const mutation =
      'mutation { updatePayee(planId: "last-used", payeeId: "00000000-0000-4000-8000-00000000dead", input: { name: "x" }) { __typename } }';
    const before = subgraphRequests;
    await viaRouter(mutation, TOKEN);
    await viaRouter(mutation, TOKEN);
    expect(subgraphRequests).toBe(before + 2);
  });
});
