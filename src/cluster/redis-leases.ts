/**
 * Leases in Redis: `<prefix><kind>:<digest>` holds `<owner> <until> <tag>` with a TTL. Scripts
 * compare the owner (in clear); the tag (`seal.ts`, signed with the token's key, bound to the
 * key's name) proves that an instance holding the token wrote it, and `until` (epoch ms) when
 * it ends whatever TTL Redis keeps. Taking one is `SET PX` when the key is free or the caller
 * already owns it (then it renews); giving one up deletes it only if the caller still owns it.
 * A holder that dies stops renewing and the lease passes on when its TTL runs out.
 *
 * A lease whose tag does not verify (written by someone without the token) or whose `until` has
 * passed (an old value written again) binds nobody: the caller reports it, takes the lease over
 * and goes on as if it had been free. So write access to Redis can no longer stop a token's
 * polls or syncs: at most it makes two instances poll once (the poll budget still bounds them).
 *
 * `createRedisPollLeases` is the live updates' `PollLeases`: one poller per (token, plan) in the
 * cluster. Without Redis, or without the token's seal here, every instance is granted its own
 * lease, so each polls alone (the poll budget still bounds what it spends).
 */
import type { PollLeases } from '../live/poll-leases.js';
import { luaScript, type RedisLink, UNAVAILABLE } from './redis.js';
import { redisName, signed, type TokenSeal, type TokenSeals, verified } from './seal.js';

/** Clocks of instances differ by up to this much (README: keep them within a few hundred ms). */
export const CLOCK_SLACK_MS = 1_000;

/** Lua: whether a lease value belongs to `owner` (`<owner> ...`). */
export const OWNED = `
local function owned(value, owner)
  return value ~= false and string.sub(value, 1, #owner + 1) == owner .. ' '
end
`;

/**
 * ARGV: owner, new value, TTL, a value the caller judged void ('' for none). 1 when taken or
 * renewed; else the value of the lease as it is, for the caller to judge.
 */
export const ACQUIRE = luaScript(`${OWNED}
local current = redis.call('GET', KEYS[1])
if current == false or current == ARGV[4] or owned(current, ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return current
`);

export const RELEASE = luaScript(`${OWNED}
if owned(redis.call('GET', KEYS[1]), ARGV[1]) then return redis.call('DEL', KEYS[1]) end
return 0
`);

/** The value of `owner`'s lease of `key` until `until` (epoch ms). */
export function leaseValue(seal: TokenSeal, key: string, owner: string, until: number): string {
  return signed(seal, `${owner} ${Math.ceil(until)}`, key);
}

/** What a lease value found in Redis is worth. */
export type LeaseVerdict =
  | { readonly kind: 'held'; readonly owner: string; readonly until: number }
  /** Its tag does not verify: not written by an instance holding the token. */
  | { readonly kind: 'forged' }
  /** Genuine, but past its own end: written again after it ran out. */
  | { readonly kind: 'expired' };

export function judgeLease(seal: TokenSeal, key: string, value: string, now: number): LeaseVerdict {
  const text = verified(seal, value, key);
  const [owner, until] = text?.split(' ') ?? [];
  const end = Number(until);
  if (!owner || !Number.isSafeInteger(end)) return { kind: 'forged' };
  return end + CLOCK_SLACK_MS < now ? { kind: 'expired' } : { kind: 'held', owner, until: end };
}

/** What a void lease is reported as. */
export function voidLease(what: string, verdict: LeaseVerdict): string {
  return verdict.kind === 'forged'
    ? `${what} that failed authentication`
    : `${what} written again after its end`;
}

/** A script's reply as text (scripts run with buffers answer buffers). */
export function replyText(reply: unknown): string {
  return Buffer.isBuffer(reply) ? reply.toString('utf8') : String(reply);
}

export interface RedisPollLeasesOptions {
  link: RedisLink;
  /** This instance's id: the owner of its leases. */
  owner: string;
  seals: TokenSeals;
  /** @default Date.now */
  now?: () => number;
  /** A void lease was found and taken over (logged by the caller). */
  onRejected?: (what: string) => void;
}

export function createRedisPollLeases(options: RedisPollLeasesOptions): PollLeases {
  const { link, owner, seals, now = Date.now, onRejected = () => {} } = options;
  // The lease key already holds the token key: its digest names no token and no plan.
  const keyOf = (leaseKey: string) => `${link.prefix}o:${redisName('poll', leaseKey)}`;
  return {
    async acquire(leaseKey, ttlMs) {
      // Lease keys are live channel keys: `<tokenKey>:<planId>`.
      const seal = seals.get(leaseKey.slice(0, leaseKey.indexOf(':')));
      if (!seal) return true;
      const key = keyOf(leaseKey);
      const ttl = Math.ceil(ttlMs);
      const take = (replacing: string) =>
        link.script(
          ACQUIRE,
          [key],
          [owner, leaseValue(seal, key, owner, now() + ttl), ttl, replacing],
        );
      const reply = await take('');
      if (reply === UNAVAILABLE || reply === 1) return true;
      const value = replyText(reply);
      const verdict = judgeLease(seal, key, value, now());
      if (verdict.kind === 'held') return false;
      onRejected(voidLease('a poll lease', verdict));
      // Taken over unless it changed meanwhile; either way this instance polls this turn.
      await take(value);
      return true;
    },
    async release(leaseKey) {
      await link.script(RELEASE, [keyOf(leaseKey)], [owner]);
    },
  };
}
