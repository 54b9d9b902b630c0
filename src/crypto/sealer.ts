/**
 * Sealing at rest under the operator's key: AES-256-GCM (`aead.ts`) for what is stored beyond a
 * process (webhook tokens, secrets, endpoints' URLs, payloads; sign-in's grants and sessions), keyed
 * digests for what must be looked up without being named (a plan id in an index), and tags for
 * what Redis scripts must read in clear (lease owners). Nothing here knows what it seals: the
 * caller names a `context`, the place the value is stored for ("secret:<endpoint id>", a row's
 * table and id), which is the associated data, so a value copied to another place does not open
 * there.
 *
 * A sealed value is text, so it fits a SQLite column, a Redis string and JSON alike:
 *
 *   s1.<key id>.<iv>.<ciphertext and GCM tag>      (base64url parts)
 *
 * - `s1`: the format. Another format is another prefix; `isSealed` tells sealed text from clear.
 * - key id: 8 characters derived from the key (HKDF), naming it without revealing it. A sealer
 *   holds the current key and any earlier ones: it opens what any of them sealed and seals with
 *   the current one, so keys can be rotated by re-sealing at leisure.
 * - The AES key and the digest key are derived from the operator's key (HKDF-SHA256, distinct
 *   labels): the operator keeps one secret.
 */
import { createHmac } from 'node:crypto';
import { AeadOpenError, aeadOpen, aeadSeal, deriveKey, TAG_BYTES } from './aead.js';
import { createSigner, type Signer } from './signer.js';

const FORMAT = 's1';
const SALT = 'plans-graphql-gateway/at-rest/v1';
const KEY_ID_BYTES = 6;
/** Digests: 128 bits, 22 base64url characters. */
const DIGEST_BYTES = 16;

export interface Sealer {
  /** The current key's id: what `seal` writes. */
  readonly keyId: string;
  seal(plain: string, context: string): string;
  /**
   * The plain text of a value sealed for `context` by a key this sealer holds. Throws a
   * `SealedWithAnotherKeyError` for a key it does not hold, a `SealBrokenError` for anything
   * else (altered, sealed for another context, not sealed at all).
   */
  open(sealed: string, context: string): string;
  /** A keyed digest of `parts` for `purpose`: equal inputs give equal digests, under this key. */
  digest(purpose: string, ...parts: readonly string[]): string;
  /** Tags under the current key, for values kept readable (`signer.ts`). */
  readonly signer: Signer;
}

/** Text in the sealed format (whatever key sealed it). */
export function isSealed(value: string): boolean {
  return value.startsWith(`${FORMAT}.`);
}

/** The id of the key that sealed `value`, or undefined when it is not sealed text. */
export function keyIdOf(value: string): string | undefined {
  return isSealed(value) ? value.split('.')[1] : undefined;
}

/**
 * A sealer under `current` (32 bytes), also opening what `previous` keys sealed. Digests are
 * always the current key's.
 */
export function createSealer(current: Uint8Array, previous: readonly Uint8Array[] = []): Sealer {
  const keys = new Map<string, Buffer>();
  let currentId = '';
  for (const key of [current, ...previous]) {
    if (key.byteLength !== 32) {
      throw new RangeError(`createSealer: a key must be 32 bytes, got ${key.byteLength}`);
    }
    const id = derive(key, 'key id', KEY_ID_BYTES).toString('base64url');
    if (currentId === '') currentId = id;
    if (!keys.has(id)) keys.set(id, derive(key, 'seal', 32));
  }
  const digestKey = derive(current, 'digest', 32);
  const sealKey = keys.get(currentId) as Buffer;

  return {
    keyId: currentId,
    signer: createSigner(derive(current, 'sign', 32)),
    seal(plain, context) {
      const { iv, ciphertext, tag } = aeadSeal(sealKey, plain, context);
      const body = Buffer.concat([ciphertext, tag]);
      return `${FORMAT}.${currentId}.${iv.toString('base64url')}.${body.toString('base64url')}`;
    },
    open(sealed, context) {
      const [format, id, iv, body, extra] = sealed.split('.');
      if (format !== FORMAT || !id || !iv || body === undefined || extra !== undefined) {
        throw new SealBrokenError(`not a sealed value (${describe(sealed)})`);
      }
      const key = keys.get(id);
      if (!key) throw new SealedWithAnotherKeyError(id, currentId);
      const bytes = Buffer.from(body, 'base64url');
      if (bytes.length < TAG_BYTES) throw new SealBrokenError('a sealed value cut short');
      const parts = {
        iv: Buffer.from(iv, 'base64url'),
        ciphertext: bytes.subarray(0, bytes.length - TAG_BYTES),
        tag: bytes.subarray(bytes.length - TAG_BYTES),
      };
      try {
        return aeadOpen(key, parts, context).toString('utf8');
      } catch (error) {
        if (!(error instanceof AeadOpenError)) throw error;
        throw new SealBrokenError(`a sealed value that does not open for ${context.split(':')[0]}`);
      }
    },
    digest(purpose, ...parts) {
      const hmac = createHmac('sha256', digestKey).update(purpose, 'utf8');
      for (const part of parts) hmac.update('\0').update(part, 'utf8');
      return hmac.digest().subarray(0, DIGEST_BYTES).toString('base64url');
    },
  };
}

/** A value sealed under a key the sealer does not hold. */
export class SealedWithAnotherKeyError extends Error {
  override readonly name = 'SealedWithAnotherKeyError';
  readonly code = 'GW_ERR_SEALED_WITH_ANOTHER_KEY';
  constructor(
    readonly sealedWith: string,
    readonly current: string,
  ) {
    super(`sealed under the key with id ${sealedWith}; the key given has id ${current}`);
  }
}

/** A value that is not sealed text, was altered, or was sealed for another context. */
export class SealBrokenError extends Error {
  override readonly name = 'SealBrokenError';
  readonly code = 'GW_ERR_SEAL_BROKEN';
}

function derive(key: Uint8Array, label: string, bytes: number): Buffer {
  return deriveKey(key, SALT, label, bytes);
}

/** Private: what a malformed value looks like, without quoting it (it may be clear data). */
function describe(value: string): string {
  return `${value.length} characters`;
}
