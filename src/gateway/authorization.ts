/**
 * The gateway's authorization server, wired: its store is SQLite at `databasePath`, or with a
 * cluster Redis through the cluster's one link; its grants and the upstream's consent are browser
 * sign-in's (`src/sign-in/ports.ts`). Made before the gateway (whose admission checks its
 * tokens and whose port serves it: `GatewayDeps.authorization`); browser sign-in's callback
 * finishes its sign-ins with `complete`. `close` stops it listening to the grants and closes
 * the store (a Redis link is the cluster's to close).
 */
import {
  type AuthorizationLimits,
  type AuthorizationServer,
  createAuthorizationServer,
} from '../authorization/authorization-server.js';
import { createRedisAuthorizationStore } from '../authorization/redis-store.js';
import { createSqliteAuthorizationStore } from '../authorization/sqlite-store.js';
import type { AuthorizationStore } from '../authorization/store.js';
import type { Cluster } from '../cluster/cluster.js';
import type { Sealer } from '../crypto/sealer.js';
import type { GrantBook, UpstreamSignIn } from '../sign-in/ports.js';
import type { Logger } from '../telemetry/logger.js';

export interface GatewayAuthorizationOptions {
  /** The gateway's public URL (its origin is the issuer, and the base of `/graphql` and `/mcp`). */
  publicUrl: URL;
  grants: GrantBook;
  signIn: UpstreamSignIn;
  /** The operator key's sealer. */
  sealer: Sealer;
  /** With one, the store is in its Redis; without, in SQLite at `databasePath`. */
  cluster?: Cluster | undefined;
  databasePath: string;
  now?: () => number;
  logger?: Logger | undefined;
  limits?: Partial<AuthorizationLimits>;
}

export interface GatewayAuthorization {
  readonly server: AuthorizationServer;
  /** What it keeps (tests count rows). */
  readonly store: AuthorizationStore;
  close(): Promise<void>;
}

export function createGatewayAuthorization(
  options: GatewayAuthorizationOptions,
): GatewayAuthorization {
  const store = options.cluster
    ? createRedisAuthorizationStore(options.cluster.link)
    : createSqliteAuthorizationStore(options.databasePath);
  const server = createAuthorizationServer({
    issuer: new URL(options.publicUrl.origin),
    grants: options.grants,
    signIn: options.signIn,
    sealer: options.sealer,
    store,
    ...(options.now ? { now: options.now } : {}),
    logger: options.logger,
    ...(options.limits ? { limits: options.limits } : {}),
  });
  return {
    server,
    store,
    async close() {
      server.close();
      await store.close();
    },
  };
}
