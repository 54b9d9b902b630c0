/**
 * The gateway's sign-in, when configured (`config.signIn`): src/sign-in over this gateway's
 * upstream client (a new grant's `/user`, `/auth/session`'s plans through the REST cache) and its
 * cluster's link, with what is told to the operator (one log line per outcome, never a secret).
 * Its callback finishes the sign-ins the authorization server began (`completeAuthorization`):
 * the gateway's own over these grants and this consent (`authorization.ts`), made here since
 * each needs the other.
 */

import { signInUnavailable } from '../admission/credentials.js';
import type {
  AuthorizationLimits,
  AuthorizationServer,
} from '../authorization/authorization-server.js';
import type { Cluster } from '../cluster/cluster.js';
import type { GatewayConfig } from '../config/config.js';
import { createSealer } from '../crypto/sealer.js';
import type { RestCache } from '../loaders/rest-cache.js';
import type { Credentials } from '../operation/credentials.js';
import { grantKey } from '../sign-in/grants.js';
import type { CompleteAuthorization } from '../sign-in/ports.js';
import { SignInStoreUnavailableError } from '../sign-in/records.js';
import { createSignIn, type SignIn } from '../sign-in/sign-in.js';
import type { Logger } from '../telemetry/logger.js';
import type { Scheduler } from '../time/scheduler.js';
import type { UpstreamClient } from '../upstream/client.js';
import { createGatewayAuthorization, type GatewayAuthorization } from './authorization.js';

export interface GatewaySignIn {
  readonly part: SignIn;
  /** Stage 5's look-up of a session cookie. */
  readonly sessions: (session: string) => Promise<Credentials>;
  /** Calls `listener` with the key of each grant that ends, on any instance. */
  ended(listener: (tokenKey: string) => void): () => void;
  /** The authorization server for mobile apps and MCP clients, over these grants. */
  readonly authorization: AuthorizationServer;
  close(): Promise<void>;
}

export function createGatewaySignIn(parts: {
  config: GatewayConfig;
  upstream: UpstreamClient;
  restCache: RestCache;
  cluster: Cluster | undefined;
  scheduler: Scheduler;
  logger: Logger | undefined;
  /** A grant ended: what is held for its key goes. */
  onEnded: (tokenKey: string) => void;
  /** The authorization server's bounds. @default DEFAULT_AUTHORIZATION_LIMITS */
  authorizationLimits?: Partial<AuthorizationLimits> | undefined;
}): GatewaySignIn | undefined {
  const { config, upstream, restCache, logger } = parts;
  if (!config.signIn) return undefined;
  const call = (credentials: Credentials) => ({
    token: credentials.token,
    tokenKey: credentials.tokenKey,
  });
  // Each needs the other: the callback completes through the server, made over the grants.
  let complete: CompleteAuthorization | undefined;
  const part = createSignIn({
    config: config.signIn,
    allowedOrigins: config.corsOrigins === '*' ? [] : config.corsOrigins,
    link: parts.cluster?.link,
    scheduler: parts.scheduler,
    userOf: async (credentials) => (await upstream.getUser(call(credentials))).user.id,
    plansOf: async (credentials) =>
      (
        await restCache.read(credentials.tokenKey, 'getPlans', config.maxAgeMs, () =>
          upstream.getPlans(call(credentials)),
        )
      ).value.plans,
    completeAuthorization: (requestId, outcome) => {
      if (!complete) throw new Error('the authorization server is not ready');
      return complete(requestId, outcome);
    },
    onEvent: (event) => logger?.info({ signIn: event.kind, error: event.error }, 'sign-in'),
    onRejected: (what) =>
      logger?.warn({ entry: what }, 'redis entry ignored: forged or sent again'),
  });
  part.grants.onEnded((grantId) => parts.onEnded(grantKey(grantId)));
  const own: GatewayAuthorization = createGatewayAuthorization({
    publicUrl: new URL(config.signIn.publicOrigin),
    grants: part.grants,
    signIn: part.browser,
    sealer: createSealer(config.signIn.key),
    cluster: parts.cluster,
    databasePath: config.signIn.databasePath,
    now: parts.scheduler.now,
    logger,
    ...(parts.authorizationLimits ? { limits: parts.authorizationLimits } : {}),
  });
  const authorization = own.server;
  complete = authorization.complete;
  return {
    part,
    authorization,
    async close() {
      await own.close();
      await part.close();
    },
    // Redis away: a typed 503, not a refusal of the session (it may be good).
    sessions: (session) =>
      part.browser.credentials(session).catch((error: unknown) => {
        if (error instanceof SignInStoreUnavailableError) {
          logger?.warn({ signIn: 'store unavailable' }, error.message);
          throw signInUnavailable();
        }
        throw error;
      }),
    ended: (listener) => part.grants.onEnded((grantId) => listener(grantKey(grantId))),
  };
}
