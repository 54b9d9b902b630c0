/**
 * Where sign-in keeps what outlives a request: grants (the upstream's tokens), sessions (a
 * browser's cookie pointing at a grant) and sign-ins in progress (a `state` and where it goes
 * back to). One shape for the two backends, SQLite embedded (`sqlite-records.ts`) and the
 * cluster's Redis (`redis-records.ts`): text values under a kind and an id, each with its own
 * end, and a bound per kind (a flood pushes the oldest out, the store never grows past it).
 *
 * The backends keep what `sealed-records.ts` hands them: ids that are keyed digests (a session's
 * cookie value, a `state`, a grant id never appear), values sealed for their kind and id.
 */

export const RECORD_KINDS = ['grant', 'session', 'sign-in'] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

export interface SignInRecords {
  /** Where they are kept, for the operator's messages (a path, "redis"). */
  readonly where: string;
  /** The value, unless missing or past its end (`now`, epoch ms). */
  get(kind: RecordKind, id: string, now: number): Promise<string | undefined>;
  /**
   * Keeps `value` until `expiresAt` (by the caller's clock, `now`); past `max` records of the
   * kind, the ones ending first go.
   */
  put(
    kind: RecordKind,
    id: string,
    value: string,
    { expiresAt, now, max }: { expiresAt: number; now: number; max: number },
  ): Promise<void>;
  /** The value, removed in the same step (a `state` is good once), unless missing or ended. */
  take(kind: RecordKind, id: string, now: number): Promise<string | undefined>;
  delete(kind: RecordKind, id: string): Promise<void>;
  /** How many records of the kind are kept (ended ones not yet swept may count). */
  count(kind: RecordKind): Promise<number>;
  close(): Promise<void>;
}

/** The store could not be reached (Redis away): the caller answers "try again", keeps nothing. */
export class SignInStoreUnavailableError extends Error {
  override readonly name = 'SignInStoreUnavailableError';
  readonly code = 'GW_ERR_SIGN_IN_STORE_UNAVAILABLE';
}
