import { createHash } from 'node:crypto';

/**
 * The key under which per-token state (replicas, the request ledger, metrics) is stored: the
 * SHA-256 hex digest of the access token.
 *
 * Why a digest and not the token: those keys live in long-lived maps, show up in heap dumps,
 * debug logs and metric labels, and a raw token in any of them is a credential leak. Access
 * tokens are long random strings, so their digest cannot be turned back into the token, yet it
 * is stable (the same token always maps to the same key, in every gateway instance) and
 * distinct tokens never share state.
 */
export function tokenKey(token: string): string {
  if (typeof token !== 'string' || token.length === 0) {
    throw new TypeError('tokenKey: token must be a non-empty string');
  }
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
