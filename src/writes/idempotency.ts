/**
 * Idempotent writes (issue 35): a client that queues writes while offline replays them when the
 * network is back, and a replay must not write twice. A write sent with an idempotency key (the
 * `Idempotency-Key` request header) is remembered per caller (token digest or grant key) with the
 * upstream's answer; the same key again answers that answer without calling the upstream, for
 * at least a day, within a byte budget (the least recently used go first). The same key with a
 * different write is refused: a key names one write. A write that failed is not remembered (it
 * changed nothing the client is told of; sending it again is the client's call, as today).
 * Writes without a key keep the REST semantics (a repeated `import_id` is still refused).
 *
 * With Redis (`shared`, src/cluster/idempotency-store.ts) the answers live there, sealed per
 * token, so a replay reaching another instance answers the same; a claim in Redis makes two
 * instances receiving one key at once write once (the second is told the write is in progress,
 * and retries). Embedded, or while Redis is unavailable, they are kept in process.
 */

import { LRUCache } from 'lru-cache';
import type { Remembered, SharedIdempotency } from '../cluster/idempotency-store.js';
import { gatewayError } from '../errors/codes.js';
import { type Clock, epochNow } from '../time/clock.js';

/** @default a day and an hour: covers a day offline plus the time to flush. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 25 * 3_600_000;
/** @default 16 MiB of remembered answers across callers */
export const DEFAULT_IDEMPOTENCY_BYTES = 16 * 1024 * 1024;

/** Printable ASCII, 1–255 characters (what the IETF draft's clients send: UUIDs and the like). */
const KEY_SYNTAX = /^[\x21-\x7e]{1,255}$/;

/** @default 1 MiB of remembered answers per token in Redis */
export const DEFAULT_SHARED_IDEMPOTENCY_BYTES_PER_TOKEN = 1024 * 1024;

export interface IdempotentWrites {
  /**
   * `write()` once per (caller, key): its answer, or the remembered one for a key already used
   * with the same `fingerprint` (a concurrent repeat waits for the first). Refuses a key used
   * with another write, and a malformed key, with BAD_USER_INPUT.
   */
  once<T>(tokenKey: string, key: string, fingerprint: string, write: () => Promise<T>): Promise<T>;
}

export function createIdempotentWrites({
  now = epochNow,
  ttlMs = DEFAULT_IDEMPOTENCY_TTL_MS,
  maxBytes = DEFAULT_IDEMPOTENCY_BYTES,
  shared,
  sharedBytesPerToken = DEFAULT_SHARED_IDEMPOTENCY_BYTES_PER_TOKEN,
}: {
  now?: Clock;
  ttlMs?: number;
  maxBytes?: number;
  shared?: SharedIdempotency | undefined;
  sharedBytesPerToken?: number;
} = {}): IdempotentWrites {
  const kept = new LRUCache<string, Remembered>({
    maxSize: maxBytes,
    sizeCalculation: (entry, key) => entry.answer.length + entry.fingerprint.length + key.length,
  });
  const inFlight = new Map<string, { fingerprint: string; answer: Promise<unknown> }>();
  const reused = () =>
    gatewayError(
      'This Idempotency-Key was already used with another write: use a new key for each write.',
      'BAD_USER_INPUT',
    );
  // Private: the write once across the cluster when Redis is there, else `write()`.
  async function writeShared<T>(
    tokenKey: string,
    key: string,
    fingerprint: string,
    write: () => Promise<T>,
  ): Promise<T> {
    const found = await shared?.find(tokenKey, key);
    if (found === undefined) return write();
    if (found !== 'none') {
      if (found.fingerprint !== fingerprint) throw reused();
      return JSON.parse(found.answer) as T;
    }
    const release = await shared?.claim(tokenKey, key);
    if (release === undefined) return write();
    if (release === 'busy') {
      throw gatewayError(
        'A write with this Idempotency-Key is in progress on another instance: send it again shortly.',
        'BAD_USER_INPUT',
      );
    }
    try {
      // Another instance may have written and kept it between our look and our claim (and let
      // its claim go): look again now that nobody else can be writing it.
      const meanwhile = await shared?.find(tokenKey, key);
      if (meanwhile !== undefined && meanwhile !== 'none') {
        if (meanwhile.fingerprint !== fingerprint) throw reused();
        return JSON.parse(meanwhile.answer) as T;
      }
      const value = await write();
      const remembered = { fingerprint, answer: JSON.stringify(value), expiresAt: now() + ttlMs };
      await shared?.keep(tokenKey, key, remembered, { ttlMs, maxBytes: sharedBytesPerToken });
      return value;
    } finally {
      await release();
    }
  }

  return {
    async once<T>(tokenKey: string, key: string, fingerprint: string, write: () => Promise<T>) {
      if (!KEY_SYNTAX.test(key)) {
        throw gatewayError(
          'The Idempotency-Key header must be 1 to 255 printable ASCII characters (a UUID, say).',
          'BAD_USER_INPUT',
        );
      }
      const id = `${tokenKey}\n${key}`;
      const done = kept.get(id);
      if (done && done.expiresAt > now()) {
        if (done.fingerprint !== fingerprint) throw reused();
        return JSON.parse(done.answer) as T;
      }
      const running = inFlight.get(id);
      if (running) {
        if (running.fingerprint !== fingerprint) throw reused();
        return (await running.answer) as T;
      }
      const answer = writeShared(tokenKey, key, fingerprint, write);
      inFlight.set(id, { fingerprint, answer });
      try {
        const value = await answer;
        kept.set(id, { fingerprint, answer: JSON.stringify(value), expiresAt: now() + ttlMs });
        return value;
      } finally {
        inFlight.delete(id);
      }
    },
  };
}
