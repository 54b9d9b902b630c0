/** The pause of a token's reads after a transient failure, seen on the wire. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/errors/upstream-error.js';
import { createUpstreamClient, type UpstreamClient } from '../../src/upstream/client.js';
import { parseRetryAfter } from '../../src/upstream/read-backoff.js';
import {
  sendJson,
  sendRestError,
  startTestServer,
  type TestServer,
} from './support/http-server.js';

const PLAN = '11111111-1111-4111-8111-111111111111';
const USER = { data: { user: { id: '22222222-2222-4222-8222-222222222222' } } };
let server: TestServer;
let client: UpstreamClient;
let clock: number;

beforeEach(async () => {
  server = await startTestServer();
  clock = Date.UTC(2026, 0, 1);
  client = createUpstreamClient({
    baseUrl: server.baseUrl,
    sleep: async () => {},
    wallClock: () => clock,
  });
});

afterEach(async () => {
  await client.close();
  await server.close();
});

async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}

describe('read back-off', () => {
  it('after a read fails with 503, the token’s next reads are not sent until the pause ends', async () => {
    server.handle((_req, res) => sendRestError(res, 503, '503', 'service_unavailable', 'down'));
    await failure(client.getUser({ token: 'token-a' }));
    const sent = server.requests.length; // the first read and its retries
    const held = await failure(client.getUser({ token: 'token-a' }));
    expect(server.requests).toHaveLength(sent);
    expect(held).toMatchObject({ status: 503, kind: 'http', attempts: 0, upstream: { id: '503' } });
    expect(held.message).toContain('not sent');

    server.handle((_req, res) => sendJson(res, 200, USER));
    clock += 5_000;
    await expect(client.getUser({ token: 'token-a' })).resolves.toEqual(USER.data);
    expect(server.requests).toHaveLength(sent + 1);
  });

  it('honours Retry-After on a 429, and pauses only that token', async () => {
    server.handle((_req, res) => {
      res.setHeader('retry-after', '120');
      sendRestError(res, 429, '429', 'too_many_requests', 'slow down');
    });
    const first = await failure(client.getAccounts({ token: 'token-a' }, { planId: PLAN }));
    expect(first.retryAfterMs).toBe(120_000);
    expect(server.requests).toHaveLength(1); // a 429 is never retried

    clock += 60_000;
    const held = await failure(client.getUser({ token: 'token-a' }));
    expect(held).toMatchObject({ status: 429, attempts: 0, retryAfterMs: 60_000 });
    expect(server.requests).toHaveLength(1);

    server.handle((_req, res) => sendJson(res, 200, USER));
    await expect(client.getUser({ token: 'token-b' })).resolves.toEqual(USER.data);
    clock += 60_000;
    await expect(client.getUser({ token: 'token-a' })).resolves.toEqual(USER.data);
    expect(server.requests).toHaveLength(3);
  });

  it('never holds back a write, and a 4xx starts no pause', async () => {
    server.handle((_req, res) => sendRestError(res, 503, '503', 'service_unavailable', 'down'));
    await failure(client.getUser({ token: 'token-a' }));
    const sent = server.requests.length;
    await failure(
      client.createPayee({ token: 'token-a' }, { planId: PLAN, body: { payee: { name: 'x' } } }),
    );
    expect(server.requests).toHaveLength(sent + 1);

    server.handle((_req, res) => sendRestError(res, 404, '404.2', 'resource_not_found', 'no'));
    await failure(client.getUser({ token: 'token-c' }));
    await failure(client.getUser({ token: 'token-c' }));
    expect(
      server.requests.filter((r) => r.headers.authorization === 'Bearer token-c'),
    ).toHaveLength(2);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.UTC(2026, 0, 1, 12);
    expect(parseRetryAfter('30', now)).toBe(30_000);
    expect(parseRetryAfter(new Date(now + 90_000).toUTCString(), now)).toBe(90_000);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});
