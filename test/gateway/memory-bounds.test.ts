/**
 * Memory outside the replicas is bounded in bytes (issue 8, item 11): the REST cache of many
 * tokens stays within its byte budget however large each answer, and an endless upstream body
 * is read only up to the cap of its kind (1 MiB for a user) before the read fails.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayConfig } from '../../src/config/config.js';
import { type HostileUpstream, startHostileUpstream } from '../support/hostile-upstream.js';
import { type ServedGateway, startGateway } from '../support/stack.js';

let closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

async function start(
  config: Partial<GatewayConfig> = {},
): Promise<{ hostile: HostileUpstream; front: ServedGateway }> {
  const hostile = await startHostileUpstream();
  const front = await startGateway(hostile.url, { serve: 'fetch', config });
  closers.push(async () => {
    await hostile.close();
    await front.close();
  });
  return { hostile, front };
}

describe('the REST cache', () => {
  it('stays within its byte budget with 60 tokens of 140 KB plan lists', async () => {
    const { hostile, front } = await start({ restCacheMaxBytes: 2 * 1024 * 1024 });
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
      const answer = await front.gql<{ plans: unknown[] }>('{ plans { id name } }', {}, { token });
      expect(answer.body.data?.plans).toHaveLength(300);
    }
    const { entries, bytes } = front.gateway.restCache.stats();
    expect(bytes).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(entries).toBeGreaterThan(0);
    expect(entries).toBeLessThan(60);
    // The most recent token's answer is still held: a cache, not a refusal to cache.
    hostile.resetCalls();
    await front.gql('{ plans { id } }', {}, { token: tokens.at(-1)! });
    expect(hostile.calls()).toHaveLength(0);
  });
});

describe('endless upstream bodies', () => {
  it('are read up to the cap of their kind, then refused as UPSTREAM_ERROR', async () => {
    const { hostile, front } = await start();
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
      Array.from({ length: 8 }, () =>
        front.gql('{ user { id } }', {}, { token: `endless-${randomUUID()}` }),
      ),
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
