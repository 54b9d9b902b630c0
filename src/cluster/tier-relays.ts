/**
 * Relays and the delta log (`r:<rid>`, `g:<rid>`): the instance whose request a delta answered
 * publishes it and appends it to the log (one script, one round trip) before its readers get
 * their answer; a write through an instance is published on the same channel (marked, not
 * logged). Each instance follows the channels of the replicas it holds: it merges a delta that
 * covers its knowledge, catches up from the log after a gap, else syncs once alone; it applies
 * another instance's write unless its knowledge shows the replica has it already.
 */
import { stringifyExactJson } from '@plans-gateway/rest-contract';
import type { SavedEntities } from '../replica/types.js';
import { luaScript, UNAVAILABLE } from './redis.js';
import { OWNED } from './redis-leases.js';
import { sealJson, type TokenSeal } from './seal.js';
import { aliasKeysOf, aliasPointer } from './tier-aliases.js';
import { type DeltaRelay, openDelta, openWrite, relayedDelta } from './tier-messages.js';
import { compactSoon } from './tier-snapshot.js';
import { keyOf, remember, ridOf, type TierState } from './tier-state.js';

/** Appends a delta, publishes it, releases the flight: [log size, snapshot knowledge or false]. */
const PUBLISH_DELTA = luaScript(`${OWNED}
redis.call('PUBLISH', KEYS[1], ARGV[1] .. ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -(tonumber(ARGV[5]) + 1))
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
if owned(redis.call('GET', KEYS[4]), ARGV[6]) then redis.call('DEL', KEYS[4]) end
if KEYS[5] then redis.call('SET', KEYS[5], ARGV[7], 'PX', ARGV[4]) end
return { redis.call('ZCARD', KEYS[2]), redis.call('HGET', KEYS[3], 'k') }
`);

/** First byte of a relayed write after the instance id (a sealed delta starts with its version, 1). */
const WRITE_MARK = 0x77;

/** Ends the relay subscriptions of replicas this instance no longer holds. */
export function unfollowUnheld(state: TierState): void {
  for (const [rid, { tokenKey, planId, stop }] of state.followed) {
    if (state.store().peek(tokenKey, planId) === undefined) {
      stop();
      state.followed.delete(rid);
      state.latest.delete(rid);
    }
  }
}

/** Subscribes to another instance's relays of a replica held here (once per replica). */
export function follow(state: TierState, tokenKey: string, planId: string): void {
  const rid = ridOf(tokenKey, planId);
  if (state.followed.has(rid) || !state.seals.get(tokenKey)) return;
  const { instanceId } = state;
  const stop = state.link.subscribe(keyOf(state, 'r', rid), (message) => {
    if (message.subarray(0, instanceId.length).equals(instanceId)) return;
    const body = message.subarray(instanceId.length);
    state.queues.enqueue(rid, async () => {
      const seal = state.seals.get(tokenKey);
      if (!seal) return;
      if (body[0] === WRITE_MARK) {
        applyWrite(state, tokenKey, planId, await openWrite(seal, rid, body.subarray(1)));
        return;
      }
      const relay = await openDelta(seal, rid, body);
      await applyDelta(state, seal, tokenKey, planId, rid, relay);
    });
  });
  state.followed.set(rid, { tokenKey, planId, stop });
}

/** A relayed delta into the store; after a gap, the log's deltas, else a delta of its own. */
async function applyDelta(
  state: TierState,
  seal: TokenSeal,
  tokenKey: string,
  planId: string,
  rid: string,
  relay: DeltaRelay,
): Promise<void> {
  const outcome = state.store().applyRelayed(tokenKey, relayedDelta(relay));
  if (outcome !== 'gap') {
    state.stats.relaysApplied += 1;
    remember(state, rid, relay);
    return;
  }
  state.stats.relayGaps += 1;
  if (state.store().peek(tokenKey, planId) === undefined) return;
  await catchUp(state, seal, tokenKey, planId, rid);
  const held = state.store().peek(tokenKey, planId);
  if (held && held.snapshot.serverKnowledge < relay.to) resyncAlone(state, tokenKey, planId, rid);
}

/** Publishes a write's entities on the replica's channel (marked, so they are not a delta). */
export async function relayWrite(
  state: TierState,
  tokenKey: string,
  planId: string,
  saved: SavedEntities,
): Promise<void> {
  const seal = state.seals.get(tokenKey);
  if (saved.serverKnowledge === undefined || !seal || !state.link.available) return;
  const rid = ridOf(tokenKey, planId);
  const blob = await sealJson(seal, saved, `write:${rid}`);
  const message = Buffer.concat([state.instanceId, Buffer.of(WRITE_MARK), blob]);
  if (await state.link.publish(keyOf(state, 'r', rid), message)) state.stats.writesRelayed += 1;
}

/**
 * Another instance's write into the replica held here, unless its knowledge shows the replica
 * already has it (a delta brought it, or the message was sent again).
 */
function applyWrite(
  state: TierState,
  tokenKey: string,
  planId: string,
  saved: SavedEntities & { readonly serverKnowledge: number },
): void {
  const held = state.store().peek(tokenKey, planId);
  if (!held || held.snapshot.serverKnowledge >= saved.serverKnowledge) return;
  state.store().applySaved(tokenKey, planId, saved);
  state.stats.writesApplied += 1;
}

/** The logged deltas after the replica's knowledge, applied in order. */
async function catchUp(
  state: TierState,
  seal: TokenSeal,
  tokenKey: string,
  planId: string,
  rid: string,
): Promise<void> {
  const held = state.store().peek(tokenKey, planId);
  if (!held) return;
  const blobs = await state.link.run((redis) =>
    redis.zrangebyscoreBuffer(keyOf(state, 'g', rid), `(${held.snapshot.serverKnowledge}`, '+inf'),
  );
  if (blobs === UNAVAILABLE) return;
  for (const blob of blobs) {
    const relay = await openDelta(seal, rid, blob).catch((error: unknown) => {
      state.onError(error);
      return undefined;
    });
    if (!relay) continue;
    const outcome = state.store().applyRelayed(tokenKey, relayedDelta(relay));
    if (outcome !== 'gap') remember(state, rid, relay);
  }
}

/**
 * The replica fell behind and the log cannot bring it up (Redis was away): one delta of its own,
 * relayed to the others like any.
 */
function resyncAlone(state: TierState, tokenKey: string, planId: string, rid: string): void {
  const token = state.seals.tokenOf(tokenKey);
  if (!token || state.resyncing.has(rid)) return;
  state.resyncing.add(rid);
  state
    .store()
    .read({ token, tokenKey, planId, freshness: { maxAgeMs: 0 } })
    .catch(() => {})
    .finally(() => state.resyncing.delete(rid));
}

export async function publishDelta(
  state: TierState,
  seal: TokenSeal,
  relay: Omit<DeltaRelay, 'bytes'>,
  flight: { key: string; owner: string },
): Promise<boolean> {
  const { tokenKey } = seal;
  const planId = relay.data.plan.id;
  const rid = ridOf(tokenKey, planId);
  const bodyText = stringifyExactJson(relay);
  const blob = await seal.seal(Buffer.from(bodyText, 'utf8'), `delta:${rid}`);
  remember(state, rid, { ...relay, bytes: bodyText.length });
  const aliasKeys = aliasKeysOf(state, tokenKey, planId, relay.aliases);
  const reply = await state.link.script(
    PUBLISH_DELTA,
    [
      keyOf(state, 'r', rid),
      keyOf(state, 'g', rid),
      keyOf(state, 's', rid),
      flight.key,
      ...aliasKeys.slice(0, 1),
    ],
    [
      state.instanceId,
      relay.to,
      blob,
      state.ttlMs,
      state.maxLogEntries,
      flight.owner,
      aliasPointer(seal, aliasKeys, rid, relay.sentAt),
    ],
  );
  if (reply === UNAVAILABLE) return false;
  if (!Array.isArray(reply)) return true;
  state.stats.relaysPublished += 1;
  const logged = Number(reply[0]);
  const snapshotKnowledge = reply[1] === null ? undefined : Number(reply[1]);
  if (snapshotKnowledge === undefined || logged >= state.compactAfter) {
    compactSoon(state, seal, tokenKey, planId, rid);
  }
  return true;
}
