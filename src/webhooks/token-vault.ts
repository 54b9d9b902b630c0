/**
 * Tokens at rest: the gateway keeps polling for an endpoint after the request that registered
 * it has ended, so it keeps the token, sealed with AES-256-GCM under the operator's key. The
 * token's digest is the additional data, so a sealed token copied onto another row does not open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface TokenVault {
  seal(token: string, tokenKey: string): string;
  /** Throws when the key is not the one that sealed it, or the text was altered. */
  open(sealed: string, tokenKey: string): string;
}

const VERSION = 'v1';

export function createTokenVault(key: Uint8Array): TokenVault {
  if (key.byteLength !== 32) {
    throw new RangeError(`createTokenVault: the key must be 32 bytes, got ${key.byteLength}`);
  }
  return {
    seal(token, tokenKey) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(tokenKey, 'utf8'));
      const body = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
      return [VERSION, iv, cipher.getAuthTag(), body]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },
    open(sealed, tokenKey) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== VERSION || !iv || !tag || body === undefined) {
        throw new Error('A sealed token in an unknown format');
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(tokenKey, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([
        decipher.update(Buffer.from(body, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    },
  };
}
