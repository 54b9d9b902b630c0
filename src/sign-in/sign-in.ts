/**
 * Sign-in as one part of a gateway (`config.signIn`): the vault over SQLite (one instance) or the
 * cluster's Redis (several), sealed under the operator's key; the upstream's OAuth client; the
 * grant book with its refresh once per cluster; browser sign-in at `/auth/*`. The wiring
 * (src/gateway) hands it the upstream client and the cluster's link, and gets back what
 * admission, the token gate and the WebSocket transport ask of it.
 */
import type { RedisLink } from '../cluster/redis.js';
import type { SignInConfig } from '../config/config.js';
import { createSealer } from '../crypto/sealer.js';
import type { Credentials } from '../operation/credentials.js';
import type { Scheduler } from '../time/scheduler.js';
import { createOAuthClient } from '../upstream/oauth.js';
import { type BrowserSignIn, CALLBACK_PATH, createBrowserSignIn } from './browser.js';
import { createGrants, type Grants } from './grants.js';
import type { CompleteAuthorization } from './ports.js';
import { RECORD_KINDS, type RecordKind } from './records.js';
import { createRedisSignInRecords } from './redis-records.js';
import { localRefreshLock, redisRefreshLock } from './refresh-lock.js';
import { createSqliteSignInRecords } from './sqlite-records.js';
import { createVault } from './vault.js';

export interface SignIn {
  readonly grants: Grants;
  readonly browser: BrowserSignIn;
  /** Records kept now, by kind (ended ones not yet swept may count). */
  counts(): Promise<Record<RecordKind, number>>;
  close(): Promise<void>;
}

export interface SignInParts {
  config: SignInConfig;
  /** Origins besides the gateway's own that may use sessions (`CORS_ORIGINS`, when a list). */
  allowedOrigins: readonly string[];
  /** With a cluster: grants and sessions in its Redis, refreshes once across instances. */
  link: RedisLink | undefined;
  scheduler: Scheduler;
  /** The upstream's `/user` id and plan list for a grant's credentials. */
  userOf: (credentials: Credentials) => Promise<string>;
  plansOf: (credentials: Credentials) => Promise<readonly { id: string; name: string }[]>;
  completeAuthorization?: CompleteAuthorization;
  onEvent?: (event: { kind: string; error?: string }) => void;
  onRejected?: (what: string) => void;
}

export function createSignIn(parts: SignInParts): SignIn {
  const { config, link, scheduler } = parts;
  const now = scheduler.now;
  const sealer = createSealer(config.key);
  const vault = createVault(
    link ? createRedisSignInRecords(link) : createSqliteSignInRecords(config.databasePath),
    sealer,
    {
      now,
      max: {
        grant: config.maxGrants,
        session: config.maxGrants,
        'sign-in': config.maxPendingSignIns,
      },
    },
  );
  const oauth = createOAuthClient({
    origin: config.oauthOrigin,
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    redirectUri: `${config.publicOrigin}${CALLBACK_PATH}`,
    scope: config.scope,
    now,
  });
  const lock = link
    ? redisRefreshLock({
        link,
        signer: sealer.signer,
        scheduler,
        ...(parts.onRejected ? { onRejected: parts.onRejected } : {}),
      })
    : localRefreshLock();
  const grants = createGrants({
    vault,
    oauth,
    lock,
    userOf: parts.userOf,
    now,
    refreshAheadMs: config.refreshAheadMs,
    ttlMs: config.sessionTtlMs,
    ...(parts.onEvent ? { onEvent: parts.onEvent } : {}),
  });
  const browser = createBrowserSignIn({
    vault,
    grants,
    oauth,
    publicOrigin: config.publicOrigin,
    allowedOrigins: parts.allowedOrigins,
    sessionTtlMs: config.sessionTtlMs,
    now,
    plansOf: parts.plansOf,
    ...(parts.completeAuthorization ? { completeAuthorization: parts.completeAuthorization } : {}),
    ...(parts.onEvent ? { onEvent: parts.onEvent } : {}),
  });
  return {
    grants,
    browser,
    async counts() {
      const [grant, session, signIn] = await Promise.all(
        RECORD_KINDS.map((kind) => vault.count(kind)),
      );
      return { grant: grant ?? 0, session: session ?? 0, 'sign-in': signIn ?? 0 };
    },
    async close() {
      grants.close();
      lock.close();
      await vault.close();
    },
  };
}
