/**
 * Tags for what must stay readable where it is kept (a lease's owner and end, a ledger entry,
 * read by Redis scripts) but must not be forgeable: HMAC-SHA256 under a key of its own, over the
 * name the text is kept under and the text, 128 bits. A tag made for one name does not verify
 * under another.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** 128 bits of HMAC-SHA256: 22 base64url characters. */
const TAG_BYTES = 16;

export interface Signer {
  /** The tag of `text` kept under `name` (22 base64url characters). */
  sign(text: string, name: string): string;
  /** Whether `tag` is this key's tag of `text` under `name`. */
  verify(text: string, tag: string, name: string): boolean;
}

export function createSigner(key: Uint8Array): Signer {
  const tagOf = (text: string, name: string) =>
    createHmac('sha256', key)
      .update(name, 'utf8')
      .update('\0')
      .update(text, 'utf8')
      .digest()
      .subarray(0, TAG_BYTES);
  return {
    sign: (text, name) => tagOf(text, name).toString('base64url'),
    verify(text, tag, name) {
      const given = Buffer.from(tag, 'base64url');
      return given.length === TAG_BYTES && timingSafeEqual(given, tagOf(text, name));
    },
  };
}
