/**
 * Access tokens: the users' personal tokens (full or read-only, never expiring) and the tokens
 * issued through OAuth (2 hours by the injected clock, ended with their grant, replaced on
 * refresh).
 */
import { randomBytes } from 'node:crypto';
import type { Clock, OAuthGrantInfo, Principal, Scope } from '../core/api.js';
import { notAuthorized } from '../core/errors.js';

/** The authorization an OAuth access token was issued under; ending it ends all its tokens. */
export interface GrantLink {
  readonly id: string;
  revoked: boolean;
}

interface OAuthAccessToken extends Principal {
  readonly grant: GrantLink;
  expiresAt: number;
  revoked: boolean;
  /** The access token this one replaced; revoked the first time this one is used. */
  predecessor: string | null;
}

export const OAUTH_TOKEN_LIFETIME_SECONDS = 7200;

export interface IssuedToken {
  accessToken: string;
  expiresIn: number;
  createdAt: number;
}

export interface TokenRegistry {
  addPersonal(token: string, userId: string, scope: Scope): void;
  issueOAuth(
    principal: Principal & { oauth: OAuthGrantInfo },
    grant: GrantLink,
    predecessor: string | null,
  ): IssuedToken;
  /** The principal of a presented token, or throws 401 naming why it is refused. */
  authenticate(token: string | null): Principal;
  /** The grant an OAuth access token belongs to; `null` for any other string. */
  grantOf(token: string): GrantLink | null;
}

export function generateSecret(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

export function createTokenRegistry(clock: Clock): TokenRegistry {
  const personal = new Map<string, Principal>();
  const oauth = new Map<string, OAuthAccessToken>();
  return {
    addPersonal(token, userId, scope) {
      if (personal.has(token))
        throw new Error(`createSandbox: token used twice (${scope} token of user ${userId})`);
      personal.set(token, { userId, scope, kind: 'personal', oauth: null });
    },
    issueOAuth(principal, grant, predecessor) {
      const accessToken = generateSecret();
      const now = clock.now();
      oauth.set(accessToken, {
        ...principal,
        grant,
        kind: 'oauth',
        expiresAt: now + OAUTH_TOKEN_LIFETIME_SECONDS * 1000,
        revoked: false,
        predecessor,
      });
      return {
        accessToken,
        expiresIn: OAUTH_TOKEN_LIFETIME_SECONDS,
        createdAt: Math.floor(now / 1000),
      };
    },
    authenticate(token) {
      if (token === null || token === '') {
        throw notAuthorized(
          'No access token was provided: send Authorization: Bearer <token> or ?access_token=<token>',
        );
      }
      const known = personal.get(token);
      if (known) return known;
      const issued = oauth.get(token);
      if (!issued) throw notAuthorized('The access token is invalid');
      if (issued.revoked || issued.grant.revoked)
        throw notAuthorized('The access token has been revoked');
      if (clock.now() >= issued.expiresAt) throw notAuthorized('The access token has expired');
      // The tokens it replaced end now: its predecessor, and theirs when they were never used.
      let replaced = issued.predecessor;
      issued.predecessor = null;
      while (replaced !== null) {
        const previous = oauth.get(replaced);
        if (!previous) break;
        previous.revoked = true;
        replaced = previous.predecessor;
        previous.predecessor = null;
      }
      return { userId: issued.userId, scope: issued.scope, kind: 'oauth', oauth: issued.oauth };
    },
    grantOf(token) {
      return oauth.get(token)?.grant ?? null;
    },
  };
}
