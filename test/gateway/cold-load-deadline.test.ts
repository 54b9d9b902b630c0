/**
 * A cold load slower than the operation deadline (issue 34): a plan export still arriving when
 * the deadline passes holds the operation's answer back while bytes keep coming (within a
 * quarter of the deadline between them, three deadlines in all); a load that stalls is left to
 * finish in the background, the operation answers a retryable UPSTREAM_UNAVAILABLE saying so,
 * and the next read is answered from what that load built, without a second export.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { tokenKey } from '../../src/upstream/token-key.js';
import { drippingExport } from '../support/dripping-export.js';
import { startStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import { dataOf } from './support/responses.js';

const TOKEN = 'slow-export-token-000001';
const DEADLINE_MS = 1_000;
const STEP_MS = 100;

const started = () =>
  startStack({
    serve: 'fetch',
    hostile: true,
    clock: 'manual',
    timers: 'manual',
    sandbox: {
      rateLimit: false,
      users: [{ token: TOKEN, plans: [{ seed: 11, transactions: 2_000 }] }],
    },
    config: { operationDeadlineMs: DEADLINE_MS },
  });
type SlowStack = Awaited<ReturnType<typeof started>>;
let stack: SlowStack | undefined;

afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

const exportsAsked = (s: SlowStack) =>
  s.hostile
    .calls()
    .filter((c) => c.operationId === 'getPlanById' && !c.query.has('last_knowledge_of_server'))
    .length;

describe('a cold load slower than the operation deadline', () => {
  it('is waited on while its bytes keep coming, past the deadline', async () => {
    const s = await started();
    stack = s;
    const planId = s.sandbox.users[0]!.planIds[0]!;
    const drip = drippingExport(16);
    s.hostile.setRule(drip.rule);
    const from = s.clock.now();
    const pending = s.gql<{ plan: { name: string } }>(
      `{ plan(id: "${planId}") { name } }`,
      {},
      {
        token: TOKEN,
      },
    );
    for (let piece = 0; piece < 16; piece++) {
      await drip.release();
      await s.scheduler.advance(STEP_MS);
    }
    const answer = await pending;
    expect(answer.body.errors).toBeUndefined();
    expect(dataOf(answer).plan.name).toBeTruthy();
    expect(s.clock.now() - from).toBeGreaterThan(DEADLINE_MS);
    expect(exportsAsked(s)).toBe(1);
  });

  it('answers a retryable error once the load stalls, and the next read is served from it', async () => {
    const s = await started();
    stack = s;
    const planId = s.sandbox.users[0]!.planIds[0]!;
    const drip = drippingExport(4);
    s.hostile.setRule(drip.rule);
    const query = `{ plan(id: "${planId}") { name } }`;
    const pending = s.gql(query, {}, { token: TOKEN });
    await drip.release();
    await s.scheduler.advance(STEP_MS);
    await drip.release();
    // Nothing arrives for the deadline and more: the operation stops waiting.
    await s.scheduler.advance(DEADLINE_MS);
    const cut = await pending;
    expect(cut.body.data?.plan ?? null).toBeNull();
    const error = cut.body.errors?.[0];
    expect(error?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(error?.extensions?.retryable).toBe(true);
    expect(error?.message).toMatch(/still arriving.*the load goes on/);

    // The load was not thrown away: it ends, is stored, and answers the next read.
    await drip.release();
    await drip.release();
    await until(
      () => s.gateway.replicas.peek(tokenKey(TOKEN), planId) !== undefined,
      'the load to be stored',
    );
    const again = await s.gql<{ plan: { name: string } }>(query, {}, { token: TOKEN });
    expect(again.body.errors).toBeUndefined();
    expect(dataOf(again).plan.name).toBeTruthy();
    expect(exportsAsked(s)).toBe(1);
  });
});
