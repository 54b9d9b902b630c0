/**
 * The gateway's sign-in, when configured (`config.signIn`): src/sign-in over this gateway's
 * upstream client (a new grant's `/user`, `/auth/session`'s plans through the REST cache) and its
 * cluster's link, with what is told to the operator (one log line per outcome, never a secret).
 */
import type { Cluster } from '../cluster/cluster.js';
import type { GatewayConfig } from '../config/config.js';
import type { RestCache } from '../loaders/rest-cache.js';
import type { Credentials } from '../operation/credentials.js';
import { grantKey } from '../sign-in/grants.js';
import { createSignIn, type SignIn } from '../sign-in/sign-in.js';
import type { Logger } from '../telemetry/logger.js';
import type { Scheduler } from '../time/scheduler.js';
import type { UpstreamClient } from '../upstream/client.js';

export interface GatewaySignIn {
  readonly part: SignIn;
  /** Stage 5's look-up of a session cookie. */
  readonly sessions: (session: string) => Promise<Credentials>;
  /** Calls `listener` with the key of each grant that ends, on any instance. */
  ended(listener: (tokenKey: string) => void): () => void;
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
}): GatewaySignIn | undefined {
  const { config, upstream, restCache, logger } = parts;
  if (!config.signIn) return undefined;
  const call = (credentials: Credentials) => ({
    token: credentials.token,
    tokenKey: credentials.tokenKey,
  });
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
    onEvent: (event) => logger?.info({ signIn: event.kind, error: event.error }, 'sign-in'),
    onRejected: (what) =>
      logger?.warn({ entry: what }, 'redis entry ignored: forged or sent again'),
  });
  part.grants.onEnded((grantId) => parts.onEnded(grantKey(grantId)));
  return {
    part,
    sessions: (session) => part.browser.credentials(session),
    ended: (listener) => part.grants.onEnded((grantId) => listener(grantKey(grantId))),
  };
}
