/**
 * Webhook stores as the version before sealing wrote them (issue 29): tokens sealed in its own
 * format, and everything else in clear (plan ids, URLs, secrets, payloads, errors), in a SQLite
 * file of its schema or under its Redis keys. The tests start a gateway on them and check that
 * it seals them in place and loses nothing.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import type { Redis } from 'ioredis';

/** One endpoint with its owner's token, secret, cursor, and a delivery waiting with an attempt. */
export interface ClearStore {
  readonly key: Uint8Array;
  readonly token: string;
  readonly tokenKey: string;
  readonly planId: string;
  readonly endpointId: string;
  readonly url: string;
  readonly description: string;
  readonly secret: string;
  readonly knowledge: number;
  readonly eventId: string;
  readonly payload: string;
  readonly error: string;
  readonly createdAt: number;
}

/** The older format of a sealed token: `v1.<iv>.<tag>.<body>`, the raw key, the token key as AAD. */
function sealTokenAsBefore(key: Uint8Array, token: string, tokenKey: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(tokenKey, 'utf8'));
  const body = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), body]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/** The schema of the version before sealing. */
const SCHEMA_BEFORE = `
CREATE TABLE tokens (token_key TEXT PRIMARY KEY, sealed TEXT NOT NULL);
CREATE TABLE endpoints (id TEXT PRIMARY KEY, token_key TEXT NOT NULL, plan_id TEXT NOT NULL,
  url TEXT NOT NULL, kinds TEXT NOT NULL, description TEXT, created_at INTEGER NOT NULL,
  start_knowledge INTEGER NOT NULL, disabled_reason TEXT, disabled_at INTEGER);
CREATE INDEX endpoints_by_token ON endpoints (token_key, plan_id);
CREATE TABLE secrets (endpoint_id TEXT NOT NULL REFERENCES endpoints(id) ON DELETE CASCADE,
  secret TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER);
CREATE INDEX secrets_by_endpoint ON secrets (endpoint_id);
CREATE TABLE cursors (token_key TEXT NOT NULL, plan_id TEXT NOT NULL, knowledge INTEGER NOT NULL,
  PRIMARY KEY (token_key, plan_id));
CREATE TABLE deliveries (seq INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL,
  endpoint_id TEXT NOT NULL REFERENCES endpoints(id) ON DELETE CASCADE,
  server_knowledge INTEGER NOT NULL, payload TEXT NOT NULL, created_at INTEGER NOT NULL,
  state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER NOT NULL,
  first_attempt_at INTEGER);
CREATE INDEX deliveries_pending ON deliveries (endpoint_id, state, seq);
CREATE INDEX deliveries_by_event ON deliveries (event_id);
CREATE TABLE attempts (delivery_seq INTEGER NOT NULL REFERENCES deliveries(seq) ON DELETE CASCADE,
  at INTEGER NOT NULL, duration_ms INTEGER NOT NULL, status_code INTEGER, ok INTEGER NOT NULL,
  error TEXT);
CREATE INDEX attempts_by_delivery ON attempts (delivery_seq);
`;

/** Writes `store` at `path` as the version before sealing did (WAL, as it ran). */
export function writeSqliteBefore(path: string, store: ClearStore): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(SCHEMA_BEFORE);
  db.prepare('INSERT INTO tokens VALUES (?, ?)').run(
    store.tokenKey,
    sealTokenAsBefore(store.key, store.token, store.tokenKey),
  );
  db.prepare('INSERT INTO endpoints VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)').run(
    store.endpointId,
    store.tokenKey,
    store.planId,
    store.url,
    JSON.stringify(['TRANSACTIONS', 'PAYEES']),
    store.description,
    store.createdAt,
    store.knowledge,
  );
  db.prepare('INSERT INTO secrets VALUES (?, ?, ?, NULL)').run(
    store.endpointId,
    store.secret,
    store.createdAt,
  );
  db.prepare('INSERT INTO cursors VALUES (?, ?, ?)').run(
    store.tokenKey,
    store.planId,
    store.knowledge,
  );
  const { lastInsertRowid } = db
    .prepare(
      "INSERT INTO deliveries (event_id, endpoint_id, server_knowledge, payload, created_at, state, attempts, next_attempt_at, first_attempt_at) VALUES (?, ?, ?, ?, ?, 'PENDING', 1, ?, ?)",
    )
    .run(
      store.eventId,
      store.endpointId,
      store.knowledge,
      store.payload,
      store.createdAt,
      store.createdAt,
      store.createdAt,
    );
  db.prepare('INSERT INTO attempts VALUES (?, ?, 3, NULL, 0, ?)').run(
    Number(lastInsertRowid),
    store.createdAt,
    store.error,
  );
  db.close();
}

/** Writes `store` under `prefix` as the version before sealing did. */
export async function writeRedisBefore(
  redis: Redis,
  prefix: string,
  store: ClearStore,
): Promise<void> {
  const w = `${prefix}webhooks:`;
  const endpoint = {
    id: store.endpointId,
    tokenKey: store.tokenKey,
    planId: store.planId,
    url: store.url,
    kinds: ['TRANSACTIONS', 'PAYEES'],
    description: store.description,
    createdAt: store.createdAt,
    startKnowledge: store.knowledge,
    disabledReason: null,
    disabledAt: null,
  };
  const attempt = {
    at: store.createdAt,
    durationMs: 3,
    statusCode: null,
    ok: false,
    error: store.error,
  };
  await redis
    .multi()
    .set(`${w}token:${store.tokenKey}`, sealTokenAsBefore(store.key, store.token, store.tokenKey))
    .set(`${w}ep:${store.endpointId}`, JSON.stringify(endpoint))
    .sadd(`${w}eps`, store.endpointId)
    .set(
      `${w}secrets:${store.endpointId}`,
      JSON.stringify([{ secret: store.secret, createdAt: store.createdAt, expiresAt: null }]),
    )
    .set(`${w}cursor:${store.tokenKey}:${store.planId}`, store.knowledge)
    .set(`${w}seq`, 1)
    .hset(`${w}d:1`, {
      seq: 1,
      eventId: store.eventId,
      endpointId: store.endpointId,
      serverKnowledge: store.knowledge,
      payload: store.payload,
      createdAt: store.createdAt,
      state: 'PENDING',
      attempts: 1,
      nextAttemptAt: store.createdAt,
      firstAttemptAt: store.createdAt,
    })
    .rpush(`${w}q:${store.endpointId}`, 1)
    .lpush(`${w}hist:${store.endpointId}`, 1)
    .rpush(`${w}a:1`, JSON.stringify(attempt))
    .set(`${w}ev:${store.eventId}`, 1)
    .zadd(`${w}due`, store.createdAt, store.endpointId)
    .exec();
}
