/**
 * The webhook store of several instances (`REDIS_URL`): the same records as the SQLite store,
 * in Redis under `<prefix>webhooks:`, so any instance serves GraphQL for any endpoint, one
 * instance runs each (token, plan) feed (a lease it renews) and one at a time delivers each
 * endpoint's head (a claim that ends with the attempt, or after `holdMs` when its instance died:
 * then another sends it again, at least once). Every change of several keys is one Lua script.
 *
 * It talks to Redis only through the cluster's link (`src/cluster/redis.ts`): no offline queue,
 * every round trip bounded by `REDIS_COMMAND_TIMEOUT_MS`, and the first that runs out takes the
 * link down for every caller until Redis answers again. A call that finds Redis unavailable (or
 * gets no answer in time) throws `WebhookStoreUnavailableError` at once; the one wait longer
 * than a round trip is a call made before the link's first connection, which waits for it up to
 * `FIRST_CONNECTION_WAIT_MS` (a gateway starting beside its Redis). Feed leases and delivery
 * claims are the cluster's signed leases (`src/cluster/redis-leases.ts`), signed with the
 * operator key's signer: someone who can write to Redis without `WEBHOOK_KEY` cannot hold a
 * feed or an endpoint's queue back.
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
 * `w:feed:<tokenKey>:<feed>` feed lease; `w:claim:<endpointId>` delivery claim (both
 * `<owner> <until> <tag>`). A `<feed>` is the keyed digest of a token key and plan id
 * (`sealed-store.ts`).
 */
import {
  type LuaScript,
  luaScript,
  type RedisCommands,
  type RedisLink,
  UNAVAILABLE,
  type Unavailable,
} from '../cluster/redis.js';
import {
  judgeLease,
  leaseValue,
  OWNED,
  releaseLease,
  replyText,
  TAKE,
  takeLease,
  voidLease,
} from '../cluster/redis-leases.js';
import type { Signer } from '../crypto/signer.js';
import type { Clock } from '../time/clock.js';
import {
  type AttemptRecord,
  type ClearRows,
  type DeliveryRecord,
  type DeliveryState,
  type EndpointRecord,
  DELIVERY_HISTORY as HISTORY,
  patchedEndpoint,
  type StoredEndpoint,
  type StoredFeed,
  type WebhookRecords,
  WebhookStoreUnavailableError,
} from './store.js';

// KEYS: lease, cursor, seq, due. ARGV: owner, cursor, now, prefix, history, then eventId,
// endpointId, serverKnowledge, payload quadruples. Writes nothing unless the owner holds the
// lease. A history past its bound drops its oldest delivery (with its attempts) once delivered.
const ENQUEUE = luaScript(`${OWNED}
if not owned(redis.call('GET', KEYS[1]), ARGV[1]) then return 0 end
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
`);

// KEYS: claim, due. ARGV: owner, claim value, holdMs, endpointId, now, a claim judged void. 0
// when the endpoint is not due; else as a lease is taken (1, or the claim found, to judge).
const CLAIM = luaScript(`${TAKE}
local score = redis.call('ZSCORE', KEYS[2], ARGV[4])
if not score or tonumber(score) > tonumber(ARGV[5]) then return 0 end
return take(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[6])
`);

// KEYS: claim, delivery, attempts, queue, due, endpoint. ARGV: owner, attempt JSON, state,
// nextAttemptAt, at, endpointId, prefix.
const RECORD = luaScript(`${OWNED}
if not owned(redis.call('GET', KEYS[1]), ARGV[1]) then return 0 end
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
`);

// Compare-and-set, for sealing rows written before sealing: a value another instance changed
// meanwhile is left as it is. KEYS: key. ARGV: the value read, the sealed one.
const SET_IF = luaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
`);
// KEYS: hash. ARGV: field, the value read, the sealed one.
const HSET_IF = luaScript(`
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
`);
// KEYS: list. ARGV: n, the n values read, the n sealed ones.
const LIST_IF = luaScript(`
local n = tonumber(ARGV[1])
local current = redis.call('LRANGE', KEYS[1], 0, -1)
if #current ~= n then return 0 end
for i = 1, n do if current[i] ~= ARGV[1 + i] then return 0 end end
redis.call('DEL', KEYS[1])
for i = 1, n do redis.call('RPUSH', KEYS[1], ARGV[1 + n + i]) end
return 1
`);
// KEYS: the cursor under a plan id, the cursor under its feed. Moves the first into the second.
const MOVE_CURSOR = luaScript(`
local old = redis.call('GET', KEYS[1])
if not old then return 0 end
local current = tonumber(redis.call('GET', KEYS[2]) or '-1')
if tonumber(old) > current then redis.call('SET', KEYS[2], old) end
redis.call('DEL', KEYS[1])
return 1
`);

interface Secret {
  secret: string;
  createdAt: number;
  expiresAt: number | null;
}

/** A call made before the link's first connection waits for it this long (a start beside Redis). */
const FIRST_CONNECTION_WAIT_MS = 3_000;

export interface RedisWebhookStoreOptions {
  /** The cluster's link: its prefix, deadlines and availability are the store's. */
  readonly link: RedisLink;
  /** Signs feed leases and delivery claims: the operator key's (`Sealer.signer`). */
  readonly signer: Signer;
  /** Epoch ms, for the leases' own ends. */
  readonly now: Clock;
  /** A void lease or claim (forged, or written again after its end) was taken over. */
  readonly onRejected?: (what: string) => void;
}

/** The store over the cluster's link, under `<link prefix>webhooks:`; closing it leaves the link. */
export function createRedisWebhookStore(options: RedisWebhookStoreOptions): WebhookRecords {
  const { link, signer, now, onRejected = () => {} } = options;
  const w = `${link.prefix}webhooks:`;
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

  let connectedOnce = link.available;
  const stopWatching = link.onAvailable(() => {
    connectedOnce = true;
  });
  const connected = async () => {
    if (!connectedOnce && !link.available) await link.ready(FIRST_CONNECTION_WAIT_MS);
  };
  const answered = <T>(reply: T | Unavailable): T => {
    if (reply === UNAVAILABLE) throw new WebhookStoreUnavailableError(`Redis (${w})`);
    return reply;
  };
  /** One round trip, bounded by the link's deadline. */
  const run = async <T>(op: (redis: RedisCommands) => Promise<T>): Promise<T> => {
    await connected();
    return answered(await link.run(op));
  };
  const script = async (
    lua: LuaScript,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown> => {
    await connected();
    return answered(await link.script(lua, keys, args));
  };
  const lease = (key: string, owner: string, ttlMs: number, what: string) =>
    ({ key, owner, ttlMs, signer, now, what, onRejected }) as const;

  const endpoint = async (id: string): Promise<StoredEndpoint | undefined> => {
    const json = await run((redis) => redis.get(k.endpoint(id)));
    return json === null ? undefined : (JSON.parse(json) as StoredEndpoint);
  };
  const allEndpoints = async (): Promise<StoredEndpoint[]> => {
    const ids = await run((redis) => redis.smembers(k.all));
    if (ids.length === 0) return [];
    const values = await run((redis) => redis.mget(ids.map(k.endpoint)));
    return values.flatMap((json) => (json === null ? [] : [JSON.parse(json) as StoredEndpoint]));
  };
  const delivery = async (seq: number | string): Promise<DeliveryRecord | undefined> => {
    const hash = await run((redis) => redis.hgetall(k.delivery(seq)));
    return hash.seq === undefined ? undefined : deliveryOf(hash);
  };
  const release = async (key: string, owner: string) => {
    await connected();
    if (!(await releaseLease(link, key, owner))) {
      throw new WebhookStoreUnavailableError(`Redis (${w})`);
    }
  };
  // Private: puts the endpoint on (or off) the due set, from its head, after a change of state.
  const reschedule = async (id: string, at?: number) => {
    const ep = await endpoint(id);
    const head = await run((redis) => redis.lindex(k.queue(id), 0));
    if (!ep || ep.disabledReason !== null || head === null) {
      await run((redis) => redis.zrem(k.due, id));
      return;
    }
    if (at !== undefined) {
      const seqs = await run((redis) => redis.lrange(k.queue(id), 0, -1));
      await run((redis) => {
        const pipeline = redis.pipeline();
        for (const seq of seqs) {
          pipeline.hset(k.delivery(seq), 'nextAttemptAt', at);
          pipeline.hdel(k.delivery(seq), 'firstAttemptAt');
        }
        return pipeline.exec();
      });
    }
    const next = await run((redis) => redis.hget(k.delivery(head), 'nextAttemptAt'));
    await run((redis) => redis.zadd(k.due, Number(next ?? 0), id));
  };
  // Private: claims an endpoint's head when it is due; a void claim is taken over once.
  const claim = async (id: string, owner: string, holdMs: number, at: number) => {
    const key = k.claim(id);
    const take = (replacing: string) =>
      script(
        CLAIM,
        [key, k.due],
        [owner, leaseValue(signer, key, owner, at + holdMs), holdMs, id, at, replacing],
      );
    const reply = await take('');
    if (reply === 1 || reply === 0) return reply === 1;
    const value = replyText(reply);
    const verdict = judgeLease(signer, key, value, now());
    if (verdict.kind === 'held') return false;
    onRejected(voidLease('a delivery claim', verdict));
    return (await take(value)) === 1;
  };

  return {
    shared: true,
    where: `Redis, under ${w}`,
    async canary() {
      return (await run((redis) => redis.get(k.canary))) ?? undefined;
    },
    async setCanary(sealed) {
      await run((redis) => redis.set(k.canary, sealed));
    },
    async anyToken() {
      let cursor = '0';
      do {
        const [next, keys] = await run((redis) =>
          redis.scan(cursor, 'MATCH', k.token('*'), 'COUNT', 1_000),
        );
        cursor = next;
        for (const key of keys) {
          const sealed = await run((redis) => redis.get(key));
          if (sealed !== null) return { tokenKey: key.slice(k.token('').length), sealed };
        }
      } while (cursor !== '0');
      return undefined;
    },
    sealClearRows: (rows) => sealClearRows({ run, script }, k, rows),
    async claimFeed(feed, owner, ttlMs) {
      await connected();
      return answered(
        await takeLease(link, lease(k.feed(feed), owner, ttlMs, 'a webhook feed lease')),
      );
    },
    releaseFeed: (feed, owner) => release(k.feed(feed), owner),
    async createEndpoint(record, secret, sealedToken) {
      const secrets: Secret[] = [{ secret, createdAt: record.createdAt, expiresAt: null }];
      await run((redis) =>
        redis
          .multi()
          .set(k.token(record.tokenKey), sealedToken)
          .set(k.endpoint(record.id), JSON.stringify(record))
          .sadd(k.all, record.id)
          .set(k.secrets(record.id), JSON.stringify(secrets))
          .set(k.cursor(record), record.startKnowledge, 'NX')
          .exec(),
      );
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
    async updateEndpoint(id, patch, at) {
      const current = await endpoint(id);
      if (!current) return undefined;
      const next = patchedEndpoint(current, patch, at);
      await run((redis) => redis.set(k.endpoint(id), JSON.stringify(next)));
      const reenabled = patch.enabled === true && current.disabledReason !== null;
      await reschedule(id, reenabled ? at : undefined);
      return next;
    },
    async deleteEndpoint(id) {
      const removed = await run((redis) => redis.srem(k.all, id));
      const seqs = await run((redis) => redis.lrange(k.history(id), 0, -1));
      await run((redis) =>
        redis.del(
          k.endpoint(id),
          k.secrets(id),
          k.queue(id),
          k.history(id),
          ...seqs.flatMap((seq) => [k.delivery(seq), k.attempts(seq)]),
        ),
      );
      await run((redis) => redis.zrem(k.due, id));
      return removed > 0;
    },
    async secrets(endpointId, at) {
      const json = await run((redis) => redis.get(k.secrets(endpointId)));
      const secrets = json === null ? [] : (JSON.parse(json) as Secret[]);
      return secrets
        .filter((s) => s.expiresAt === null || s.expiresAt > at)
        .sort((a, b) => b.createdAt - a.createdAt)
        .map((s) => s.secret);
    },
    async rotateSecret(endpointId, secret, at, previousUntil) {
      const json = await run((redis) => redis.get(k.secrets(endpointId)));
      const old = json === null ? [] : (JSON.parse(json) as Secret[]);
      const kept = old
        .filter((s) => s.expiresAt === null || s.expiresAt > at)
        .map((s) => (s.expiresAt === null ? { ...s, expiresAt: previousUntil } : s));
      const secrets = [{ secret, createdAt: at, expiresAt: null }, ...kept];
      await run((redis) => redis.set(k.secrets(endpointId), JSON.stringify(secrets)));
    },
    async token(tokenKey) {
      return (await run((redis) => redis.get(k.token(tokenKey)))) ?? undefined;
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
      const value = await run((redis) => redis.get(k.cursor(feed)));
      return value === null ? undefined : Number(value);
    },
    async enqueue(feed, cursor, deliveries, at, owner) {
      const args = deliveries.flatMap((d) => [
        d.eventId,
        d.endpointId,
        d.serverKnowledge,
        d.payload,
      ]);
      const written = await script(
        ENQUEUE,
        [k.feed(feed), k.cursor(feed), k.seq, k.due],
        [owner, cursor, at, w, HISTORY, ...args],
      );
      return written === 1;
    },
    async due(at, limit, busy, owner, holdMs) {
      const ids = await run((redis) =>
        redis.zrangebyscore(k.due, '-inf', at, 'LIMIT', 0, limit * 4),
      );
      const claimed: DeliveryRecord[] = [];
      for (const id of ids) {
        if (claimed.length >= limit) break;
        if (busy.has(id)) continue;
        if (!(await claim(id, owner, holdMs, at))) continue;
        const head = await run((redis) => redis.lindex(k.queue(id), 0));
        const record = head === null ? undefined : await delivery(head);
        if (record) claimed.push(record);
        else await release(k.claim(id), owner);
      }
      return claimed;
    },
    release: (record, owner) => release(k.claim(record.endpointId), owner),
    async nextDueAt(after) {
      const [, score] = await run((redis) =>
        redis.zrangebyscore(k.due, `(${after}`, '+inf', 'WITHSCORES', 'LIMIT', 0, 1),
      );
      return score === undefined ? undefined : Number(score);
    },
    async recordAttempt(record, attempt, next, owner) {
      await script(
        RECORD,
        [
          k.claim(record.endpointId),
          k.delivery(record.seq),
          k.attempts(record.seq),
          k.queue(record.endpointId),
          k.due,
          k.endpoint(record.endpointId),
        ],
        [
          owner,
          JSON.stringify(attempt),
          next.state,
          next.nextAttemptAt,
          attempt.at,
          record.endpointId,
          w,
        ],
      );
    },
    async disableEndpoint(id, reason, at) {
      const current = await endpoint(id);
      if (!current || current.disabledReason !== null) return;
      const disabled = { ...current, disabledReason: reason, disabledAt: at };
      await run((redis) => redis.set(k.endpoint(id), JSON.stringify(disabled)));
      await run((redis) => redis.zrem(k.due, id));
    },
    async disableFeeds(tokenKey, feed, reason, at) {
      for (const e of await allEndpoints()) {
        if (e.tokenKey !== tokenKey || (feed !== null && e.feed !== feed)) continue;
        if (e.disabledReason !== null) continue;
        const disabled = { ...e, disabledReason: reason, disabledAt: at };
        await run((redis) => redis.set(k.endpoint(e.id), JSON.stringify(disabled)));
        await run((redis) => redis.zrem(k.due, e.id));
      }
    },
    async deliveries(endpointId, limit, before) {
      const seqs = await run((redis) => redis.lrange(k.history(endpointId), 0, -1));
      const wanted = seqs
        .map(Number)
        .filter((seq) => before === undefined || seq < before)
        .slice(0, limit);
      const records = await Promise.all(wanted.map((seq) => delivery(seq)));
      return records.filter((r): r is DeliveryRecord => r !== undefined);
    },
    async deliveryOfEvent(eventId) {
      const seq = await run((redis) => redis.get(k.event(eventId)));
      return seq === null ? undefined : delivery(seq);
    },
    async attempts(seq) {
      return (await run((redis) => redis.lrange(k.attempts(seq), 0, -1))).map(
        (json) => JSON.parse(json) as AttemptRecord,
      );
    },
    async redeliver(eventId, at) {
      const original = await this.deliveryOfEvent(eventId);
      if (!original) return undefined;
      const seq = await run((redis) => redis.incr(k.seq));
      await run((redis) =>
        redis
          .multi()
          .hset(k.delivery(seq), {
            seq,
            eventId,
            endpointId: original.endpointId,
            serverKnowledge: original.serverKnowledge,
            payload: original.payload,
            createdAt: at,
            state: 'PENDING',
            attempts: 0,
            nextAttemptAt: at,
          })
          .rpush(k.queue(original.endpointId), seq)
          .lpush(k.history(original.endpointId), seq)
          .set(k.event(eventId), seq)
          .exec(),
      );
      await reschedule(original.endpointId);
      return delivery(seq);
    },
    onAvailable: (listener) => link.onAvailable(listener),
    async close() {
      // The link is the cluster's: it closes with the gateway.
      stopWatching();
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
 * Calls `listener` with the persistence Redis has (`persistenceOf`) each time the link comes up,
 * and at once when it is up already: a Redis that came back may be another one. Returns the
 * function that stops it.
 */
export function watchPersistence(
  link: RedisLink,
  listener: (kept: RedisPersistence | undefined) => void,
): () => void {
  const look = () =>
    void link.run(persistenceOf).then((kept) => {
      // No answer in time: the link is down again, and says so; the next time it is up, look.
      if (kept !== UNAVAILABLE) listener(kept);
    });
  if (link.available) look();
  return link.onAvailable(look);
}

/**
 * Whether Redis keeps what it holds across its own restart: `CONFIG GET` where allowed, else
 * `INFO persistence` (which tells AOF, and RDB only once a snapshot was saved). Undefined when
 * neither answers.
 */
async function persistenceOf(redis: RedisCommands): Promise<RedisPersistence | undefined> {
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

/** Round trips as the store makes them: bounded, throwing when Redis did not answer. */
interface RoundTrips {
  run<T>(op: (redis: RedisCommands) => Promise<T>): Promise<T>;
  script(
    lua: LuaScript,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown>;
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
async function sealClearRows(redis: RoundTrips, k: Keys, rows: ClearRows): Promise<void> {
  const { run, script } = redis;
  const tokenPrefix = k.token('');
  for (const key of await scanAll(run, `${tokenPrefix}*`)) {
    const sealed = await run((r) => r.get(key));
    if (sealed === null) continue;
    const resealed = rows.token(key.slice(tokenPrefix.length), sealed);
    if (resealed !== sealed) await script(SET_IF, [key], [sealed, resealed]);
  }
  for (const id of await run((r) => r.smembers(k.all))) {
    const json = await run((r) => r.get(k.endpoint(id)));
    if (json === null) continue;
    const parsed = JSON.parse(json) as Partial<EndpointRecord> & Partial<StoredEndpoint>;
    if (parsed.planId !== undefined && parsed.details === undefined) {
      const clear = parsed as EndpointRecord;
      const stored = rows.endpoint(clear);
      await script(SET_IF, [k.endpoint(id)], [json, JSON.stringify(stored)]);
      const legacy = { tokenKey: clear.tokenKey, feed: clear.planId };
      await script(MOVE_CURSOR, [k.cursor(legacy), k.cursor(stored)], []);
      await run((r) => r.del(k.feed(legacy)));
    }
    const secretsJson = await run((r) => r.get(k.secrets(id)));
    if (secretsJson !== null) {
      const secrets = JSON.parse(secretsJson) as Secret[];
      const sealed = secrets.map((s) => ({ ...s, secret: rows.secret(id, s.secret) }));
      if (sealed.some((s, i) => s.secret !== secrets[i]?.secret)) {
        await script(SET_IF, [k.secrets(id)], [secretsJson, JSON.stringify(sealed)]);
      }
    }
    for (const seq of await run((r) => r.lrange(k.history(id), 0, -1))) {
      const [eventId, payload] = await run((r) => r.hmget(k.delivery(seq), 'eventId', 'payload'));
      if (eventId && payload) {
        const sealed = rows.payload(id, eventId, payload);
        if (sealed !== payload) {
          await script(HSET_IF, [k.delivery(seq)], ['payload', payload, sealed]);
        }
      }
      const attempts = await run((r) => r.lrange(k.attempts(seq), 0, -1));
      const sealedAttempts = attempts.map((json) => {
        const attempt = JSON.parse(json) as AttemptRecord;
        return attempt.error === null
          ? json
          : JSON.stringify({ ...attempt, error: rows.error(Number(seq), attempt.error) });
      });
      if (sealedAttempts.some((json, i) => json !== attempts[i])) {
        await script(LIST_IF, [k.attempts(seq)], [attempts.length, ...attempts, ...sealedAttempts]);
      }
    }
  }
}

/** Private: every key matching `pattern`. */
async function scanAll(run: RoundTrips['run'], pattern: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await run((r) => r.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000));
    cursor = next;
    found.push(...keys);
  } while (cursor !== '0');
  return found;
}
