/**
 * Many syncs hung upstream at once share no abort signal (issue 8, item 14): 25 concurrent
 * plan reads of 25 tokens, each waiting on an upstream that never answers, raise no
 * MaxListenersExceededWarning, and all end once the upstream goes away.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startHostileUpstream } from '../support/hostile-upstream.js';
import { startGateway } from '../support/stack.js';
import { until } from '../support/wait.js';

const warnings: string[] = [];
const onWarning = (warning: Error) => warnings.push(warning.name);

afterEach(() => {
  process.off('warning', onWarning);
});

describe('hung syncs', () => {
  it('raise no MaxListenersExceededWarning with 25 in flight', async () => {
    process.on('warning', onWarning);
    const hostile = await startHostileUpstream();
    hostile.setRule((r) =>
      r.operationId === 'getUser'
        ? { kind: 'reply', status: 200, body: { data: { user: { id: randomUUID() } } } }
        : { kind: 'hang' },
    );
    const { gateway, gql, close } = await startGateway(hostile.url, {
      serve: 'fetch',
      deps: { upstreamTimeouts: { headersTimeoutMs: 20_000, bodyTimeoutMs: 20_000 } },
    });
    try {
      const tokens = Array.from({ length: 25 }, (_, i) => `hung-token-${i}-${randomUUID()}`);
      for (const token of tokens) await gql('{ user { id } }', {}, { token });
      const reads = tokens.map((token) =>
        gql('{ plan(id: "last-used") { name } }', {}, { token }).catch((error: Error) => error),
      );
      // The pool holds 10 connections: 10 reads hang upstream, 15 wait for a connection.
      await until(() => hostile.openRequests() === 10, '10 hung plan reads upstream');
      await until(
        () => gateway.upstream.connectionStats().waiting === 15,
        '15 plan reads waiting for a connection',
      );
      await hostile.close();
      const answers = await Promise.all(reads);
      for (const answer of answers) {
        if (answer instanceof Error) throw answer;
        expect(answer.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
      }
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      await hostile.close();
      await close();
    }
  });
});
