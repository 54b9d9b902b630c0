/**
 * The embedded store of the authorization server: one SQLite table (better-sqlite3, WAL), in
 * the file the operator names or in memory. Each method is one statement or one transaction, so
 * `take` and `claim` are atomic within the process that owns the file (several instances share
 * the Redis store instead). `secure_delete` overwrites what is deleted, so revoked rows do not
 * linger in free pages.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { AuthorizationStore, RowKind, StoredRow } from './store.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS oauth_rows (
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  sealed TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  family TEXT,
  grant_ref TEXT,
  used INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (kind, key)
);
CREATE INDEX IF NOT EXISTS oauth_rows_by_family ON oauth_rows (family);
CREATE INDEX IF NOT EXISTS oauth_rows_by_grant ON oauth_rows (grant_ref);
CREATE INDEX IF NOT EXISTS oauth_rows_by_age ON oauth_rows (kind, created_at);
CREATE INDEX IF NOT EXISTS oauth_rows_by_expiry ON oauth_rows (expires_at);
`;

interface Row {
  kind: RowKind;
  key: string;
  sealed: string;
  expires_at: number;
  created_at: number;
  family: string | null;
  grant_ref: string | null;
  used: number;
}

/** A store in the SQLite file at `path` (created with its folder), or in memory for `:memory:`. */
export function createSqliteAuthorizationStore(path: string): AuthorizationStore {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('secure_delete = ON');
  db.exec(SCHEMA);

  const insert = db.prepare(
    `INSERT OR REPLACE INTO oauth_rows (kind, key, sealed, expires_at, created_at, family, grant_ref, used)
     VALUES (@kind, @key, @sealed, @expiresAt, @createdAt, @family, @grant, @used)`,
  );
  const select = db.prepare<[RowKind, string, number], Row>(
    'SELECT * FROM oauth_rows WHERE kind = ? AND key = ? AND expires_at > ?',
  );
  const remove = db.prepare<[RowKind, string]>('DELETE FROM oauth_rows WHERE kind = ? AND key = ?');
  const markUsed = db.prepare<[RowKind, string]>(
    'UPDATE oauth_rows SET used = 1 WHERE kind = ? AND key = ?',
  );
  const touchRow = db.prepare<[number, RowKind, string]>(
    'UPDATE oauth_rows SET used = 1, expires_at = ? WHERE kind = ? AND key = ?',
  );
  const byFamily = db.prepare<[string]>('DELETE FROM oauth_rows WHERE family = ?');
  const byGrant = db.prepare<[string]>('DELETE FROM oauth_rows WHERE grant_ref = ?');
  const trim = db.prepare<[string, RowKind, string, RowKind, number]>(
    `DELETE FROM oauth_rows WHERE family = ? AND kind = ? AND key NOT IN (
       SELECT key FROM oauth_rows WHERE family = ? AND kind = ? ORDER BY created_at DESC, rowid DESC LIMIT ?)`,
  );
  const counted = db.prepare<[RowKind, number], { n: number }>(
    'SELECT COUNT(*) AS n FROM oauth_rows WHERE kind = ? AND expires_at > ?',
  );
  const families = db.prepare<[string, number], { family: string }>(
    `SELECT family FROM oauth_rows WHERE grant_ref = ? AND kind = 'refresh' AND expires_at > ?
     GROUP BY family ORDER BY MIN(created_at), MIN(rowid)`,
  );
  const oldest = db.prepare<[RowKind, number, number, number], { key: string }>(
    `SELECT key FROM oauth_rows WHERE kind = ? AND expires_at > ? AND (used = 0 OR ? = 0)
     ORDER BY created_at, rowid LIMIT ?`,
  );
  const expired = db.prepare<[number]>('DELETE FROM oauth_rows WHERE expires_at <= ?');
  const unexchanged = db.prepare<[number], Row>(
    "SELECT * FROM oauth_rows WHERE kind = 'code' AND used = 0 AND expires_at <= ?",
  );
  const sweep = db.transaction((now: number) => {
    const codes = unexchanged.all(now);
    expired.run(now);
    return codes;
  });

  const take = db.transaction((kind: RowKind, key: string, now: number) => {
    const row = select.get(kind, key, now);
    remove.run(kind, key);
    return row;
  });
  const claim = db.transaction((kind: RowKind, key: string, now: number) => {
    const row = select.get(kind, key, now);
    if (row) markUsed.run(kind, key);
    return row;
  });
  const evict = db.transaction((kind: RowKind, n: number, now: number, unusedOnly: boolean) => {
    const keys = oldest.all(kind, now, unusedOnly ? 1 : 0, n);
    for (const { key } of keys) remove.run(kind, key);
    return keys.length;
  });

  return {
    async put(row) {
      insert.run({
        kind: row.kind,
        key: row.key,
        sealed: row.sealed,
        expiresAt: row.expiresAt,
        createdAt: row.createdAt,
        family: row.family ?? null,
        grant: row.grant ?? null,
        used: row.used ? 1 : 0,
      });
    },
    async get(kind, key, now) {
      return rowOf(select.get(kind, key, now));
    },
    async take(kind, key, now) {
      return rowOf(take(kind, key, now));
    },
    async claim(kind, key, now) {
      return rowOf(claim(kind, key, now));
    },
    async touch(kind, key, expiresAt) {
      touchRow.run(expiresAt, kind, key);
    },
    async delete(kind, key) {
      return remove.run(kind, key).changes > 0;
    },
    async deleteFamily(family) {
      return byFamily.run(family).changes;
    },
    async deleteGrant(grant) {
      return byGrant.run(grant).changes;
    },
    async trimFamily(family, kind, keep) {
      trim.run(family, kind, family, kind, keep);
    },
    async count(kind, now) {
      return counted.get(kind, now)?.n ?? 0;
    },
    async familiesOf(grant, now) {
      return families.all(grant, now).map((row) => row.family);
    },
    async evict(kind, n, now, unusedOnly = false) {
      return evict(kind, n, now, unusedOnly);
    },
    async sweep(now) {
      return sweep(now).flatMap((row) => rowOf(row) ?? []);
    },
    async close() {
      db.close();
    },
  };
}

function rowOf(row: Row | undefined): StoredRow | undefined {
  if (!row) return undefined;
  return {
    kind: row.kind,
    key: row.key,
    sealed: row.sealed,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    family: row.family ?? undefined,
    grant: row.grant_ref ?? undefined,
    used: row.used === 1,
  };
}
