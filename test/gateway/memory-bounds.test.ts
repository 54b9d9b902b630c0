/**
 * Memory outside the replicas is bounded in bytes (issue 8, item 11): the REST cache of many
 * tokens stays within its byte budget however large each answer, and an endless upstream body
 * is read only up to the cap of its kind (1 MiB for a user) before the read fails.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig, type GatewayConfig } from '../../src/config/config.js';
import { createGateway, type Gateway } from '../../src/server/gateway.js';
import { gqlAt } from '../support/graphql.js';
import { type HostileUpstream, startHostileUpstream } from '../support/hostile-upstream.js';

let closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

async function start(
  config: Partial<GatewayConfig> = {},
): Promise<{ hostile: HostileUpstream; gateway: Gateway; url: string }> {
  const hostile = await startHostileUpstream();
  const gateway = createGateway({ ...defaultConfig(hostile.url), graphiql: false, ...config });
  const server = createServer(gateway.yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    await hostile.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await gateway.close();
  });
  return {
    hostile,
    gateway,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
  };
}

describe('the REST cache', () => {
  it('stays within its byte budget with 60 tokens of 140 KB plan lists', async () => {
    const { hostile, gateway, url } = await start({ restCacheMaxBytes: 2 * 1024 * 1024 });
    const plans = Array.from({ length: 300 }, (_, i) => ({
      id: randomUUID(),
      name: `Plan ${i} ${'x'.repeat(400)}`,
      last_modified_on: null,
      first_month: null,
      last_month: null,
      date_format: null,
      currency_format: null,
    }));
    hostile.setRule((r) =>
      r.operationId === 'getPlans'
        ? { kind: 'reply', status: 200, body: { data: { plans, default_plan: null } } }
        : {
            kind: 'reply',
            status: 404,
            body: { error: { id: '404.1', name: 'not_found', detail: '' } },
          },
    );
    const tokens = Array.from({ length: 60 }, () => `flood-${randomUUID()}`);
    for (const token of tokens) {
      const answer = await gqlAt<{ plans: unknown[] }>(url, '{ plans { id name } }', {}, token);
      expect(answer.body.data?.plans).toHaveLength(300);
    }
    const { entries, bytes } = gateway.restCache.stats();
    expect(bytes).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(entries).toBeGreaterThan(0);
    expect(entries).toBeLessThan(60);
    // The most recent token's answer is still held: a cache, not a refusal to cache.
    hostile.resetCalls();
    await gqlAt(url, '{ plans { id } }', {}, tokens.at(-1)!);
    expect(hostile.calls()).toHaveLength(0);
  });
});

describe('endless upstream bodies', () => {
  it('are read up to the cap of their kind, then refused as UPSTREAM_ERROR', async () => {
    const { hostile, url } = await start();
    hostile.setRule((r) =>
      r.operationId === 'getUser'
        ? { kind: 'endless' }
        : {
            kind: 'reply',
            status: 404,
            body: { error: { id: '404.1', name: 'not_found', detail: '' } },
          },
    );
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => gqlAt(url, '{ user { id } }', {}, `endless-${randomUUID()}`)),
    );
    for (const answer of answers) {
      expect(answer.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_ERROR');
      expect(answer.body.errors?.[0]?.message).toMatch(/too large/);
    }
    // 1 MiB each was read; the rest is what socket buffers took before the reads stopped.
    // (A cap of 256 MiB for every answer let these eight read 2 GB.)
    expect(hostile.endlessBytes()).toBeLessThan(8 * 16 * 1024 * 1024);
  });
});
