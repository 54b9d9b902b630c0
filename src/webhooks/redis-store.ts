/**
 * The webhook store of several instances (`REDIS_URL`): the same records as the SQLite store,
 * in Redis under `<prefix>webhooks:`, so any instance serves GraphQL for any endpoint, one
 * instance runs each (token, plan) feed (a lease it renews) and one at a time delivers each
 * endpoint's head (a claim that ends with the attempt, or after `holdMs` when its instance died:
 * then another sends it again, at least once). Every change of several keys is one Lua script.
 *
 * It keeps records as `sealed-store.ts` hands them over (store.ts, "At rest"): sealed text and
 * keyed digests, so Redis alone (or a dump of it) reveals no token, secret, URL, plan id or
 * plan data.
 *
 * Keys (`w` = `<prefix>webhooks:`): `w:canary` the store's canary; `w:token:<tokenKey>` sealed
 * token; `w:ep:<id>` endpoint JSON; `w:eps` all endpoint ids; `w:secrets:<id>` JSON list;
 * `w:cursor:<tokenKey>:<feed>`; `w:seq` delivery counter; `w:d:<seq>` delivery hash;
 * `w:q:<endpointId>` pending seqs in order; `w:hist:<endpointId>` every seq, newest first;
 * `w:a:<seq>` attempts; `w:ev:<eventId>` latest seq of an event; `w:due` endpoint ids scored by
 * when their head falls due (enabled endpoints with something pending);
 * `w:feed:<tokenKey>:<feed>` feed lease; `w:claim:<endpointId>`. A `<feed>` is the keyed digest
 * of a token key and plan id (`sealed-store.ts`).
 */
import type { Redis } from 'ioredis';
import type {
  AttemptRecord,
  ClearRows,
  DeliveryRecord,
  DeliveryState,
  EndpointRecord,
  StoredEndpoint,
  StoredFeed,
  WebhookRecords,
} from './store.js';
import { DELIVERY_HISTORY as HISTORY, patchedEndpoint } from './store.js';

// KEYS: lease, cursor, seq, due. ARGV: owner, cursor, now, prefix, history, then eventId,
// endpointId, serverKnowledge, payload quadruples. Writes nothing unless the owner holds the
// lease. A history past its bound drops its oldest delivery (with its attempts) once delivered.
const ENQUEUE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local knowledge = tonumber(ARGV[2])
local now = ARGV[3]
local w = ARGV[4]
local history = tonumber(ARGV[5])
for i = 6, #ARGV, 4 do
  local seq = redis.call('INCR', KEYS[3])
  local endpoint = ARGV[i + 1]
  redis.call('HSET', w .. 'd:' .. seq, 'seq', seq, 'eventId', ARGV[i], 'endpointId', endpoint,
    'serverKnowledge', ARGV[i + 2], 'payload', ARGV[i + 3], 'createdAt', now, 'state', 'PENDING',
    'attempts', 0, 'nextAttemptAt', now)
  redis.call('RPUSH', w .. 'q:' .. endpoint, seq)
  redis.call('LPUSH', w .. 'hist:' .. endpoint, seq)
  redis.call('SET', w .. 'ev:' .. ARGV[i], seq)
  if redis.call('LLEN', w .. 'hist:' .. endpoint) > history then
    local oldest = redis.call('LINDEX', w .. 'hist:' .. endpoint, -1)
    if redis.call('HGET', w .. 'd:' .. oldest, 'state') ~= 'PENDING' then
      redis.call('RPOP', w .. 'hist:' .. endpoint)
      local event = redis.call('HGET', w .. 'd:' .. oldest, 'eventId')
      if event and redis.call('GET', w .. 'ev:' .. event) == oldest then
        redis.call('DEL', w .. 'ev:' .. event)
      end
      redis.call('DEL', w .. 'd:' .. oldest, w .. 'a:' .. oldest)
    end
  end
  if redis.call('LLEN', w .. 'q:' .. endpoint) == 1 then
    local ep = redis.call('GET', w .. 'ep:' .. endpoint)
    if ep and cjson.decode(ep).disabledReason == cjson.null then
      redis.call('ZADD', KEYS[4], now, endpoint)
    end
  end
end
local current = tonumber(redis.call('GET', KEYS[2]) or '-1')
if knowledge > current then redis.call('SET', KEYS[2], knowledge) end
return 1
`;

// KEYS: claim, due. ARGV: owner, holdMs, endpointId, now. The head's seq when claimed.
const CLAIM = `
local score = redis.call('ZSCORE', KEYS[2], ARGV[3])
if not score or tonumber(score) > tonumber(ARGV[4]) then return false end
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return false end
return 1
`;

// KEYS: claim, delivery, attempts, queue, due, endpoint. ARGV: owner, attempt JSON, state,
// nextAttemptAt, at, endpointId, prefix.
const RECORD = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('RPUSH', KEYS[3], ARGV[2])
redis.call('HINCRBY', KEYS[2], 'attempts', 1)
redis.call('HSET', KEYS[2], 'state', ARGV[3], 'nextAttemptAt', ARGV[4])
if redis.call('HEXISTS', KEYS[2], 'firstAttemptAt') == 0 then
  redis.call('HSET', KEYS[2], 'firstAttemptAt', ARGV[5])
end
if ARGV[3] == 'DELIVERED' then
  redis.call('LREM', KEYS[4], 1, redis.call('HGET', KEYS[2], 'seq'))
  local head = redis.call('LINDEX', KEYS[4], 0)
  if head then
    redis.call('ZADD', KEYS[5], redis.call('HGET', ARGV[7] .. 'd:' .. head, 'nextAttemptAt'), ARGV[6])
  else
    redis.call('ZREM', KEYS[5], ARGV[6])
  end
else
  redis.call('ZADD', KEYS[5], ARGV[4], ARGV[6])
end
local ep = redis.call('GET', KEYS[6])
if not ep or cjson.decode(ep).disabledReason ~= cjson.null then redis.call('ZREM', KEYS[5], ARGV[6]) end
redis.call('DEL', KEYS[1])
return 1
`;

// KEYS: key. ARGV: owner. Deletes the key only if `owner` holds it.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

// KEYS: lease. ARGV: owner, ttl. Takes a free lease or renews one's own.
const LEASE = `
local holder = redis.call('GET', KEYS[1])
if holder == false or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
`;

// Compare-and-set, for sealing rows written before sealing: a value another instance changed
// meanwhile is left as it is. KEYS: key. ARGV: the value read, the sealed one.
const SET_IF = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
`;
// KEYS: hash. ARGV: field, the value read, the sealed one.
const HSET_IF = `
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
`;
// KEYS: list. ARGV: n, the n values read, the n sealed ones.
const LIST_IF = `
local n = tonumber(ARGV[1])
local current = redis.call('LRANGE', KEYS[1], 0, -1)
if #current ~= n then return 0 end
for i = 1, n do if current[i] ~= ARGV[1 + i] then return 0 end end
redis.call('DEL', KEYS[1])
for i = 1, n do redis.call('RPUSH', KEYS[1], ARGV[1 + n + i]) end
return 1
`;
// KEYS: the cursor under a plan id, the cursor under its feed. Moves the first into the second.
const MOVE_CURSOR = `
local old = redis.call('GET', KEYS[1])
if not old then return 0 end
local current = tonumber(redis.call('GET', KEYS[2]) or '-1')
if tonumber(old) > current then redis.call('SET', KEYS[2], old) end
redis.call('DEL', KEYS[1])
return 1
`;

interface Secret {
  secret: string;
  createdAt: number;
  expiresAt: number | null;
}

/** The store over `redis` (closed with it) under `prefix`. */
export function createRedisWebhookStore(redis: Redis, prefix: string): WebhookRecords {
  const w = `${prefix}webhooks:`;
  const k = {
    canary: `${w}canary`,
    token: (tokenKey: string) => `${w}token:${tokenKey}`,
    endpoint: (id: string) => `${w}ep:${id}`,
    all: `${w}eps`,
    secrets: (id: string) => `${w}secrets:${id}`,
    cursor: (feed: StoredFeed) => `${w}cursor:${feed.tokenKey}:${feed.feed}`,
    seq: `${w}seq`,
    delivery: (seq: number | string) => `${w}d:${seq}`,
    queue: (id: string) => `${w}q:${id}`,
    history: (id: string) => `${w}hist:${id}`,
    attempts: (seq: number | string) => `${w}a:${seq}`,
    event: (eventId: string) => `${w}ev:${eventId}`,
    due: `${w}due`,
    feed: (feed: StoredFeed) => `${w}feed:${feed.tokenKey}:${feed.feed}`,
    claim: (id: string) => `${w}claim:${id}`,
  };

  const endpoint = async (id: string): Promise<StoredEndpoint | undefined> => {
    const json = await redis.get(k.endpoint(id));
    return json === null ? undefined : (JSON.parse(json) as StoredEndpoint);
  };
  const allEndpoints = async (): Promise<StoredEndpoint[]> => {
    const ids = await redis.smembers(k.all);
    if (ids.length === 0) return [];
    const values = await redis.mget(ids.map(k.endpoint));
    return values.flatMap((json) => (json === null ? [] : [JSON.parse(json) as StoredEndpoint]));
  };
  const delivery = async (seq: number | string): Promise<DeliveryRecord | undefined> => {
    const hash = await redis.hgetall(k.delivery(seq));
    return hash.seq === undefined ? undefined : deliveryOf(hash);
  };
  // Private: puts the endpoint on (or off) the due set, from its head, after a change of state.
  const reschedule = async (id: string, now?: number) => {
    const ep = await endpoint(id);
    const head = await redis.lindex(k.queue(id), 0);
    if (!ep || ep.disabledReason !== null || head === null) {
      await redis.zrem(k.due, id);
      return;
    }
    if (now !== undefined) {
      const seqs = await redis.lrange(k.queue(id), 0, -1);
      const pipeline = redis.pipeline();
      for (const seq of seqs) {
        pipeline.hset(k.delivery(seq), 'nextAttemptAt', now);
        pipeline.hdel(k.delivery(seq), 'firstAttemptAt');
      }
      await pipeline.exec();
    }
    const next = await redis.hget(k.delivery(head), 'nextAttemptAt');
    await redis.zadd(k.due, Number(next ?? 0), id);
  };

  return {
    shared: true,
    where: `Redis, under ${w}`,
    async canary() {
      return (await redis.get(k.canary)) ?? undefined;
    },
    async setCanary(sealed) {
      await redis.set(k.canary, sealed);
    },
    async anyToken() {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', k.token('*'), 'COUNT', 1_000);
        cursor = next;
        for (const key of keys) {
          const sealed = await redis.get(key);
          if (sealed !== null) return { tokenKey: key.slice(k.token('').length), sealed };
        }
      } while (cursor !== '0');
      return undefined;
    },
    sealClearRows: (rows) => sealClearRows(redis, k, rows),
    async claimFeed(feed, owner, ttlMs) {
      return (await redis.eval(LEASE, 1, k.feed(feed), owner, ttlMs)) === 1;
    },
    async releaseFeed(feed, owner) {
      await redis.eval(RELEASE, 1, k.feed(feed), owner);
    },
    async createEndpoint(record, secret, sealedToken) {
      const secrets: Secret[] = [{ secret, createdAt: record.createdAt, expiresAt: null }];
      await redis
        .multi()
        .set(k.token(record.tokenKey), sealedToken)
        .set(k.endpoint(record.id), JSON.stringify(record))
        .sadd(k.all, record.id)
        .set(k.secrets(record.id), JSON.stringify(secrets))
        .set(k.cursor(record), record.startKnowledge, 'NX')
        .exec();
    },
    endpoint,
    async endpointsOf(tokenKey) {
      return (await allEndpoints())
        .filter((e) => e.tokenKey === tokenKey)
        .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
    },
    async feedEndpoints(feed) {
      return (await allEndpoints())
        .filter((e) => e.tokenKey === feed.tokenKey && e.feed === feed.feed)
        .filter((e) => e.disabledReason === null)
        .sort((a, b) => a.id.localeCompare(b.id));
    },
    async updateEndpoint(id, patch, now) {
      const current = await endpoint(id);
      if (!current) return undefined;
      const next = patchedEndpoint(current, patch, now);
      await redis.set(k.endpoint(id), JSON.stringify(next));
      const reenabled = patch.enabled === true && current.disabledReason !== null;
      await reschedule(id, reenabled ? now : undefined);
      return next;
    },
    async deleteEndpoint(id) {
      const removed = await redis.srem(k.all, id);
      const seqs = await redis.lrange(k.history(id), 0, -1);
      await redis.del(
        k.endpoint(id),
        k.secrets(id),
        k.queue(id),
        k.history(id),
        ...seqs.flatMap((seq) => [k.delivery(seq), k.attempts(seq)]),
      );
      await redis.zrem(k.due, id);
      return removed > 0;
    },
    async secrets(endpointId, now) {
      const json = await redis.get(k.secrets(endpointId));
      const secrets = json === null ? [] : (JSON.parse(json) as Secret[]);
      return secrets
        .filter((s) => s.expiresAt === null || s.expiresAt > now)
        .sort((a, b) => b.createdAt - a.createdAt)
        .map((s) => s.secret);
    },
    async rotateSecret(endpointId, secret, now, previousUntil) {
      const json = await redis.get(k.secrets(endpointId));
      const old = json === null ? [] : (JSON.parse(json) as Secret[]);
      const kept = old
        .filter((s) => s.expiresAt === null || s.expiresAt > now)
        .map((s) => (s.expiresAt === null ? { ...s, expiresAt: previousUntil } : s));
      await redis.set(
        k.secrets(endpointId),
        JSON.stringify([{ secret, createdAt: now, expiresAt: null }, ...kept]),
      );
    },
    async token(tokenKey) {
      return (await redis.get(k.token(tokenKey))) ?? undefined;
    },
    async feeds() {
      const seen = new Map<string, StoredEndpoint>();
      for (const e of await allEndpoints()) {
        const id = `${e.tokenKey}:${e.feed}`;
        if (e.disabledReason === null && !seen.has(id)) seen.set(id, e);
      }
      return [...seen.values()];
    },
    async cursor(feed) {
      const value = await redis.get(k.cursor(feed));
      return value === null ? undefined : Number(value);
    },
    async enqueue(feed, cursor, deliveries, now, owner) {
      const args = deliveries.flatMap((d) => [
        d.eventId,
        d.endpointId,
        d.serverKnowledge,
        d.payload,
      ]);
      const written = await redis.eval(
        ENQUEUE,
        4,
        k.feed(feed),
        k.cursor(feed),
        k.seq,
        k.due,
        owner,
        cursor,
        now,
        w,
        HISTORY,
        ...args,
      );
      return written === 1;
    },
    async due(now, limit, busy, owner, holdMs) {
      const ids = await redis.zrangebyscore(k.due, '-inf', now, 'LIMIT', 0, limit * 4);
      const claimed: DeliveryRecord[] = [];
      for (const id of ids) {
        if (claimed.length >= limit) break;
        if (busy.has(id)) continue;
        const got = await redis.eval(CLAIM, 2, k.claim(id), k.due, owner, holdMs, id, now);
        if (got !== 1) continue;
        const head = await redis.lindex(k.queue(id), 0);
        const record = head === null ? undefined : await delivery(head);
        if (record) claimed.push(record);
        else await redis.eval(RELEASE, 1, k.claim(id), owner);
      }
      return claimed;
    },
    async release(record, owner) {
      await redis.eval(RELEASE, 1, k.claim(record.endpointId), owner);
    },
    async nextDueAt(after) {
      const [, score] = await redis.zrangebyscore(
        k.due,
        `(${after}`,
        '+inf',
        'WITHSCORES',
        'LIMIT',
        0,
        1,
      );
      return score === undefined ? undefined : Number(score);
    },
    async recordAttempt(record, attempt, next, owner) {
      await redis.eval(
        RECORD,
        6,
        k.claim(record.endpointId),
        k.delivery(record.seq),
        k.attempts(record.seq),
        k.queue(record.endpointId),
        k.due,
        k.endpoint(record.endpointId),
        owner,
        JSON.stringify(attempt),
        next.state,
        next.nextAttemptAt,
        attempt.at,
        record.endpointId,
        w,
      );
    },
    async disableEndpoint(id, reason, now) {
      const current = await endpoint(id);
      if (!current || current.disabledReason !== null) return;
      await redis.set(
        k.endpoint(id),
        JSON.stringify({ ...current, disabledReason: reason, disabledAt: now }),
      );
      await redis.zrem(k.due, id);
    },
    async disableFeeds(tokenKey, feed, reason, now) {
      for (const e of await allEndpoints()) {
        if (e.tokenKey !== tokenKey || (feed !== null && e.feed !== feed)) continue;
        if (e.disabledReason !== null) continue;
        await redis.set(
          k.endpoint(e.id),
          JSON.stringify({ ...e, disabledReason: reason, disabledAt: now }),
        );
        await redis.zrem(k.due, e.id);
      }
    },
    async deliveries(endpointId, limit, before) {
      const seqs = await redis.lrange(k.history(endpointId), 0, -1);
      const wanted = seqs
        .map(Number)
        .filter((seq) => before === undefined || seq < before)
        .slice(0, limit);
      const records = await Promise.all(wanted.map((seq) => delivery(seq)));
      return records.filter((r): r is DeliveryRecord => r !== undefined);
    },
    async deliveryOfEvent(eventId) {
      const seq = await redis.get(k.event(eventId));
      return seq === null ? undefined : delivery(seq);
    },
    async attempts(seq) {
      return (await redis.lrange(k.attempts(seq), 0, -1)).map(
        (json) => JSON.parse(json) as AttemptRecord,
      );
    },
    async redeliver(eventId, now) {
      const original = await this.deliveryOfEvent(eventId);
      if (!original) return undefined;
      const seq = await redis.incr(k.seq);
      await redis
        .multi()
        .hset(k.delivery(seq), {
          seq,
          eventId,
          endpointId: original.endpointId,
          serverKnowledge: original.serverKnowledge,
          payload: original.payload,
          createdAt: now,
          state: 'PENDING',
          attempts: 0,
          nextAttemptAt: now,
        })
        .rpush(k.queue(original.endpointId), seq)
        .lpush(k.history(original.endpointId), seq)
        .set(k.event(eventId), seq)
        .exec();
      await reschedule(original.endpointId);
      return delivery(seq);
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

function deliveryOf(hash: Record<string, string>): DeliveryRecord {
  return {
    seq: Number(hash.seq),
    eventId: String(hash.eventId),
    endpointId: String(hash.endpointId),
    serverKnowledge: Number(hash.serverKnowledge),
    payload: String(hash.payload),
    createdAt: Number(hash.createdAt),
    state: hash.state as DeliveryState,
    attempts: Number(hash.attempts),
    nextAttemptAt: Number(hash.nextAttemptAt),
    firstAttemptAt: hash.firstAttemptAt === undefined ? null : Number(hash.firstAttemptAt),
  };
}

/** Where `persistenceOf` looks. */
export interface RedisPersistence {
  /** Append-only file on (`appendonly yes`). */
  readonly aof: boolean;
  /** Snapshots saved on a schedule (`save` not empty). */
  readonly rdb: boolean;
}

/**
 * Whether Redis keeps what it holds across its own restart: `CONFIG GET` where allowed, else
 * `INFO persistence` (which tells AOF, and RDB only once a snapshot was saved). Undefined when
 * neither answers.
 */
export async function persistenceOf(redis: Redis): Promise<RedisPersistence | undefined> {
  try {
    const [, appendonly] = (await redis.config('GET', 'appendonly')) as string[];
    const [, save] = (await redis.config('GET', 'save')) as string[];
    return { aof: appendonly === 'yes', rdb: (save ?? '').trim() !== '' };
  } catch {
    try {
      const info = await redis.info('persistence');
      const field = (name: string) => new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
      return {
        aof: field('aof_enabled') === '1',
        rdb: Number(field('rdb_saves') ?? 0) > 0 || field('rdb_last_bgsave_status') === 'ok',
      };
    } catch {
      return undefined;
    }
  }
}

type Keys = {
  readonly token: (tokenKey: string) => string;
  readonly endpoint: (id: string) => string;
  readonly all: string;
  readonly secrets: (id: string) => string;
  readonly cursor: (feed: StoredFeed) => string;
  readonly feed: (feed: StoredFeed) => string;
  readonly delivery: (seq: number | string) => string;
  readonly history: (id: string) => string;
  readonly attempts: (seq: number | string) => string;
};

/**
 * Private: seals what an earlier version wrote in clear (endpoints with a `planId`, secrets,
 * payloads and errors in clear, cursors and leases named by plan id), value by value with
 * compare-and-set, so it may run on several instances at once and resume when cut short. Tokens
 * first: one the key does not open stops it before anything else changed.
 */
async function sealClearRows(redis: Redis, k: Keys, rows: ClearRows): Promise<void> {
  const tokenPrefix = k.token('');
  for (const key of await scanAll(redis, `${tokenPrefix}*`)) {
    const sealed = await redis.get(key);
    if (sealed === null) continue;
    const resealed = rows.token(key.slice(tokenPrefix.length), sealed);
    if (resealed !== sealed) await redis.eval(SET_IF, 1, key, sealed, resealed);
  }
  for (const id of await redis.smembers(k.all)) {
    const json = await redis.get(k.endpoint(id));
    if (json === null) continue;
    const parsed = JSON.parse(json) as Partial<EndpointRecord> & Partial<StoredEndpoint>;
    if (parsed.planId !== undefined && parsed.details === undefined) {
      const clear = parsed as EndpointRecord;
      const stored = rows.endpoint(clear);
      await redis.eval(SET_IF, 1, k.endpoint(id), json, JSON.stringify(stored));
      const legacy = { tokenKey: clear.tokenKey, feed: clear.planId };
      await redis.eval(MOVE_CURSOR, 2, k.cursor(legacy), k.cursor(stored));
      await redis.del(k.feed(legacy));
    }
    const secretsJson = await redis.get(k.secrets(id));
    if (secretsJson !== null) {
      const secrets = JSON.parse(secretsJson) as Secret[];
      const sealed = secrets.map((s) => ({ ...s, secret: rows.secret(id, s.secret) }));
      if (sealed.some((s, i) => s.secret !== secrets[i]?.secret)) {
        await redis.eval(SET_IF, 1, k.secrets(id), secretsJson, JSON.stringify(sealed));
      }
    }
    for (const seq of await redis.lrange(k.history(id), 0, -1)) {
      const [eventId, payload] = await redis.hmget(k.delivery(seq), 'eventId', 'payload');
      if (eventId && payload) {
        const sealed = rows.payload(id, eventId, payload);
        if (sealed !== payload) {
          await redis.eval(HSET_IF, 1, k.delivery(seq), 'payload', payload, sealed);
        }
      }
      const attempts = await redis.lrange(k.attempts(seq), 0, -1);
      const sealedAttempts = attempts.map((json) => {
        const attempt = JSON.parse(json) as AttemptRecord;
        return attempt.error === null
          ? json
          : JSON.stringify({ ...attempt, error: rows.error(Number(seq), attempt.error) });
      });
      if (sealedAttempts.some((json, i) => json !== attempts[i])) {
        await redis.eval(
          LIST_IF,
          1,
          k.attempts(seq),
          attempts.length,
          ...attempts,
          ...sealedAttempts,
        );
      }
    }
  }
}

/** Private: every key matching `pattern`. */
async function scanAll(redis: Redis, pattern: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000);
    cursor = next;
    found.push(...keys);
  } while (cursor !== '0');
  return found;
}
