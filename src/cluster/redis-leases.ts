/**
 * Leases in Redis, the one mechanism of every lease and claim the gateway holds there (poll
 * leases, flight leases, webhook feed leases and delivery claims): a key holds
 * `<owner> <until> <tag>` with a TTL (a flight's lease also its holder's progress marker,
 * `<owner> <until> <progress> <tag>`). Scripts compare the owner (in clear); the tag (a
 * `Signer`: the token's key for a token's leases, the operator's key for webhooks), bound to the
 * key's name, proves that someone holding that key wrote it (marker included), and `until`
 * (epoch ms) when it ends whatever TTL Redis keeps. Taking one is `SET PX` when the key is free
 * or the caller already owns it (then it renews); giving one up deletes it only if the caller
 * still owns it. A holder that dies stops renewing and the lease passes on when its TTL runs
 * out; a holder that lives renews it with `renewLease` (src/live/lease-renewal.ts).
 *
 * A lease whose tag does not verify (written by someone without the key) or whose `until` has
 * passed (an old value written again) binds nobody: the caller reports it, takes the lease over
 * and goes on as if it had been free. So write access to Redis can no longer stop a token's
 * polls or syncs, or a webhook feed: at most it makes two instances do the work once.
 *
 * `createRedisPollLeases` is the live updates' `PollLeases`: one poller per (token, plan) in the
 * cluster. Without Redis, or without the token's seal here, every instance is granted its own
 * lease, so each polls alone (the poll budget still bounds what it spends).
 */
import type { Signer } from '../crypto/signer.js';
import type { PollLeases } from '../live/poll-leases.js';
import { type Clock, epochNow } from '../time/clock.js';
import { luaScript, type RedisLink, UNAVAILABLE, type Unavailable } from './redis.js';
import { redisName, type TokenSeals } from './seal.js';

/** Clocks of instances differ by up to this much (README: keep them within a few hundred ms). */
export const CLOCK_SLACK_MS = 1_000;

/** Lua: whether a lease value belongs to `owner` (`<owner> ...`). */
export const OWNED = `
local function owned(value, owner)
  return value ~= false and string.sub(value, 1, #owner + 1) == owner .. ' '
end
`;

/**
 * Lua: takes `key` for `owner` (sets `value` for `ttl` ms) when it is free, the caller's own, or
 * holds `void` (a value the caller judged void; '' for none). 1 when taken or renewed; else the
 * value as it is, for the caller to judge. For scripts that take a lease among other steps.
 */
export const TAKE = `${OWNED}
local function take(key, owner, value, ttl, void)
  local current = redis.call('GET', key)
  if current == false or current == void or owned(current, owner) then
    redis.call('SET', key, value, 'PX', ttl)
    return 1
  end
  return current
end
`;

/** ARGV: owner, new value, TTL, a value judged void. As `TAKE`. */
export const ACQUIRE = luaScript(`${TAKE}
return take(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
`);

export const RELEASE = luaScript(`${OWNED}
if owned(redis.call('GET', KEYS[1]), ARGV[1]) then return redis.call('DEL', KEYS[1]) end
return 0
`);

/**
 * The value of `owner`'s lease of `key` until `until` (epoch ms); with `progress`, the holder's
 * progress marker (a flight's beats, `flight-progress.ts`), signed with the rest.
 */
export function leaseValue(
  signer: Signer,
  key: string,
  owner: string,
  until: number,
  progress?: number,
): string {
  const text = `${owner} ${Math.ceil(until)}${progress === undefined ? '' : ` ${progress}`}`;
  return `${text} ${signer.sign(text, key)}`;
}

/** What a lease value found in Redis is worth. */
export type LeaseVerdict =
  | {
      readonly kind: 'held';
      readonly owner: string;
      readonly until: number;
      /** The holder's progress marker; 0 for a lease without one. */
      readonly progress: number;
    }
  /** Its tag does not verify: not written by an instance holding the token. */
  | { readonly kind: 'forged' }
  /** Genuine, but past its own end: written again after it ran out. */
  | { readonly kind: 'expired' };

export function judgeLease(signer: Signer, key: string, value: string, now: number): LeaseVerdict {
  const space = value.lastIndexOf(' ');
  const text =
    space > 0 && signer.verify(value.slice(0, space), value.slice(space + 1), key)
      ? value.slice(0, space)
      : undefined;
  const [owner, until, marker = '0'] = text?.split(' ') ?? [];
  const end = Number(until);
  const progress = Number(marker);
  if (!owner || !Number.isSafeInteger(end) || !Number.isSafeInteger(progress)) {
    return { kind: 'forged' };
  }
  return end + CLOCK_SLACK_MS < now
    ? { kind: 'expired' }
    : { kind: 'held', owner, until: end, progress };
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

/** A lease to take or renew: `key` (with the prefix) for `owner`, signed by `signer`. */
export interface LeaseRequest {
  readonly key: string;
  readonly owner: string;
  readonly ttlMs: number;
  readonly signer: Signer;
  /** Epoch ms, for the lease's own end. */
  readonly now: Clock;
  /** What a void lease is called in the report ("a poll lease"). */
  readonly what: string;
  /** A void lease was found and taken over. */
  readonly onRejected: (what: string) => void;
}

/**
 * Takes or renews a signed lease (one round trip; two when a void one is taken over): true when
 * the caller holds it now (or took a void one over), false while someone else does, `UNAVAILABLE` when Redis did not
 * answer (each caller decides what that means: a poller polls alone, a webhook feed waits).
 */
export async function takeLease(
  link: RedisLink,
  lease: LeaseRequest,
): Promise<boolean | Unavailable> {
  const { key, owner, signer, now } = lease;
  const ttl = Math.ceil(lease.ttlMs);
  const take = (replacing: string) =>
    link.script(
      ACQUIRE,
      [key],
      [owner, leaseValue(signer, key, owner, now() + ttl), ttl, replacing],
    );
  const reply = await take('');
  if (reply === UNAVAILABLE) return UNAVAILABLE;
  if (reply === 1) return true;
  const value = replyText(reply);
  const verdict = judgeLease(signer, key, value, now());
  if (verdict.kind === 'held') return false;
  lease.onRejected(voidLease(lease.what, verdict));
  // Taken over unless it changed meanwhile; either way the caller goes on as if it were free
  // (whatever it writes under the lease is checked against it again).
  await take(value);
  return true;
}

/** Gives `owner`'s lease of `key` up, if still theirs; false when Redis did not answer. */
export async function releaseLease(link: RedisLink, key: string, owner: string): Promise<boolean> {
  return (await link.script(RELEASE, [key], [owner])) !== UNAVAILABLE;
}

export interface RedisPollLeasesOptions {
  link: RedisLink;
  /** This instance's id: the owner of its leases. */
  owner: string;
  seals: TokenSeals;
  /** @default epochNow */
  now?: Clock;
  /** A void lease was found and taken over (logged by the caller). */
  onRejected?: (what: string) => void;
}

export function createRedisPollLeases(options: RedisPollLeasesOptions): PollLeases {
  const { link, owner, seals, now = epochNow, onRejected = () => {} } = options;
  // The lease key already holds the token key: its digest names no token and no plan.
  const keyOf = (leaseKey: string) => `${link.prefix}o:${redisName('poll', leaseKey)}`;
  return {
    async acquire(leaseKey, ttlMs) {
      // Lease keys are live channel keys: `<tokenKey>:<planId>`.
      const seal = seals.get(leaseKey.slice(0, leaseKey.indexOf(':')));
      if (!seal) return true;
      const held = await takeLease(link, {
        key: keyOf(leaseKey),
        owner,
        ttlMs,
        signer: seal,
        now,
        what: 'a poll lease',
        onRejected,
      });
      // Without an answer this instance polls alone this turn.
      return held !== false;
    },
    async release(leaseKey) {
      await releaseLease(link, keyOf(leaseKey), owner);
    },
  };
}
