import { describe, expect, it } from 'vitest';
import { createAnswerCache } from '../../src/server/plugins/answer-cache.js';

const answer = {
  bytes: Buffer.from('{"data":{}}'),
  contentType: 'application/json',
  hasExtensions: false,
  operationName: null,
};

describe('the answer cache keeps an answer from its second sight', () => {
  it('notes an ETag the first time and keeps it the second', () => {
    const cache = createAnswerCache({ maxBytes: 1_000_000 });
    expect(cache.worthKeeping('"a"')).toBe(false);
    expect(cache.worthKeeping('"b"')).toBe(false);
    expect(cache.worthKeeping('"a"')).toBe(true);
    expect(cache.worthKeeping('"b"')).toBe(true);
  });

  it('keeps what it holds already worth keeping', () => {
    const cache = createAnswerCache({ maxBytes: 1_000_000 });
    cache.set('"a"', answer);
    expect(cache.worthKeeping('"a"')).toBe(true);
  });

  it('remembers a bounded number of first sights, forgetting the oldest', () => {
    const cache = createAnswerCache({ maxBytes: 1_000_000, maxSightings: 2 });
    expect(cache.worthKeeping('"a"')).toBe(false);
    expect(cache.worthKeeping('"b"')).toBe(false);
    expect(cache.worthKeeping('"c"')).toBe(false);
    // "a" was pushed out by "c": seen again, it counts as a first sight.
    expect(cache.worthKeeping('"a"')).toBe(false);
    expect(cache.worthKeeping('"c"')).toBe(true);
  });
});
