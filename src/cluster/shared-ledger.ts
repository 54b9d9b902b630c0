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
 * - Members are signed: `<instance>.<sequence>.<time> <tag>`, the tag made with the token's key
 *   and bound to the key's name (`seal.ts`). Only entries whose tag verifies count, by the time
 *   they carry (not their score, which anyone could move); the others are reported, removed and
 *   not counted. So write access to Redis cannot exhaust a token's budget (which would stop its
 *   polls) with made-up entries, nor keep real ones in the window. What it can still do is
 *   delete entries: then this instance counts at least its own.
 *
 * Key: `<prefix>l:<redisName(kind, tokenKey)>`; values are instance ids and times, never a token.
 */
import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { type Clock, epochNow } from '../time/clock.js';
import {
  DEFAULT_MAX_TOKENS,
  DEFAULT_REQUEST_LIMIT,
  DEFAULT_WINDOW_MS,
  type RequestLedger,
  type RequestUsage,
} from '../upstream/request-ledger.js';
import { luaScript, type RedisLink, UNAVAILABLE } from './redis.js';
import { redisName, signed, type TokenSeals, verified } from './seal.js';

export interface SharedLedger extends RequestLedger {
  /** The token's usage across every instance; this instance's own when Redis cannot answer. */
  shared(tokenKey: string): Promise<RequestUsage>;
}

export interface SharedLedgerOptions {
  link: RedisLink;
  /** The seals of the tokens seen here: entries are signed and checked with them. */
  seals: TokenSeals;
  /** What is counted, part of the key name: `calls` (every request) or `polls`. */
  kind: string;
  /** Names this instance's entries. @default 8 random bytes */
  instanceId?: string;
  /** @default 200 */
  limit?: number;
  /** @default 3_600_000 */
  windowMs?: number;
  /** @default epochNow */
  now?: Clock;
  /** Tokens whose entries this instance keeps (to re-send them). @default 10_000 */
  maxTokens?: number;
  /** Entries that failed authentication were found (logged by the caller). */
  onRejected?: (what: string) => void;
}

interface Entry {
  readonly at: number;
  /** Signed, or undefined when this instance had no seal of the token (then kept here only). */
  readonly member: string | undefined;
}

/** Drops what left the window (by score), then: the oldest `ARGV[2]` members. */
const USAGE = luaScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
return redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)
`);

/** Members already verified here, and the time they carry; bounded in bytes. */
const VERIFIED_BYTES = 1024 * 1024;

export function createSharedLedger(options: SharedLedgerOptions): SharedLedger {
  const {
    link,
    seals,
    kind,
    instanceId = randomBytes(8).toString('base64url'),
    limit = DEFAULT_REQUEST_LIMIT,
    windowMs = DEFAULT_WINDOW_MS,
    now = epochNow,
    maxTokens = DEFAULT_MAX_TOKENS,
    onRejected = () => {},
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
  const checked = new LRUCache<string, number>({
    maxSize: VERIFIED_BYTES,
    sizeCalculation: (_at, keyAndMember) => keyAndMember.length,
  });
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

  function send(tokenKey: string, made: readonly Entry[], removed?: string): void {
    const key = keyOf(tokenKey);
    const added = made.flatMap(({ at, member }) => (member === undefined ? [] : [{ at, member }]));
    if (added.length === 0 && removed === undefined) return;
    void link.run((redis) => {
      const pipeline = redis.pipeline();
      if (removed !== undefined) pipeline.zrem(key, removed);
      for (const { at, member } of added) pipeline.zadd(key, at, member);
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

  /** The time a member carries, if its tag is this token's for `key`. */
  function timeOf(member: string, key: string, tokenKey: string): number | undefined {
    // Keyed by both: a member copied under another token's key must be checked (and fail) there.
    const cached = `${key} ${member}`;
    const known = checked.get(cached);
    if (known !== undefined) return known;
    const seal = seals.get(tokenKey);
    const text = seal && verified(seal, member, key);
    const at = Number(text?.split('.')[2]);
    if (!Number.isSafeInteger(at)) return undefined;
    checked.set(cached, at);
    return at;
  }

  /** The cluster's usage from the members `USAGE` answered: only authentic ones, by their time. */
  function countShared(
    tokenKey: string,
    key: string,
    members: unknown[],
    at: number,
  ): RequestUsage {
    let used = 0;
    let oldest: number | null = null;
    let forged = 0;
    const dropped: string[] = [];
    for (const each of members) {
      const member = String(each);
      const sentAt = timeOf(member, key, tokenKey);
      if (sentAt === undefined) forged += 1;
      if (sentAt === undefined || sentAt <= at - windowMs) {
        dropped.push(member);
        continue;
      }
      used += 1;
      oldest = oldest === null ? sentAt : Math.min(oldest, sentAt);
    }
    if (forged > 0) onRejected(`${forged} ledger entries that failed authentication`);
    if (dropped.length > 0) void link.run((redis) => redis.zrem(key, ...dropped));
    // This instance's own entries count even if Redis lost them.
    const own = local(tokenKey);
    return usageOf(
      Math.max(used, own.used),
      oldest === null ? own.oldestAt : Math.min(oldest, own.oldestAt ?? oldest),
    );
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
      const at = now();
      const seal = seals.get(tokenKey);
      const text = `${instanceId}.${sequence}.${at}`;
      const entry: Entry = { at, member: seal && signed(seal, text, keyOf(tokenKey)) };
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
      if (last?.member !== undefined) send(tokenKey, [], last.member);
    },
    usage: local,
    // Metrics read synchronously: this instance's own view of the tokens it served.
    usages: () => [...entries.keys()].map(local),
    async shared(tokenKey) {
      const at = now();
      const key = keyOf(tokenKey);
      if (!seals.get(tokenKey)) return local(tokenKey);
      // Enough for every real entry (at most the limit, plus requests in flight).
      const reply = await link.script(USAGE, [key], [at - windowMs, 4 * limit]);
      if (reply === UNAVAILABLE || !Array.isArray(reply)) return local(tokenKey);
      return countShared(tokenKey, key, reply, at);
    },
  };
}
