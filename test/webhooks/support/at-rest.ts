/**
 * What webhooks leave at rest, searched for what must not be there in clear: the bytes of a
 * SQLite file with its WAL and shared-memory files, and every key of a Redis server (names and
 * values of every type, whatever the prefix).
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

/** What to look for, by name (a secret, a payee name, an amount...), as the text it would be. */
export type Needles = Readonly<Record<string, string>>;

/** Each needle's name, with where it was found (empty: nowhere). */
export type Findings = Record<string, string[]>;

/** Where each needle occurs in the SQLite file at `path`, its `-wal` and its `-shm`. */
export function scanSqlite(path: string, needles: Needles): Findings {
  const found = emptyFindings(needles);
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (!existsSync(file)) continue;
    const bytes = readFileSync(file);
    for (const [name, needle] of Object.entries(needles)) {
      if (bytes.includes(Buffer.from(needle, 'utf8'))) found[name]!.push(file);
    }
  }
  return found;
}

/** Where each needle occurs in the names and values of every key of the server `redis` reaches. */
export async function scanRedis(redis: Redis, needles: Needles): Promise<Findings> {
  const found = emptyFindings(needles);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scanBuffer(cursor, 'COUNT', 500);
    cursor = next.toString();
    for (const key of keys) {
      const parts = [key, ...(await valuesOf(redis, key))];
      for (const [name, needle] of Object.entries(needles)) {
        const bytes = Buffer.from(needle, 'utf8');
        if (parts.some((part) => part.includes(bytes))) found[name]!.push(key.toString());
      }
    }
  } while (cursor !== '0');
  return found;
}

/** How many needles were found anywhere. */
export function countFound(findings: Findings): number {
  return Object.values(findings).filter((where) => where.length > 0).length;
}

async function valuesOf(redis: Redis, key: Buffer): Promise<Buffer[]> {
  switch (await redis.type(key)) {
    case 'string':
      return [(await redis.getBuffer(key)) ?? Buffer.alloc(0)];
    case 'hash':
      return Object.entries(await redis.hgetallBuffer(key)).flatMap(([field, value]) => [
        Buffer.from(field),
        value,
      ]);
    case 'list':
      return redis.lrangeBuffer(key, 0, -1);
    case 'set':
      return redis.smembersBuffer(key);
    case 'zset':
      return redis.zrangeBuffer(key, 0, -1);
    default:
      return [];
  }
}

function emptyFindings(needles: Needles): Findings {
  return Object.fromEntries(Object.keys(needles).map((name) => [name, [] as string[]]));
}
