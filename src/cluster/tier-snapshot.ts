/**
 * Snapshots (`s:<rid>`: knowledge `k`, time `t` its data was asked for, sealed `d`): written after
 * a full export by the instance that loaded it, and rewritten from a replica when the log grows
 * past `compactAfter` deltas or the snapshot is missing (Redis restarted). A cold read installs
 * the snapshot and the log's deltas (one round trip, `LOAD`). A snapshot larger than
 * `maxSnapshotBytes` sealed is not stored; writing one gets the time its bytes take.
 */
import { PLAN_ALIASES } from '@plans-gateway/rest-contract';
import { nextTurn } from '../time/next-turn.js';
import { planExportOf } from './plan-export.js';
import { luaScript, UNAVAILABLE } from './redis.js';
import { OWNED } from './redis-leases.js';
import { sealJson, type TokenSeal } from './seal.js';
import { aliasKeyOf, aliasKeysOf, aliasPointer, aliasTime } from './tier-aliases.js';
import {
  openSnapshot,
  type PlanExport,
  relayedDelta,
  type StoredSnapshot,
} from './tier-messages.js';
import { keyOf, remember, ridOf, type TierState } from './tier-state.js';

/** Stores a snapshot unless a newer one is there; drops the deltas it covers; releases the flight. */
const WRITE_SNAPSHOT = luaScript(`${OWNED}
local k = tonumber(redis.call('HGET', KEYS[1], 'k') or '-1')
local t = tonumber(redis.call('HGET', KEYS[1], 't') or '-1')
local nk, nt = tonumber(ARGV[1]), tonumber(ARGV[2])
local stored = 0
if nk > k or (nk == k and nt > t) then
  redis.call('HSET', KEYS[1], 'k', ARGV[1], 't', ARGV[2], 'd', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
  stored = 1
end
if owned(redis.call('GET', KEYS[3]), ARGV[5]) then redis.call('DEL', KEYS[3]) end
if KEYS[4] then redis.call('SET', KEYS[4], ARGV[6], 'PX', ARGV[4]) end
return stored
`);

/**
 * The snapshot and the deltas after it, by replica (ARGV[2] = 'id', ARGV[3] = rid) or through an
 * alias pointer (KEYS[1], `<rid> <time> <tag>`): [rid, pointer or false, k, t, d, delta...] or
 * false.
 */
const LOAD = luaScript(`
local rid, pointer = ARGV[3], false
if ARGV[2] == 'alias' then
  pointer = redis.call('GET', KEYS[1])
  if not pointer then return false end
  local space = string.find(pointer, ' ', 1, true)
  if not space then return false end
  rid = string.sub(pointer, 1, space - 1)
end
local snap = redis.call('HMGET', ARGV[1] .. 's:' .. rid, 'k', 't', 'd')
if not snap[3] then return false end
local deltas = redis.call('ZRANGEBYSCORE', ARGV[1] .. 'g:' .. rid, '(' .. snap[1], '+inf')
return { rid, pointer, snap[1], snap[2], snap[3], unpack(deltas) }
`);

/** What a snapshot write may count on the link to carry, at least (a slow network). */
const BULK_BYTES_PER_SECOND = 8 * 1024 * 1024;

/** A full export this instance loaded, as the snapshot tier stores it. */
export interface LoadedExport {
  readonly planId: string;
  /** Its JSON size: past what a snapshot can hold compressed, it is not written out. */
  readonly bytes: number;
  /** The export, made when it is written (a streamed export is written back from its replica). */
  readonly data: () => PlanExport;
}

/**
 * JSON bytes per sealed byte a snapshot is assumed to shrink to at most (brotli at quality 4
 * measured 15 on a 100,000-transaction export): an export larger than this many times
 * `maxSnapshotBytes` is not even serialized.
 */
const SNAPSHOT_COMPRESSION = 8;

/** Writes the replica held here as the snapshot, if the log asks for it. */
export function compactSoon(
  state: TierState,
  seal: TokenSeal,
  tokenKey: string,
  planId: string,
  rid: string,
): void {
  if (state.compacting.has(rid)) return;
  state.compacting.add(rid);
  // After the store has committed the answer being published.
  setImmediate(() => {
    const held = state.store().peek(tokenKey, planId);
    const write = held
      ? writeSnapshot(
          state,
          seal,
          rid,
          planExportOf(held.snapshot),
          state.now() - held.ageMs,
          [],
          undefined,
        )
      : Promise.resolve();
    write.catch(state.onError).finally(() => state.compacting.delete(rid));
  });
}

async function writeSnapshot(
  state: TierState,
  seal: TokenSeal,
  rid: string,
  data: PlanExport | undefined,
  sentAt: number,
  aliasKeys: readonly string[],
  flight: { key: string; owner: string } | undefined,
): Promise<boolean> {
  // Without data (too large to serialize), only the flight is released.
  const blob = data ? await sealJson(seal, { sentAt, data }, `snapshot:${rid}`) : Buffer.alloc(0);
  const tooLarge = data === undefined || blob.length > state.maxSnapshotBytes;
  // Off any request's path: a large snapshot gets the time its bytes take, not just a command's.
  const sent = tooLarge ? 0 : blob.length;
  const timeoutMs = state.commandTimeoutMs + Math.ceil((sent / BULK_BYTES_PER_SECOND) * 1000);
  if (tooLarge) state.stats.snapshotsSkipped += 1;
  const reply = await state.link.script(
    WRITE_SNAPSHOT,
    [
      keyOf(state, 's', rid),
      keyOf(state, 'g', rid),
      flight?.key ?? keyOf(state, 'f', '-'),
      ...aliasKeys.slice(0, 1),
    ],
    [
      // A snapshot too large to keep is still offered as the oldest possible, so the flight
      // is released and nothing is stored.
      tooLarge ? -2 : data.server_knowledge,
      sentAt,
      tooLarge ? '' : blob,
      state.ttlMs,
      flight?.owner ?? '',
      aliasPointer(seal, aliasKeys, rid, sentAt),
    ],
    false,
    timeoutMs,
  );
  if (reply === 1) state.stats.snapshotsWritten += 1;
  return reply !== UNAVAILABLE;
}

export async function warm(
  state: TierState,
  { token, tokenKey, planId }: { token: string; tokenKey: string; planId: string },
): Promise<boolean> {
  if (!state.link.available) return false;
  const seal = state.seals.remember(token, tokenKey);
  const stored = await load(state, seal, planId);
  return stored !== undefined && install(state, tokenKey, planId, stored);
}

export function install(
  state: TierState,
  tokenKey: string,
  requested: string,
  stored: StoredSnapshot,
): boolean {
  try {
    const outcome = state.store().applyRelayed(tokenKey, {
      kind: 'full',
      data: stored.data,
      sentAt: stored.sentAt,
      bytes: stored.bytes,
      ...(stored.aliasCheckedAt === undefined
        ? {}
        : { aliases: [requested], aliasCheckedAt: stored.aliasCheckedAt }),
    });
    if (outcome === 'gap') return false;
    const rid = ridOf(tokenKey, stored.data.plan.id);
    for (const delta of stored.deltas) {
      const applied = state.store().applyRelayed(tokenKey, relayedDelta(delta));
      if (applied !== 'gap') remember(state, rid, delta);
    }
    state.stats.warmed += 1;
    return true;
  } catch (error) {
    state.onError(error);
    return false;
  }
}

export async function load(
  state: TierState,
  seal: TokenSeal,
  planId: string,
): Promise<StoredSnapshot | undefined> {
  const { tokenKey } = seal;
  const byAlias = PLAN_ALIASES.has(planId);
  const rid = byAlias ? '' : ridOf(tokenKey, planId);
  const aliasKey = aliasKeyOf(state, tokenKey, planId);
  const reply = await state.link.script(
    LOAD,
    [byAlias ? aliasKey : keyOf(state, 's', rid)],
    [state.link.prefix, byAlias ? 'alias' : 'id', rid],
    true,
  );
  if (reply === UNAVAILABLE || !Array.isArray(reply)) return undefined;
  const [ridBuffer, pointer, , , blob, ...deltaBlobs] = reply as (Buffer | null)[];
  if (!ridBuffer || !blob) return undefined;
  const foundRid = ridBuffer.toString('utf8');
  const checked = pointer ? aliasTime(state, seal, aliasKey, foundRid, pointer) : null;
  if (checked === undefined) {
    state.onRejected('an alias pointer that failed authentication');
    return undefined;
  }
  try {
    return await openSnapshot(seal, {
      rid: foundRid,
      blob,
      deltaBlobs,
      checked,
      // Through an alias, the snapshot found names its replica; else it must be the one asked.
      expected: byAlias ? (data) => ridOf(tokenKey, String(data.plan?.id)) : () => rid,
    });
  } catch (error) {
    state.onError(error);
    return undefined;
  }
}

export async function storeExport(
  state: TierState,
  seal: TokenSeal,
  exported: LoadedExport,
  sentAt: number,
  aliases: readonly string[],
  flight: { key: string; owner: string },
): Promise<boolean> {
  const { planId } = exported;
  const rid = ridOf(seal.tokenKey, planId);
  const aliasKeys = aliasKeysOf(state, seal.tokenKey, planId, aliases);
  // Off the readers' path: they get their answer before the export is written out.
  await nextTurn();
  const fits = exported.bytes <= state.maxSnapshotBytes * SNAPSHOT_COMPRESSION;
  return writeSnapshot(
    state,
    seal,
    rid,
    fits ? exported.data() : undefined,
    sentAt,
    aliasKeys,
    flight,
  );
}
