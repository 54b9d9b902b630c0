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
 * In process only for now: instances behind a balancer that routes by token digest see their
 * own caller's keys; sharing them through Redis is not done yet.
 */
import { LRUCache } from 'lru-cache';
import { gatewayError } from '../errors/codes.js';
import { type Clock, epochNow } from '../time/clock.js';

/** @default a day and an hour: covers a day offline plus the time to flush. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 25 * 3_600_000;
/** @default 16 MiB of remembered answers across callers */
export const DEFAULT_IDEMPOTENCY_BYTES = 16 * 1024 * 1024;

/** Printable ASCII, 1–255 characters (what the IETF draft's clients send: UUIDs and the like). */
const KEY_SYNTAX = /^[\x21-\x7e]{1,255}$/;

interface Remembered {
  readonly fingerprint: string;
  readonly answer: string;
  readonly expiresAt: number;
}

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
}: {
  now?: Clock;
  ttlMs?: number;
  maxBytes?: number;
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
      const answer = write();
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
