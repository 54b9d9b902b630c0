/**
 * The budget decisions of the pollers, read from the request ledger: the pacing interval, the
 * cap on polls per window, the headroom left to reads and writes, and what counts as a poll.
 */
import { describe, expect, it } from 'vitest';
import { createPollBudget } from '../../src/live/budget.js';
import type { UpstreamCallRecord } from '../../src/operation/upstream-calls.js';
import { createRequestLedger } from '../../src/upstream/request-ledger.js';

const HOUR = 3_600_000;

function setup(share = 0.5, limit = 200) {
  let now = 1_000_000;
  const ledger = createRequestLedger({ limit, windowMs: HOUR, now: () => now });
  const budget = createPollBudget({
    usage: (key) => ledger.usage(key),
    limit,
    windowMs: HOUR,
    share,
    maxAgeMs: 30_000,
    now: () => now,
  });
  const call = (status: number): UpstreamCallRecord => ({
    operationId: 'getPlanById',
    method: 'GET',
    status,
    attempt: 1,
    durationMs: 1,
    tokenKey: 't',
    errorKind: null,
    responseBytes: 10,
  });
  /** A poll as the client and the read's meter both see it. */
  const poll = (status = 200) => {
    ledger.record('t');
    if (status === 429) ledger.release('t');
    budget.meter('t').record(call(status));
  };
  return { budget, ledger, poll, advance: (ms: number) => (now += ms) };
}

describe('createPollBudget', () => {
  it('paces a plan at the larger of max-age and window / allowance, shared by the plans of a token', () => {
    const { budget } = setup();
    expect(budget.intervalMs(1)).toBe(36_000); // 100 polls an hour
    expect(budget.intervalMs(3)).toBe(108_000);
    expect(setup(1).budget.intervalMs(1)).toBe(30_000); // 200 an hour would allow 18 s: max-age wins
    expect(setup(0.1).budget.intervalMs(1)).toBe(180_000);
    expect(() => setup(0)).toThrow(/share must be in \(0, 1\]/);
    expect(() => setup(1.5)).toThrow(/share must be in \(0, 1\]/);
  });

  it('holds polls back once they reach their allowance, until the oldest leaves the window', async () => {
    const { budget, poll, advance } = setup(0.05); // allowance 10
    for (let i = 0; i < 10; i += 1) {
      expect(await budget.waitMs('t')).toBe(0);
      poll();
      advance(60_000);
    }
    expect(await budget.usage('t')).toMatchObject({ allowance: 10, polls: { used: 10 } });
    expect(await budget.waitMs('t')).toBe(HOUR - 10 * 60_000);
    advance(HOUR - 10 * 60_000);
    expect(await budget.waitMs('t')).toBe(0);
  });

  it("keeps the token's last 5% for reads and writes, whoever spent the rest", async () => {
    const { budget, ledger, advance } = setup();
    for (let i = 0; i < 189; i += 1) ledger.record('t'); // reads and writes
    expect(await budget.waitMs('t')).toBe(0);
    ledger.record('t');
    expect((await budget.usage('t')).total.remaining).toBe(10);
    expect(await budget.waitMs('t')).toBe(HOUR);
    advance(HOUR);
    expect(await budget.waitMs('t')).toBe(0);
  });

  it('does not count a poll the upstream refused with 429', async () => {
    const { budget, poll } = setup();
    poll(429);
    poll(200);
    expect((await budget.usage('t')).polls.used).toBe(1);
    expect((await budget.usage('t')).total.used).toBe(1);
  });
});
