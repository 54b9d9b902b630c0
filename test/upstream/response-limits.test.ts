/**
 * Upstream answers are read up to the cap of what their operation returns, and all answers
 * being read share one byte budget (issue 8, item 11).
 */
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isUpstreamError } from '../../src/errors/upstream-error.js';
import { createUpstreamClient, type UpstreamClient } from '../../src/upstream/client.js';
import { readBody } from '../../src/upstream/read-body.js';
import { createByteBudget } from '../../src/upstream/response-limits.js';
import { sendJson, startTestServer, type TestServer } from './support/http-server.js';

let server: TestServer;
const clients: UpstreamClient[] = [];

beforeAll(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(() => server.close());

function client(
  options: Parameters<typeof createUpstreamClient>[0] extends infer O ? Partial<O> : never = {},
) {
  const created = createUpstreamClient({
    baseUrl: server.baseUrl,
    readBackoff: false,
    tokenGate: false,
    retry: { attempts: 1 },
    ...options,
  });
  clients.push(created);
  return created;
}

const kindOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (error: unknown) => (isUpstreamError(error) ? error.kind : String(error)),
  );

describe('caps by kind', () => {
  it('refuses a 2 MB user but takes a 2 MB plan list', async () => {
    const padding = 'x'.repeat(2 * 1024 * 1024);
    server.handle((request, res) =>
      request.pathname.endsWith('/user')
        ? sendJson(res, 200, { data: { user: { id: 'u', padding } } })
        : sendJson(res, 200, { data: { plans: [{ id: 'p', name: padding }], default_plan: null } }),
    );
    const c = client();
    expect(await kindOf(c.getUser({ token: 'limits-token-01' }))).toBe('too_large');
    expect(await kindOf(c.getPlans({ token: 'limits-token-01' }))).toBe('ok');
  });
});

describe('the shared budget', () => {
  it('fails the answer that would pass it, and gets every byte back', async () => {
    const budget = createByteBudget(1024 * 1024);
    const body = () => Readable.from([Buffer.alloc(400 * 1024), Buffer.alloc(300 * 1024)]);
    // Another answer holds 700 KB of the budget while this one is read.
    expect(budget.take(700 * 1024)).toBe(true);
    expect((await readBody(body(), {}, 10 * 1024 * 1024, budget)).kind).toBe('too_large');
    expect(budget.used).toBe(700 * 1024);
    budget.give(700 * 1024);
    const read = await readBody(body(), {}, 10 * 1024 * 1024, budget);
    expect(read.kind).toBe('ok');
    expect(budget.used).toBe(0);
  });
});
