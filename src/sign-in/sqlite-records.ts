/**
 * Sign-in's records in one SQLite file (better-sqlite3, WAL), or in memory (`:memory:`, the
 * embedded sandbox's demo without an operator key). One table; ended rows are swept when a kind
 * is written past its bound, and never answered. `secure_delete` overwrites what is removed.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { RecordKind, SignInRecords } from './records.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS records (
  kind TEXT NOT NULL,
  id TEXT NOT NULL,
  value TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (kind, id)
);
CREATE INDEX IF NOT EXISTS records_by_end ON records (kind, expires_at);
`;

export function createSqliteSignInRecords(path: string): SignInRecords {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  if (path !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('secure_delete = ON');
  db.exec(SCHEMA);
  const select = db.prepare<[string, string, number], { value: string }>(
    'SELECT value FROM records WHERE kind = ? AND id = ? AND expires_at > ?',
  );
  const upsert = db.prepare(
    'INSERT INTO records (kind, id, value, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (kind, id) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at',
  );
  const remove = db.prepare('DELETE FROM records WHERE kind = ? AND id = ?');
  const counted = db.prepare<[string], { n: number }>(
    'SELECT count(*) AS n FROM records WHERE kind = ?',
  );
  const trim = db.prepare(
    'DELETE FROM records WHERE kind = ? AND id IN (SELECT id FROM records WHERE kind = ? ORDER BY expires_at LIMIT ?)',
  );
  const put = db.transaction(
    (kind: string, id: string, value: string, expiresAt: number, max: number) => {
      upsert.run(kind, id, value, expiresAt);
      const over = (counted.get(kind)?.n ?? 0) - max;
      if (over > 0) trim.run(kind, kind, over);
    },
  );
  const take = db.transaction((kind: string, id: string, now: number) => {
    const found = select.get(kind, id, now);
    remove.run(kind, id);
    return found?.value;
  });
  return {
    where: path,
    get: async (kind: RecordKind, id, now) => select.get(kind, id, now)?.value,
    async put(kind, id, value, { expiresAt, max }) {
      put(kind, id, value, expiresAt, max);
    },
    take: async (kind, id, now) => take(kind, id, now),
    async delete(kind, id) {
      remove.run(kind, id);
    },
    count: async (kind) => counted.get(kind)?.n ?? 0,
    async close() {
      db.close();
    },
  };
}
