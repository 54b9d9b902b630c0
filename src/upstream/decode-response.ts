/**
 * Response reading: the single place an upstream answer becomes data or an error. A non-2xx
 * answer becomes the REST error it carries (its body read up to a small limit); a 2xx answer
 * must be JSON holding a `data` object within the operation's size limit. Integers beyond
 * ±(2^53 − 1) (an account's balance past 2^53 milliunits) are read as bigints, never rounded.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { parseExactJson } from '@plans-gateway/rest-contract';
import {
  errorFromResponse,
  type FailedCall,
  malformedResponse,
  responseTooLarge,
} from '../errors/upstream-error.js';
import type { Clock } from '../time/clock.js';
import { JsonArraySplitter, JsonStreamError } from './json-array-stream.js';
import { parseRetryAfter } from './read-backoff.js';
import { readBody, readBodyInto } from './read-body.js';
import type { ByteBudget } from './response-limits.js';

/** Error bodies are small; a larger one is treated as "not a REST error" without reading it all. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

export interface ResponseReading {
  /** Largest body this answer may have, after decompression. */
  readonly limit: number;
  /** Bytes every answer being read holds together. */
  readonly buffered?: ByteBudget;
  /** Wall clock in epoch ms, for `Retry-After` dates. */
  readonly wallClock: Clock;
  /** Read a 2xx body as it streams instead of whole (see `StreamReading`). */
  readonly stream?: StreamReading;
}

/**
 * A 2xx answer read as it streams: the array members of the object at `at` (keys below the
 * answer's `data`) are handed out in parsed batches and never held; the rest of `data` is
 * returned with those arrays empty.
 */
export interface StreamReading {
  /** Keys below `data` to the object whose array members stream, e.g. `['plan']`. */
  readonly at: readonly string[];
  /**
   * Called as each attempt's body starts (a retried read starts over): returns who takes that
   * body's elements, batch by batch, in order. It may throw to stop the read.
   */
  open(): (key: string, elements: unknown[]) => void;
  /** Largest body after decompression; replaces the operation's cap. */
  readonly maxBytes: number;
  /** The setting that raises `maxBytes`, named in the too-large error. */
  readonly setting?: string;
  /** Told of each piece of the body as it arrives (a load's progress). @default none */
  readonly received?: () => void;
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
  if (reading.stream) return streamDataObject(failed, response, received, reading.stream);
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

/** Private: a 2xx body read as it streams; resolves to its `data` without the streamed rows. */
async function streamDataObject(
  failed: FailedCall,
  response: UpstreamResponse,
  received: Received,
  stream: StreamReading,
): Promise<object> {
  const status = response.statusCode;
  const take = stream.open();
  const { received: progressed } = stream;
  const splitter = new JsonArraySplitter({ at: ['data', ...stream.at], onElements: take });
  let parsed: unknown;
  try {
    const read = await readBodyInto(response.body, response.headers, stream.maxBytes, (chunk) => {
      splitter.write(chunk);
      progressed?.();
      return true;
    });
    if (read.kind === 'too_large') {
      throw responseTooLarge(failed, status, stream.maxBytes, stream.setting);
    }
    if (read.kind === 'undecodable') throw malformedResponse(failed, status, read.reason);
    received.bytes = read.size;
    parsed = splitter.end();
  } catch (error) {
    if (error instanceof JsonStreamError) throw malformedResponse(failed, status, error.message);
    throw error;
  }
  return dataOf(failed, status, parsed);
}

/** Private: the `data` object of a REST answer, or a malformed-response error. */
function dataObjectOf(failed: FailedCall, status: number, bytes: Buffer): object {
  let parsed: unknown;
  try {
    parsed = parseExactJson(bytes.toString('utf8'));
  } catch {
    throw malformedResponse(failed, status, 'not JSON');
  }
  return dataOf(failed, status, parsed);
}

/** Private: the `data` object of a parsed REST answer, or a malformed-response error. */
function dataOf(failed: FailedCall, status: number, parsed: unknown): object {
  const data =
    typeof parsed === 'object' && parsed !== null ? (parsed as { data?: unknown }).data : undefined;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw malformedResponse(failed, status, 'no data object');
  }
  return data;
}
