import { describe, expect, it } from 'vitest';
import { createRequestLedger } from '../../src/upstream/request-ledger.js';
import { tokenKey } from '../../src/upstream/token-key.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

function manualClock(start = 0) {
  let time = start;
  return {
    now: () => time,
    set: (at: number) => {
      time = at;
    },
  };
}

describe('createRequestLedger', () => {
  it('counts requests in a rolling hour and says when the oldest leaves', () => {
    const clock = manualClock();
    const ledger = createRequestLedger({ now: clock.now });
    const key = tokenKey('token-a');

    expect(ledger.usage(key)).toEqual({
      used: 0,
      limit: 200,
      remaining: 200,
      oldestAt: null,
      resetsAt: null,
    });

    for (const at of [0, 10 * MINUTE, 20 * MINUTE]) {
      clock.set(at);
      ledger.record(key);
    }
    clock.set(59 * MINUTE);
    expect(ledger.usage(key)).toEqual({
      used: 3,
      limit: 200,
      remaining: 197,
      oldestAt: 0,
      resetsAt: HOUR,
    });

    clock.set(HOUR);
    expect(ledger.usage(key)).toEqual({
      used: 2,
      limit: 200,
      remaining: 198,
      oldestAt: 10 * MINUTE,
      resetsAt: 70 * MINUTE,
    });

    clock.set(20 * MINUTE + HOUR);
    expect(ledger.usage(key)).toEqual({
      used: 0,
      limit: 200,
      remaining: 200,
      oldestAt: null,
      resetsAt: null,
    });
  });

  it('keeps tokens apart', () => {
    const ledger = createRequestLedger({ now: () => 5 });
    ledger.record('key-a');
    ledger.record('key-a');
    ledger.record('key-b');
    expect(ledger.usage('key-a').used).toBe(2);
    expect(ledger.usage('key-b').used).toBe(1);
    expect(ledger.usage('key-c').used).toBe(0);
  });

  it('never reports a negative remainder', () => {
    const ledger = createRequestLedger({ limit: 3, now: () => 0 });
    for (let i = 0; i < 5; i++) ledger.record('k');
    expect(ledger.usage('k')).toMatchObject({ used: 5, limit: 3, remaining: 0 });
  });

  it('bounds memory: per-token entries saturate, least recently used tokens are forgotten', () => {
    const clock = manualClock();
    const ledger = createRequestLedger({
      limit: 2,
      maxEntriesPerToken: 4,
      maxTokens: 2,
      now: clock.now,
    });
    for (let i = 0; i < 10; i++) {
      clock.set(i);
      ledger.record('busy');
    }
    // Only the newest four are kept, so the reset errs late, never early.
    expect(ledger.usage('busy')).toMatchObject({
      used: 4,
      remaining: 0,
      oldestAt: 6,
      resetsAt: 6 + HOUR,
    });

    ledger.record('second');
    ledger.record('third');
    expect(ledger.usage('busy').used).toBe(0);
    expect(ledger.usage('second').used).toBe(1);
    expect(ledger.usage('third').used).toBe(1);
  });

  it('honours a custom window', () => {
    const clock = manualClock();
    const ledger = createRequestLedger({ windowMs: 1_000, now: clock.now });
    ledger.record('k');
    clock.set(999);
    expect(ledger.usage('k').used).toBe(1);
    clock.set(1_000);
    expect(ledger.usage('k').used).toBe(0);
  });

  it.each([
    [{ limit: 0 }, /limit must be a positive integer, got 0/],
    [{ windowMs: -1 }, /windowMs must be a positive integer/],
    [{ maxTokens: 1.5 }, /maxTokens must be a positive integer/],
  ])('rejects invalid options %o', (options, message) => {
    expect(() => createRequestLedger(options)).toThrow(message);
  });
});

describe('tokenKey', () => {
  it('is the SHA-256 hex digest of the token', () => {
    expect(tokenKey('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('is stable, distinct per token and never contains the token', async () => {
    const token = 'my-personal-access-token';
    // The same token built anew and hashed by a second copy of the module (the query makes it
    // another module, evaluated anew): the key cannot come from a cache, a per-process salt or
    // the string's identity, as another gateway instance would compute it.
    const copy = '../../src/upstream/token-key.js?another-instance';
    const fresh = (await import(copy)) as typeof import('../../src/upstream/token-key.js');
    expect(fresh.tokenKey).not.toBe(tokenKey);
    expect(fresh.tokenKey(['my', 'personal', 'access', 'token'].join('-'))).toBe(tokenKey(token));
    expect(tokenKey(token)).not.toBe(tokenKey(`${token}x`));
    expect(tokenKey(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(tokenKey(token)).not.toContain(token);
  });

  it('rejects an empty token', () => {
    expect(() => tokenKey('')).toThrow('tokenKey: token must be a non-empty string');
  });
});
