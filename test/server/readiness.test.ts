/**
 * `/ready` (src/server/plugins/use-readiness.ts) on a loopback port: one upstream probe answers
 * every request for `cacheMs` (2 s by default), so a flood of probes costs the upstream one call
 * per window; concurrent ones share it (test/gateway/token-refusals.test.ts, through a gateway).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSchema, createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_READY_CACHE_MS, useReadiness } from '../../src/server/plugins/use-readiness.js';

let server: Server;
let url: string;
let now = 0;
let probes = 0;
let upstreamStatus = 401;

beforeAll(async () => {
  const yoga = createYoga({
    schema: createSchema({ typeDefs: 'type Query { hello: String }' }),
    logging: false,
    plugins: [
      useReadiness({
        probe: async () => {
          probes += 1;
          return upstreamStatus;
        },
        draining: () => false,
        now: () => now,
      }),
    ],
  });
  server = createServer(yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ready`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const ready = async () => (await fetch(url)).status;

describe('/ready', () => {
  it('probes the upstream once per 2 s, however many ask', async () => {
    expect(DEFAULT_READY_CACHE_MS).toBe(2_000);
    expect(await ready()).toBe(200);
    for (let i = 0; i < 20; i++) expect(await ready()).toBe(200);
    now += DEFAULT_READY_CACHE_MS;
    upstreamStatus = 503;
    // Still the answer of the first probe, 2 s after it.
    expect(await ready()).toBe(200);
    expect(probes).toBe(1);
    now += 1;
    expect(await ready()).toBe(503);
    expect(await ready()).toBe(503);
    expect(probes).toBe(2);
  });

  it('answers only its own path: other paths reach the schema, a query string still asks', async () => {
    const base = url.slice(0, -'/ready'.length);
    const before = probes;
    const graphql = await fetch(`${base}/graphql?query=${encodeURIComponent('{ hello }')}`);
    expect(graphql.status).toBe(200);
    expect(await graphql.json()).toEqual({ data: { hello: null } });
    expect(probes).toBe(before);
    expect((await fetch(`${base}/ready?x=1`)).headers.get('content-type')).toMatch(/json/);
    expect((await fetch(`${base}/readyz`)).status).toBe(404);
  });
});
