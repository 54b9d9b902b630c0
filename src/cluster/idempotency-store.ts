/**
 * The idempotency store shared by the instances of a cluster (issue 35): a write applied through
 * one instance with an `Idempotency-Key` answers the same when its replay reaches another.
 *
 * - One hash per token, `ik:<digest>`, a field per key (`redisName` of the token key and the
 *   idempotency key); values are sealed with the token's key (`seal.ts`), so Redis holds neither
 *   the key, nor the write, nor its answer in clear. A sorted set `it:<digest>` orders the fields
 *   by the time they were kept: fields older than the TTL go, and while the token's answers
 *   exceed the byte budget the oldest go first. Both keys expire a TTL after the last write.
 * - A claim (`il:<digest>`, `SET NX PX`, owned by this instance and a random id) makes two
 *   instances that receive one key at once write once: the one that does not get the claim is
 *   told the write is in progress.
 * Without Redis, or without the token's seal here, every call answers `undefined`: the caller
 * keeps the key in process.
 */
import { randomBytes } from 'node:crypto';
import { luaScript, type RedisLink, UNAVAILABLE } from './redis.js';
import { RELEASE } from './redis-leases.js';
import { openJson, redisName, sealJson, type TokenSeals } from './seal.js';

/** KEYS: hash, order; ARGV: field, blob, now, ttl, maxBytes. Keeps one answer within budget. */
const KEEP = luaScript(`
local hash, order = KEYS[1], KEYS[2]
local now, ttl, max = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local bytes = tonumber(redis.call('HGET', hash, 'n') or '0')
local function drop(field)
  bytes = bytes - redis.call('HSTRLEN', hash, field)
  redis.call('HDEL', hash, field)
  redis.call('ZREM', order, field)
end
for _, field in ipairs(redis.call('ZRANGEBYSCORE', order, '-inf', now - ttl)) do drop(field) end
drop(ARGV[1])
redis.call('HSET', hash, ARGV[1], ARGV[2])
redis.call('ZADD', order, now, ARGV[1])
bytes = bytes + #ARGV[2]
while bytes > max and redis.call('ZCARD', order) > 1 do
  local oldest = redis.call('ZRANGE', order, 0, 0)[1]
  if oldest == ARGV[1] then break end
  drop(oldest)
end
redis.call('HSET', hash, 'n', bytes)
redis.call('PEXPIRE', hash, ttl)
redis.call('PEXPIRE', order, ttl)
return bytes
`);

export interface Remembered {
  readonly fingerprint: string;
  readonly answer: string;
  readonly expiresAt: number;
}

/** Where a cluster keeps the answers (this module). `undefined`: not shared now. */
export interface SharedIdempotency {
  find(tokenKey: string, key: string): Promise<Remembered | 'none' | undefined>;
  /** The claim of a key (its release), `busy` when another instance holds it. */
  claim(tokenKey: string, key: string): Promise<(() => Promise<void>) | 'busy' | undefined>;
  keep(
    tokenKey: string,
    key: string,
    kept: Remembered,
    limits: { ttlMs: number; maxBytes: number },
  ): Promise<void>;
}

export interface SharedIdempotencyOptions {
  link: RedisLink;
  seals: TokenSeals;
  /** This instance's id (claims name their owner). */
  instanceId: string;
  now: () => number;
  onError?: (error: unknown) => void;
}

/** A write's deadline is well under this: a claim whose holder died frees itself after it. */
const CLAIM_MS = 120_000;

export function createSharedIdempotency(options: SharedIdempotencyOptions): SharedIdempotency {
  const { link, seals, instanceId, now, onError = () => {} } = options;
  const names = (tokenKey: string, key: string) => {
    const token = redisName('idempotency', tokenKey);
    return {
      hash: `${link.prefix}ik:${token}`,
      order: `${link.prefix}it:${token}`,
      field: redisName('idempotency-key', tokenKey, key),
      claim: `${link.prefix}il:${redisName('idempotency-claim', tokenKey, key)}`,
    };
  };
  return {
    async find(tokenKey, key) {
      const seal = seals.get(tokenKey);
      if (!seal || !link.available) return undefined;
      const { hash, field } = names(tokenKey, key);
      const blob = await link.run((redis) => redis.hgetBuffer(hash, field));
      if (blob === UNAVAILABLE) return undefined;
      if (blob === null) return 'none';
      try {
        const kept = await openJson(seal, blob, `${hash}/${field}`);
        const { fingerprint, answer, expiresAt } = kept as Record<string, unknown>;
        if (typeof fingerprint !== 'string' || typeof answer !== 'string') return 'none';
        if (typeof expiresAt !== 'number' || expiresAt <= now()) return 'none';
        return { fingerprint, answer, expiresAt };
      } catch (error) {
        onError(error);
        return 'none';
      }
    },

    async claim(tokenKey, key) {
      if (!seals.get(tokenKey) || !link.available) return undefined;
      const { claim } = names(tokenKey, key);
      const owner = `${instanceId}.${randomBytes(6).toString('base64url')}`;
      // `<owner> <until>`, as leases are written: RELEASE deletes it only while it is ours.
      const value = `${owner} ${now() + CLAIM_MS}`;
      const taken = await link.run((redis) => redis.set(claim, value, 'PX', CLAIM_MS, 'NX'));
      if (taken === UNAVAILABLE) return undefined;
      if (taken !== 'OK') return 'busy';
      return async () => {
        await link.script(RELEASE, [claim], [owner]).catch(onError);
      };
    },

    async keep(tokenKey, key, kept, { ttlMs, maxBytes }) {
      const seal = seals.get(tokenKey);
      if (!seal || !link.available) return;
      const { hash, order, field } = names(tokenKey, key);
      const blob = await sealJson(seal, kept, `${hash}/${field}`);
      await link.script(KEEP, [hash, order], [field, blob, now(), ttlMs, maxBytes]).catch(onError);
    },
  };
}
