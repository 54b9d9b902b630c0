import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/core/dates.js';
import { createDueQueue } from '../../src/store/due-queue.js';
import { randomFor } from '../support/seeded-store.js';

describe('due queue', () => {
  it('hands entries back by date, then id, whatever the order they came in', () => {
    const rng = randomFor(11);
    const queue = createDueQueue();
    const pushed: { date: string; id: string }[] = [];
    for (let i = 0; i < 500; i++) {
      const entry = { date: addDays('2025-06-15', rng.int(0, 60)), id: rng.uuid() };
      pushed.push(entry);
      queue.push(entry.date, entry.id);
    }
    expect(queue.size).toBe(500);
    expect(queue.peek()).toEqual(
      pushed.reduce((a, b) => (b.date < a.date || (b.date === a.date && b.id < a.id) ? b : a)),
    );
    const popped = [];
    for (let entry = queue.pop(); entry !== undefined; entry = queue.pop()) popped.push(entry);
    const expected = [...pushed].sort((a, b) =>
      a.date === b.date ? (a.id < b.id ? -1 : 1) : a.date < b.date ? -1 : 1,
    );
    expect(popped).toEqual(expected);
    expect(queue.size).toBe(0);
    expect(queue.peek()).toBeUndefined();
  });
});
