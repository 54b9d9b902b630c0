/** The fair share of upstream connections between tokens (issue 8, item 5), in isolation. */
import { describe, expect, it } from 'vitest';
import { createFairShare, type Release } from '../../src/upstream/fair-share.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('fair share', () => {
  it('gives a key at most its share, and the other slots to other keys', async () => {
    const share = createFairShare({ slots: 10, perKey: 4 });
    const greedy: (Release | undefined)[] = [];
    for (let i = 0; i < 20; i++) void share.acquire('a').then((r) => greedy.push(r));
    await tick();
    expect(greedy).toHaveLength(4);
    const others = await Promise.all(
      ['b', 'c', 'd', 'e', 'f', 'g'].map((key) => share.acquire(key)),
    );
    expect(others).toHaveLength(6);
    expect(share.stats()).toEqual({ inUse: 10, waiting: 16 });
  });

  it('hands a freed slot to waiting keys in turn', async () => {
    const share = createFairShare({ slots: 2, perKey: 2 });
    const first = await share.acquire('a');
    await share.acquire('a');
    const order: string[] = [];
    for (const key of ['a', 'a', 'a', 'b', 'c'])
      void share.acquire(key).then((r) => {
        order.push(key);
        r();
      });
    first();
    await tick();
    // a, b and c each had requests waiting: they take turns, a's backlog does not go first.
    expect(order.slice(0, 3)).toEqual(['a', 'b', 'c']);
  });

  it('stops waiting when the signal aborts, and a release counts once', async () => {
    const share = createFairShare({ slots: 1, perKey: 1 });
    const release = await share.acquire('a');
    const controller = new AbortController();
    const waiting = share.acquire('b', controller.signal);
    controller.abort(new Error('deadline'));
    await expect(waiting).rejects.toThrow('deadline');
    release();
    release();
    expect(share.stats()).toEqual({ inUse: 0, waiting: 0 });
    const again = await share.acquire('c');
    expect(share.stats().inUse).toBe(1);
    again();
  });
});
