/**
 * The gateway's settings: environment variables (and `--help` / `--version`) turned into typed
 * values, or a message naming the variable that is wrong. Pure, so every rule is unit-tested
 * without starting a process; `cli.ts` only applies the result.
 */
import {
  type ClusterConfig,
  type CostMode,
  DEFAULT_CLUSTER,
  DEFAULT_DOCUMENT_CACHE,
  DEFAULT_HTTP_CACHING,
  DEFAULT_LIMITS,
  DEFAULT_LIVE,
  DEFAULT_MAX_AGE_MS,
  DEFAULT_MCP,
  DEFAULT_OPERATION_DEADLINE_MS,
  DEFAULT_PORT,
  DEFAULT_REST_CACHE_BYTES,
  DEFAULT_SIGN_IN,
  DEFAULT_WEBHOOKS,
  defaultReplicaBytes,
  type LiveConfig,
  type McpConfig,
  MIN_DEFAULT_REPLICA_BYTES,
  type WebhooksConfig,
} from './config.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** @default 10 s: longer than a typical read, shorter than Docker's 10 s stop timeout plus margin. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;
/** Loopback: a gateway is on the network only when its operator says so (`HOST=0.0.0.0`). */
export const DEFAULT_HOST = '127.0.0.1';
/** Answers smaller than this go out uncompressed: the headers would eat the gain. */
export const DEFAULT_COMPRESSION_MIN_BYTES = 1024;

export interface Settings {
  port: number;
  /**
   * The interface to listen on: loopback unless told, with or without an upstream, so GraphiQL,
   * MCP and metrics of a developer's gateway are not on the network (the image sets 0.0.0.0).
   */
  host: string;
  /** Undefined: start the embedded sandbox. */
  upstreamUrl: string | undefined;
  maxAgeMs: number;
  replicaMaxBytes: number;
  /** Byte budget of the per-token REST cache (user, plan list, settings, money movements). */
  restCacheMaxBytes: number;
  /** How long one operation may wait on the upstream before it answers stale or fails. */
  operationDeadlineMs: number;
  /** Bytes of one document's text, comments included. */
  maxDocumentBytes: number;
  /** Byte budget of the parsed-document cache. */
  documentCacheMaxBytes: number;
  corsOrigins: '*' | string[];
  /** Request headers allowed from other origins besides the defaults. */
  corsExtraHeaders: string[];
  /** Automatic persisted queries (hash-only requests). */
  persistedQueries: boolean;
  /** The cost limit refuses (`enforce`) or only logs (`measure`) operations over it. */
  costLimitMode: CostMode;
  /** The manifest of registered operations, and whether only those run. */
  trustedDocuments: { manifestPath: string; only: boolean } | undefined;
  /** ETag / 304 for GET queries, and the answer cache. */
  httpCaching: boolean;
  /** Byte budget of the answer cache (0: off). */
  answerCacheMaxBytes: number;
  production: boolean;
  graphiql: boolean;
  introspection: boolean;
  /** The Federation v2 subgraph endpoint, `/subgraph`. */
  subgraph: boolean;
  /** Queries run compiled (graphql-jit), compiled after a document's first repeat. */
  compiledQueries: boolean;
  /** Plain query misses run before yoga's request handling (`src/server/direct-miss.ts`). */
  directMisses: boolean;
  logLevel: LogLevel;
  /** Human-readable log lines instead of JSON. */
  prettyLogs: boolean;
  /** `/metrics` on the GraphQL port (when no METRICS_PORT), or not at all. */
  metrics: boolean;
  /** Serve `/metrics` on this port instead of the GraphQL one. */
  metricsPort: number | undefined;
  shutdownGraceMs: number;
  compressionMinBytes: number | false;
  /** OTLP/HTTP collector base URL; tracing is off without it. */
  otlpEndpoint: string | undefined;
  serviceName: string;
  /** Subscriptions: budget share, limits, WebSocket heartbeat and idle timeout. */
  live: LiveConfig;
  /** Redis shared by every instance; undefined: this process alone. */
  redisUrl: string | undefined;
  /** Key prefix, snapshot TTL and size bound of the Redis tier. */
  cluster: ClusterConfig;
  /** The MCP server: `/mcp` on the GraphQL port, its tools and sessions. */
  mcp: McpConfig;
  /**
   * The operator's key: SEAL_KEY, else WEBHOOK_KEY (its former name, folded into it). It seals
   * everything kept at rest: webhooks' and sign-in's.
   */
  sealKey: Uint8Array | undefined;
  /** Webhooks; undefined without the operator's key (the mutations then answer WEBHOOKS_DISABLED). */
  webhooks: WebhooksConfig | undefined;
  /**
   * Sign-in through the upstream's OAuth, as configured; undefined without OAUTH_CLIENT_ID (the
   * embedded sandbox then signs in with its demo application, see cli.ts).
   */
  signIn: SignInSettings | undefined;
  /** `mcp` (stdio): the upstream token, from PLANS_TOKEN or else YNAB_TOKEN. */
  mcpToken: string | undefined;
}

/** What the environment says of sign-in; cli.ts completes it (the key, the port it got). */
export interface SignInSettings {
  clientId: string;
  clientSecret: string;
  /** PUBLIC_URL's origin; undefined: the gateway's own loopback URL (embedded sandbox only). */
  publicOrigin: string | undefined;
  /** OAUTH_URL; undefined: the upstream's (app.ynab.com for api.ynab.com, else its origin). */
  oauthOrigin: string | undefined;
  scope: 'read-only' | undefined;
  databasePath: string;
  sessionTtlMs: number;
}

/** `serve`: the HTTP gateway (`npm start`); `mcp`: the MCP server over stdio (`npm run mcp`). */
export type Command = 'serve' | 'mcp';

export type SettingsParse =
  | { kind: 'run'; command: Command; settings: Settings }
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'error'; message: string };

type Env = Readonly<Record<string, string | undefined>>;

class SettingError extends Error {
  readonly code = 'GW_ERR_SETTING';
}

export const USAGE = `Usage: npm start            (or: node dist/cli.js after npm run build)
       npm run mcp          (or: node dist/cli.js mcp): the MCP server over stdio

The Plans GraphQL gateway. Without UPSTREAM_URL it embeds a REST sandbox with a demo plan.
Every setting is an environment variable; booleans accept on/off, true/false, 1/0.

  PORT                          GraphQL port (default ${DEFAULT_PORT}; 0 = any free port)
  HOST                          interface to listen on (default ${DEFAULT_HOST}; the Docker image sets 0.0.0.0)
  UPSTREAM_URL                  REST base URL including /v1 (default: embedded sandbox)
  MAX_AGE_SECONDS               replica max-age (default ${DEFAULT_MAX_AGE_MS / 1000})
  REPLICA_MAX_MB                memory budget of all replicas, and the largest plan export read (default: half the process's memory, the least of the heap limit and the container's, at least ${MIN_DEFAULT_REPLICA_BYTES / 1024 / 1024}; here ${defaultReplicaBytes() / 1024 / 1024})
  REST_CACHE_MAX_MB             memory budget of the per-token REST cache (default ${DEFAULT_REST_CACHE_BYTES / 1024 / 1024})
  OPERATION_DEADLINE_SECONDS    longest upstream wait of one operation before it answers stale (default ${DEFAULT_OPERATION_DEADLINE_MS / 1000})
  COST_LIMIT_MODE               enforce: refuse operations over the cost limit; measure: run them and log them (default enforce)
  MAX_DOCUMENT_BYTES            bytes of one GraphQL document, comments included (default ${DEFAULT_LIMITS.documentBytes})
  DOCUMENT_CACHE_MAX_MB         memory budget of the parsed-document cache (default ${DEFAULT_DOCUMENT_CACHE.maxBytes / 1024 / 1024})
  CORS_ORIGINS                  comma-separated browser origins, or * (default *)
  CORS_ALLOWED_HEADERS          request headers to allow from browsers besides the defaults
  PERSISTED_QUERIES             automatic persisted queries (default on)
  TRUSTED_DOCUMENTS             path of a persisted-documents.json manifest (graphql-codegen)
  TRUSTED_DOCUMENTS_ONLY        run only the manifest's operations (default off)
  HTTP_CACHING                  ETag and 304 for GET queries, and the answer cache (default on)
  ANSWER_CACHE_MAX_MB           memory budget of the answer cache, 0 = off (default ${DEFAULT_HTTP_CACHING.answerMaxBytes / 1024 / 1024})
  NODE_ENV                      production: GraphiQL, introspection (with UPSTREAM_URL) and upstream metrics off by default
  GRAPHIQL                      serve GraphiQL (default on; off in production with UPSTREAM_URL)
  INTROSPECTION                 allow schema introspection (default on; off in production with UPSTREAM_URL)
  SUBGRAPH                      serve the graph as a Federation v2 subgraph at /subgraph (default on)
  COMPILED_QUERIES              run queries compiled (graphql-jit) after a document's first repeat (default on)
  LOG_LEVEL                     ${LOG_LEVELS.join(', ')} (default info)
  LOG_FORMAT                    json or pretty (default pretty on a terminal, else json)
  METRICS                       Prometheus text at /metrics (default on)
  METRICS_PORT                  serve /metrics on this port instead of the GraphQL one
  SHUTDOWN_GRACE_MS             on SIGTERM/SIGINT, wait this long for operations in flight (default ${DEFAULT_SHUTDOWN_GRACE_MS})
  COMPRESSION_MIN_BYTES         gzip/br answers from this size; off disables (default ${DEFAULT_COMPRESSION_MIN_BYTES})
  OTEL_EXPORTER_OTLP_ENDPOINT   OTLP/HTTP collector URL; traces are off without it
  OTEL_SERVICE_NAME             service name on spans (default plans-graphql-gateway)
  SUBSCRIPTION_BUDGET_SHARE     share of each token's quota its subscriptions may poll with (default ${DEFAULT_LIVE.budgetShare})
  SUBSCRIPTIONS_PER_TOKEN       subscriptions one token may hold at once (default ${DEFAULT_LIVE.maxSubscriptionsPerToken})
  SUBSCRIPTIONS_PER_CONNECTION  operations at once on one WebSocket (default ${DEFAULT_LIVE.maxSubscriptionsPerConnection})
  WS_HEARTBEAT_SECONDS          WebSocket ping interval (default ${DEFAULT_LIVE.heartbeatMs / 1000})
  CALLBACK_SUBSCRIPTIONS        subscriptions routers hold at once over HTTP callbacks, per instance (default ${DEFAULT_LIVE.maxCallbackSubscriptions})
  CALLBACK_HEARTBEAT_SECONDS    longest heartbeat interval a router may ask for a callback subscription (default ${DEFAULT_LIVE.maxCallbackHeartbeatMs / 1000})
  WS_IDLE_SECONDS               close a WebSocket without operations after this long (default ${DEFAULT_LIVE.idleTimeoutMs / 1000})
  SUBSCRIPTION_EVENT_ROWS       rows per subscription event, up to 500; a replay is split (default ${DEFAULT_LIVE.eventRows})
  SUBSCRIPTION_EVENT_KB         KiB of row data per subscription event (default ${DEFAULT_LIVE.eventBytes / 1024})
  SUBSCRIPTION_PENDING_KB       KiB of changes kept for a subscriber not reading, then it ends (default ${DEFAULT_LIVE.pendingBytesPerSubscriber / 1024})
  RECONCILE_HOURS               compare each plan read in this period with a full export, repair drift; 0 = off (default ${DEFAULT_LIVE.reconcileMs / 3_600_000})
  REDIS_URL                     redis:// or rediss:// URL: instances share quota, syncs and snapshots (default: alone)
  REDIS_KEY_PREFIX              prefix of every Redis key and channel (default ${DEFAULT_CLUSTER.keyPrefix})
  REDIS_SNAPSHOT_TTL_SECONDS    snapshots and delta logs expire this long after their last write (default ${DEFAULT_CLUSTER.snapshotTtlMs / 1000})
  REDIS_SNAPSHOT_MAX_MB         larger sealed snapshots are not stored (default ${DEFAULT_CLUSTER.maxSnapshotBytes / 1024 / 1024})
  REDIS_COMMAND_TIMEOUT_MS      a Redis round trip slower than this takes Redis out until it answers again (default ${DEFAULT_CLUSTER.commandTimeoutMs})
  MCP                           the MCP server at /mcp on the GraphQL port (default on)
  MCP_WRITES                    MCP write tools: create, update, assign (default off: read-only)
  MCP_GRAPHQL_TOOL              the MCP graphql tool: any operation within the limits (default off)
  MCP_SCHEMA_SEARCH             the MCP search_schema tool (default off)
  MCP_TRUSTED_DOCUMENT_TOOLS    the TRUSTED_DOCUMENTS manifest's named operations as MCP tools (default off)
  MCP_SESSION_IDLE_SECONDS      close an MCP session idle this long (default ${DEFAULT_MCP.sessionIdleMs / 1000})
  MCP_SUBSCRIPTIONS_PER_PLAN    resource URIs one MCP session may subscribe to in one plan (default ${DEFAULT_MCP.subscriptionsPerPlan})
  MCP_SUBSCRIPTIONS_PER_SESSION resource URIs one MCP session may subscribe to in all (default ${DEFAULT_MCP.subscriptionsPerSession})
  SEAL_KEY                      the operator's key: 32 bytes (base64 or 64 hex digits) that seal all webhooks and sign-in keep
  WEBHOOK_KEY                   SEAL_KEY's former name, still read when SEAL_KEY is unset; webhooks are off without either
  OAUTH_CLIENT_ID               the gateway's OAuth application upstream: sign-in on (needs the three below)
  OAUTH_CLIENT_SECRET           that application's secret
  PUBLIC_URL                    the gateway's public URL, whose /auth/callback is the application's redirect URI
  OAUTH_URL                     the upstream's OAuth origin (default https://app.ynab.com for api.ynab.com, else UPSTREAM_URL's origin)
  OAUTH_SCOPE                   read-only to ask for read access only (default: full access)
  SIGN_IN_DB                    the grants' and sessions' SQLite file (default DATA_DIR/sign-in.db)
  SESSION_DAYS                  a browser session unused this long ends (default ${DEFAULT_SIGN_IN.sessionTtlMs / 86_400_000})
  DATA_DIR                      where the gateway keeps files (default ./data)
  WEBHOOK_DB                    the webhooks' SQLite file (default DATA_DIR/webhooks.db)
  WEBHOOK_ALLOW_PRIVATE_TARGETS deliver to private and loopback addresses, and http on loopback (default off)
  WEBHOOK_TIMEOUT_SECONDS       a delivery not answered within this fails (default ${DEFAULT_WEBHOOKS.timeoutMs / 1000})
  WEBHOOK_CONCURRENCY           deliveries in flight at once on an instance (default ${DEFAULT_WEBHOOKS.concurrency})
  WEBHOOK_SECRET_OVERLAP_HOURS  after a rotation the old secret also signs this long (default ${DEFAULT_WEBHOOKS.secretOverlapMs / 3_600_000})
  WEBHOOK_RETRY_HOURS           retry a failing event this long, then disable its endpoint (default ${DEFAULT_WEBHOOKS.retryWindowMs / 3_600_000})
  PLANS_TOKEN                   mcp over stdio: the upstream token (else YNAB_TOKEN; embedded: the demo token)

  --help       show this help
  --version    print the version
`;

/** Parses `--help`, `--version` and the environment; never exits, never throws on bad input. */
export function parseSettings(
  argv: readonly string[],
  env: Env,
  { stdoutIsTTY = false }: { stdoutIsTTY?: boolean } = {},
): SettingsParse {
  let command: Command = 'serve';
  for (const [index, arg] of argv.entries()) {
    if (arg === 'mcp' && index === 0) {
      command = 'mcp';
      continue;
    }
    if (arg === '--help' || arg === '-h') return { kind: 'help' };
    if (arg === '--version' || arg === '-v') return { kind: 'version' };
    return {
      kind: 'error',
      message: `unknown argument '${arg}': settings are environment variables (see --help)`,
    };
  }
  try {
    const production = env.NODE_ENV === 'production';
    const upstream = optional(env, 'UPSTREAM_URL', upstreamUrl);
    // The embedded sandbox holds only demo data: production hides GraphiQL and the schema from
    // strangers only in front of a real upstream, so the image's demo opens in a browser.
    const exploreByDefault = !production || upstream === undefined;
    const metricsPort = optional(env, 'METRICS_PORT', (v, n) => integer(v, n, 0, 65_535));
    const manifestPath = optional(env, 'TRUSTED_DOCUMENTS', nonEmpty);
    const trustedOnly = optional(env, 'TRUSTED_DOCUMENTS_ONLY', boolean) ?? false;
    if (trustedOnly && manifestPath === undefined)
      throw new SettingError('TRUSTED_DOCUMENTS_ONLY needs TRUSTED_DOCUMENTS (the manifest path)');
    if (
      (optional(env, 'MCP_TRUSTED_DOCUMENT_TOOLS', boolean) ?? false) &&
      manifestPath === undefined
    )
      throw new SettingError(
        'MCP_TRUSTED_DOCUMENT_TOOLS needs TRUSTED_DOCUMENTS (the manifest path)',
      );
    const compression = optional(env, 'COMPRESSION_MIN_BYTES', (v, n) =>
      isOff(v) ? false : integer(v, n, 0, 1024 * 1024 * 1024),
    );
    return {
      kind: 'run',
      command,
      settings: {
        port: optional(env, 'PORT', (v, n) => integer(v, n, 0, 65_535)) ?? DEFAULT_PORT,
        host: optional(env, 'HOST', nonEmpty) ?? DEFAULT_HOST,
        upstreamUrl: upstream,
        maxAgeMs:
          (optional(env, 'MAX_AGE_SECONDS', (v, n) => integer(v, n, 0, 86_400)) ??
            DEFAULT_MAX_AGE_MS / 1000) * 1000,
        replicaMaxBytes:
          (optional(env, 'REPLICA_MAX_MB', (v, n) => integer(v, n, 1, 1024 * 1024)) ??
            defaultReplicaBytes() / 1024 / 1024) *
          1024 *
          1024,
        restCacheMaxBytes:
          (optional(env, 'REST_CACHE_MAX_MB', (v, n) => integer(v, n, 1, 1024 * 1024)) ??
            DEFAULT_REST_CACHE_BYTES / 1024 / 1024) *
          1024 *
          1024,
        operationDeadlineMs:
          (optional(env, 'OPERATION_DEADLINE_SECONDS', (v, n) => integer(v, n, 1, 3_600)) ??
            DEFAULT_OPERATION_DEADLINE_MS / 1000) * 1000,
        costLimitMode: optional(env, 'COST_LIMIT_MODE', costMode) ?? 'enforce',
        maxDocumentBytes:
          optional(env, 'MAX_DOCUMENT_BYTES', (v, n) =>
            integer(v, n, 1_024, DEFAULT_LIMITS.bodyBytes),
          ) ?? DEFAULT_LIMITS.documentBytes,
        documentCacheMaxBytes:
          (optional(env, 'DOCUMENT_CACHE_MAX_MB', (v, n) => integer(v, n, 1, 4_096)) ??
            DEFAULT_DOCUMENT_CACHE.maxBytes / 1024 / 1024) *
          1024 *
          1024,
        corsOrigins: optional(env, 'CORS_ORIGINS', corsOrigins) ?? '*',
        corsExtraHeaders: optional(env, 'CORS_ALLOWED_HEADERS', headerNames) ?? [],
        persistedQueries: optional(env, 'PERSISTED_QUERIES', boolean) ?? true,
        trustedDocuments:
          manifestPath === undefined ? undefined : { manifestPath, only: trustedOnly },
        httpCaching: optional(env, 'HTTP_CACHING', boolean) ?? true,
        answerCacheMaxBytes:
          (optional(env, 'ANSWER_CACHE_MAX_MB', (v, n) => integer(v, n, 0, 4_096)) ??
            DEFAULT_HTTP_CACHING.answerMaxBytes / 1024 / 1024) *
          1024 *
          1024,
        production,
        graphiql: optional(env, 'GRAPHIQL', boolean) ?? exploreByDefault,
        introspection: optional(env, 'INTROSPECTION', boolean) ?? exploreByDefault,
        subgraph: optional(env, 'SUBGRAPH', boolean) ?? true,
        compiledQueries: optional(env, 'COMPILED_QUERIES', boolean) ?? true,
        directMisses: optional(env, 'DIRECT_MISSES', boolean) ?? true,
        logLevel: optional(env, 'LOG_LEVEL', logLevel) ?? 'info',
        prettyLogs: optional(env, 'LOG_FORMAT', logFormat) ?? stdoutIsTTY,
        metrics: optional(env, 'METRICS', boolean) ?? true,
        metricsPort,
        shutdownGraceMs:
          optional(env, 'SHUTDOWN_GRACE_MS', (v, n) => integer(v, n, 0, 3_600_000)) ??
          DEFAULT_SHUTDOWN_GRACE_MS,
        compressionMinBytes: compression ?? DEFAULT_COMPRESSION_MIN_BYTES,
        otlpEndpoint: optional(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', httpUrl),
        serviceName: optional(env, 'OTEL_SERVICE_NAME', nonEmpty) ?? 'plans-graphql-gateway',
        live: liveSettings(env),
        redisUrl: optional(env, 'REDIS_URL', redisUrl),
        cluster: clusterSettings(env),
        mcp: mcpSettings(env),
        sealKey: sealKey(env),
        webhooks: webhookSettings(env),
        signIn: signInSettings(env, upstream),
        mcpToken: optional(env, 'PLANS_TOKEN', nonEmpty) ?? optional(env, 'YNAB_TOKEN', nonEmpty),
      },
    };
  } catch (error) {
    if (error instanceof SettingError) return { kind: 'error', message: error.message };
    throw error;
  }
}

function liveSettings(env: Env): LiveConfig {
  const seconds = (name: string, fallbackMs: number) =>
    (optional(env, name, (v, n) => integer(v, n, 1, 86_400)) ?? fallbackMs / 1000) * 1000;
  const kib = (name: string, fallbackBytes: number, max: number) =>
    (optional(env, name, (v, n) => integer(v, n, 1, max)) ?? fallbackBytes / 1024) * 1024;
  return {
    budgetShare: optional(env, 'SUBSCRIPTION_BUDGET_SHARE', fraction) ?? DEFAULT_LIVE.budgetShare,
    maxSubscriptionsPerToken:
      optional(env, 'SUBSCRIPTIONS_PER_TOKEN', (v, n) => integer(v, n, 1, 100_000)) ??
      DEFAULT_LIVE.maxSubscriptionsPerToken,
    maxSubscriptionsPerConnection:
      optional(env, 'SUBSCRIPTIONS_PER_CONNECTION', (v, n) => integer(v, n, 1, 10_000)) ??
      DEFAULT_LIVE.maxSubscriptionsPerConnection,
    heartbeatMs: seconds('WS_HEARTBEAT_SECONDS', DEFAULT_LIVE.heartbeatMs),
    maxCallbackSubscriptions:
      optional(env, 'CALLBACK_SUBSCRIPTIONS', (v, n) => integer(v, n, 1, 100_000)) ??
      DEFAULT_LIVE.maxCallbackSubscriptions,
    maxCallbackHeartbeatMs: seconds(
      'CALLBACK_HEARTBEAT_SECONDS',
      DEFAULT_LIVE.maxCallbackHeartbeatMs,
    ),
    // One switch for every URL the gateway posts to (webhook targets, routers' callbacks).
    callbackAllowPrivateTargets:
      optional(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', boolean) ??
      DEFAULT_LIVE.callbackAllowPrivateTargets,
    idleTimeoutMs: seconds('WS_IDLE_SECONDS', DEFAULT_LIVE.idleTimeoutMs),
    eventRows:
      optional(env, 'SUBSCRIPTION_EVENT_ROWS', (v, n) => integer(v, n, 1, 500)) ??
      DEFAULT_LIVE.eventRows,
    eventBytes: kib('SUBSCRIPTION_EVENT_KB', DEFAULT_LIVE.eventBytes, 16_384),
    pendingBytesPerSubscriber: kib(
      'SUBSCRIPTION_PENDING_KB',
      DEFAULT_LIVE.pendingBytesPerSubscriber,
      1_048_576,
    ),
    reconcileMs:
      (optional(env, 'RECONCILE_HOURS', (v, n) => integer(v, n, 0, 168)) ??
        DEFAULT_LIVE.reconcileMs / 3_600_000) * 3_600_000,
  };
}

function mcpSettings(env: Env): McpConfig {
  return {
    ...DEFAULT_MCP,
    path: (optional(env, 'MCP', boolean) ?? true) ? DEFAULT_MCP.path : false,
    writes: optional(env, 'MCP_WRITES', boolean) ?? DEFAULT_MCP.writes,
    graphqlTool: optional(env, 'MCP_GRAPHQL_TOOL', boolean) ?? DEFAULT_MCP.graphqlTool,
    schemaSearch: optional(env, 'MCP_SCHEMA_SEARCH', boolean) ?? DEFAULT_MCP.schemaSearch,
    trustedDocumentTools:
      optional(env, 'MCP_TRUSTED_DOCUMENT_TOOLS', boolean) ?? DEFAULT_MCP.trustedDocumentTools,
    sessionIdleMs:
      (optional(env, 'MCP_SESSION_IDLE_SECONDS', (v, n) => integer(v, n, 10, 86_400)) ??
        DEFAULT_MCP.sessionIdleMs / 1000) * 1000,
    subscriptionsPerPlan:
      optional(env, 'MCP_SUBSCRIPTIONS_PER_PLAN', (v, n) => integer(v, n, 1, 1_000)) ??
      DEFAULT_MCP.subscriptionsPerPlan,
    subscriptionsPerSession:
      optional(env, 'MCP_SUBSCRIPTIONS_PER_SESSION', (v, n) => integer(v, n, 1, 10_000)) ??
      DEFAULT_MCP.subscriptionsPerSession,
  };
}

/**
 * The operator's key: SEAL_KEY, else WEBHOOK_KEY, its former name. Both set must be one key: a
 * webhook store sealed under WEBHOOK_KEY opens under SEAL_KEY only when the bytes are the same.
 */
function sealKey(env: Env): Uint8Array | undefined {
  const key = optional(env, 'SEAL_KEY', operatorKey);
  const former = optional(env, 'WEBHOOK_KEY', operatorKey);
  if (key && former && !Buffer.from(key).equals(Buffer.from(former)))
    throw new SettingError(
      'SEAL_KEY and WEBHOOK_KEY differ: WEBHOOK_KEY is SEAL_KEY\'s former name, and the webhook store opens only under the key it was sealed with. Set SEAL_KEY to the value of WEBHOOK_KEY and drop WEBHOOK_KEY (docs/sign-in.md, "Operator secrets")',
    );
  return key ?? former;
}

function dataDirOf(env: Env): string {
  return (optional(env, 'DATA_DIR', nonEmpty) ?? './data').replace(/\/+$/, '');
}

function signInSettings(env: Env, upstream: string | undefined): SignInSettings | undefined {
  const clientId = optional(env, 'OAUTH_CLIENT_ID', nonEmpty);
  const clientSecret = optional(env, 'OAUTH_CLIENT_SECRET', nonEmpty);
  const publicUrl = optional(env, 'PUBLIC_URL', httpUrl);
  const sessionTtlMs =
    (optional(env, 'SESSION_DAYS', (v, n) => integer(v, n, 1, 365)) ??
      DEFAULT_SIGN_IN.sessionTtlMs / 86_400_000) * 86_400_000;
  const scope = optional(env, 'OAUTH_SCOPE', oauthScope);
  const databasePath = optional(env, 'SIGN_IN_DB', nonEmpty) ?? `${dataDirOf(env)}/sign-in.db`;
  const oauthOrigin = optional(env, 'OAUTH_URL', httpUrl);
  if (clientId === undefined) {
    if (clientSecret !== undefined)
      throw new SettingError(
        'OAUTH_CLIENT_SECRET needs OAUTH_CLIENT_ID (the application it is the secret of)',
      );
    return undefined;
  }
  if (clientSecret === undefined)
    throw new SettingError("OAUTH_CLIENT_ID needs OAUTH_CLIENT_SECRET (the application's secret)");
  if (sealKey(env) === undefined)
    throw new SettingError(
      'OAUTH_CLIENT_ID needs SEAL_KEY: grants hold upstream tokens, sealed at rest under it (openssl rand -base64 32)',
    );
  if (publicUrl === undefined && upstream !== undefined)
    throw new SettingError(
      "OAUTH_CLIENT_ID needs PUBLIC_URL: the gateway's URL as browsers reach it, whose /auth/callback the application registers",
    );
  return {
    clientId,
    clientSecret,
    publicOrigin: publicUrl === undefined ? undefined : new URL(publicUrl).origin,
    oauthOrigin: oauthOrigin === undefined ? undefined : new URL(oauthOrigin).origin,
    scope,
    databasePath,
    sessionTtlMs,
  };
}

function oauthScope(value: string, name: string): 'read-only' {
  if (value !== 'read-only')
    throw new SettingError(
      `${name} must be read-only (or unset for full access); got ${show(value)}`,
    );
  return value;
}

function webhookSettings(env: Env): WebhooksConfig | undefined {
  const key = sealKey(env);
  if (key === undefined) return undefined;
  const dataDir = dataDirOf(env);
  const hours = (value: string, name: string) => integer(value, name, 1, 24 * 30) * 3_600_000;
  return {
    ...DEFAULT_WEBHOOKS,
    key,
    databasePath:
      optional(env, 'WEBHOOK_DB', nonEmpty) ?? `${dataDir.replace(/\/+$/, '')}/webhooks.db`,
    allowPrivateTargets:
      optional(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', boolean) ??
      DEFAULT_WEBHOOKS.allowPrivateTargets,
    timeoutMs:
      (optional(env, 'WEBHOOK_TIMEOUT_SECONDS', (v, n) => integer(v, n, 1, 60)) ??
        DEFAULT_WEBHOOKS.timeoutMs / 1000) * 1000,
    concurrency:
      optional(env, 'WEBHOOK_CONCURRENCY', (v, n) => integer(v, n, 1, 1_000)) ??
      DEFAULT_WEBHOOKS.concurrency,
    secretOverlapMs:
      optional(env, 'WEBHOOK_SECRET_OVERLAP_HOURS', hours) ?? DEFAULT_WEBHOOKS.secretOverlapMs,
    retryWindowMs: optional(env, 'WEBHOOK_RETRY_HOURS', hours) ?? DEFAULT_WEBHOOKS.retryWindowMs,
  };
}

// Private: the operator's key: 32 bytes, as base64 or 64 hex digits; never echoed.
function operatorKey(value: string, name: string): Uint8Array {
  const bytes = /^[0-9a-f]{64}$/i.test(value)
    ? Buffer.from(value, 'hex')
    : /^[A-Za-z0-9+/_-]+={0,2}$/.test(value)
      ? Buffer.from(value, 'base64')
      : undefined;
  if (bytes?.byteLength !== 32)
    throw new SettingError(
      `${name} must be 32 random bytes as base64 or 64 hex digits (openssl rand -base64 32); got ${value.length} characters that are not`,
    );
  return bytes;
}

function clusterSettings(env: Env): ClusterConfig {
  return {
    ...DEFAULT_CLUSTER,
    keyPrefix: optional(env, 'REDIS_KEY_PREFIX', keyPrefix) ?? DEFAULT_CLUSTER.keyPrefix,
    snapshotTtlMs:
      (optional(env, 'REDIS_SNAPSHOT_TTL_SECONDS', (v, n) => integer(v, n, 60, 30 * 86_400)) ??
        DEFAULT_CLUSTER.snapshotTtlMs / 1000) * 1000,
    maxSnapshotBytes:
      (optional(env, 'REDIS_SNAPSHOT_MAX_MB', (v, n) => integer(v, n, 1, 512)) ??
        DEFAULT_CLUSTER.maxSnapshotBytes / 1024 / 1024) *
      1024 *
      1024,
    commandTimeoutMs:
      optional(env, 'REDIS_COMMAND_TIMEOUT_MS', (v, n) => integer(v, n, 50, 10_000)) ??
      DEFAULT_CLUSTER.commandTimeoutMs,
  };
}

// Private: where a cluster of instances meets; the password, if any, is never echoed.
function redisUrl(value: string, name: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'redis:' && url.protocol !== 'rediss:') || !url.host)
    throw new SettingError(
      `${name} must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379; got ${show(value.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@'))}`,
    );
  return value;
}

function keyPrefix(value: string, name: string): string {
  if (!/^[\w:.-]{1,64}$/.test(value))
    throw new SettingError(
      `${name} must be 1 to 64 letters, digits or _ : . -; got ${show(value)}`,
    );
  return value;
}

// Private: a share of a budget, above 0 and at most 1.
function fraction(value: string, name: string): number {
  const number = Number(value);
  if (!/^\d*\.?\d+$/.test(value) || !(number > 0 && number <= 1))
    throw new SettingError(`${name} must be a number above 0 and at most 1; got ${show(value)}`);
  return number;
}

// Private: an unset or empty variable means "use the default".
function optional<T>(env: Env, name: string, parse: (value: string, name: string) => T) {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  return parse(raw.trim(), name);
}

function show(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value);
}

function integer(value: string, name: string, min: number, max: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max)
    throw new SettingError(`${name} must be an integer from ${min} to ${max}; got ${show(value)}`);
  return Number(value);
}

function nonEmpty(value: string): string {
  return value;
}

const ON = ['on', 'true', '1', 'yes'];
const OFF = ['off', 'false', '0', 'no'];

function isOff(value: string): boolean {
  return OFF.includes(value.toLowerCase());
}

function boolean(value: string, name: string): boolean {
  const lower = value.toLowerCase();
  if (ON.includes(lower)) return true;
  if (OFF.includes(lower)) return false;
  throw new SettingError(`${name} must be on or off (also true/false, 1/0); got ${show(value)}`);
}

function logLevel(value: string, name: string): LogLevel {
  const lower = value.toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(lower))
    throw new SettingError(`${name} must be one of ${LOG_LEVELS.join(', ')}; got ${show(value)}`);
  return lower as LogLevel;
}

function costMode(value: string, name: string): CostMode {
  const lower = value.toLowerCase();
  if (lower === 'enforce' || lower === 'measure') return lower;
  throw new SettingError(`${name} must be enforce or measure; got ${show(value)}`);
}

function logFormat(value: string, name: string): boolean {
  const lower = value.toLowerCase();
  if (lower === 'pretty') return true;
  if (lower === 'json') return false;
  throw new SettingError(`${name} must be json or pretty; got ${show(value)}`);
}

function httpUrl(value: string, name: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SettingError(`${name} must be an absolute http(s) URL; got ${show(value)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new SettingError(`${name} must use http or https; got ${show(value)}`);
  return value.replace(/\/+$/, '');
}

function upstreamUrl(value: string, name: string): string {
  const url = httpUrl(value, name);
  if (!/\/v1$/.test(new URL(url).pathname.replace(/\/+$/, '')))
    throw new SettingError(
      `${name} must end with the /v1 version segment, such as https://api.ynab.com/v1; got ${show(value)}`,
    );
  return url;
}

function headerNames(value: string, name: string): string[] {
  const names = value
    .split(',')
    .map((header) => header.trim().toLowerCase())
    .filter(Boolean);
  for (const header of names) {
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(header))
      throw new SettingError(
        `${name} must list header names such as x-team-id; got ${show(header)}`,
      );
  }
  return names;
}

function corsOrigins(value: string, name: string): '*' | string[] {
  if (value === '*') return '*';
  const origins = value
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    // An origin is scheme://host[:port] exactly; `null` is what sandboxed frames send, never a grant.
    if (parsed === undefined || parsed.origin !== origin)
      throw new SettingError(
        `${name} must list origins such as https://app.example.com (scheme, host, optional port), or *; got ${show(origin)}`,
      );
  }
  return origins;
}
