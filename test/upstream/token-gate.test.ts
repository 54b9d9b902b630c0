/**
 * The token gate of the upstream client (issue 8, item 4): a token not yet proven sends one
 * request at a time until the upstream has answered one; a refused token is refused without
 * being sent for a while; a proven token sends freely.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isUpstreamError } from '../../src/errors/upstream-error.js';
import {
  createUpstreamClient,
  type UpstreamClient,
  type UpstreamClientOptions,
} from '../../src/upstream/client.js';
import { createRequestLedger } from '../../src/upstream/request-ledger.js';
import { tokenKey } from '../../src/upstream/token-key.js';
import { until } from '../support/wait.js';
import {
  sendJson,
  sendRestError,
  startTestServer,
  type TestServer,
} from './support/http-server.js';

let server: TestServer;
const clients: UpstreamClient[] = [];
let clock = 1_000_000;
const rejected: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  server.requests.length = 0;
  rejected.length = 0;
});
afterAll(() => server.close());

function client(options: Partial<UpstreamClientOptions> = {}): UpstreamClient {
  const created = createUpstreamClient({
    baseUrl: server.baseUrl,
    readBackoff: false,
    retry: { attempts: 1 },
    wallClock: () => clock,
    tokenGate: { rejectedMs: 60_000, onRejected: (key) => rejected.push(key) },
    ...options,
  });
  clients.push(created);
  return created;
}

const settle = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (error: unknown) => (isUpstreamError(error) ? error.status : error),
  );

describe('an unproven token', () => {
  it('sends one request; a 401 fails the others without sending them', async () => {
    server.handle((_r, res) => sendRestError(res, 401, '401', 'not_authorized', 'no'));
    const c = client();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        settle(c.getPlanById({ token: 'junk-token-000001' }, { planId: `plan-${i}` })),
      ),
    );
    expect(results).toEqual(Array.from({ length: 30 }, () => 401));
    expect(server.requests).toHaveLength(1);
    expect(rejected).toEqual([tokenKey('junk-token-000001')]);
  });

  it('sends the others once the first answer proves the token', async () => {
    let inFlight = 0;
    let most = 0;
    const held: (() => void)[] = [];
    server.handle((_r, res) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      held.push(() => {
        inFlight -= 1;
        sendJson(res, 200, { data: { user: { id: 'u' } } });
      });
    });
    const ledger = createRequestLedger();
    const c = client({ ledger });
    const results = Promise.all(
      Array.from({ length: 5 }, () => settle(c.getUser({ token: 'good-token-000001' }))),
    );
    await until(() => held.length === 1, 'the first request');
    // Every call went through the gate before any socket event: an admitted one is counted.
    expect(ledger.usage(tokenKey('good-token-000001')).used).toBe(1);
    held.shift()?.();
    await until(() => held.length === 4, 'the four others');
    for (const answer of held.splice(0)) answer();
    expect(await results).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(server.requests).toHaveLength(5);
    // The first went alone; the four others together, after its status.
    expect(most).toBe(4);
  });

  it('lets the next request try when the first gets no verdict (5xx)', async () => {
    let n = 0;
    server.handle((_r, res) => {
      n += 1;
      if (n === 1) sendRestError(res, 503, '503', 'service_unavailable', 'busy');
      else sendJson(res, 200, { data: { user: { id: 'u' } } });
    });
    const c = client();
    const results = await Promise.all(
      Array.from({ length: 3 }, () => settle(c.getUser({ token: 'flaky-token-00001' }))),
    );
    expect(results).toEqual([503, 'ok', 'ok']);
  });
});

describe('a refused token', () => {
  it('is refused without a request until rejectedMs passes, then asked again once', async () => {
    server.handle((_r, res) => sendRestError(res, 401, '401', 'not_authorized', 'no'));
    const c = client();
    await settle(c.getUser({ token: 'revoked-token-0001' }));
    expect(server.requests).toHaveLength(1);
    for (let i = 0; i < 20; i++) {
      const error = await c.getUser({ token: 'revoked-token-0001' }).catch((e: unknown) => e);
      expect(isUpstreamError(error) && error.status === 401 && error.attempts === 0).toBe(true);
    }
    // Writes too: the upstream would refuse them the same way.
    expect(
      await settle(
        c.createPayee(
          { token: 'revoked-token-0001' },
          { planId: 'p', body: { payee: { name: 'x' } } },
        ),
      ),
    ).toBe(401);
    expect(server.requests).toHaveLength(1);
    clock += 60_001;
    await settle(c.getUser({ token: 'revoked-token-0001' }));
    expect(server.requests).toHaveLength(2);
  });

  it('remembers at most maxTokens refused tokens: the one refused longest ago is asked again', async () => {
    server.handle((_r, res) => sendRestError(res, 401, '401', 'not_authorized', 'no'));
    const c = client({ tokenGate: { rejectedMs: 60_000, maxTokens: 2 } });
    for (const token of ['refused-token-0001', 'refused-token-0002', 'refused-token-0003'])
      await settle(c.getUser({ token }));
    expect(server.requests).toHaveLength(3);
    // The last two are remembered: refused without a request.
    await settle(c.getUser({ token: 'refused-token-0002' }));
    await settle(c.getUser({ token: 'refused-token-0003' }));
    expect(server.requests).toHaveLength(3);
    // The first was forgotten to keep the bound: asking costs a request again.
    await settle(c.getUser({ token: 'refused-token-0001' }));
    expect(server.requests).toHaveLength(4);
  });

  it('drops what a proven token had when the upstream starts refusing it', async () => {
    server.handle((_r, res) => sendJson(res, 200, { data: { user: { id: 'u' } } }));
    const c = client();
    await c.getUser({ token: 'proven-token-00001' });
    server.handle((_r, res) => sendRestError(res, 401, '401', 'not_authorized', 'revoked'));
    expect(await settle(c.getUser({ token: 'proven-token-00001' }))).toBe(401);
    expect(await settle(c.getUser({ token: 'proven-token-00001' }))).toBe(401);
    expect(rejected).toEqual([tokenKey('proven-token-00001')]);
    expect(server.requests).toHaveLength(2);
  });
});
