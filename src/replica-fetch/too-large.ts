import { LRUCache } from 'lru-cache';
import { isUpstreamError, type UpstreamError } from '../errors/upstream-error.js';
import type { Clock } from '../time/clock.js';

/** How long an export found too large is not asked for again. */
export const TOO_LARGE_MS = 10 * 60_000;

export interface TooLargeMemo {
  /** Throws the remembered failure while an export of (token key, id) counts as too large. */
  check(tokenKey: string, planId: string): void;
  /** Waits for an export's read; remembers it when it fails as too large. */
  note<T>(tokenKey: string, planId: string, read: Promise<T>): Promise<T>;
}

/**
 * Exports found larger than the replica budget allows, per (token key, requested id). Too large
 * is deterministic: asking again would download the same bytes only to fail the same way, so for
 * a while later loads fail at once with the same error (it names the setting to raise; raising it
 * means a restart, which forgets this).
 */
export function createTooLargeMemo(now: Clock): TooLargeMemo {
  const failures = new LRUCache<string, { error: UpstreamError; at: number }>({ max: 10_000 });
  const keyOf = (tokenKey: string, planId: string) => `${tokenKey.length}:${tokenKey}/${planId}`;
  return {
    check(tokenKey, planId) {
      const failure = failures.get(keyOf(tokenKey, planId));
      if (failure === undefined) return;
      if (now() - failure.at >= TOO_LARGE_MS) failures.delete(keyOf(tokenKey, planId));
      else throw failure.error;
    },
    async note(tokenKey, planId, read) {
      try {
        return await read;
      } catch (error) {
        if (isUpstreamError(error) && error.kind === 'too_large') {
          failures.set(keyOf(tokenKey, planId), { error, at: now() });
        }
        throw error;
      }
    },
  };
}
