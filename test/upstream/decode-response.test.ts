import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import type { OperationId } from '@plans-gateway/rest-contract';
import { describe, expect, it } from 'vitest';
import {
  type FailedCall,
  isUpstreamError,
  type UpstreamError,
} from '../../src/errors/upstream-error.js';
import { decodeResponse, type Received } from '../../src/upstream/decode-response.js';
import { createByteBudget } from '../../src/upstream/response-limits.js';

const NOW = Date.UTC(2024, 0, 1);
const TOKEN = 'decode-test-token-abcdef';

function failedCall(operationId: OperationId = 'getUser'): FailedCall {
  return {
    operationId,
    method: operationId === 'importTransactions' ? 'POST' : 'GET',
    attempt: 1,
    redact: (text) => text.replaceAll(TOKEN, '[redacted]'),
  };
}

function response(status: number, body: string | Buffer, headers: Record<string, string> = {}) {
  return { statusCode: status, headers, body: Readable.from([Buffer.from(body)]) };
}

const reading = { limit: 1024, wallClock: () => NOW };

async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
  const error: unknown = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!isUpstreamError(error)) throw new Error(`expected an UpstreamError, got ${String(error)}`);
  return error;
}

describe('decodeResponse', () => {
  it('answers the data object of a 2xx answer and counts its decoded bytes', async () => {
    const body = JSON.stringify({ data: { user: { id: 'u1' } } });
    const received: Received = { bytes: null };
    const data = await decodeResponse(failedCall(), response(200, body), received, reading);
    expect(data).toEqual({ user: { id: 'u1' } });
    expect(received.bytes).toBe(Buffer.byteLength(body));
  });

  it('decompresses a gzip body and counts the bytes after decompression', async () => {
    const body = JSON.stringify({ data: { user: { id: 'u1' } } });
    const received: Received = { bytes: null };
    const data = await decodeResponse(
      failedCall(),
      response(200, gzipSync(body), { 'content-encoding': 'gzip' }),
      received,
      reading,
    );
    expect(data).toEqual({ user: { id: 'u1' } });
    expect(received.bytes).toBe(Buffer.byteLength(body));
  });

  it('puts the status of an import beside its data: 201 imported, 200 otherwise', async () => {
    const body = JSON.stringify({ data: { transaction_ids: ['t1'] } });
    const created = await decodeResponse(
      failedCall('importTransactions'),
      response(201, body),
      { bytes: null },
      reading,
    );
    const none = await decodeResponse(
      failedCall('importTransactions'),
      response(200, body),
      { bytes: null },
      reading,
    );
    expect(created).toEqual({ transaction_ids: ['t1'], status: 201 });
    expect(none).toEqual({ transaction_ids: ['t1'], status: 200 });
  });

  it.each([
    ['not JSON', '{"data":'],
    ['no data object', JSON.stringify({ data: [1, 2] })],
    ['no data object', JSON.stringify({ result: {} })],
    ['no data object', 'null'],
  ])('fails as malformed (%s) once the body was read whole', async (reason, body) => {
    const received: Received = { bytes: null };
    const error = await failure(
      decodeResponse(failedCall(), response(200, body), received, reading),
    );
    expect(error.kind).toBe('malformed');
    expect(error.status).toBe(200);
    expect(error.message).toContain(reason);
    expect(received.bytes).toBe(Buffer.byteLength(body));
  });

  it('fails as too large past the limit, and returns the bytes it took to the shared budget', async () => {
    const budget = createByteBudget(10_000);
    const body = JSON.stringify({ data: { note: 'x'.repeat(2000) } });
    const received: Received = { bytes: null };
    const error = await failure(
      decodeResponse(failedCall(), response(200, body), received, { ...reading, buffered: budget }),
    );
    expect(error.kind).toBe('too_large');
    expect(received.bytes).toBeNull();
    expect(budget.take(10_000)).toBe(true);
  });

  it('turns a non-2xx answer into its REST error, redacted, with the Retry-After delay', async () => {
    const body = JSON.stringify({
      error: { id: '429', name: 'too_many_requests', detail: `slow down ${TOKEN}` },
    });
    const received: Received = { bytes: null };
    const error = await failure(
      decodeResponse(failedCall(), response(429, body, { 'retry-after': '30' }), received, reading),
    );
    expect(error.kind).toBe('http');
    expect(error.status).toBe(429);
    expect(error.upstream).toEqual({
      status: 429,
      id: '429',
      name: 'too_many_requests',
      detail: 'slow down [redacted]',
    });
    expect(error.retryAfterMs).toBe(30_000);
    expect(received.bytes).toBeNull();
  });

  it('synthesizes an error from the status when the error body is no REST error', async () => {
    const error = await failure(
      decodeResponse(failedCall(), response(503, '<html>busy</html>'), { bytes: null }, reading),
    );
    expect(error.kind).toBe('http');
    expect(error.status).toBe(503);
    expect(error.retryable).toBe(true);
  });
});
