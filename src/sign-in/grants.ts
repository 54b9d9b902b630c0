/**
 * Grants: one person's consent to the upstream, held by the gateway (`GrantBook` of `ports.ts`).
 * A grant keeps the upstream's access and refresh tokens sealed in the vault; they never leave
 * the gateway. Its callers know it by a random id (a session's record, a gateway token's) and
 * are keyed by `grantKey(id)`, a digest of the id, never of the upstream token of the hour: a
 * refresh changes the token under the same key, so replicas, subscriptions and budgets stay.
 *
 * Refresh: ahead of expiry (`refreshAheadMs`) and when the upstream refuses the token (a 401),
 * once per grant in the process (a single flight) and in the cluster (`refresh-lock.ts`); the new
 * pair is stored before it is used, since the upstream revokes the old token when the new one is
 * first used. A refresh the upstream refuses for good (`invalid_grant`: revoked, spent) ends the
 * grant everywhere; one that did not answer leaves the grant as it is and fails the operation
 * (UPSTREAM_UNAVAILABLE) once the old token has expired.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { GraphQLError } from 'graphql';
import { LRUCache } from 'lru-cache';
import { gatewayError } from '../errors/codes.js';
import type { Credentials } from '../operation/credentials.js';
import type { OAuthClient, TokenPair } from '../upstream/oauth.js';
import type { Grant, GrantBook } from './ports.js';
import type { RefreshLock } from './refresh-lock.js';
import type { Vault } from './vault.js';

/** Where a browser signs in again, in `extensions.signIn` of an UNAUTHENTICATED error. */
export const SIGN_IN_PATH = '/auth/login';

/** What the vault holds of a grant. */
interface GrantState {
  readonly userId: string;
  readonly accessToken: string;
  readonly refreshToken: string;
  /** When the access token expires (epoch ms). */
  readonly tokenExpiresAt: number;
  /** Counts refreshes: a reader that sees it change knows someone else refreshed. */
  readonly version: number;
  /** When the record goes, unless refreshed or used before (epoch ms). */
  readonly expiresAt: number;
}

/** The grant is gone (ended, revoked upstream, expired): its caller must sign in again. */
export class GrantEndedError extends Error {
  override readonly name = 'GrantEndedError';
  readonly code = 'GW_ERR_GRANT_ENDED';
}

export interface Grants extends GrantBook {
  /** A new grant from a code exchange's pair, its user found with `/user`. */
  create(pair: TokenPair): Promise<Grant>;
  /**
   * Calls `listener` with a grant's new credentials after each refresh (on any instance) of a
   * grant this instance has handed out; returns the unsubscribe.
   */
  onRenewed(listener: (credentials: Credentials) => void): () => void;
  /** Whether `tokenKey` is a grant's key this instance has handed out. */
  isGrantKey(tokenKey: string): boolean;
  /**
   * The upstream refused the grant's token (a 401): refreshed, unless another instance already
   * did; the grant ends when the refresh is refused. Resolves true when the key works again.
   */
  refused(tokenKey: string): Promise<boolean>;
  close(): void;
}

export interface GrantsOptions {
  vault: Vault;
  oauth: OAuthClient;
  lock: RefreshLock;
  /** The upstream's `/user` id for a token (one call). */
  userOf: (credentials: Credentials) => Promise<string>;
  now: () => number;
  refreshAheadMs: number;
  /** A grant unused and unrefreshed this long is forgotten. */
  ttlMs: number;
  /** Told of each refresh and each refused one, without any token (the operator's log). */
  onEvent?: (event: { kind: 'refreshed' | 'refresh-refused' | 'ended'; error?: string }) => void;
}

/** The key a grant's callers are kept under: 64 hex digits, like a token's digest, of the id. */
export function grantKey(grantId: string): string {
  return createHash('sha256').update(`plans-gateway grant\0${grantId}`, 'utf8').digest('hex');
}

/** The refusal of a caller whose grant is gone, with where to sign in again. */
export function signInAgain(message: string): GraphQLError {
  return gatewayError(message, 'UNAUTHENTICATED', {
    extensions: { signIn: { url: SIGN_IN_PATH }, http: { status: 401 } },
  });
}

export function createGrants(options: GrantsOptions): Grants {
  const { vault, oauth, lock, now, refreshAheadMs, ttlMs } = options;
  /** Grant ids by key, for the keys this instance handed out (a 401 names only the key). */
  const ids = new LRUCache<string, string>({ max: 100_000 });
  /** The access token last handed out under each key: a 401 of an older one needs no refresh. */
  const handed = new LRUCache<string, string>({ max: 100_000 });
  const refreshing = new Map<string, Promise<GrantState>>();
  const listeners = new Set<(grantId: string) => void>();
  const renewals = new Set<(credentials: Credentials) => void>();
  const stopNews = lock.onNews((news, key) => {
    const id = ids.get(key);
    if (id === undefined) return;
    if (news === 'ended') {
      ids.delete(key);
      for (const listener of listeners) listener(id);
      return;
    }
    // Refreshed (here or elsewhere): what polls under the key polls with the new token.
    void read(id).then(
      (state) => {
        if (!state) return;
        handed.set(key, state.accessToken);
        for (const renewal of renewals) renewal({ token: state.accessToken, tokenKey: key });
      },
      () => {},
    );
  });

  const read = (grantId: string) => vault.read<GrantState>('grant', grantId);

  async function end(grantId: string): Promise<void> {
    await vault.remove('grant', grantId);
    const key = grantKey(grantId);
    ids.set(key, grantId);
    lock.announce('ended', key);
  }

  /** One refresh of the grant seen at `seen.version`, or the state someone else made since. */
  function refresh(grantId: string, seen: GrantState): Promise<GrantState> {
    let running = refreshing.get(grantId);
    if (!running) {
      running = refreshOnce(grantId, seen).finally(() => refreshing.delete(grantId));
      refreshing.set(grantId, running);
    }
    return running;
  }

  async function refreshOnce(grantId: string, seen: GrantState): Promise<GrantState> {
    const key = grantKey(grantId);
    for (let turn = 0; turn < 30; turn += 1) {
      const outcome = await lock.exclusive(key, async () => {
        const current = await read(grantId);
        if (!current) throw new GrantEndedError('This sign-in has ended: sign in again.');
        // Refreshed elsewhere meanwhile: its pair is the one to use.
        if (current.version !== seen.version) return current;
        const pair = await oauth.refresh(current.refreshToken);
        if ('error' in pair) {
          options.onEvent?.({ kind: 'refresh-refused', error: pair.error });
          if (pair.final) {
            await end(grantId);
            throw new GrantEndedError(
              'The upstream ended this sign-in (its refresh was refused): sign in again.',
            );
          }
          if (current.tokenExpiresAt > now()) return current;
          throw gatewayError(
            'The upstream did not renew this sign-in in time; try again shortly.',
            'UPSTREAM_UNAVAILABLE',
          );
        }
        const next: GrantState = {
          userId: current.userId,
          accessToken: pair.accessToken,
          refreshToken: pair.refreshToken,
          tokenExpiresAt: pair.expiresAt,
          version: current.version + 1,
          expiresAt: now() + ttlMs,
        };
        // Stored before anyone uses it: its first use revokes the pair it replaces.
        await vault.write('grant', grantId, next);
        options.onEvent?.({ kind: 'refreshed' });
        lock.announce('refreshed', key);
        return next;
      });
      if (outcome.ran) return outcome.value;
      const current = await read(grantId);
      if (!current) throw new GrantEndedError('This sign-in has ended: sign in again.');
      if (current.version !== seen.version) return current;
    }
    throw gatewayError(
      'Another instance is renewing this sign-in and has not finished; try again shortly.',
      'UPSTREAM_UNAVAILABLE',
    );
  }

  const dueForRefresh = (state: GrantState) => state.tokenExpiresAt - refreshAheadMs <= now();

  return {
    async create(pair) {
      const id = randomBytes(32).toString('base64url');
      const key = grantKey(id);
      const userId = await options.userOf({ token: pair.accessToken, tokenKey: key });
      const state: GrantState = {
        userId,
        accessToken: pair.accessToken,
        refreshToken: pair.refreshToken,
        tokenExpiresAt: pair.expiresAt,
        version: 0,
        expiresAt: now() + ttlMs,
      };
      await vault.write('grant', id, state);
      ids.set(key, id);
      return { id, userId };
    },
    async credentials(grantId) {
      let state = await read(grantId);
      if (!state) throw new GrantEndedError('This sign-in has ended: sign in again.');
      if (dueForRefresh(state)) state = await refresh(grantId, state);
      const key = grantKey(grantId);
      ids.set(key, grantId);
      handed.set(key, state.accessToken);
      return { token: state.accessToken, tokenKey: key };
    },
    async get(grantId) {
      const state = await read(grantId);
      return state ? { id: grantId, userId: state.userId } : undefined;
    },
    end,
    onEnded(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onRenewed(listener) {
      renewals.add(listener);
      return () => renewals.delete(listener);
    },
    isGrantKey: (tokenKey) => ids.has(tokenKey),
    async refused(tokenKey) {
      const grantId = ids.get(tokenKey);
      if (grantId === undefined) return false;
      const state = await read(grantId);
      if (!state) return false;
      // Refreshed elsewhere since this instance handed the token out: the new one works.
      if (state.accessToken !== handed.get(tokenKey)) return true;
      try {
        await refresh(grantId, state);
        return true;
      } catch {
        return false;
      }
    },
    close: stopNews,
  };
}
