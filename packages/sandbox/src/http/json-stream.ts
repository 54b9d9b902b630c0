/**
 * Writes a JSON answer. Most answers are small and go out as one string with a content-length;
 * an answer holding a `LazyList` streams (chunked transfer encoding) in pieces of about 64 KiB,
 * waiting for the socket to drain between pieces, so a plan of a million transactions exports
 * without ever holding its whole text.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { LazyList } from '../present/lazy-list.js';

/**
 * Private: marks a bigint while `JSON.stringify` writes it as a string, so the quotes can come
 * off afterwards. The NUL and the per-process nonce keep any string a client stored from looking
 * like one.
 */
const BIG_MARK = `\u0000exact-${randomUUID()}:`;
const MARKED = new RegExp(`"${BIG_MARK.replace('\u0000', '\\\\u0000')}(-?\\d+)"`, 'g');

/**
 * `JSON.stringify`, except that a bigint (a sum past 2^53, see core/exact.ts) is written as the
 * JSON integer it is. Answers without one, nearly all, take the plain path.
 */
export function toJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    const marked = JSON.stringify(value, (_key, field: unknown) =>
      typeof field === 'bigint' ? `${BIG_MARK}${field}` : field,
    );
    return (marked ?? 'null').replace(MARKED, '$1');
  }
}

/** @default 64 KiB: large enough for few writes, small enough to stay out of the way. */
const CHUNK_CHARS = 64 * 1024;

/** Whether `value` holds a lazy list (lists are never nested inside plain arrays). */
export function isStreamed(value: unknown): boolean {
  if (value instanceof LazyList) return true;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.values(value).some(isStreamed);
}

/** Private: the JSON text of `value` in pieces, lazy lists item by item. */
function* jsonPieces(value: unknown): Generator<string> {
  if (value instanceof LazyList) {
    yield '[';
    let first = true;
    for (const item of value) {
      yield first ? toJson(item) : `,${toJson(item)}`;
      first = false;
    }
    yield ']';
    return;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !isStreamed(value)) {
    yield toJson(value);
    return;
  }
  yield '{';
  let first = true;
  for (const [key, field] of Object.entries(value)) {
    if (field === undefined) continue;
    yield `${first ? '' : ','}${JSON.stringify(key)}:`;
    yield* jsonPieces(field);
    first = false;
  }
  yield '}';
}

/** Resolves once `res` can take more, or is gone (`false`). */
function drained(res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

/**
 * Streams `value` as the body of an answer whose head is already written. Resolves when the body
 * is complete or the client went away; rejects when presenting an item fails (the caller can only
 * cut the connection then, the status being sent).
 */
export async function streamJson(res: ServerResponse, value: unknown): Promise<void> {
  let buffer = '';
  for (const piece of jsonPieces(value)) {
    buffer += piece;
    if (buffer.length < CHUNK_CHARS) continue;
    const room = res.write(buffer);
    buffer = '';
    if (!room && !(await drained(res))) return;
    if (res.destroyed) return;
  }
  res.end(buffer);
}
