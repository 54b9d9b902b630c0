/**
 * The webhook store of several instances (`REDIS_URL`): the same records as the SQLite store,
 * in Redis under `<prefix>webhooks:`, so any instance serves GraphQL for any endpoint, one
 * instance runs each (token, plan) feed (a lease it renews) and one at a time delivers each
 * endpoint's head (a claim that ends with the attempt, or after `holdMs` when its instance died:
 * then another sends it again, at least once). Every change of several keys is one Lua script.
 *
 * Keys (`w` = `<prefix>webhooks:`): `w:token:<tokenKey>` sealed token; `w:ep:<id>` endpoint
 * JSON; `w:eps` all endpoint ids; `w:secrets:<id>` JSON list; `w:cursor:<tokenKey>:<planId>`;
 * `w:seq` delivery counter; `w:d:<seq>` delivery hash; `w:q:<endpointId>` pending seqs in order;
 * `w:hist:<endpointId>` every seq, newest first; `w:a:<seq>` attempts; `w:ev:<eventId>` latest
 * seq of an event; `w:due` endpoint ids scored by when their head falls due (enabled endpoints
 * with something pending); `w:feed:<tokenKey>:<planId>` feed lease; `w:claim:<endpointId>`.
 */
import type { Redis } from 'ioredis';
import type {
  AttemptRecord,
  DeliveryRecord,
  DeliveryState,
  EndpointRecord,
  FeedKey,
  WebhookStore,
} from './store.js';
import { DELIVERY_HISTORY as HISTORY } from './store.js';

// KEYS: lease, cursor, seq, due. ARGV: owner, knowledge, now, prefix, history, then eventId,
// endpointId, payload triples. Writes nothing unless the owner holds the lease. A history past its
// bound drops its oldest delivery (with its attempts) once delivered.
const ENQUEUE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local knowledge = tonumber(ARGV[2])
local now = ARGV[3]
local w = ARGV[4]
local history = tonumber(ARGV[5])
for i = 6, #ARGV, 3 do
  local seq = redis.call('INCR', KEYS[3])
  local endpoint = ARGV[i + 1]
  redis.call('HSET', w .. 'd:' .. seq, 'seq', seq, 'eventId', ARGV[i], 'endpointId', endpoint,
    'serverKnowledge', knowledge, 'payload', ARGV[i + 2], 'createdAt', now, 'state', 'PENDING',
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

interface Secret {
  secret: string;
  createdAt: number;
  expiresAt: number | null;
}

/** The store over `redis` (closed with it) under `prefix`. */
export function createRedisWebhookStore(redis: Redis, prefix: string): WebhookStore {
  const w = `${prefix}webhooks:`;
  const k = {
    token: (tokenKey: string) => `${w}token:${tokenKey}`,
    endpoint: (id: string) => `${w}ep:${id}`,
    all: `${w}eps`,
    secrets: (id: string) => `${w}secrets:${id}`,
    cursor: (key: FeedKey) => `${w}cursor:${key.tokenKey}:${key.planId}`,
    seq: `${w}seq`,
    delivery: (seq: number | string) => `${w}d:${seq}`,
    queue: (id: string) => `${w}q:${id}`,
    history: (id: string) => `${w}hist:${id}`,
    attempts: (seq: number | string) => `${w}a:${seq}`,
    event: (eventId: string) => `${w}ev:${eventId}`,
    due: `${w}due`,
    feed: (key: FeedKey) => `${w}feed:${key.tokenKey}:${key.planId}`,
    claim: (id: string) => `${w}claim:${id}`,
  };

  const endpoint = async (id: string): Promise<EndpointRecord | undefined> => {
    const json = await redis.get(k.endpoint(id));
    return json === null ? undefined : (JSON.parse(json) as EndpointRecord);
  };
  const allEndpoints = async (): Promise<EndpointRecord[]> => {
    const ids = await redis.smembers(k.all);
    if (ids.length === 0) return [];
    const values = await redis.mget(ids.map(k.endpoint));
    return values.flatMap((json) => (json === null ? [] : [JSON.parse(json) as EndpointRecord]));
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
    async claimFeed(key, owner, ttlMs) {
      return (await redis.eval(LEASE, 1, k.feed(key), owner, ttlMs)) === 1;
    },
    async releaseFeed(key, owner) {
      await redis.eval(RELEASE, 1, k.feed(key), owner);
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
    async feedEndpoints(key) {
      return (await allEndpoints())
        .filter((e) => e.tokenKey === key.tokenKey && e.planId === key.planId)
        .filter((e) => e.disabledReason === null)
        .sort((a, b) => a.id.localeCompare(b.id));
    },
    async updateEndpoint(id, patch, now) {
      const current = await endpoint(id);
      if (!current) return undefined;
      const next: EndpointRecord = {
        ...current,
        ...(patch.url === undefined ? {} : { url: patch.url }),
        ...(patch.kinds === undefined ? {} : { kinds: patch.kinds }),
        ...(patch.description === undefined ? {} : { description: patch.description }),
        ...(patch.enabled === true ? { disabledReason: null, disabledAt: null } : {}),
        ...(patch.enabled === false && current.disabledReason === null
          ? { disabledReason: 'Disabled by its owner.', disabledAt: now }
          : {}),
      };
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
    async sealedToken(tokenKey) {
      return (await redis.get(k.token(tokenKey))) ?? undefined;
    },
    async feeds() {
      const seen = new Map<string, FeedKey>();
      for (const e of await allEndpoints()) {
        if (e.disabledReason === null) {
          seen.set(`${e.tokenKey}:${e.planId}`, { tokenKey: e.tokenKey, planId: e.planId });
        }
      }
      return [...seen.values()];
    },
    async cursor(key) {
      const value = await redis.get(k.cursor(key));
      return value === null ? undefined : Number(value);
    },
    async enqueue(key, knowledge, deliveries, now, owner) {
      const args = deliveries.flatMap((d) => [d.eventId, d.endpointId, d.payload]);
      const written = await redis.eval(
        ENQUEUE,
        4,
        k.feed(key),
        k.cursor(key),
        k.seq,
        k.due,
        owner,
        knowledge,
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
    async disableFeeds(tokenKey, planId, reason, now) {
      for (const e of await allEndpoints()) {
        if (e.tokenKey !== tokenKey || (planId !== null && e.planId !== planId)) continue;
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
