/**
 * The gateway's one AES-256-GCM, under both of its sealers: the operator's (`sealer.ts`: what is
 * kept at rest under `WEBHOOK_KEY`) and the token seals of Redis (`src/cluster/seal.ts`). Each
 * lays the parts out in its own format; this module holds what they must not get wrong twice: a
 * fresh 12-byte IV per value, the associated data that binds a value to where it is kept, the
 * 16-byte tag checked before any plain text is returned, and keys derived with HKDF-SHA256.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
/** The GCM tag's length: every sealed format ends a value with it. */
export const TAG_BYTES = 16;

/** What sealing gives: the parts a format lays out. */
export interface AeadParts {
  readonly iv: Buffer;
  readonly ciphertext: Buffer;
  readonly tag: Buffer;
}

/**
 * `plain` sealed under `key` (32 bytes) with a fresh IV, bound to `associated`: the value opens
 * only with the same associated data (the place it is kept: a row, a Redis key).
 */
export function aeadSeal(
  key: Uint8Array,
  plain: Uint8Array | string,
  associated: string,
): AeadParts {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associated, 'utf8'));
  const ciphertext = Buffer.concat([
    typeof plain === 'string' ? cipher.update(plain, 'utf8') : cipher.update(plain),
    cipher.final(),
  ]);
  return { iv, ciphertext, tag: cipher.getAuthTag() };
}

/**
 * The plain bytes of `parts`, or an `AeadOpenError` when they were sealed under another key, for
 * other associated data, or altered. The error says nothing of the value.
 */
export function aeadOpen(key: Uint8Array, parts: AeadParts, associated: string): Buffer {
  if (parts.iv.length !== IV_BYTES || parts.tag.length !== TAG_BYTES) {
    throw new AeadOpenError('a sealed value whose IV or tag has the wrong length');
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, parts.iv);
    decipher.setAAD(Buffer.from(associated, 'utf8'));
    decipher.setAuthTag(parts.tag);
    return Buffer.concat([decipher.update(parts.ciphertext), decipher.final()]);
  } catch {
    throw new AeadOpenError('a sealed value that does not open with this key and associated data');
  }
}

/** Sealed under another key, for other associated data, altered, or cut short. */
export class AeadOpenError extends Error {
  override readonly name = 'AeadOpenError';
  readonly code = 'GW_ERR_AEAD_OPEN';
}

/**
 * `bytes` of key material for `label` from `secret` (HKDF-SHA256 with `salt`): one secret gives
 * independent keys for sealing, signing and naming.
 */
export function deriveKey(
  secret: string | Uint8Array,
  salt: string,
  label: string,
  bytes = 32,
): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, salt, label, bytes));
}
