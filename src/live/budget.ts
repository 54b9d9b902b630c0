/**
 * How often the pollers of a token may call the upstream: the budget decisions of live updates,
 * read from request ledgers so that a shared (cluster-wide) ledger can replace the in-process one.
 *
 * A token has `limit` requests per rolling `windowMs` (200 an hour upstream). Polls may spend
 * `allowance = floor(share × limit)` of them; the rest stays for the token's reads and writes.
 *
 * 1. Pacing: each poller of the token waits `max(maxAge, windowMs × pollers / allowance)` between
 *    two polls (`pollers` = the token's plans being polled). Evenly spaced polls at that interval
 *    can never exceed the allowance in any window.
 * 2. Cap: polls are also counted in their own ledger; while the token's polls in the window reach
 *    the allowance (several instances, retries, irregular spacing), the next poll waits until the
 *    oldest one leaves the window.
 * 3. Headroom: a poll is not sent while the token has no more than `ceil(limit × 5%)` requests
 *    left (10 of 200), whoever spent the rest: a write and the delta that follows it always find
 *    room. It waits until the oldest counted request leaves the window.
 *
 * With the defaults (200 an hour, share 0.5, max-age 30 s) one plan is polled every 36 s: 100
 * requests an hour, leaving 100 for reads and writes.
 */

import { type Clock, epochNow } from '../time/clock.js';
import { createRequestLedger, type RequestUsage } from '../upstream/request-ledger.js';

/** Polls never take the last 5% of a token's requests (see 3. above). */
export const HEADROOM_SHARE = 0.05;
/** Shortest wait when a ledger says "full" without saying until when. */
const MIN_WAIT_MS = 1_000;

export interface PollBudgetOptions {
  /**
   * The token's upstream use as the request ledger counts it (all reads, writes and polls). May
   * answer asynchronously (a shared ledger).
   */
  usage: (tokenKey: string) => RequestUsage | Promise<RequestUsage>;
  /** Requests per token per window upstream. @default 200 */
  limit?: number;
  /** @default 3_600_000 */
  windowMs?: number;
  /** Share of `limit` polls may spend, in (0, 1]. @default 0.5 */
  share?: number;
  /** The gateway's max-age: no point polling more often than reads would sync. @default 30_000 */
  maxAgeMs?: number;
  /** @default epochNow */
  now?: Clock;
  /**
   * The ledger of poll requests alone.
   * @default an in-process ledger with `limit: allowance`
   */
  polls?: PollLedger;
}

/** Counts poll requests; a shared (cluster-wide) ledger may answer asynchronously. */
export interface PollLedger {
  record(tokenKey: string): void;
  usage(tokenKey: string): RequestUsage | Promise<RequestUsage>;
}

/**
 * Counts a poll's upstream calls: passed as the read's (or the backfill's) meter, it is told of
 * each call as the upstream client's meters are, and reads only its status.
 */
export interface PollMeter {
  record(call: { readonly status: number | null }): void;
}

export interface PollBudgetUsage {
  /** Requests polls may spend per window. */
  readonly allowance: number;
  readonly polls: RequestUsage;
  readonly total: RequestUsage;
}

export interface PollBudget {
  /** Time between two polls of one plan when `pollers` plans of the token are polled. */
  intervalMs(pollers: number): number;
  /** How long the token's next poll must wait for the budget; 0 when it may go now. */
  waitMs(tokenKey: string): Promise<number>;
  /**
   * How long a call that takes the place of a poll (a reconciliation's export) must wait: only
   * the headroom rule (3.) applies. Counted in the polls' ledger (`meter`), it makes the next
   * poll wait instead (the cap, 2.), so the polls' share is not exceeded for long: by one call.
   */
  headroomWaitMs(tokenKey: string): Promise<number>;
  /** Counts the upstream requests of a poll (pass it as the read's meter). */
  meter(tokenKey: string): PollMeter;
  usage(tokenKey: string): Promise<PollBudgetUsage>;
}

export function createPollBudget(options: PollBudgetOptions): PollBudget {
  const {
    usage,
    limit = 200,
    windowMs = 3_600_000,
    share = 0.5,
    maxAgeMs = 30_000,
    now = epochNow,
  } = options;
  if (!(share > 0 && share <= 1)) {
    throw new RangeError(`createPollBudget: share must be in (0, 1], got ${share}`);
  }
  const allowance = Math.max(1, Math.floor(share * limit));
  const headroom = Math.ceil(limit * HEADROOM_SHARE);
  const polls = options.polls ?? createRequestLedger({ limit: allowance, windowMs, now });

  return {
    intervalMs: (pollers) =>
      Math.max(maxAgeMs, Math.ceil((windowMs * Math.max(1, pollers)) / allowance)),
    async waitMs(tokenKey) {
      const total = await usage(tokenKey);
      const at = now();
      let until = at;
      const spent = await polls.usage(tokenKey);
      if (spent.used >= allowance) until = Math.max(until, spent.resetsAt ?? at + MIN_WAIT_MS);
      if (total.remaining <= headroom) until = Math.max(until, total.resetsAt ?? at + MIN_WAIT_MS);
      return until - at;
    },
    async headroomWaitMs(tokenKey) {
      const total = await usage(tokenKey);
      const at = now();
      return total.remaining <= headroom ? (total.resetsAt ?? at + MIN_WAIT_MS) - at : 0;
    },
    meter: (tokenKey) => ({
      record(call) {
        // Refused with 429, a request does not count upstream (the ledger releases it too).
        if (call.status !== 429) polls.record(tokenKey);
      },
    }),
    usage: async (tokenKey) => ({
      allowance,
      polls: await polls.usage(tokenKey),
      total: await usage(tokenKey),
    }),
  };
}
