/**
 * The authorization server's store of several instances (`REDIS_URL`): the same rows as the
 * SQLite store, in Redis under `<prefix>oauth:`, so a code issued by one instance is exchanged
 * at another and a family revoked at one is revoked everywhere. Every change of several keys is
 * one Lua script, so `take` and `claim` are atomic across instances (of two that exchange one
 * code, one wins). It talks to Redis only through the cluster's link (`src/cluster/redis.ts`):
 * a call that finds Redis unavailable throws `AuthorizationStoreUnavailableError` (`store.ts`),
 * which the server answers as `temporarily_unavailable`.
 *
 * Keys (`o` = `<prefix>oauth:`): `o:r:<kind>:<key>` the row (a hash: `s` sealed, `e` expiry,
 * `c` creation, `f` family, `g` grant, `u` used), expiring with it; `o:exp:<kind>` and
 * `o:age:<kind>` its keys by expiry and by creation (counts, eviction, the sweep);
 * `o:f:<family>` and `o:g:<grant>` the `<kind>:<key>` of their rows, expiring with the last.
 * Expiry is on the server's clock (`now`, passed in): Redis's own TTL (the time left then)
 * only cleans up.
 */
import { luaScript, type RedisLink, UNAVAILABLE } from '../cluster/redis.js';
import {
  type AuthorizationStore,
  AuthorizationStoreUnavailableError,
  type RowKind,
  type StoredRow,
} from './store.js';

// Shared Lua: a row's removal from every index (its hash read first, for its family and grant).
const LIB = `
local p = ARGV[1]
local function rowKey(kind, key) return p .. 'r:' .. kind .. ':' .. key end
local function remove(kind, key)
  local row = rowKey(kind, key)
  local f = redis.call('HGET', row, 'f')
  local g = redis.call('HGET', row, 'g')
  if f and f ~= '' then redis.call('SREM', p .. 'f:' .. f, kind .. ':' .. key) end
  if g and g ~= '' then redis.call('SREM', p .. 'g:' .. g, kind .. ':' .. key) end
  redis.call('ZREM', p .. 'exp:' .. kind, key)
  redis.call('ZREM', p .. 'age:' .. kind, key)
  return redis.call('DEL', row)
end
local function removeMember(member)
  local sep = string.find(member, ':', 1, true)
  return remove(string.sub(member, 1, sep - 1), string.sub(member, sep + 1))
end
local function fields(kind, key)
  return redis.call('HMGET', rowKey(kind, key), 's', 'e', 'c', 'f', 'g', 'u')
end
`;

const PUT = luaScript(`${LIB}
local kind, key, e, c, f, g, ttl = ARGV[2], ARGV[3], ARGV[5], ARGV[6], ARGV[7], ARGV[8], tonumber(ARGV[10])
local row = rowKey(kind, key)
redis.call('HSET', row, 's', ARGV[4], 'e', e, 'c', c, 'f', f, 'g', g, 'u', ARGV[9])
redis.call('PEXPIRE', row, ttl)
redis.call('ZADD', p .. 'exp:' .. kind, e, key)
redis.call('ZADD', p .. 'age:' .. kind, c, key)
for _, set in ipairs({ f ~= '' and (p .. 'f:' .. f) or false, g ~= '' and (p .. 'g:' .. g) or false }) do
  if set then
    redis.call('SADD', set, kind .. ':' .. key)
    if redis.call('PTTL', set) < ttl then redis.call('PEXPIRE', set, ttl) end
  end
end
return 1`);

/** ARGV: prefix, kind, key, now. Answers the fields of a live row, then deletes it. */
const TAKE = luaScript(`${LIB}
local kind, key = ARGV[2], ARGV[3]
local found = fields(kind, key)
remove(kind, key)
if not found[1] or tonumber(found[2]) <= tonumber(ARGV[4]) then return false end
return found`);

/** ARGV: prefix, kind, key, now. Answers the fields of a live row as they were, then marks it used. */
const CLAIM = luaScript(`${LIB}
local kind, key = ARGV[2], ARGV[3]
local found = fields(kind, key)
if not found[1] or tonumber(found[2]) <= tonumber(ARGV[4]) then return false end
redis.call('HSET', rowKey(kind, key), 'u', '1')
return found`);

/** ARGV: prefix, kind, key, expiresAt, ttl. */
const TOUCH = luaScript(`${LIB}
local kind, key = ARGV[2], ARGV[3]
local row = rowKey(kind, key)
if redis.call('EXISTS', row) == 0 then return 0 end
redis.call('HSET', row, 'u', '1', 'e', ARGV[4])
redis.call('PEXPIRE', row, tonumber(ARGV[5]))
redis.call('ZADD', p .. 'exp:' .. kind, ARGV[4], key)
return 1`);

/** ARGV: prefix, kind, key. */
const DELETE = luaScript(`${LIB}
return remove(ARGV[2], ARGV[3])`);

/** ARGV: prefix, set key (without prefix). Deletes every row the set names, and the set. */
const DELETE_SET = luaScript(`${LIB}
local set = p .. ARGV[2]
local n = 0
for _, member in ipairs(redis.call('SMEMBERS', set)) do n = n + removeMember(member) end
redis.call('DEL', set)
return n`);

/** ARGV: prefix, family, kind, keep. Deletes the family's rows of kind but the newest keep. */
const TRIM = luaScript(`${LIB}
local kind, keep = ARGV[3], tonumber(ARGV[4])
local rows = {}
for _, member in ipairs(redis.call('SMEMBERS', p .. 'f:' .. ARGV[2])) do
  local sep = string.find(member, ':', 1, true)
  if string.sub(member, 1, sep - 1) == kind then
    local key = string.sub(member, sep + 1)
    local c = redis.call('HGET', rowKey(kind, key), 'c')
    table.insert(rows, { key = key, c = tonumber(c or '0') })
  end
end
table.sort(rows, function(a, b) return a.c > b.c end)
for i = keep + 1, #rows do remove(kind, rows[i].key) end
return 1`);

/** ARGV: prefix, grant, now. The grant's live refresh families, oldest first. */
const FAMILIES = luaScript(`${LIB}
local firsts = {}
for _, member in ipairs(redis.call('SMEMBERS', p .. 'g:' .. ARGV[2])) do
  local sep = string.find(member, ':', 1, true)
  if string.sub(member, 1, sep - 1) == 'refresh' then
    local found = fields('refresh', string.sub(member, sep + 1))
    if found[1] and tonumber(found[2]) > tonumber(ARGV[3]) and found[4] then
      local c = tonumber(found[3])
      if firsts[found[4]] == nil or c < firsts[found[4]] then firsts[found[4]] = c end
    end
  end
end
local families = {}
for family, c in pairs(firsts) do table.insert(families, { family = family, c = c }) end
table.sort(families, function(a, b) return a.c < b.c end)
local out = {}
for i, entry in ipairs(families) do out[i] = entry.family end
return out`);

/** ARGV: prefix, kind, n, now, unusedOnly. Deletes the oldest n live rows of kind. */
const EVICT = luaScript(`${LIB}
local kind, n, now, unusedOnly = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5] == '1'
local gone, start = 0, 0
while gone < n do
  local keys = redis.call('ZRANGE', p .. 'age:' .. kind, start, start + 99)
  if #keys == 0 then break end
  for _, key in ipairs(keys) do
    if gone >= n then break end
    local found = fields(kind, key)
    if not found[1] then
      remove(kind, key)
    elseif tonumber(found[2]) > now and (not unusedOnly or found[6] ~= '1') then
      remove(kind, key)
      gone = gone + 1
    else
      start = start + 1
    end
  end
end
return gone`);

/** ARGV: prefix, now. Deletes expired rows; answers the fields of codes never exchanged. */
const SWEEP = luaScript(`${LIB}
local now = ARGV[2]
local codes = {}
for _, kind in ipairs({ 'client', 'request', 'code', 'access', 'refresh' }) do
  for _, key in ipairs(redis.call('ZRANGEBYSCORE', p .. 'exp:' .. kind, '-inf', now)) do
    local found = fields(kind, key)
    if kind == 'code' and found[1] and found[6] ~= '1' then
      table.insert(codes, key)
      for _, value in ipairs(found) do table.insert(codes, value or '') end
    end
    remove(kind, key)
  end
end
return codes`);

export function createRedisAuthorizationStore(link: RedisLink): AuthorizationStore {
  const prefix = `${link.prefix}oauth:`;

  const script = async (lua: typeof PUT, args: readonly (string | number)[]): Promise<unknown> => {
    const answer = await link.script(lua, [], [prefix, ...args]);
    if (answer === UNAVAILABLE)
      throw new AuthorizationStoreUnavailableError('Redis did not answer in time');
    return answer;
  };

  const rowOf = (kind: RowKind, key: string, found: unknown): StoredRow | undefined => {
    if (!Array.isArray(found) || found[0] === null || found[0] === undefined) return undefined;
    const [sealed, e, c, f, g, u] = found.map((v) => (v === null ? '' : String(v)));
    return {
      kind,
      key,
      sealed: sealed ?? '',
      expiresAt: Number(e),
      createdAt: Number(c),
      family: f || undefined,
      grant: g || undefined,
      used: u === '1',
    };
  };

  return {
    async put(row) {
      await script(PUT, [
        row.kind,
        row.key,
        row.sealed,
        row.expiresAt,
        row.createdAt,
        row.family ?? '',
        row.grant ?? '',
        row.used ? '1' : '0',
        // Redis's own expiry: the time left on the server's clock, at least a second.
        Math.max(1_000, row.expiresAt - row.createdAt),
      ]);
    },
    async get(kind, key, now) {
      const found = await link.run((redis) =>
        redis.hmget(`${prefix}r:${kind}:${key}`, 's', 'e', 'c', 'f', 'g', 'u'),
      );
      if (found === UNAVAILABLE)
        throw new AuthorizationStoreUnavailableError('Redis did not answer in time');
      const row = rowOf(kind, key, found);
      return row && row.expiresAt > now ? row : undefined;
    },
    async take(kind, key, now) {
      return rowOf(kind, key, await script(TAKE, [kind, key, now]));
    },
    async claim(kind, key, now) {
      return rowOf(kind, key, await script(CLAIM, [kind, key, now]));
    },
    async touch(kind, key, expiresAt, now) {
      await script(TOUCH, [kind, key, expiresAt, Math.max(1_000, expiresAt - now)]);
    },
    async delete(kind, key) {
      return Number(await script(DELETE, [kind, key])) > 0;
    },
    async deleteFamily(family) {
      return Number(await script(DELETE_SET, [`f:${family}`]));
    },
    async deleteGrant(grant) {
      return Number(await script(DELETE_SET, [`g:${grant}`]));
    },
    async trimFamily(family, kind, keep) {
      await script(TRIM, [family, kind, keep]);
    },
    async count(kind, now) {
      const n = await link.run((redis) => redis.zcount(`${prefix}exp:${kind}`, `(${now}`, '+inf'));
      if (n === UNAVAILABLE)
        throw new AuthorizationStoreUnavailableError('Redis did not answer in time');
      return n;
    },
    async familiesOf(grant, now) {
      const answer = await script(FAMILIES, [grant, now]);
      return Array.isArray(answer) ? answer.map(String) : [];
    },
    async evict(kind, n, now, unusedOnly = false) {
      return Number(await script(EVICT, [kind, n, now, unusedOnly ? '1' : '0']));
    },
    async sweep(now) {
      const answer = await script(SWEEP, [now]);
      if (!Array.isArray(answer)) return [];
      const rows: StoredRow[] = [];
      for (let i = 0; i + 6 < answer.length; i += 7) {
        const row = rowOf('code', String(answer[i]), answer.slice(i + 1, i + 7));
        if (row) rows.push(row);
      }
      return rows;
    },
    async close() {
      // The link is the cluster's: it closes it.
    },
  };
}
