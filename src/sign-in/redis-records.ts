/**
 * Sign-in's records in the cluster's Redis, through its one link: a string per record
 * (`<prefix>si:<kind>:<id>`, expiring with it) and a sorted set per kind (`<prefix>si:<kind>`,
 * scored by the end) that bounds it: past the bound, the records ending first are deleted in
 * the same script. Redis away: `SignInStoreUnavailableError` (a sign-in cannot complete without
 * its store; bearer tokens are untouched).
 */
import { luaScript, type RedisLink, UNAVAILABLE } from '../cluster/redis.js';
import { type RecordKind, type SignInRecords, SignInStoreUnavailableError } from './records.js';

/** KEYS: record, index. ARGV: value, expiresAt (ms), ttl (ms), max, id, key prefix of records. */
const PUT = luaScript(`
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[5])
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[4])
if over > 0 then
  for _, id in ipairs(redis.call('ZPOPMIN', KEYS[2], over)) do
    if _ % 2 == 1 then redis.call('DEL', ARGV[6] .. id) end
  end
end
return 1
`);

/** KEYS: record, index. ARGV: id. */
const TAKE = luaScript(`
local value = redis.call('GET', KEYS[1])
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return value
`);

export function createRedisSignInRecords(link: RedisLink): SignInRecords {
  const index = (kind: RecordKind) => `${link.prefix}si:${kind}`;
  const key = (kind: RecordKind, id: string) => `${index(kind)}:${id}`;
  const answered = <T>(reply: T | typeof UNAVAILABLE): T => {
    if (reply === UNAVAILABLE) throw new SignInStoreUnavailableError('redis unavailable');
    return reply;
  };
  return {
    where: 'redis',
    async get(kind, id) {
      const value = answered(await link.run((redis) => redis.get(key(kind, id))));
      return value ?? undefined;
    },
    async put(kind, id, value, { expiresAt, now, max }) {
      // The index's scores only order the records; the sealed value carries its own end too.
      const ttl = Math.max(1, Math.ceil(expiresAt - now));
      answered(
        await link.script(
          PUT,
          [key(kind, id), index(kind)],
          [value, expiresAt, ttl, max, id, `${index(kind)}:`],
        ),
      );
    },
    async take(kind, id) {
      const reply = answered(await link.script(TAKE, [key(kind, id), index(kind)], [id]));
      return typeof reply === 'string' ? reply : undefined;
    },
    async delete(kind, id) {
      answered(
        await link.run((redis) => redis.multi().del(key(kind, id)).zrem(index(kind), id).exec()),
      );
    },
    async count(kind) {
      return answered(await link.run((redis) => redis.zcard(index(kind))));
    },
    async close() {},
  };
}
