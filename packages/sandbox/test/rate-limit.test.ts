/**
 * The rolling-window rate limit per token, driven by a manual clock: the limit passes, the next
 * request gets 429 without `X-Rate-Limit`, one request passes per request that leaves the
 * window, and tokens are counted apart.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../src/core/api.js';
import { createManualClock, createSandbox } from '../src/index.js';
import { TEST_NOW } from './support/dates.js';
import { expectError } from './support/expect-response.js';
import { createRest, type Rest } from './support/rest.js';

const HOUR = 3_600_000;

let sandbox: Sandbox | undefined;

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function start(rateLimit?: { limit?: number; windowMs?: number }) {
  const clock = createManualClock(TEST_NOW);
  const started = await createSandbox({
    port: 0,
    clock,
    users: [
      {
        token: 'limited-a',
        readOnlyToken: 'limited-a-read',
        plans: [{ seed: 5, transactions: 20 }],
      },
      { token: 'limited-b', plans: [{ seed: 6, transactions: 20 }] },
    ],
    ...(rateLimit === undefined ? {} : { rateLimit }),
  });
  sandbox = started;
  const planId = started.users[0]?.planIds[0] ?? '';
  return {
    clock,
    planId,
    a: createRest(started.url, 'limited-a'),
    aRead: createRest(started.url, 'limited-a-read'),
    b: createRest(started.url, 'limited-b'),
  };
}

async function expectPass(rest: Rest, label: string): Promise<void> {
  const response = await rest.get('/user');
  expect(response.status, `${label}: ${response.text.slice(0, 200)}`).toBe(200);
}

async function expectLimited(rest: Rest, path = '/user'): Promise<void> {
  const response = await rest.get(path);
  expectError(response, 429, '429', 'too_many_requests');
  expect(response.headers.get('x-rate-limit')).toBeNull();
}

/** The sandbox also says when to retry (its README); the wait is within the window. */
async function retryAfterSeconds(rest: Rest): Promise<number> {
  const response = await rest.get('/user');
  expect(response.status).toBe(429);
  const value = Number(response.headers.get('retry-after'));
  expect(Number.isInteger(value)).toBe(true);
  return value;
}

describe('rate limit with a small configured limit', () => {
  it('passes the limit, refuses the next, and lets one more through per request that leaves the window', async () => {
    const { clock, a } = await start({ limit: 5, windowMs: 60_000 });
    for (let index = 0; index < 5; index += 1) {
      await expectPass(a, `request ${index + 1}`);
      clock.advance(1_000);
    }
    await expectLimited(a);
    // The oldest request (TEST_NOW) leaves the window 55 s after now (TEST_NOW + 5 s).
    expect(await retryAfterSeconds(a)).toBe(55);
    clock.advance(30_000);
    await expectLimited(a);
    expect(await retryAfterSeconds(a)).toBe(25);

    // The first request was made at TEST_NOW; just after it leaves, exactly one slot opens.
    clock.set(TEST_NOW + 60_001);
    await expectPass(a, 'after the oldest left');
    await expectLimited(a);

    // The second request (TEST_NOW + 1 s) leaves next.
    clock.set(TEST_NOW + 61_001);
    await expectPass(a, 'after the second left');
    await expectLimited(a);

    // Long after, the whole window is free again.
    clock.advance(10 * 60_000);
    for (let index = 0; index < 5; index += 1) await expectPass(a, `fresh window ${index + 1}`);
    await expectLimited(a);
  });

  it('counts every token on its own', async () => {
    const { a, aRead, b } = await start({ limit: 3, windowMs: 60_000 });
    for (let index = 0; index < 3; index += 1) await expectPass(a, `a ${index + 1}`);
    await expectLimited(a);
    for (let index = 0; index < 3; index += 1) await expectPass(aRead, `a read-only ${index + 1}`);
    await expectLimited(aRead);
    for (let index = 0; index < 3; index += 1) await expectPass(b, `b ${index + 1}`);
    await expectLimited(b);
  });

  it('refuses writes over the limit without applying them', async () => {
    const { planId, a, aRead } = await start({ limit: 2, windowMs: 60_000 });
    await expectPass(a, 'first');
    await expectPass(a, 'second');
    const before = await aRead.get(`/plans/${planId}`);
    const refused = await a.post(`/plans/${planId}/payees`, { payee: { name: 'Over the limit' } });
    expectError(refused, 429, '429', 'too_many_requests');
    expect(refused.headers.get('x-rate-limit')).toBeNull();
    expect((await aRead.get(`/plans/${planId}`)).body).toEqual(before.body);
  });

  it('counts requests whatever their outcome, and on every endpoint', async () => {
    const { planId, a } = await start({ limit: 3, windowMs: 60_000 });
    expect((await a.get(`/plans/${planId}/accounts`)).status).toBe(200);
    expect(
      (await a.get(`/plans/${planId}/transactions/0d7c2b4e-1111-4aaa-8bbb-0123456789ab`)).status,
    ).toBe(404);
    expect((await a.get(`/plans/${planId}/transactions`, { type: 'weird' })).status).toBe(400);
    await expectLimited(a, `/plans/${planId}/accounts`);
  });
});

describe('rate limit with the default settings', () => {
  it('allows 200 requests per token in a rolling hour', async () => {
    const { clock, a, b } = await start();
    for (let index = 0; index < 200; index += 1) {
      await expectPass(a, `request ${index + 1}`);
      if (index === 0) clock.advance(60_000);
    }
    await expectLimited(a);
    await expectPass(b, 'another token');
    clock.set(TEST_NOW + HOUR + 1);
    await expectPass(a, 'after the first request left the hour');
    await expectLimited(a);
  });
});
