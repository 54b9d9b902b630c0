/**
 * Leases in Redis: `<prefix><kind>:<digest>` holds the owner's id with a TTL. Taking one is
 * `SET NX PX` unless the caller already owns it (then it renews); giving one up deletes it only
 * if the caller still owns it. A holder that dies stops renewing and the lease passes on when its
 * TTL runs out.
 *
 * `createRedisPollLeases` is the live updates' `PollLeases`: one poller per (token, plan) in the
 * cluster. Without Redis every instance is granted its own lease, so each polls alone (the poll
 * budget still bounds what it spends).
 */
import type { PollLeases } from '../live/leases.js';
import { luaScript, type RedisLink, UNAVAILABLE } from './redis.js';
import { redisName } from './seal.js';

/** 1 when taken or renewed; else the milliseconds left on the other owner's lease. */
export const ACQUIRE = luaScript(`
local owner = redis.call('GET', KEYS[1])
if owner == false or owner == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return -math.max(redis.call('PTTL', KEYS[1]), 1)
`);

export const RELEASE = luaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

export function createRedisPollLeases(link: RedisLink, owner: string): PollLeases {
  // The lease key already holds the token key: its digest names no token and no plan.
  const keyOf = (leaseKey: string) => `${link.prefix}o:${redisName('poll', leaseKey)}`;
  return {
    async acquire(leaseKey, ttlMs) {
      const reply = await link.script(ACQUIRE, [keyOf(leaseKey)], [owner, Math.ceil(ttlMs)]);
      return reply === UNAVAILABLE || reply === 1;
    },
    async release(leaseKey) {
      await link.script(RELEASE, [keyOf(leaseKey)], [owner]);
    },
  };
}
