/**
 * What makes Redis safe to share: every value stored or published is sealed with a key derived
 * from the access token it belongs to, and every key or channel name is a digest.
 *
 * - Sealing: AES-256-GCM (`src/crypto/aead.ts`) with a key from HKDF-SHA256 of the token (a
 *   fresh 12-byte IV per message). The additional data is the name the blob is stored or published under, so a blob
 *   moved to another key or channel fails to open. Without the token, a blob is noise; with
 *   another token, it fails authentication.
 * - Names: `redisName(purpose, ...parts)` is a truncated SHA-256 of the parts. Every name that
 *   concerns a token includes its `tokenKey` (itself the token's SHA-256), so without the token
 *   one cannot tell which token or plan a name stands for, nor confirm a guessed plan id.
 * - Compression: bodies over 1 KiB are compressed with brotli before sealing (a plan export
 *   shrinks about tenfold); compression runs on libuv's thread pool, off the event loop.
 * - Signing: what Redis scripts must read in clear (lease owners, ledger entries, alias
 *   pointers) carries a tag instead: HMAC-SHA256 under a second key from HKDF-SHA256 of the
 *   token, over the name and the text, 128 bits (`src/crypto/signer.ts`; `signed`, `verified`). Without the token one
 *   cannot make a tag that verifies; a tag made for one name does not verify under another.
 *
 * Layout of a sealed blob: version (1 byte), flags (1 byte: bit 0 = brotli), IV (12), ciphertext,
 * GCM tag (16).
 */

import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import {
  brotliCompress,
  brotliCompressSync,
  brotliDecompress,
  brotliDecompressSync,
  constants as zlib,
} from 'node:zlib';
import { parseExactJson, stringifyExactJson } from '@plans-gateway/rest-contract';
import { LRUCache } from 'lru-cache';
import { AeadOpenError, aeadOpen, aeadSeal, deriveKey, TAG_BYTES } from '../crypto/aead.js';
import { createSigner, type Signer } from '../crypto/signer.js';

const VERSION = 1;
const BROTLI = 1;
const IV_BYTES = 12;
const HEADER_BYTES = 2 + IV_BYTES;
/** Bodies below this are sealed as they are: compressing them saves nothing worth the time. */
const COMPRESS_FROM_BYTES = 1024;
/**
 * Smaller bodies are (de)compressed on the event loop, in microseconds: a relayed delta is then
 * applied in the same turn its message arrives, before a request that came after it is read.
 */
const SYNC_BELOW_BYTES = 256 * 1024;
/** Brotli quality 4: about zlib's speed at a better ratio, for JSON. */
const BROTLI_QUALITY = 4;
const SALT = 'plans-graphql-gateway/cluster/v1';
/** Largest body a sealed blob may unpack to (a plan export of a million transactions is ~600 MB). */
const MAX_OPENED_BYTES = 1024 * 1024 * 1024;

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

/**
 * A token's sealing key, and its signing key (`sign`, `verify`: the token's tags). Holds no token;
 * anyone holding it can read that token's blobs.
 */
export interface TokenSeal extends Signer {
  readonly tokenKey: string;
  seal(body: Buffer, name: string): Promise<Buffer>;
  /** Throws when the blob was not sealed under `name` with this token's key, or was altered. */
  open(blob: Buffer, name: string): Promise<Buffer>;
}

export function createTokenSeal(token: string, tokenKey: string): TokenSeal {
  const key = deriveKey(token, SALT, 'seal');
  const signer = createSigner(deriveKey(token, SALT, 'sign'));
  return {
    tokenKey,
    sign: signer.sign,
    verify: signer.verify,
    async seal(body, name) {
      const packed = body.length >= COMPRESS_FROM_BYTES;
      const options = {
        params: {
          [zlib.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
          [zlib.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      };
      const plain = !packed
        ? body
        : body.length < SYNC_BELOW_BYTES
          ? brotliCompressSync(body, options)
          : await compress(body, options);
      const { iv, ciphertext, tag } = aeadSeal(key, plain, name);
      const header = Buffer.from([VERSION, packed ? BROTLI : 0]);
      return Buffer.concat([header, iv, ciphertext, tag]);
    },
    async open(blob, name) {
      if (blob.length < HEADER_BYTES + TAG_BYTES || blob[0] !== VERSION) {
        throw new SealError(`not a sealed blob of version ${VERSION} (${blob.length} bytes)`);
      }
      const parts = {
        iv: blob.subarray(2, HEADER_BYTES),
        ciphertext: blob.subarray(HEADER_BYTES, blob.length - TAG_BYTES),
        tag: blob.subarray(blob.length - TAG_BYTES),
      };
      let plain: Buffer;
      try {
        plain = aeadOpen(key, parts, name);
      } catch (error) {
        if (!(error instanceof AeadOpenError)) throw error;
        throw new SealError('the blob does not open with this token under this name');
      }
      if (!((blob[1] ?? 0) & BROTLI)) return plain;
      const options = { maxOutputLength: MAX_OPENED_BYTES };
      return plain.length < SYNC_BELOW_BYTES / 8
        ? brotliDecompressSync(plain, options)
        : await decompress(plain, options);
    },
  };
}

/** A blob that cannot be opened: another token's, altered, or not sealed at all. */
export class SealError extends Error {
  override readonly name = 'SealError';
  readonly code = 'GW_ERR_SEAL';
}

/** Seals JSON. */
export function sealJson(seal: TokenSeal, value: unknown, name: string): Promise<Buffer> {
  return seal.seal(Buffer.from(stringifyExactJson(value), 'utf8'), name);
}

/** `text` and its tag under `name`, as stored: `<text> <tag>`. */
export function signed(seal: TokenSeal, text: string, name: string): string {
  return `${text} ${seal.sign(text, name)}`;
}

/** The text of a value `signed` under `name` with this token, or undefined (forged, altered). */
export function verified(seal: TokenSeal, value: string, name: string): string | undefined {
  const space = value.lastIndexOf(' ');
  if (space <= 0) return undefined;
  const text = value.slice(0, space);
  return seal.verify(text, value.slice(space + 1), name) ? text : undefined;
}

/** Opens JSON sealed by `sealJson`; the caller checks the shape. */
export async function openJson(seal: TokenSeal, blob: Buffer, name: string): Promise<unknown> {
  return parseExactJson((await seal.open(blob, name)).toString('utf8'));
}

/**
 * A Redis key or channel name (without the prefix): 22 base64url characters of SHA-256 over the
 * purpose and the parts. Include the `tokenKey` in the parts of anything that concerns a token.
 */
export function redisName(purpose: string, ...parts: readonly string[]): string {
  const hash = createHash('sha256').update(purpose);
  for (const part of parts) hash.update('\0').update(part);
  return hash.digest('base64url').slice(0, 22);
}

/**
 * The seals of the tokens this instance has seen lately, by token key. Relayed messages and
 * stored snapshots of a token can only be opened once a request brought its token here, which is
 * also the only time this instance has a replica of it to update. The token itself is kept
 * beside its seal (in memory only, as every subscription channel keeps it) so that a replica
 * that fell behind the cluster can sync itself.
 */
export class TokenSeals {
  private readonly _entries: LRUCache<string, { seal: TokenSeal; token: string }>;

  /** @param max tokens remembered; the least recently used are forgotten first. */
  constructor(max = 100_000) {
    this._entries = new LRUCache({ max });
  }

  remember(token: string, tokenKey: string): TokenSeal {
    let entry = this._entries.get(tokenKey);
    if (!entry || entry.token !== token) {
      entry = { seal: createTokenSeal(token, tokenKey), token };
      this._entries.set(tokenKey, entry);
    }
    return entry.seal;
  }

  get(tokenKey: string): TokenSeal | undefined {
    return this._entries.get(tokenKey)?.seal;
  }

  tokenOf(tokenKey: string): string | undefined {
    return this._entries.peek(tokenKey)?.token;
  }
}
