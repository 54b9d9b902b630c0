/**
 * The embedded webhook store: one SQLite file (better-sqlite3, WAL, `synchronous=FULL`), so a
 * `kill -9` at any point loses nothing that was acknowledged. Statements are prepared once;
 * multi-step changes run in one transaction. It keeps records as `sealed-store.ts` hands them
 * over (store.ts, "At rest"): sealed text and keyed digests, nothing in clear; `secure_delete`
 * overwrites what is deleted or replaced, so older values do not linger in free pages.
 *
 * Schema version 1 (`PRAGMA user_version`). A file of version 0 (before sealing: plan ids, URLs,
 * secrets and payloads in clear) is sealed in place by `sealClearRows`, in one transaction, then
 * rewritten (VACUUM) and its WAL truncated, so no clear value is left in either.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { WebhookKind } from './kinds.js';
import type {
  AttemptRecord,
  ClearRows,
  DeliveryRecord,
  DeliveryState,
  StoredEndpoint,
  StoredEndpointPatch,
  WebhookRecords,
} from './store.js';
import { DELIVERY_HISTORY as HISTORY, patchedEndpoint } from './store.js';

const VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tokens (
  token_key TEXT PRIMARY KEY,
  sealed TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS endpoints (
  id TEXT PRIMARY KEY,
  token_key TEXT NOT NULL,
  feed TEXT NOT NULL,
  details TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  start_knowledge INTEGER NOT NULL,
  disabled_reason TEXT,
  disabled_at INTEGER
);
CREATE INDEX IF NOT EXISTS endpoints_by_feed ON endpoints (token_key, feed);
CREATE TABLE IF NOT EXISTS secrets (
  endpoint_id TEXT NOT NULL REFERENCES endpoints(id) ON DELETE CASCADE,
  secret TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER
);
CREATE INDEX IF NOT EXISTS secrets_by_endpoint ON secrets (endpoint_id);
CREATE TABLE IF NOT EXISTS cursors (
  token_key TEXT NOT NULL,
  feed TEXT NOT NULL,
  knowledge INTEGER NOT NULL,
  PRIMARY KEY (token_key, feed)
);
CREATE TABLE IF NOT EXISTS deliveries (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL,
  endpoint_id TEXT NOT NULL REFERENCES endpoints(id) ON DELETE CASCADE,
  server_knowledge INTEGER NOT NULL,
  payload TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  first_attempt_at INTEGER
);
CREATE INDEX IF NOT EXISTS deliveries_pending ON deliveries (endpoint_id, state, seq);
CREATE INDEX IF NOT EXISTS deliveries_by_event ON deliveries (event_id);
CREATE TABLE IF NOT EXISTS attempts (
  delivery_seq INTEGER NOT NULL REFERENCES deliveries(seq) ON DELETE CASCADE,
  at INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  status_code INTEGER,
  ok INTEGER NOT NULL,
  error TEXT
);
CREATE INDEX IF NOT EXISTS attempts_by_delivery ON attempts (delivery_seq);
`;

interface EndpointRow {
  id: string;
  token_key: string;
  feed: string;
  details: string;
  created_at: number;
  start_knowledge: number;
  disabled_reason: string | null;
  disabled_at: number | null;
}

interface DeliveryRow {
  seq: number;
  event_id: string;
  endpoint_id: string;
  server_knowledge: number;
  payload: string;
  created_at: number;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: number;
  first_attempt_at: number | null;
}

interface AttemptRow {
  at: number;
  duration_ms: number;
  status_code: number | null;
  ok: number;
  error: string | null;
}

/** Opens (creating if needed) the webhook store at `path`; `:memory:` for a store of one process's life. */
export function createSqliteWebhookStore(path: string): WebhookRecords {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('secure_delete = ON');
  // A version-0 file gets the version-1 schema only as it is sealed (`sealClearRows`): its
  // statements are prepared after that.
  if (!isVersionZero(db)) {
    db.exec(SCHEMA);
    db.pragma(`user_version = ${VERSION}`);
  }

  const prepare = () => ({
    saveToken: db.prepare(
      'INSERT INTO tokens (token_key, sealed) VALUES (?, ?) ON CONFLICT(token_key) DO UPDATE SET sealed = excluded.sealed',
    ),
    token: db.prepare<[string], { sealed: string }>(
      'SELECT sealed FROM tokens WHERE token_key = ?',
    ),
    insertEndpoint: db.prepare(
      'INSERT INTO endpoints (id, token_key, feed, details, created_at, start_knowledge, disabled_reason, disabled_at) VALUES (@id, @token_key, @feed, @details, @created_at, @start_knowledge, @disabled_reason, @disabled_at)',
    ),
    insertSecret: db.prepare(
      'INSERT INTO secrets (endpoint_id, secret, created_at, expires_at) VALUES (?, ?, ?, NULL)',
    ),
    startCursor: db.prepare(
      'INSERT INTO cursors (token_key, feed, knowledge) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
    ),
    endpoint: db.prepare<[string], EndpointRow>('SELECT * FROM endpoints WHERE id = ?'),
    endpointsOf: db.prepare<[string], EndpointRow>(
      'SELECT * FROM endpoints WHERE token_key = ? ORDER BY created_at, id',
    ),
    feedEndpoints: db.prepare<[string, string], EndpointRow>(
      'SELECT * FROM endpoints WHERE token_key = ? AND feed = ? AND disabled_reason IS NULL ORDER BY id',
    ),
    updateEndpoint: db.prepare(
      'UPDATE endpoints SET details = @details, disabled_reason = @disabled_reason, disabled_at = @disabled_at WHERE id = @id',
    ),
    deleteEndpoint: db.prepare('DELETE FROM endpoints WHERE id = ?'),
    secrets: db.prepare<[string, number], { secret: string }>(
      'SELECT secret FROM secrets WHERE endpoint_id = ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY created_at DESC, rowid DESC',
    ),
    expireSecrets: db.prepare(
      'UPDATE secrets SET expires_at = ? WHERE endpoint_id = ? AND expires_at IS NULL',
    ),
    dropExpiredSecrets: db.prepare('DELETE FROM secrets WHERE endpoint_id = ? AND expires_at <= ?'),
    // One enabled endpoint of each feed (SQLite takes the row of the MIN).
    feeds: db.prepare<[], EndpointRow & { first: string }>(
      'SELECT *, MIN(id) AS first FROM endpoints WHERE disabled_reason IS NULL GROUP BY token_key, feed',
    ),
    cursor: db.prepare<[string, string], { knowledge: number }>(
      'SELECT knowledge FROM cursors WHERE token_key = ? AND feed = ?',
    ),
    moveCursor: db.prepare(
      'INSERT INTO cursors (token_key, feed, knowledge) VALUES (?, ?, ?) ON CONFLICT(token_key, feed) DO UPDATE SET knowledge = MAX(knowledge, excluded.knowledge)',
    ),
    insertDelivery: db.prepare(
      `INSERT INTO deliveries (event_id, endpoint_id, server_knowledge, payload, created_at, state, attempts, next_attempt_at)
       VALUES (?, ?, ?, ?, ?, 'PENDING', 0, ?)`,
    ),
    // The head of each enabled endpoint's queue: its oldest pending delivery.
    heads: db.prepare<[], DeliveryRow>(
      `SELECT d.* FROM deliveries d
       JOIN (SELECT endpoint_id, MIN(seq) AS seq FROM deliveries WHERE state = 'PENDING' GROUP BY endpoint_id) h ON h.seq = d.seq
       JOIN endpoints e ON e.id = d.endpoint_id AND e.disabled_reason IS NULL
       ORDER BY d.next_attempt_at, d.seq`,
    ),
    // Past `HISTORY` deliveries of an endpoint, the delivered ones drop (their attempts with them).
    prune: db.prepare(
      `DELETE FROM deliveries WHERE endpoint_id = @id AND state = 'DELIVERED' AND seq <
       (SELECT seq FROM deliveries WHERE endpoint_id = @id ORDER BY seq DESC LIMIT 1 OFFSET ${HISTORY - 1})`,
    ),
    insertAttempt: db.prepare(
      'INSERT INTO attempts (delivery_seq, at, duration_ms, status_code, ok, error) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    updateDelivery: db.prepare(
      'UPDATE deliveries SET state = ?, attempts = attempts + 1, next_attempt_at = ?, first_attempt_at = COALESCE(first_attempt_at, ?) WHERE seq = ?',
    ),
    disable: db.prepare(
      'UPDATE endpoints SET disabled_reason = ?, disabled_at = ? WHERE id = ? AND disabled_reason IS NULL',
    ),
    disableToken: db.prepare(
      'UPDATE endpoints SET disabled_reason = ?, disabled_at = ? WHERE token_key = ? AND disabled_reason IS NULL',
    ),
    disableFeed: db.prepare(
      'UPDATE endpoints SET disabled_reason = ?, disabled_at = ? WHERE token_key = ? AND feed = ? AND disabled_reason IS NULL',
    ),
    deliveries: db.prepare<[string, number, number], DeliveryRow>(
      'SELECT * FROM deliveries WHERE endpoint_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
    ),
    deliveryOfEvent: db.prepare<[string], DeliveryRow>(
      'SELECT * FROM deliveries WHERE event_id = ? ORDER BY seq DESC LIMIT 1',
    ),
    attempts: db.prepare<[number], AttemptRow>(
      'SELECT at, duration_ms, status_code, ok, error FROM attempts WHERE delivery_seq = ? ORDER BY at, rowid',
    ),
    bySeq: db.prepare<[number], DeliveryRow>('SELECT * FROM deliveries WHERE seq = ?'),
    canary: db.prepare<[], { value: string }>("SELECT value FROM meta WHERE name = 'canary'"),
    setCanary: db.prepare(
      "INSERT INTO meta (name, value) VALUES ('canary', ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
    ),
    anyToken: db.prepare<[], { token_key: string; sealed: string }>(
      'SELECT token_key, sealed FROM tokens LIMIT 1',
    ),
  });
  let statements: ReturnType<typeof prepare> | undefined;
  const sql = () => {
    statements ??= prepare();
    return statements;
  };

  const createEndpoint = db.transaction(
    (endpoint: StoredEndpoint, secret: string, sealed: string) => {
      sql().saveToken.run(endpoint.tokenKey, sealed);
      sql().insertEndpoint.run(endpointRow(endpoint));
      sql().insertSecret.run(endpoint.id, secret, endpoint.createdAt);
      sql().startCursor.run(endpoint.tokenKey, endpoint.feed, endpoint.startKnowledge);
    },
  );
  const rotate = db.transaction((id: string, secret: string, now: number, until: number) => {
    sql().dropExpiredSecrets.run(id, now);
    sql().expireSecrets.run(until, id);
    sql().insertSecret.run(id, secret, now);
  });
  const enqueue = db.transaction(
    (
      feed: Parameters<WebhookRecords['enqueue']>[0],
      cursor: number,
      deliveries: Parameters<WebhookRecords['enqueue']>[2],
      now: number,
    ) => {
      for (const d of deliveries) {
        sql().insertDelivery.run(d.eventId, d.endpointId, d.serverKnowledge, d.payload, now, now);
        sql().prune.run({ id: d.endpointId });
      }
      sql().moveCursor.run(feed.tokenKey, feed.feed, cursor);
    },
  );
  const recordAttempt = db.transaction(
    (
      seq: number,
      attempt: AttemptRecord,
      next: { state: DeliveryState; nextAttemptAt: number },
    ) => {
      sql().insertAttempt.run(
        seq,
        attempt.at,
        attempt.durationMs,
        attempt.statusCode,
        attempt.ok ? 1 : 0,
        attempt.error,
      );
      sql().updateDelivery.run(next.state, next.nextAttemptAt, attempt.at, seq);
    },
  );
  const update = db.transaction((id: string, patch: StoredEndpointPatch, now: number) => {
    const row = sql().endpoint.get(id);
    if (!row) return undefined;
    const current = endpointOf(row);
    const next = patchedEndpoint(current, patch, now);
    sql().updateEndpoint.run(endpointRow(next));
    if (patch.enabled === true && current.disabledReason !== null) {
      // Re-enabled: what waits goes out now, and its day of retries starts over.
      db.prepare(
        "UPDATE deliveries SET next_attempt_at = ?, first_attempt_at = NULL WHERE endpoint_id = ? AND state = 'PENDING'",
      ).run(now, id);
    }
    return next;
  });
  const redeliver = db.transaction((eventId: string, now: number) => {
    const row = sql().deliveryOfEvent.get(eventId);
    if (!row) return undefined;
    const { lastInsertRowid } = sql().insertDelivery.run(
      row.event_id,
      row.endpoint_id,
      row.server_knowledge,
      row.payload,
      now,
      now,
    );
    const copy = sql().bySeq.get(Number(lastInsertRowid));
    return copy ? deliveryOf(copy) : undefined;
  });

  const sealClearRows = db.transaction((rows: ClearRows) => sealVersionZero(db, rows));

  return {
    shared: false,
    where: path === ':memory:' ? 'in memory' : path,
    async canary() {
      return isVersionZero(db) ? undefined : sql().canary.get()?.value;
    },
    async setCanary(sealed) {
      sql().setCanary.run(sealed);
    },
    async anyToken() {
      const row = sql().anyToken.get();
      return row ? { tokenKey: row.token_key, sealed: row.sealed } : undefined;
    },
    async sealClearRows(rows) {
      if (!isVersionZero(db)) return;
      sealClearRows(rows);
      // The clear values are gone from the tables; rewrite the file and empty the WAL so that no
      // copy of them is left in free pages or old frames.
      if (path !== ':memory:') {
        db.exec('VACUUM');
        db.pragma('wal_checkpoint(TRUNCATE)');
      }
    },
    claimFeed: async () => true,
    async releaseFeed() {},
    release: async () => {},
    async createEndpoint(endpoint, secret, token) {
      createEndpoint(endpoint, secret, token);
    },
    async endpoint(id) {
      const row = sql().endpoint.get(id);
      return row ? endpointOf(row) : undefined;
    },
    async endpointsOf(tokenKey) {
      return sql().endpointsOf.all(tokenKey).map(endpointOf);
    },
    async feedEndpoints(feed) {
      return sql().feedEndpoints.all(feed.tokenKey, feed.feed).map(endpointOf);
    },
    async updateEndpoint(id, patch, now) {
      return update(id, patch, now);
    },
    async deleteEndpoint(id) {
      return sql().deleteEndpoint.run(id).changes > 0;
    },
    async secrets(endpointId, now) {
      return sql()
        .secrets.all(endpointId, now)
        .map((row) => row.secret);
    },
    async rotateSecret(endpointId, secret, now, previousUntil) {
      rotate(endpointId, secret, now, previousUntil);
    },
    async token(tokenKey) {
      return sql().token.get(tokenKey)?.sealed;
    },
    async feeds() {
      return sql().feeds.all().map(endpointOf);
    },
    async cursor(feed) {
      return sql().cursor.get(feed.tokenKey, feed.feed)?.knowledge;
    },
    async enqueue(feed, cursor, deliveries, now) {
      enqueue(feed, cursor, deliveries, now);
      return true;
    },
    async due(now, limit, busy) {
      const out: DeliveryRecord[] = [];
      for (const row of sql().heads.iterate()) {
        if (row.next_attempt_at > now || out.length >= limit) break;
        if (!busy.has(row.endpoint_id)) out.push(deliveryOf(row));
      }
      return out;
    },
    async nextDueAt(after) {
      for (const row of sql().heads.iterate()) {
        if (row.next_attempt_at > after) return row.next_attempt_at;
      }
      return undefined;
    },
    async recordAttempt(delivery, attempt, next) {
      recordAttempt(delivery.seq, attempt, next);
    },
    async disableEndpoint(id, reason, now) {
      sql().disable.run(reason, now, id);
    },
    async disableFeeds(tokenKey, feed, reason, now) {
      if (feed === null) sql().disableToken.run(reason, now, tokenKey);
      else sql().disableFeed.run(reason, now, tokenKey, feed);
    },
    async deliveries(endpointId, limit, before) {
      return sql()
        .deliveries.all(endpointId, before ?? Number.MAX_SAFE_INTEGER, limit)
        .map(deliveryOf);
    },
    async deliveryOfEvent(eventId) {
      const row = sql().deliveryOfEvent.get(eventId);
      return row ? deliveryOf(row) : undefined;
    },
    async attempts(seq) {
      return sql()
        .attempts.all(seq)
        .map((row) => ({
          at: row.at,
          durationMs: row.duration_ms,
          statusCode: row.status_code,
          ok: row.ok === 1,
          error: row.error,
        }));
    },
    async redeliver(eventId, now) {
      return redeliver(eventId, now);
    },
    async close() {
      db.close();
    },
  };
}

function endpointRow(e: StoredEndpoint): EndpointRow {
  return {
    id: e.id,
    token_key: e.tokenKey,
    feed: e.feed,
    details: e.details,
    created_at: e.createdAt,
    start_knowledge: e.startKnowledge,
    disabled_reason: e.disabledReason,
    disabled_at: e.disabledAt,
  };
}

function endpointOf(row: EndpointRow): StoredEndpoint {
  return {
    id: row.id,
    tokenKey: row.token_key,
    feed: row.feed,
    details: row.details,
    createdAt: row.created_at,
    startKnowledge: row.start_knowledge,
    disabledReason: row.disabled_reason,
    disabledAt: row.disabled_at,
  };
}

function deliveryOf(row: DeliveryRow): DeliveryRecord {
  return {
    seq: row.seq,
    eventId: row.event_id,
    endpointId: row.endpoint_id,
    serverKnowledge: row.server_knowledge,
    payload: row.payload,
    createdAt: row.created_at,
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    firstAttemptAt: row.first_attempt_at,
  };
}

// ---------------------------------------------------------------------------------------------
// Version 0: before sealing

/** Private: a file written before sealing (its endpoints have a clear `plan_id`), not yet sealed. */
function isVersionZero(db: Database.Database): boolean {
  const columns = db.pragma('table_info(endpoints)') as { name: string }[];
  return columns.some((column) => column.name === 'plan_id');
}

/** A version-0 endpoint row, as it was written. */
interface ClearEndpointRow {
  id: string;
  token_key: string;
  plan_id: string;
  url: string;
  kinds: string;
  description: string | null;
  created_at: number;
  start_knowledge: number;
  disabled_reason: string | null;
  disabled_at: number | null;
}

/** Rows are read and sealed in batches of this many (an outbox may be large). */
const BATCH = 500;

/**
 * Private: seals a version-0 file in place (in the caller's transaction): tokens re-sealed,
 * endpoints' plan, URL, kinds and description into `details` and their plan into `feed`,
 * cursors keyed by feed, secrets, payloads, errors and reasons sealed; then the version-1 schema.
 */
function sealVersionZero(db: Database.Database, rows: ClearRows): void {
  for (const row of db
    .prepare<[], { token_key: string; sealed: string }>('SELECT * FROM tokens')
    .all()) {
    db.prepare('UPDATE tokens SET sealed = ? WHERE token_key = ?').run(
      rows.token(row.token_key, row.sealed),
      row.token_key,
    );
  }
  db.exec(`
    ALTER TABLE endpoints ADD COLUMN feed TEXT NOT NULL DEFAULT '';
    ALTER TABLE endpoints ADD COLUMN details TEXT NOT NULL DEFAULT '';
  `);
  const endpoints = db.prepare<[], ClearEndpointRow>('SELECT * FROM endpoints').all();
  const setEndpoint = db.prepare(
    'UPDATE endpoints SET feed = @feed, details = @details, disabled_reason = @disabled_reason WHERE id = @id',
  );
  for (const row of endpoints) {
    const sealed = rows.endpoint({
      id: row.id,
      tokenKey: row.token_key,
      planId: row.plan_id,
      url: row.url,
      kinds: JSON.parse(row.kinds) as WebhookKind[],
      description: row.description,
      createdAt: row.created_at,
      startKnowledge: row.start_knowledge,
      disabledReason: row.disabled_reason,
      disabledAt: row.disabled_at,
    });
    setEndpoint.run({
      id: row.id,
      feed: sealed.feed,
      details: sealed.details,
      disabled_reason: sealed.disabledReason,
    });
  }
  db.exec(`
    DROP INDEX IF EXISTS endpoints_by_token;
    ALTER TABLE endpoints DROP COLUMN plan_id;
    ALTER TABLE endpoints DROP COLUMN url;
    ALTER TABLE endpoints DROP COLUMN kinds;
    ALTER TABLE endpoints DROP COLUMN description;
    ALTER TABLE cursors RENAME TO cursors_clear;
  `);
  db.exec(SCHEMA);
  const insertCursor = db.prepare(
    'INSERT INTO cursors (token_key, feed, knowledge) VALUES (?, ?, ?) ON CONFLICT(token_key, feed) DO UPDATE SET knowledge = MAX(knowledge, excluded.knowledge)',
  );
  const cursors = db
    .prepare<[], { token_key: string; plan_id: string; knowledge: number }>(
      'SELECT * FROM cursors_clear',
    )
    .all();
  for (const row of cursors) {
    insertCursor.run(row.token_key, rows.feed(row.token_key, row.plan_id), row.knowledge);
  }
  db.exec('DROP TABLE cursors_clear');
  const secrets = db
    .prepare<[], { rowid: number; endpoint_id: string; secret: string }>(
      'SELECT rowid, endpoint_id, secret FROM secrets',
    )
    .all();
  const setSecret = db.prepare('UPDATE secrets SET secret = ? WHERE rowid = ?');
  for (const row of secrets) setSecret.run(rows.secret(row.endpoint_id, row.secret), row.rowid);
  const page = db.prepare<
    [number],
    { seq: number; endpoint_id: string; event_id: string; payload: string }
  >(
    `SELECT seq, endpoint_id, event_id, payload FROM deliveries WHERE seq > ? ORDER BY seq LIMIT ${BATCH}`,
  );
  const setPayload = db.prepare('UPDATE deliveries SET payload = ? WHERE seq = ?');
  for (let after = 0, batch = page.all(after); batch.length > 0; batch = page.all(after)) {
    for (const row of batch) {
      setPayload.run(rows.payload(row.endpoint_id, row.event_id, row.payload), row.seq);
      after = row.seq;
    }
  }
  const errors = db.prepare<[number], { rowid: number; delivery_seq: number; error: string }>(
    `SELECT rowid, delivery_seq, error FROM attempts WHERE error IS NOT NULL AND rowid > ? ORDER BY rowid LIMIT ${BATCH}`,
  );
  const setError = db.prepare('UPDATE attempts SET error = ? WHERE rowid = ?');
  for (let after = 0, batch = errors.all(after); batch.length > 0; batch = errors.all(after)) {
    for (const row of batch) {
      setError.run(rows.error(row.delivery_seq, row.error), row.rowid);
      after = row.rowid;
    }
  }
  db.pragma(`user_version = ${VERSION}`);
}
