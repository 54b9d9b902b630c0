/**
 * The REST cache's shared tier (user, plan list, money movements: what the plan export does not
 * hold), so N instances load each once per max-age, as one instance does.
 *
 * - One hash per token, `c:<digest>`; a field per cached answer named `<operation>:<digest>` (the
 *   operation id, such as `getPlans`, is the only readable part: it lets an invalidation by
 *   prefix find its fields). Values are sealed `{ at, value }`: the time of the load travels
 *   with the answer, so another instance judges its age as the loader would.
 * - On an invalidation (a write), the fields go and a sealed notice is published on `i` with the
 *   token's digest: every instance that served that token drops its own copies.
 * - The local cache (`loaders/rest-cache.ts`) asks here only on a miss: within max-age nothing
 *   reaches Redis. Without Redis every call answers "nothing shared" at once.
 */
import { LRUCache } from 'lru-cache';
import type { SharedRestEntries } from '../loaders/rest-cache.js';
import { luaScript, type RedisLink, UNAVAILABLE } from './redis.js';
import { openJson, redisName, sealJson, type TokenSeals } from './seal.js';

export interface SharedRestEntriesOptions {
  link: RedisLink;
  seals: TokenSeals;
  /** 8 bytes naming this instance (to skip its own notices). */
  instanceId: Buffer;
  /** The hash of a token expires this long after its last write. @default 86_400_000 */
  ttlMs?: number;
  onError?: (error: unknown) => void;
}

const DIGEST_BYTES = 22;

/** Drops the fields of one operation prefix, then publishes the notice. */
const INVALIDATE = luaScript(`
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(field, 1, #ARGV[1]) == ARGV[1] then redis.call('HDEL', KEYS[1], field) end
end
redis.call('PUBLISH', KEYS[2], ARGV[2])
return 1
`);

export function createSharedRestEntries(
  options: SharedRestEntriesOptions,
): SharedRestEntries & { close(): void } {
  const { link, seals, instanceId, ttlMs = 86_400_000, onError = () => {} } = options;
  const channel = `${link.prefix}i`;
  const digestOf = (tokenKey: string) => redisName('rest', tokenKey);
  const hashOf = (tokenKey: string) => `${link.prefix}c:${digestOf(tokenKey)}`;
  const fieldOf = (tokenKey: string, key: string) =>
    `${/^[A-Za-z]+/.exec(key)?.[0] ?? 'other'}:${redisName('rest-key', tokenKey, key)}`;
  /** Digest → token key of the tokens served here (whose copies a notice may concern). */
  const served = new LRUCache<string, string>({ max: 10_000 });
  const listeners: ((tokenKey: string, prefix: string) => void)[] = [];

  const stop = link.subscribe(channel, (message) => {
    if (message.subarray(0, instanceId.length).equals(instanceId)) return;
    const digest = message.subarray(instanceId.length, instanceId.length + DIGEST_BYTES);
    const tokenKey = served.get(digest.toString('utf8'));
    const seal = tokenKey === undefined ? undefined : seals.get(tokenKey);
    if (tokenKey === undefined || !seal) return;
    openJson(seal, message.subarray(instanceId.length + DIGEST_BYTES), channel)
      .then((prefix) => {
        if (typeof prefix !== 'string') throw new TypeError('an invalidation names a prefix');
        for (const forget of listeners) forget(tokenKey, prefix);
      })
      .catch(onError);
  });

  return {
    async get(tokenKey, key) {
      const seal = seals.get(tokenKey);
      if (!seal || !link.available) return undefined;
      served.set(digestOf(tokenKey), tokenKey);
      const hash = hashOf(tokenKey);
      const field = fieldOf(tokenKey, key);
      const blob = await link.run((redis) => redis.hgetBuffer(hash, field));
      if (blob === UNAVAILABLE || blob === null) return undefined;
      try {
        const entry = await openJson(seal, blob, `${hash}/${field}`);
        if (typeof entry !== 'object' || entry === null) return undefined;
        const { at, value } = entry as { at?: unknown; value?: unknown };
        return typeof at === 'number' && value !== undefined ? { at, value } : undefined;
      } catch (error) {
        onError(error);
        return undefined;
      }
    },

    set(tokenKey, key, entry) {
      const seal = seals.get(tokenKey);
      if (!seal || !link.available) return;
      served.set(digestOf(tokenKey), tokenKey);
      const hash = hashOf(tokenKey);
      const field = fieldOf(tokenKey, key);
      void sealJson(seal, entry, `${hash}/${field}`)
        .then((blob) =>
          link.run((redis) => redis.pipeline().hset(hash, field, blob).pexpire(hash, ttlMs).exec()),
        )
        .catch(onError);
    },

    invalidate(tokenKey, prefix) {
      const seal = seals.get(tokenKey);
      if (!seal || !link.available) return;
      void sealJson(seal, prefix, channel)
        .then((sealed) =>
          link.script(
            INVALIDATE,
            [hashOf(tokenKey), channel],
            [prefix, Buffer.concat([instanceId, Buffer.from(digestOf(tokenKey)), sealed])],
          ),
        )
        .catch(onError);
    },

    onInvalidated(forget) {
      listeners.push(forget);
    },

    close: stop,
  };
}
