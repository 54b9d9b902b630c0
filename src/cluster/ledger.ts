/**
 * The request ledger of a cluster: every instance's upstream requests for a token, counted in
 * one Redis sorted set per token (member: instance and sequence number, score: the time it was
 * sent), so `rateLimit` and the poll budget see what the whole cluster spent.
 *
 * - `record` / `release` keep the `RequestLedger` contract (synchronous: the upstream client
 *   calls them as a request leaves and when a 429 comes back): they update this instance's own
 *   count at once and send the change to Redis without waiting (one pipelined round trip, in
 *   order with any later read on the same connection).
 * - `shared(tokenKey)` reads the cluster's count: one script that drops what left the window,
 *   counts and finds the oldest entry (one round trip). Without Redis: this instance's count.
 * - When the link comes back, every instance re-sends the entries it made within the window
 *   (members are unique, so nothing is counted twice), which also restores a Redis that lost
 *   its data when it restarted. Entries of an instance that died while Redis was away are lost.
 *
 * Key: `<prefix>l:<redisName(kind, tokenKey)>`; values are instance ids and times, never a token.
 */
import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import {
  DEFAULT_MAX_TOKENS,
  DEFAULT_REQUEST_LIMIT,
  DEFAULT_WINDOW_MS,
  type RequestLedger,
  type RequestUsage,
} from '../upstream/ledger.js';
import { luaScript, type RedisLink, UNAVAILABLE } from './redis.js';
import { redisName } from './seal.js';

export interface SharedLedger extends RequestLedger {
  /** The token's usage across every instance; this instance's own when Redis cannot answer. */
  shared(tokenKey: string): Promise<RequestUsage>;
}

export interface SharedLedgerOptions {
  link: RedisLink;
  /** What is counted, part of the key name: `calls` (every request) or `polls`. */
  kind: string;
  /** Names this instance's entries. @default 8 random bytes */
  instanceId?: string;
  /** @default 200 */
  limit?: number;
  /** @default 3_600_000 */
  windowMs?: number;
  /** @default Date.now */
  now?: () => number;
  /** Tokens whose entries this instance keeps (to re-send them). @default 10_000 */
  maxTokens?: number;
}

interface Entry {
  readonly at: number;
  readonly member: string;
}

/** Drops what left the window, then: [count, oldest score or false]. */
const USAGE = luaScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return { redis.call('ZCARD', KEYS[1]), oldest[2] or false }
`);

export function createSharedLedger(options: SharedLedgerOptions): SharedLedger {
  const {
    link,
    kind,
    instanceId = randomBytes(8).toString('base64url'),
    limit = DEFAULT_REQUEST_LIMIT,
    windowMs = DEFAULT_WINDOW_MS,
    now = Date.now,
    maxTokens = DEFAULT_MAX_TOKENS,
  } = options;
  if (!Number.isSafeInteger(limit) || limit <= 0) {
    throw new RangeError(`createSharedLedger: limit must be a positive integer, got ${limit}`);
  }
  if (!Number.isSafeInteger(windowMs) || windowMs <= 0) {
    throw new RangeError(
      `createSharedLedger: windowMs must be a positive integer, got ${windowMs}`,
    );
  }
  const maxEntries = 2 * limit;
  const entries = new LRUCache<string, Entry[]>({ max: maxTokens });
  let sequence = 0;

  const keyOf = (tokenKey: string) => `${link.prefix}l:${redisName(kind, tokenKey)}`;

  function prune(tokenKey: string, at: number): Entry[] | undefined {
    const list = entries.get(tokenKey);
    if (!list) return undefined;
    let expired = 0;
    while (expired < list.length && (list[expired] as Entry).at + windowMs <= at) expired++;
    if (expired > 0) list.splice(0, expired);
    if (list.length === 0) {
      entries.delete(tokenKey);
      return undefined;
    }
    return list;
  }

  function send(tokenKey: string, added: readonly Entry[], removed?: string): void {
    const key = keyOf(tokenKey);
    void link.run((redis) => {
      const pipeline = redis.pipeline();
      if (removed !== undefined) pipeline.zrem(key, removed);
      for (const entry of added) pipeline.zadd(key, entry.at, entry.member);
      // A little past the window, so the newest entry is never dropped before it counts.
      if (added.length > 0) pipeline.pexpire(key, windowMs + 60_000);
      return pipeline.exec();
    });
  }

  function usageOf(used: number, oldestAt: number | null): RequestUsage {
    return {
      used,
      limit,
      remaining: Math.max(0, limit - used),
      oldestAt,
      resetsAt: oldestAt === null ? null : oldestAt + windowMs,
    };
  }

  function local(tokenKey: string): RequestUsage {
    const list = prune(tokenKey, now());
    return usageOf(list?.length ?? 0, list?.[0]?.at ?? null);
  }

  link.onAvailable(() => {
    const at = now();
    for (const tokenKey of [...entries.keys()]) {
      const list = prune(tokenKey, at);
      if (list) send(tokenKey, list);
    }
  });

  return {
    limit,
    windowMs,
    record(tokenKey) {
      sequence += 1;
      const entry: Entry = { at: now(), member: `${instanceId}.${sequence}` };
      const list = prune(tokenKey, entry.at);
      if (list) {
        list.push(entry);
        if (list.length > maxEntries) list.splice(0, list.length - maxEntries);
      } else {
        entries.set(tokenKey, [entry]);
      }
      send(tokenKey, [entry]);
    },
    release(tokenKey) {
      const list = entries.get(tokenKey);
      const last = list?.pop();
      if (list?.length === 0) entries.delete(tokenKey);
      if (last) send(tokenKey, [], last.member);
    },
    usage: local,
    // Metrics read synchronously: this instance's own view of the tokens it served.
    usages: () => [...entries.keys()].map(local),
    async shared(tokenKey) {
      const at = now();
      const reply = await link.script(USAGE, [keyOf(tokenKey)], [at - windowMs]);
      if (reply === UNAVAILABLE || !Array.isArray(reply)) return local(tokenKey);
      const used = Number(reply[0]);
      const oldest = reply[1] === null || reply[1] === false ? null : Number(reply[1]);
      if (!Number.isSafeInteger(used)) return local(tokenKey);
      return usageOf(used, oldest !== null && Number.isFinite(oldest) ? oldest : null);
    },
  };
}
