/**
 * Alias pointers (`a:<aid>`): where a requested alias (`last-used`, `default`) last resolved, and
 * when, as `<rid> <time> <tag>`, signed for the alias key so that one token's pointer can only be
 * read back for that token and alias, never moved to another replica.
 */
import { redisName, signed, type TokenSeal, verified } from './seal.js';
import { keyOf, type TierState } from './tier-state.js';

/** The key of the pointer of `alias` (a requested id) for a token. */
export function aliasKeyOf(state: TierState, tokenKey: string, alias: string): string {
  return keyOf(state, 'a', redisName('alias', tokenKey, alias));
}

/** The pointer keys of the aliases that resolved to `planId` (the id itself is none). */
export function aliasKeysOf(
  state: TierState,
  tokenKey: string,
  planId: string,
  aliases: readonly string[],
): string[] {
  return aliases
    .filter((alias) => alias !== planId)
    .map((alias) => aliasKeyOf(state, tokenKey, alias));
}

/** Where an alias resolved, and when: `<rid> <time> <tag>`, signed for the (first) alias key. */
export function aliasPointer(
  seal: TokenSeal,
  aliasKeys: readonly string[],
  rid: string,
  at: number,
): string {
  const [aliasKey] = aliasKeys;
  return aliasKey === undefined ? '' : signed(seal, `${rid} ${at}`, aliasKey);
}

/**
 * The time an alias pointer says it was resolved (never later than now), as `openSnapshot`
 * takes it; undefined when the pointer is not this token's for that alias and replica.
 */
export function aliasTime(
  state: TierState,
  seal: TokenSeal,
  aliasKey: string,
  rid: string,
  pointer: Buffer,
): Buffer | undefined {
  const [pointed, at] = verified(seal, pointer.toString('utf8'), aliasKey)?.split(' ') ?? [];
  const time = Number(at);
  if (pointed !== rid || !Number.isSafeInteger(time)) return undefined;
  return Buffer.from(String(Math.min(time, state.now())));
}
