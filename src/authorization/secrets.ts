/**
 * What the authorization server hands out and how it recognizes it: codes, access tokens and
 * refresh tokens are random (256 bits), opaque, and carry a fixed prefix. The prefix lets the
 * admission path tell a gateway token from an upstream one without a lookup (so a gateway token
 * is never sent upstream, whatever happens next), and lets secret scanners find a leaked one.
 * PKCE's S256 check (RFC 7636, 4.6) is here too.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Every credential the gateway issues starts with this; nothing the upstream issues does. */
export const GATEWAY_TOKEN_PREFIX = 'pgw_';
export const ACCESS_TOKEN_PREFIX = 'pgw_at_';
export const REFRESH_TOKEN_PREFIX = 'pgw_rt_';
const CODE_PREFIX = 'pgw_ac_';

export type IssuedKind = 'code' | 'access' | 'refresh';

const PREFIX: Record<IssuedKind, string> = {
  code: CODE_PREFIX,
  access: ACCESS_TOKEN_PREFIX,
  refresh: REFRESH_TOKEN_PREFIX,
};

/** A fresh credential of `kind`: its prefix and 32 random bytes (base64url). */
export function issue(kind: IssuedKind): string {
  return `${PREFIX[kind]}${randomBytes(32).toString('base64url')}`;
}

/** Whether `token` was issued by a gateway (of any kind): it must never be sent upstream. */
export function isGatewayToken(token: string): boolean {
  return token.startsWith(GATEWAY_TOKEN_PREFIX);
}

/** Whether `value` has the shape of an issued credential of `kind` (before any lookup). */
export function hasShape(kind: IssuedKind, value: string): boolean {
  return (
    value.startsWith(PREFIX[kind]) && /^[A-Za-z0-9_-]{43}$/.test(value.slice(PREFIX[kind].length))
  );
}

/** A random identifier (client ids, request ids): 128 bits, base64url. */
export function randomId(): string {
  return randomBytes(16).toString('base64url');
}

/** RFC 7636's verifier: 43 to 128 characters of the unreserved set. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
/** An S256 challenge: the base64url SHA-256 of a verifier, 43 characters. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function isChallenge(value: string): boolean {
  return CHALLENGE.test(value);
}

/** Whether `verifier` is well formed and its S256 digest is `challenge`, compared in constant time. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  const digest = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  return digest.length === expected.length && timingSafeEqual(digest, expected);
}
