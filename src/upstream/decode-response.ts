/**
 * Response reading: the single place an upstream answer becomes data or an error. A non-2xx
 * answer becomes the REST error it carries (its body read up to a small limit); a 2xx answer
 * must be JSON holding a `data` object within the operation's size limit.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import {
  errorFromResponse,
  type FailedCall,
  malformedResponse,
  responseTooLarge,
} from '../errors/upstream-error.js';
import { parseRetryAfter } from './read-backoff.js';
import { readBody } from './read-body.js';
import type { ByteBudget } from './response-limits.js';

/** Error bodies are small; a larger one is treated as "not a REST error" without reading it all. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

export interface ResponseReading {
  /** Largest body this answer may have, after decompression. */
  readonly limit: number;
  /** Bytes every answer being read holds together. */
  readonly buffered?: ByteBudget;
  /** Wall clock in epoch ms, for `Retry-After` dates. */
  readonly wallClock: () => number;
}

/** The parts of an undici response read here. */
export interface UpstreamResponse {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Readable;
}

/** What was read; `bytes` is the decoded body size, `null` when no body was read whole. */
export interface Received {
  bytes: number | null;
}

/**
 * The answer's `data` (for `importTransactions` with its status beside it), or throws the
 * UpstreamError it stands for. `received.bytes` is set once a 2xx body was read whole, even if
 * it then proves malformed.
 */
export async function decodeResponse(
  failed: FailedCall,
  response: UpstreamResponse,
  received: Received,
  reading: ResponseReading,
): Promise<unknown> {
  const status = response.statusCode;
  if (status < 200 || status >= 300) {
    const read = await readBody(response.body, response.headers, MAX_ERROR_BODY_BYTES);
    throw errorFromResponse(
      failed,
      status,
      read.kind === 'ok' ? read.bytes.toString('utf8') : null,
      parseRetryAfter(response.headers['retry-after'], reading.wallClock()),
    );
  }
  const read = await readBody(response.body, response.headers, reading.limit, reading.buffered);
  if (read.kind === 'too_large') throw responseTooLarge(failed, status, reading.limit);
  if (read.kind === 'undecodable') throw malformedResponse(failed, status, read.reason);
  received.bytes = read.bytes.length;
  const data = dataObjectOf(failed, status, read.bytes);
  if (failed.operationId === 'importTransactions') {
    return { ...data, status: status === 201 ? 201 : 200 };
  }
  return data;
}

/** Private: the `data` object of a REST answer, or a malformed-response error. */
function dataObjectOf(failed: FailedCall, status: number, bytes: Buffer): object {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw malformedResponse(failed, status, 'not JSON');
  }
  const data =
    typeof parsed === 'object' && parsed !== null ? (parsed as { data?: unknown }).data : undefined;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw malformedResponse(failed, status, 'no data object');
  }
  return data;
}
