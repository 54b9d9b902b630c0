/**
 * Where the authorization server keeps what it issued: one table of rows, each sealed by the
 * server (`authorization-server.ts`) before it gets here, so a store holds no client metadata,
 * grant id, code or token in clear. Rows are found by a key that is a keyed digest (codes,
 * tokens) or a random id (clients, pending authorization requests); a token's row also names its
 * family and its grant by keyed digests, so a family or a grant can be revoked in one statement.
 *
 * Everything expires (`expiresAt`, on the server's clock): an expired row reads as absent and is
 * swept. Counts are bounded by the server (it evicts before it adds).
 *
 * Two implementations, like the webhook registry's: SQLite embedded (`sqlite-store.ts`) and Redis
 * when scaled out (`redis-store.ts`).
 */

export type RowKind = 'client' | 'request' | 'code' | 'access' | 'refresh';

export interface StoredRow {
  readonly kind: RowKind;
  readonly key: string;
  /** The row's content, sealed for `oauth:<kind>:<key>`. */
  readonly sealed: string;
  /** Epoch ms (the server's clock) after which the row is gone. */
  readonly expiresAt: number;
  /** When it was written (eviction takes the oldest first). */
  readonly createdAt: number;
  /** The token family (codes and tokens), a keyed digest. */
  readonly family?: string | undefined;
  /** The grant (codes and tokens), a keyed digest. */
  readonly grant?: string | undefined;
  /** A client that has finished a sign-in; a refresh token that was exchanged. */
  readonly used?: boolean | undefined;
}

export interface AuthorizationStore {
  put(row: StoredRow): Promise<void>;
  /** The row, unless absent or expired at `now`. */
  get(kind: RowKind, key: string, now: number): Promise<StoredRow | undefined>;
  /** Reads and deletes the row in one step: of two callers, one gets it (codes, requests). */
  take(kind: RowKind, key: string, now: number): Promise<StoredRow | undefined>;
  /**
   * Marks the row used in one step and answers it as it was before: of two callers, one sees
   * `used: false` (refresh tokens: the other one is a reuse).
   */
  claim(kind: RowKind, key: string, now: number): Promise<StoredRow | undefined>;
  /** Marks the row used and moves its expiry (a client that signed someone in). */
  touch(kind: RowKind, key: string, expiresAt: number, now: number): Promise<void>;
  delete(kind: RowKind, key: string): Promise<boolean>;
  /** Deletes every row of the family; answers how many. */
  deleteFamily(family: string): Promise<number>;
  /** Deletes every row of the grant; answers how many. */
  deleteGrant(grant: string): Promise<number>;
  /** Deletes the family's rows of `kind` but the newest `keep`. */
  trimFamily(family: string, kind: RowKind, keep: number): Promise<void>;
  /** Live rows of `kind`. */
  count(kind: RowKind, now: number): Promise<number>;
  /** Live families of the grant, oldest first. */
  familiesOf(grant: string, now: number): Promise<string[]>;
  /**
   * Deletes the oldest `n` live rows of `kind` (only those never used with `unusedOnly`);
   * answers how many went.
   */
  evict(kind: RowKind, n: number, now: number, unusedOnly?: boolean): Promise<number>;
  /**
   * Deletes expired rows; answers the codes among them that were never exchanged (their grants
   * were made for nothing and must end).
   */
  sweep(now: number): Promise<StoredRow[]>;
  close(): Promise<void>;
}

/** The store cannot answer now (Redis down): the request is refused as `temporarily_unavailable`. */
export class AuthorizationStoreUnavailableError extends Error {
  override readonly name = 'AuthorizationStoreUnavailableError';
  readonly code = 'GW_ERR_AUTHORIZATION_STORE_UNAVAILABLE';
}
