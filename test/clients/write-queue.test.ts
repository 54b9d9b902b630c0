/**
 * The client kit's write queue on its own (test/clients/offline.test.ts runs it against the
 * gateway): when it flushes.
 */
import {
  memoryStorage,
  openWriteQueue,
  type SendResult,
  type SendWrite,
} from '@plans-gateway/client-kit/offline';
import { describe, expect, it } from 'vitest';

describe('the write queue', () => {
  it('flushes again when asked while an attempt is still failing (the network just came back)', async () => {
    let online = false;
    const attempts: { resolve: (result: SendResult) => void; label: string | undefined }[] = [];
    const send: SendWrite = (write) =>
      online
        ? Promise.resolve({ kind: 'answered', data: { ok: { __typename: 'Ok' } } })
        : new Promise((resolve) => attempts.push({ resolve, label: write.label }));
    const queue = await openWriteQueue({ storage: memoryStorage(), send });
    await queue.enqueue({ query: 'mutation { ok }', variables: {}, label: 'made offline' });
    expect(attempts.map((a) => a.label)).toEqual(['made offline']); // the attempt hangs
    online = true;
    const flushed = queue.flush(); // the `online` event, while that attempt is out
    attempts[0]!.resolve({ kind: 'unreachable', error: new TypeError('Failed to fetch') });
    expect(await flushed).toEqual({ pending: [], conflict: null });
  });
});
