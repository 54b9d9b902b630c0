/**
 * `client.stream`: an answer read as it streams over real HTTP. Its arrays reach the taker in
 * batches (gzip too); a retried read (a broken body, a dropped connection) starts over with a new
 * taker; a taker that throws ends the read and its connection at once; a body over the cap fails
 * `too_large` after one request, naming the setting.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isUpstreamError, type UpstreamError } from '../../src/errors/upstream-error.js';
import { createUpstreamClient, type UpstreamClient } from '../../src/upstream/client.js';
import { startTestServer, type TestServer } from './support/http-server.js';

const TOKEN = 'stream-token-000001';
let server: TestServer;
const clients: UpstreamClient[] = [];

beforeAll(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(() => server.close());

function client(options: { maxBufferedResponseBytes?: number } = {}): UpstreamClient {
  const created = createUpstreamClient({
    ...options,
    baseUrl: server.baseUrl,
    readBackoff: false,
    tokenGate: false,
    retry: { attempts: 3, baseDelayMs: 0, maxDelayMs: 0 },
  });
  clients.push(created);
  return created;
}

const rows = Array.from({ length: 8000 }, (_, i) => ({ id: `t${i}`, memo: `row ☕ ${i}` }));
const body = JSON.stringify({
  data: { plan: { id: 'p1', name: 'Plan', transactions: rows }, server_knowledge: 7 },
});

/** Reads `getPlanById` through `stream`, recording each attempt's rows (`onRows` sees each batch). */
async function read(c: UpstreamClient, maxBytes = 1 << 30, onRows?: () => void) {
  const attempts: unknown[][] = [];
  const data = await c.stream(
    'getPlanById',
    { token: TOKEN },
    {
      at: ['plan'],
      open() {
        const taken: unknown[] = [];
        attempts.push(taken);
        return (key, batch) => {
          if (key === 'transactions') {
            taken.push(...batch);
            onRows?.();
          }
        };
      },
      maxBytes,
      setting: 'REPLICA_MAX_MB',
    },
    { planId: 'p1' },
  );
  return { data, attempts };
}

describe('client.stream', () => {
  it('hands the rows of a gzip answer to the taker and returns the rest', async () => {
    server.handle((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(body));
    });
    const { data, attempts } = await read(client());
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toEqual(rows);
    expect(data).toEqual({
      plan: { id: 'p1', name: 'Plan', transactions: [] },
      server_knowledge: 7,
    });
  });

  it('starts over with a new taker when a read is retried after a broken body', async () => {
    let calls = 0;
    server.handle((_request, res) => {
      calls += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      // The first answer breaks off in the middle of the rows: malformed, retried.
      res.end(calls === 1 ? body.slice(0, body.length / 2) : body);
    });
    const { attempts } = await read(client());
    expect(calls).toBe(2);
    expect(attempts).toHaveLength(2);
    expect(attempts[0]!.length).toBeGreaterThan(0);
    expect(attempts[0]!.length).toBeLessThan(rows.length);
    expect(attempts[1]).toEqual(rows);
  });

  it('takes nothing from the budget buffered answers share: concurrent exports all complete', async () => {
    server.handle((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    // Four exports at once, each larger than the whole shared budget of buffered answers.
    const c = client({ maxBufferedResponseBytes: Math.floor(body.length / 4) });
    const reads = await Promise.all([read(c), read(c), read(c), read(c)]);
    for (const { attempts } of reads) expect(attempts).toEqual([rows]);
    // A buffered read of the same answer does not fit that budget.
    const buffered = await c.getPlanById({ token: TOKEN }, { planId: 'p1' }).then(
      () => 'ok',
      (error: unknown) => (isUpstreamError(error) ? error.kind : String(error)),
    );
    expect(buffered).toBe('too_large');
  });

  it('reads a body again whole when its connection drops mid-stream', async () => {
    let calls = 0;
    server.handle((_request, res) => {
      calls += 1;
      const length = Buffer.byteLength(body);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': length });
      if (calls > 1) {
        res.end(body);
        return;
      }
      res.write(body.slice(0, body.length / 2));
      drop = () => res.socket?.destroy();
    });
    // The connection drops once the first attempt has taken rows, whatever the machine's pace.
    let drop: (() => void) | undefined;
    const { attempts } = await read(client(), undefined, () => {
      drop?.();
      drop = undefined;
    });
    expect(calls).toBe(2);
    expect(attempts[0]!.length).toBeGreaterThan(0);
    expect(attempts[0]!.length).toBeLessThan(rows.length);
    expect(attempts.at(-1)).toEqual(rows);
  });

  it('stops reading as soon as the taker throws, and closes the connection', async () => {
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    server.handle((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.on('close', () => closed());
      // The head and a few rows, then nothing more: only the gateway can end this answer.
      res.write(body.slice(0, 200_000));
    });
    const c = client();
    const failure = await c
      .stream(
        'getPlanById',
        { token: TOKEN },
        {
          at: ['plan'],
          open: () => () => {
            throw new Error('row 3 is wrong');
          },
          maxBytes: 1 << 30,
          setting: 'REPLICA_MAX_MB',
        },
        { planId: 'p1' },
      )
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toBe('row 3 is wrong');
    await connectionClosed;
  });

  it('fails too_large past its cap after one request, naming the setting', async () => {
    let calls = 0;
    server.handle((_request, res) => {
      calls += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    const failure = await read(client(), 10_000).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isUpstreamError(failure)).toBe(true);
    const error = failure as UpstreamError;
    expect(error.kind).toBe('too_large');
    expect(error.retryable).toBe(false);
    expect(error.sizeLimit).toEqual({ bytes: 10_000, setting: 'REPLICA_MAX_MB' });
    expect(error.message).toMatch(/over the 10000-byte limit \(raise REPLICA_MAX_MB/);
    expect(calls).toBe(1);
  });
});
