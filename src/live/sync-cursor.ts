/**
 * The `changes` query's cursor (issue 35): where a client is in a plan's change log, opaque to
 * it. Sealed (AES-256-GCM, src/crypto) with a key derived from the operator's key, or with a key
 * of this process when there is none (its cursors then open nowhere else: another instance
 * answers "reload"), and bound by its associated data to the caller's key (a token's digest, or
 * a sign-in grant's key) and the concrete plan id: a cursor copied to another token or plan, or
 * altered, does not open.
 */
import { randomBytes } from 'node:crypto';
import { aeadOpen, aeadSeal, deriveKey } from '../crypto/aead.js';

/** What a cursor holds. */
export interface CursorState {
  /** The knowledge the client holds everything up to. */
  readonly since: number;
  /**
   * Paging within one replica version: the version the earlier pages were cut from, and how
   * many items of it they sent. Absent when the client is at `since` exactly.
   */
  readonly page?: { readonly at: number; readonly sent: number };
  /**
   * A write's cursor (a mutation payload's `writeCursor`): `since` is the knowledge the write landed
   * at, and it speaks for these rows only (`rowId` in write-conflicts.ts): a later write of them
   * guarded by it conflicts only with what changed them after that write. The client holds the
   * rest of the plan at an older knowledge, so `changes` refuses it.
   */
  readonly rows?: readonly string[];
}

/** A cursor that did not open: forged, altered, another token's or plan's, or another key's. */
export class InvalidCursorError extends Error {
  override readonly name = 'InvalidCursorError';
  readonly code = 'GW_ERR_SYNC_CURSOR';
}

export interface CursorSeal {
  seal(state: CursorState, tokenKey: string, planId: string): string;
  /** The state, or `InvalidCursorError`. */
  open(cursor: string, tokenKey: string, planId: string): CursorState;
}

const PREFIX = 'c1.';
/** The tag of a write's cursor. */
const WRITTEN = 'w';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Cursors sealed under `operatorKey` (SEAL_KEY), or under a key of this process without one. */
export function createCursorSeal(operatorKey?: Uint8Array): CursorSeal {
  const key = operatorKey
    ? deriveKey(operatorKey, 'plans-gateway', 'sync-cursor')
    : randomBytes(32);
  const associated = (tokenKey: string, planId: string) => `sync-cursor\n${tokenKey}\n${planId}`;
  return {
    seal(state, tokenKey, planId) {
      const plain = JSON.stringify(
        state.rows
          ? [WRITTEN, state.since, state.rows]
          : state.page
            ? [state.since, state.page.at, state.page.sent]
            : [state.since],
      );
      const { iv, ciphertext, tag } = aeadSeal(key, plain, associated(tokenKey, planId));
      return PREFIX + Buffer.concat([iv, ciphertext, tag]).toString('base64url');
    },
    open(cursor, tokenKey, planId) {
      if (!cursor.startsWith(PREFIX)) throw invalid();
      const bytes = Buffer.from(cursor.slice(PREFIX.length), 'base64url');
      if (bytes.length <= IV_BYTES + TAG_BYTES) throw invalid();
      let plain: Buffer;
      try {
        plain = aeadOpen(
          key,
          {
            iv: bytes.subarray(0, IV_BYTES),
            ciphertext: bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES),
            tag: bytes.subarray(bytes.length - TAG_BYTES),
          },
          associated(tokenKey, planId),
        );
      } catch {
        throw invalid();
      }
      return stateOf(JSON.parse(plain.toString('utf8')) as unknown);
    },
  };
}

// Private: the state a cursor sealed; anything else is a bug of ours, refused like a forgery.
function stateOf(value: unknown): CursorState {
  const counts = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
  if (!Array.isArray(value)) throw invalid();
  if (value[0] === WRITTEN) {
    const [, since, rows] = value as unknown[];
    const ids = (list: unknown): list is string[] =>
      Array.isArray(list) && list.every((id) => typeof id === 'string');
    if (value.length !== 3 || !counts(since) || !ids(rows)) throw invalid();
    return { since, rows };
  }
  if (!value.every(counts)) throw invalid();
  const [since, at, sent] = value as number[];
  if (value.length === 1) return { since: since! };
  if (value.length === 3) return { since: since!, page: { at: at!, sent: sent! } };
  throw invalid();
}

function invalid(): InvalidCursorError {
  return new InvalidCursorError(
    'This cursor was not issued by this gateway for this token and plan (or was altered): start again with `changes(planId)` without `since` after reloading what you show.',
  );
}
