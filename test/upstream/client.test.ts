import { inspect } from 'node:util';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isUpstreamError, type UpstreamError } from '../../src/errors/upstream-error.js';
import type { UpstreamCallRecord } from '../../src/operation/upstream-calls.js';
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

const TOKEN = 'client-test-token-ZYXWVUTSRQ9876543210';
const PLAN = 'plan-1';
const ACCOUNTS = { data: { accounts: [], server_knowledge: 5 } };

let server: TestServer;
const clients: UpstreamClient[] = [];

/** A client on the test server; closed after each test. Sleeps are instant unless overridden. */
function makeClient(options: Partial<UpstreamClientOptions> = {}): UpstreamClient {
  const client = createUpstreamClient({
    baseUrl: server.baseUrl,
    // These tests look at single calls; read-backoff.test.ts and token-gate.test.ts cover what
    // one call's answer does to the next.
    readBackoff: false,
    tokenGate: false,
    sleep: async () => {},
    ...options,
  });
  clients.push(client);
  return client;
}

async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!isUpstreamError(error)) throw new Error(`expected an UpstreamError, got ${inspect(error)}`);
  return error;
}

/** Everything a log line or an error report could print about an error. */
function everythingPrintable(error: unknown): string {
  const e = error as Error;
  return [String(e), e.message, e.stack ?? '', JSON.stringify(e), inspect(e, { depth: 6 })].join(
    '\n',
  );
}

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  server.requests.length = 0;
  server.handle((_request, res) => sendJson(res, 200, { data: {} }));
});

describe('the token', () => {
  it('is sent as a bearer header, with JSON accept and the user agent, never in the URL', async () => {
    server.handle((_request, res) => sendJson(res, 200, ACCOUNTS));
    const client = makeClient({ userAgent: 'test-agent/1' });
    const data = await client.getAccounts(
      { token: TOKEN },
      { planId: PLAN, lastKnowledgeOfServer: 3 },
    );
    expect(data).toEqual(ACCOUNTS.data);
    const [request] = server.requests;
    expect(request?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request?.headers.accept).toBe('application/json');
    expect(request?.headers['user-agent']).toBe('test-agent/1');
    expect(request?.url).not.toContain(TOKEN);
    expect(request?.url).not.toContain('access_token');
  });

  it('never appears in errors of any kind', async () => {
    const client = makeClient({ retry: { attempts: 1 } });
    // Only a server that never answers meets this timeout, however slow the machine.
    const impatient = makeClient({ headersTimeoutMs: 50, retry: { attempts: 1 } });
    const errors: unknown[] = [];
    const capture = (promise: Promise<unknown>) =>
      promise.catch((error: unknown) => errors.push(error));

    server.handle((_request, res) =>
      sendRestError(res, 401, '401', 'not_authorized', 'Unauthorized'),
    );
    await capture(client.getUser({ token: TOKEN }));
    server.handle((_request, res) => res.end('not json'));
    await capture(client.getUser({ token: TOKEN }));
    server.handle((_request, _res, req) => req.socket.destroy());
    await capture(client.getUser({ token: TOKEN }));
    server.handle(() => {});
    await capture(impatient.getUser({ token: TOKEN }));

    expect(errors.map((e) => (e as UpstreamError).kind)).toEqual([
      'http',
      'malformed',
      'network',
      'timeout',
    ]);
    for (const error of errors) expect(everythingPrintable(error)).not.toContain(TOKEN);
  });

  it('must be a non-empty string; the call is rejected before any request', async () => {
    const client = makeClient();
    await expect(client.getUser({ token: '' })).rejects.toThrow(
      'getUser: call.token must be a non-empty access token',
    );
    await expect(client.getUser({} as { token: string })).rejects.toThrow(
      /call\.token must be a non-empty/,
    );
    const error = (await client.getUser({ token: 'abc\r\nx-evil: 1' }).then(
      () => undefined,
      (e: unknown) => e,
    )) as Error;
    expect(error.message).toBe('getUser: call.token contains characters not allowed in a token');
    expect(server.requests).toHaveLength(0);
  });

  it('is only sent to the configured origin: redirects are not followed', async () => {
    server.handle((_request, res) => {
      res.writeHead(302, { location: 'http://198.51.100.1/v1/user' });
      res.end();
    });
    const error = await failure(makeClient().getUser({ token: TOKEN }));
    expect(error).toMatchObject({ kind: 'http', status: 302 });
    expect(server.requests).toHaveLength(1);
  });
});

describe('malformed answers', () => {
  it.each([
    ['invalid JSON', 'not json {', 'not JSON'],
    ['JSON without data', '{"accounts":[]}', 'no data object'],
    ['a null data', '{"data":null}', 'no data object'],
    ['an array data', '{"data":[]}', 'no data object'],
  ])('%s is kind malformed, retried for a read', async (_label, body, reason) => {
    server.handle((_request, res) => res.end(body));
    const error = await failure(makeClient().getAccounts({ token: TOKEN }, { planId: PLAN }));
    expect(error).toMatchObject({
      kind: 'malformed',
      status: 200,
      upstream: null,
      attempts: 3,
      outcomeUnknown: false,
    });
    expect(error.message).toContain(reason);
    expect(server.requests).toHaveLength(3);
  });

  it('on a write is sent once and flagged outcomeUnknown (the write happened, its result is lost)', async () => {
    server.handle((_request, res) => {
      res.writeHead(201);
      res.end('{"data":');
    });
    const error = await failure(
      makeClient().createPayee({ token: TOKEN }, { planId: PLAN, body: { payee: { name: 'x' } } }),
    );
    expect(error).toMatchObject({
      kind: 'malformed',
      status: 201,
      outcomeUnknown: true,
      retryable: false,
    });
    expect(server.requests).toHaveLength(1);
  });
});

describe('timeouts and dropped connections', () => {
  it('a server that never answers times out a read (retried) with kind timeout', async () => {
    server.handle(() => {});
    const client = makeClient({ headersTimeoutMs: 50, retry: { attempts: 2 } });
    const error = await failure(client.getUser({ token: TOKEN }));
    expect(error).toMatchObject({ kind: 'timeout', status: null, retryable: true, attempts: 2 });
    expect(server.requests).toHaveLength(2);
  });

  it('a write that times out is sent exactly once, outcome unknown', async () => {
    server.handle(() => {});
    const error = await failure(
      makeClient({ headersTimeoutMs: 50 }).deleteTransaction(
        { token: TOKEN },
        { planId: PLAN, transactionId: 't1' },
      ),
    );
    expect(error).toMatchObject({
      kind: 'timeout',
      method: 'DELETE',
      outcomeUnknown: true,
      retryable: false,
      attempts: 1,
    });
    expect(server.requests).toHaveLength(1);
  });

  it('a body that stalls after the headers times out with the status known', async () => {
    server.handle((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":');
    });
    const error = await failure(
      makeClient({ bodyTimeoutMs: 50, retry: { attempts: 1 } }).getUser({ token: TOKEN }),
    );
    expect(error).toMatchObject({ kind: 'timeout', status: 200 });
  });

  it('a dropped connection is kind network; a read is retried and can then succeed', async () => {
    let seen = 0;
    server.handle((_request, res, req) => {
      seen += 1;
      if (seen === 1) req.socket.destroy();
      else sendJson(res, 200, ACCOUNTS);
    });
    const meter = recordingMeter();
    const data = await makeClient().getAccounts({ token: TOKEN, meter }, { planId: PLAN });
    expect(data).toEqual(ACCOUNTS.data);
    expect(server.requests).toHaveLength(2);
    expect(meter.records.map((r) => [r.attempt, r.status, r.errorKind])).toEqual([
      [1, null, 'network'],
      [2, 200, null],
    ]);
  });

  it('a write whose connection drops is sent once, outcome unknown', async () => {
    server.handle((_request, _res, req) => req.socket.destroy());
    const error = await failure(
      makeClient().updateTransaction(
        { token: TOKEN },
        { planId: PLAN, transactionId: 't1', body: { transaction: { memo: 'm' } } },
      ),
    );
    expect(error).toMatchObject({
      kind: 'network',
      status: null,
      outcomeUnknown: true,
      retryable: false,
      attempts: 1,
    });
    expect(server.requests).toHaveLength(1);
  });

  it('a connection dropped in the middle of the body is kind network with the status known', async () => {
    server.handle((_request, res) => {
      res.writeHead(200, { 'content-length': 1000 });
      res.write('{"data":{');
      setImmediate(() => res.socket?.destroy());
    });
    const error = await failure(makeClient({ retry: { attempts: 1 } }).getUser({ token: TOKEN }));
    expect(error).toMatchObject({ kind: 'network', status: 200 });
  });

  it('a refused connection never reached the upstream: a write is not outcome-unknown', async () => {
    const closed = await startTestServer();
    const baseUrl = closed.baseUrl;
    await closed.close();
    const client = createUpstreamClient({ baseUrl, readBackoff: false, sleep: async () => {} });
    clients.push(client);
    const error = await failure(
      client.createPayee({ token: TOKEN }, { planId: PLAN, body: { payee: { name: 'x' } } }),
    );
    expect(error).toMatchObject({
      kind: 'network',
      status: null,
      outcomeUnknown: false,
      retryable: true,
      attempts: 1,
    });
    expect(error.message).toContain('ECONNREFUSED');
    const read = await failure(client.getUser({ token: TOKEN }));
    expect(read.attempts).toBe(3);
  });
});

describe('retries', () => {
  function sequence(statuses: number[]) {
    let index = 0;
    server.handle((_request, res) => {
      const status = statuses[Math.min(index++, statuses.length - 1)]!;
      if (status >= 400) sendRestError(res, status, String(status), 'x', 'y');
      else sendJson(res, status, ACCOUNTS);
    });
  }

  it('retries a read on 5xx with exponential backoff and full jitter, then succeeds', async () => {
    sequence([503, 500, 503, 200]);
    const sleeps: number[] = [];
    const client = makeClient({
      retry: { attempts: 4, baseDelayMs: 100, maxDelayMs: 250 },
      random: () => 0.5,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    const data = await client.getAccounts({ token: TOKEN }, { planId: PLAN });
    expect(data).toEqual(ACCOUNTS.data);
    expect(server.requests).toHaveLength(4);
    // caps 100, 200, then 400 clipped to 250; jitter picks half of each
    expect(sleeps).toEqual([50, 100, 125]);
  });

  it('gives up after the configured attempts with the last error', async () => {
    sequence([503]);
    const error = await failure(
      makeClient({ retry: { attempts: 3 } }).getAccounts({ token: TOKEN }, { planId: PLAN }),
    );
    expect(error).toMatchObject({ kind: 'http', status: 503, attempts: 3, retryable: true });
    expect(server.requests).toHaveLength(3);
  });

  it('attempts: 1 disables retries', async () => {
    sequence([503]);
    await failure(
      makeClient({ retry: { attempts: 1 } }).getAccounts({ token: TOKEN }, { planId: PLAN }),
    );
    expect(server.requests).toHaveLength(1);
  });

  it.each([400, 401, 403, 404, 409, 429])('never retries a read answered %i', async (status) => {
    sequence([status, 200]);
    const error = await failure(makeClient().getAccounts({ token: TOKEN }, { planId: PLAN }));
    expect(error).toMatchObject({ status, attempts: 1 });
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    'createAccount',
    'updateCategory',
    'updateTransaction',
    'deleteScheduledTransaction',
  ] as const)('never retries a write (%s) answered 503; its outcome is unknown', async (op) => {
    sequence([503, 200]);
    const client = makeClient();
    const params = {
      createAccount: { planId: PLAN, body: { account: { name: 'A', type: 'cash', balance: 0 } } },
      updateCategory: { planId: PLAN, categoryId: 'c', body: { category: { name: 'C' } } },
      updateTransaction: { planId: PLAN, transactionId: 't', body: { transaction: { memo: 'm' } } },
      deleteScheduledTransaction: { planId: PLAN, scheduledTransactionId: 's' },
    }[op];
    const send = client[op] as (call: { token: string }, params: unknown) => Promise<unknown>;
    const error = await failure(send({ token: TOKEN }, params));
    expect(error).toMatchObject({
      status: 503,
      outcomeUnknown: true,
      retryable: false,
      attempts: 1,
    });
    expect(server.requests).toHaveLength(1);
  });

  it('stops waiting and sends nothing more when the signal aborts during the backoff', async () => {
    sequence([503]);
    const controller = new AbortController();
    const reason = new Error('client went away');
    const client = makeClient({
      sleep: (_ms, signal) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
          controller.abort(reason);
        }),
    });
    await expect(
      client.getAccounts({ token: TOKEN, signal: controller.signal }, { planId: PLAN }),
    ).rejects.toBe(reason);
    expect(server.requests).toHaveLength(1);
  });

  it('the default sleep honours the signal too', async () => {
    sequence([503]);
    const controller = new AbortController();
    const client = createUpstreamClient({
      baseUrl: server.baseUrl,
      retry: { baseDelayMs: 60_000, maxDelayMs: 60_000 },
    });
    clients.push(client);
    const pending = client.getAccounts(
      { token: TOKEN, signal: controller.signal },
      { planId: PLAN },
    );
    await until(() => server.requests.length === 1, 'the first request');
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    expect(server.requests).toHaveLength(1);
  });

  it('an aborted request rejects with the abort reason, not an UpstreamError', async () => {
    server.handle(() => {});
    const controller = new AbortController();
    const pending = makeClient().getUser({ token: TOKEN, signal: controller.signal });
    await until(() => server.requests.length === 1, 'the first request');
    const reason = new Error('cancelled');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);

    await expect(makeClient().getUser({ token: TOKEN, signal: controller.signal })).rejects.toBe(
      reason,
    );
    expect(server.requests).toHaveLength(1);
  });
});

function recordingMeter() {
  const records: UpstreamCallRecord[] = [];
  return { records, record: (call: UpstreamCallRecord) => void records.push(call) };
}

describe('meter and ledger', () => {
  it('the meter sees every attempt with its status, duration and token key', async () => {
    let index = 0;
    server.handle((_request, res) => {
      if (index++ < 2) sendRestError(res, 503, '503', 'service_unavailable', 'busy');
      else sendJson(res, 200, ACCOUNTS);
    });
    let clock = 0;
    const meter = recordingMeter();
    await makeClient({ now: () => (clock += 5) }).getAccounts(
      { token: TOKEN, meter },
      { planId: PLAN },
    );
    expect(meter.records).toEqual(
      [1, 2, 3].map((attempt) => ({
        operationId: 'getAccounts',
        method: 'GET',
        status: attempt < 3 ? 503 : 200,
        attempt,
        durationMs: 5,
        tokenKey: tokenKey(TOKEN),
        errorKind: attempt < 3 ? 'http' : null,
        responseBytes: attempt < 3 ? null : Buffer.byteLength(JSON.stringify(ACCOUNTS)),
      })),
    );
  });

  it('a throwing meter does not fail the call', async () => {
    server.handle((_request, res) => sendJson(res, 201, { data: { payee: { id: 'p' } } }));
    const meter = {
      record: () => {
        throw new Error('sink down');
      },
    };
    const data = await makeClient().createPayee(
      { token: TOKEN, meter },
      { planId: PLAN, body: { payee: { name: 'p' } } },
    );
    expect(data).toEqual({ payee: { id: 'p' } });
  });

  it('the ledger counts every attempt per token key, retries included', async () => {
    let index = 0;
    server.handle((_request, res) => {
      if (index++ === 0) sendRestError(res, 500, '500', 'internal_server_error', 'oops');
      else sendJson(res, 200, ACCOUNTS);
    });
    const ledger = createRequestLedger({ now: () => 1_000 });
    const client = makeClient({ ledger });
    await client.getAccounts({ token: TOKEN }, { planId: PLAN });
    await client.getUser({ token: 'another-token-1234567890' }).catch(() => {});
    expect(ledger.usage(tokenKey(TOKEN))).toEqual({
      used: 2,
      limit: 200,
      remaining: 198,
      oldestAt: 1_000,
      resetsAt: 3_601_000,
    });
    expect(ledger.usage(tokenKey('another-token-1234567890')).used).toBe(1);
  });
});

describe('ledger and 429', () => {
  it('does not count a request the upstream refused with 429', async () => {
    let index = 0;
    server.handle((_request, res) => {
      if (index++ === 0) sendRestError(res, 429, '429', 'too_many_requests', 'later');
      else sendJson(res, 200, ACCOUNTS);
    });
    const ledger = createRequestLedger({ now: () => 1_000 });
    const client = makeClient({ ledger });
    await client.getAccounts({ token: TOKEN }, { planId: PLAN }).catch(() => {});
    expect(ledger.usage(tokenKey(TOKEN)).used).toBe(0);
    await client.getAccounts({ token: TOKEN }, { planId: PLAN });
    expect(ledger.usage(tokenKey(TOKEN)).used).toBe(1);
  });
});

describe('ledger: a call it has no room for', () => {
  it('is never sent: answered 429 from the ledger, reads and writes, however many wait', async () => {
    server.handle((_request, res) => sendJson(res, 200, ACCOUNTS));
    let now = 1_000;
    const ledger = createRequestLedger({ limit: 3, windowMs: 60_000, now: () => now });
    const client = makeClient({ ledger, wallClock: () => now, connectionsPerToken: 1 });
    // Eight at once, one connection: those queued behind see what the first ones spent.
    const calls = Array.from({ length: 8 }, () =>
      client.getAccounts({ token: TOKEN }, { planId: PLAN }).then(
        () => 'sent',
        (error: unknown) => error,
      ),
    );
    const outcomes = await Promise.all(calls);
    expect(outcomes.filter((outcome) => outcome === 'sent')).toHaveLength(3);
    expect(server.requests).toHaveLength(3);
    const refused = outcomes.filter(isUpstreamError);
    expect(refused).toHaveLength(5);
    expect(refused[0]).toMatchObject({
      status: 429,
      kind: 'http',
      upstream: null,
      attempts: 0,
      retryable: true,
      outcomeUnknown: false,
      retryAfterMs: 60_000,
      quota: { limit: 3, windowMs: 60_000 },
    });
    expect(refused[0]?.message).toContain('not sent');
    // A write is held back too: the upstream would refuse it.
    now += 30_000;
    const write = await failure(
      client.createPayee({ token: TOKEN }, { planId: PLAN, body: { payee: { name: 'p' } } }),
    );
    expect(write).toMatchObject({ status: 429, attempts: 0, retryAfterMs: 30_000 });
    expect(server.requests).toHaveLength(3);
    // Once the window moves past the first requests, calls go again.
    now += 30_000;
    await client.getAccounts({ token: TOKEN }, { planId: PLAN });
    expect(server.requests).toHaveLength(4);
    // Other tokens have their own room.
    await client.getAccounts({ token: 'another-token-1234567890' }, { planId: PLAN });
    expect(server.requests).toHaveLength(5);
  });
});

describe('bodies', () => {
  it('asks for compression and decodes gzip and br bodies', async () => {
    const client = makeClient();
    server.handle((_request, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end(gzipSync(JSON.stringify(ACCOUNTS)));
    });
    expect(await client.getAccounts({ token: TOKEN }, { planId: PLAN })).toEqual(ACCOUNTS.data);
    server.handle((_request, res) => {
      res.writeHead(200, { 'content-encoding': 'br' });
      res.end(brotliCompressSync(JSON.stringify(ACCOUNTS)));
    });
    expect(await client.getAccounts({ token: TOKEN }, { planId: PLAN })).toEqual(ACCOUNTS.data);
    expect(server.requests[0]?.headers['accept-encoding']).toBe('gzip, br');
  });

  it('does not ask for compression when told not to', async () => {
    await makeClient({ compression: false }).getUser({ token: TOKEN });
    expect(server.requests[0]?.headers['accept-encoding']).toBeUndefined();
  });

  it('decodes a gzip error body into the REST error', async () => {
    server.handle((_request, res) => {
      res.writeHead(404, { 'content-encoding': 'gzip' });
      res.end(
        gzipSync(
          JSON.stringify({ error: { id: '404.2', name: 'resource_not_found', detail: 'gone' } }),
        ),
      );
    });
    const error = await failure(makeClient().getUser({ token: TOKEN }));
    expect(error.upstream).toEqual({
      status: 404,
      id: '404.2',
      name: 'resource_not_found',
      detail: 'gone',
    });
  });

  it('a corrupt or unknown encoding is malformed', async () => {
    server.handle((_request, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end('definitely not gzip');
    });
    const corrupt = await failure(makeClient({ retry: { attempts: 1 } }).getUser({ token: TOKEN }));
    expect(corrupt).toMatchObject({ kind: 'malformed' });
    expect(corrupt.message).toContain('corrupt gzip stream');
    server.handle((_request, res) => {
      res.writeHead(200, { 'content-encoding': 'zstd' });
      res.end('x');
    });
    const unknown = await failure(makeClient({ retry: { attempts: 1 } }).getUser({ token: TOKEN }));
    expect(unknown.message).toContain('unsupported content-encoding');
  });

  it.each([
    [
      'a declared length over the limit',
      (res: import('node:http').ServerResponse) => {
        res.writeHead(200, { 'content-length': 5_000 });
        res.end('x'.repeat(5_000));
      },
    ],
    [
      'a chunked body over the limit',
      (res: import('node:http').ServerResponse) => {
        res.writeHead(200);
        for (let i = 0; i < 10; i++) res.write('y'.repeat(500));
        res.end();
      },
    ],
    [
      'a small gzip that inflates over the limit',
      (res: import('node:http').ServerResponse) => {
        res.writeHead(200, { 'content-encoding': 'gzip' });
        res.end(gzipSync(Buffer.alloc(1_000_000, 32)));
      },
    ],
  ])('%s is refused as too_large, not retried', async (_label, respond) => {
    server.handle((_request, res) => respond(res));
    const error = await failure(makeClient({ maxResponseBytes: 1_000 }).getUser({ token: TOKEN }));
    expect(error).toMatchObject({ kind: 'too_large', status: 200, retryable: false, attempts: 1 });
    expect(server.requests).toHaveLength(1);
  });

  it('a write whose answer is too large has an unknown outcome', async () => {
    server.handle((_request, res) =>
      sendJson(res, 201, { data: { payee: { id: 'x'.repeat(2_000) } } }),
    );
    const error = await failure(
      makeClient({ maxResponseBytes: 1_000 }).createPayee(
        { token: TOKEN },
        { planId: PLAN, body: { payee: { name: 'p' } } },
      ),
    );
    expect(error).toMatchObject({ kind: 'too_large', outcomeUnknown: true });
  });

  it('importTransactions reports whether the upstream answered 200 or 201', async () => {
    const client = makeClient();
    server.handle((_request, res) => sendJson(res, 200, { data: { transaction_ids: [] } }));
    expect(await client.importTransactions({ token: TOKEN }, { planId: PLAN })).toEqual({
      transaction_ids: [],
      status: 200,
    });
    server.handle((_request, res) => sendJson(res, 201, { data: { transaction_ids: ['t1'] } }));
    expect(await client.importTransactions({ token: TOKEN }, { planId: PLAN })).toEqual({
      transaction_ids: ['t1'],
      status: 201,
    });
  });
});

describe('connections and lifecycle', () => {
  it('keeps connections alive between calls and opens no more than `connections`', async () => {
    const client = makeClient({ connections: 2 });
    for (let i = 0; i < 6; i++) await client.getUser({ token: TOKEN });
    // Six calls, at most two sockets: they are reused, not opened per call.
    expect(new Set(server.requests.map((r) => r.remotePort)).size).toBeLessThanOrEqual(2);

    server.requests.length = 0;
    const release: Array<() => void> = [];
    server.handle((_request, res) => void release.push(() => sendJson(res, 200, { data: {} })));
    const calls = Array.from({ length: 5 }, () => client.getUser({ token: TOKEN }));
    await until(() => release.length === 2, 'two requests held upstream');
    expect(release).toHaveLength(2);
    // No pause to let a third connection show: one would carry one of the five requests, and
    // its port would make a third one in the count below.
    server.handle((_request, res) => sendJson(res, 200, { data: {} }));
    for (const answer of release.splice(0)) answer();
    await Promise.all(calls);
    expect(server.requests).toHaveLength(5);
    expect(new Set(server.requests.map((r) => r.remotePort)).size).toBe(2);
  });

  it('close() releases the pool: its sockets close and later calls reject', async () => {
    const client = createUpstreamClient({ baseUrl: server.baseUrl });
    await client.getUser({ token: TOKEN });
    const before = await server.connections();
    expect(before).toBeGreaterThan(0);
    await client.close();
    await until(
      async () => (await server.connections()) === before - 1,
      'the pool socket to close',
    );
    await expect(client.getUser({ token: TOKEN })).rejects.toThrow(
      'getUser: the upstream client is closed',
    );
    await client.close();
  });

  it('does not close a dispatcher it was given', async () => {
    const agent = new Agent();
    const client = createUpstreamClient({ baseUrl: server.baseUrl, dispatcher: agent });
    await client.getUser({ token: TOKEN });
    await client.close();
    expect(agent.closed).toBe(false);
    const other = createUpstreamClient({ baseUrl: server.baseUrl, dispatcher: agent });
    await expect(other.getUser({ token: TOKEN })).resolves.toEqual({});
    await other.close();
    await agent.close();
  });
});

describe('options', () => {
  it.each([
    ['http://127.0.0.1:1/', /must end with the \/v1 version segment/],
    ['https://api.example.com/v2', /must end with the \/v1 version segment/],
    ['not a url', /baseUrl must be an absolute URL/],
    ['ftp://api.example.com/v1', /must use http or https/],
    ['https://user:secret@api.example.com/v1', /must not carry credentials/],
    ['https://api.example.com/v1?access_token=x', /must not have a query or fragment/],
  ])('rejects baseUrl %s', (baseUrl, message) => {
    expect(() => createUpstreamClient({ baseUrl })).toThrow(message);
  });

  it('accepts a trailing slash and a prefix before /v1', async () => {
    const client = makeClient({ baseUrl: `${server.origin}/proxy/v1/` });
    expect(client.baseUrl).toBe(`${server.origin}/proxy/v1`);
    await client.getUser({ token: TOKEN });
    expect(server.requests[0]?.url).toBe('/proxy/v1/user');
  });

  it('rejects nonsensical numbers, naming the option', () => {
    expect(() => createUpstreamClient({ baseUrl: server.baseUrl, connections: 0 })).toThrow(
      /connections must be a positive integer/,
    );
    expect(() => createUpstreamClient({ baseUrl: server.baseUrl, retry: { attempts: 0 } })).toThrow(
      /retry\.attempts/,
    );
    expect(() => createUpstreamClient({ baseUrl: server.baseUrl, maxResponseBytes: -1 })).toThrow(
      /maxResponseBytes/,
    );
  });

  it('call() reaches any operation by id and refuses unknown ids', async () => {
    server.handle((_request, res) => sendJson(res, 200, ACCOUNTS));
    const client = makeClient();
    expect(await client.call('getAccounts', { token: TOKEN }, { planId: PLAN })).toEqual(
      ACCOUNTS.data,
    );
    await expect(client.call('nope' as 'getUser', { token: TOKEN })).rejects.toThrow(
      'call: unknown operationId "nope"',
    );
  });

  it('callWithParams() takes the params as one object, as the method does, and refuses unknown ids', async () => {
    const paths: string[] = [];
    server.handle((request, res) => {
      paths.push(request.url);
      sendJson(res, 200, ACCOUNTS);
    });
    const client = makeClient();
    expect(await client.callWithParams('getAccounts', { token: TOKEN }, { planId: PLAN })).toEqual(
      ACCOUNTS.data,
    );
    await client.getAccounts({ token: TOKEN }, { planId: PLAN });
    expect(paths).toHaveLength(2);
    expect(paths[0]).toBe(paths[1]);
    await expect(client.callWithParams('nope' as 'getUser', { token: TOKEN }, {})).rejects.toThrow(
      'callWithParams: unknown operationId "nope"',
    );
  });
});
