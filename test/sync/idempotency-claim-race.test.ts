/**
 * Two instances receive one Idempotency-Key at once. B looks in Redis (nothing kept yet), then A
 * writes, keeps its answer and lets its claim go, and only then does B claim the key: B must find
 * A's answer on a second look instead of writing again. A one-trip write (no delta before the
 * answer) made this window wide enough for the cluster suite to hit it.
 */
import { describe, expect, it } from 'vitest';
import type { Remembered, SharedIdempotency } from '../../src/cluster/idempotency-store.js';
import { createIdempotentWrites } from '../../src/writes/idempotency.js';

/** The manual clock's reading: nothing here waits, and nothing expires. */
const NOW = 1_750_000_000_000;

/** A shared store in which another instance completes the write between the look and the claim. */
function completedMeanwhile(answer: unknown, fingerprint: string): SharedIdempotency {
  let kept: Remembered | undefined;
  return {
    find: async () => kept ?? 'none',
    async claim() {
      kept = { fingerprint, answer: JSON.stringify(answer), expiresAt: NOW + 60_000 };
      return async () => {};
    },
    async keep() {
      throw new Error('nothing is written here, so nothing is kept');
    },
  };
}

describe('a claim won after another instance finished the write', () => {
  it('answers the other instance’s write and writes nothing', async () => {
    const original = { transaction: { id: 'tx-from-a' } };
    const writes = createIdempotentWrites({
      now: () => NOW,
      shared: completedMeanwhile(original, 'same'),
    });
    let written = 0;
    const answer = await writes.once('token-key', 'key-1', 'same', async () => {
      written += 1;
      return { transaction: { id: 'tx-from-b' } };
    });
    expect(written).toBe(0);
    expect(answer).toEqual(original);
  });

  it('refuses the key when the other instance wrote something else with it', async () => {
    const writes = createIdempotentWrites({
      now: () => NOW,
      shared: completedMeanwhile({}, 'another write'),
    });
    let written = 0;
    await expect(
      writes.once('token-key', 'key-2', 'this write', async () => {
        written += 1;
        return {};
      }),
    ).rejects.toThrow(/already used with another write/);
    expect(written).toBe(0);
  });
});
