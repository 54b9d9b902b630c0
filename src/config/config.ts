/** Everything a gateway instance can be told, with the defaults `npm start` uses. */
import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';

/**
 * @default 30 s: a screen polled without pause costs at most 120 delta requests an hour, well
 * inside the upstream's 200 per token, leaving room for writes and other plans.
 */
export const DEFAULT_MAX_AGE_MS = 30_000;
/**
 * The least default budget of every cached replica: what the default was before it followed the
 * process's memory, and what a process with little memory still gets.
 */
export const MIN_DEFAULT_REPLICA_BYTES = 64 * 1024 * 1024;
/** The share of the process's memory the replicas get by default: the rest is the gateway's. */
export const REPLICA_MEMORY_SHARE = 0.5;

/**
 * The memory this process may use, in bytes: the least of V8's heap limit (`--max-old-space-size`
 * or V8's own choice), the cgroup's limit (a container's memory; Node reports it), and the
 * machine's memory. Replicas live in the heap: past its limit the process dies, whatever the
 * machine has.
 */
export function processMemoryBytes(
  heapLimit = getHeapStatistics().heap_size_limit,
  constrained = process.constrainedMemory?.() ?? 0,
  machine = totalmem(),
): number {
  // Without a cgroup limit Node reports 0 or a huge number: neither limits anything.
  const container = constrained > 0 && constrained < machine ? constrained : machine;
  return Math.min(heapLimit, container, machine);
}

/**
 * The default of `REPLICA_MAX_MB`: half the process's memory (`processMemoryBytes`), at least
 * 64 MiB. A 1,000,000-transaction plan (a 600 MB export, read within a budget of 1.25 times its
 * bytes) loads with the defaults where the heap allows about 1.5 GB (Node's own limit on a
 * machine of 8 GB is about 4 GB); where it cannot, it is refused with an error naming
 * `REPLICA_MAX_MB`, never loaded into an out-of-memory crash.
 */
export function defaultReplicaBytes(memory = processMemoryBytes()): number {
  const share = Math.floor((memory * REPLICA_MEMORY_SHARE) / (1024 * 1024)) * 1024 * 1024;
  return Math.max(MIN_DEFAULT_REPLICA_BYTES, share);
}
/** @default 20 s: a cold read used to wait up to 90 s (3 attempts of 30 s) on a hung upstream. */
export const DEFAULT_OPERATION_DEADLINE_MS = 20_000;
/** @default 16 MiB across every token's cached user, plan list and money movements. */
export const DEFAULT_REST_CACHE_BYTES = 16 * 1024 * 1024;
export const DEFAULT_PORT = 4000;

export interface Limits {
  /** Deepest selection nesting. @default 12 */
  depth: number;
  /** Cost: fields weighted by list and page sizes (Pothos complexity; see src/schema/cost.ts). @default 100_000 */
  complexity: number;
  /**
   * `enforce` refuses an operation over `complexity`; `measure` runs it and logs what would
   * have been refused (`wouldRefuse` on its log line), to try a limit before enforcing it.
   * @default 'enforce'
   */
  costMode?: CostMode;
  /** Total selections in an operation. @default 1_000 */
  breadth: number;
  /** Aliases in one operation. @default 30 */
  aliases: number;
  /** Lexical tokens in a document. @default 5_000 */
  tokens: number;
  /** Directives in one operation. @default 20 */
  directives: number;
  /** Operations in one batched HTTP request. @default 5 */
  batch: number;
  /** Request body bytes. @default 1 MiB */
  bodyBytes: number;
  /**
   * Bytes of one document's text, comments included (real operations are a few kilobytes).
   * @default 100 KiB
   */
  documentBytes: number;
  /**
   * Brackets and braces open at once in a document, and levels of arrays and objects in its
   * variables: a list literal nested thousands deep would overflow the parser's stack.
   * @default 64
   */
  nesting: number;
}

/** What the cost limit does with an operation over it (`Limits.costMode`). */
export type CostMode = 'enforce' | 'measure';

export const DEFAULT_LIMITS: Limits = {
  depth: 12,
  complexity: 100_000,
  costMode: 'enforce',
  breadth: 1_000,
  aliases: 30,
  tokens: 5_000,
  directives: 20,
  batch: 5,
  bodyBytes: 1024 * 1024,
  documentBytes: 100 * 1024,
  nesting: 64,
};

/**
 * Parsed documents kept for reuse, by the SHA-256 of their text. Only documents that passed
 * admission and validation are kept; a failed parse never is.
 */
export interface DocumentCacheConfig {
  /** Estimated heap bytes of the documents kept (text, tokens and syntax tree). @default 32 MiB */
  maxBytes: number;
  /** Documents kept. @default 1_000 */
  maxEntries: number;
}

export const DEFAULT_DOCUMENT_CACHE: DocumentCacheConfig = {
  maxBytes: 32 * 1024 * 1024,
  maxEntries: 1_000,
};

/** Live updates (GraphQL subscriptions); see src/live/README.md. */
export interface LiveConfig {
  /**
   * Share of each token's upstream quota the pollers of its subscriptions may spend; the rest
   * stays for its reads and writes. With 200 an hour and 0.5, a plan is polled every 36 s.
   * @default 0.5
   */
  budgetShare: number;
  /** Subscriptions one token may hold at once on one instance. @default 100 */
  maxSubscriptionsPerToken: number;
  /** Operations at once on one WebSocket connection. @default 20 */
  maxSubscriptionsPerConnection: number;
  /** WebSocket ping interval; a connection that misses its pong is closed. @default 12_000 */
  heartbeatMs: number;
  /**
   * Subscriptions a router holds at once on one instance over the HTTP callback protocol
   * (`/subgraph`; src/server/callback-subscriptions.ts). @default 1_000
   */
  maxCallbackSubscriptions: number;
  /**
   * The longest heartbeat interval a router may ask of a callback subscription (its
   * `heartbeatIntervalMs`; 0, "none", gets this one): a router that stops answering is noticed
   * within it. @default 60_000
   */
  maxCallbackHeartbeatMs: number;
  /**
   * Callback URLs may reach private and loopback addresses (and http on loopback): the same
   * switch and rules as webhook targets (`WEBHOOK_ALLOW_PRIVATE_TARGETS`, src/webhooks/target.ts).
   * @default false
   */
  callbackAllowPrivateTargets: boolean;
  /** A WebSocket connection without any operation for this long is closed. @default 60_000 */
  idleTimeoutMs: number;
  /**
   * Rows per subscription event (1 to 500: subscriptions are priced for 500); a replay or a
   * larger change is split into several events. @default 500
   */
  eventRows: number;
  /** Bytes of row data (JSON) per subscription event. @default 262_144 (256 KiB) */
  eventBytes: number;
  /**
   * Bytes of changes that may wait for a subscriber that is not reading; past them it is ended
   * with `SUBSCRIBER_TOO_SLOW`. @default 2_097_152 (2 MiB)
   */
  pendingBytesPerSubscriber: number;
  /**
   * Time between two reconciliations: each plan read in the period is compared with a full
   * export and repaired if it drifted (src/live/reconciler.ts); 0 turns them off.
   * @default 86_400_000 (daily)
   */
  reconcileMs: number;
}

export const DEFAULT_LIVE: LiveConfig = {
  budgetShare: 0.5,
  maxSubscriptionsPerToken: 100,
  maxSubscriptionsPerConnection: 20,
  heartbeatMs: 12_000,
  maxCallbackSubscriptions: 1_000,
  maxCallbackHeartbeatMs: 60_000,
  callbackAllowPrivateTargets: false,
  idleTimeoutMs: 60_000,
  eventRows: 500,
  eventBytes: 256 * 1024,
  pendingBytesPerSubscriber: 2 * 1024 * 1024,
  reconcileMs: 24 * 3_600_000,
};

/** Several instances cooperating through Redis (`redisUrl`); see src/cluster/README.md. */
export interface ClusterConfig {
  /** Prefix of every Redis key and channel, so one Redis can serve several deployments. @default 'pgw:' */
  keyPrefix: string;
  /** Snapshots, delta logs and alias pointers expire this long after their last write. @default 86_400_000 (24 h) */
  snapshotTtlMs: number;
  /** A sealed snapshot larger than this is not stored (its plan warms with an export). @default 64 MiB */
  maxSnapshotBytes: number;
  /**
   * Lease of one upstream sync across instances, renewed while the sync runs: the longest other
   * instances wait when its holder dies mid-sync. @default 5_000
   */
  flightLeaseMs: number;
  /**
   * Longest wait for another instance's upstream sync of the same plan before sending one's own,
   * while that sync shows no progress. @default 30_000
   */
  flightMaxWaitMs: number;
  /**
   * Past `flightMaxWaitMs`, a plan export waits on while the other instance's export keeps
   * receiving its body: its lease's progress marker moved within this long (a large plan's first
   * load takes minutes; sending it twice would spend what the single flight saves). @default 5_000
   */
  flightStallMs: number;
  /** Longest wait for another instance's sync, progress or not. @default 300_000 */
  flightMaxLoadWaitMs: number;
  /**
   * A Redis round trip slower than this counts as failed, and takes Redis out (every instance
   * goes on alone) until a `PING` answers within it again: the longest a request waits on a
   * Redis that hangs, twice that for a sync waiting for another instance's. @default 1_000
   */
  commandTimeoutMs: number;
}

export const DEFAULT_CLUSTER: ClusterConfig = {
  keyPrefix: 'pgw:',
  snapshotTtlMs: 86_400_000,
  maxSnapshotBytes: 64 * 1024 * 1024,
  flightLeaseMs: 5_000,
  flightMaxWaitMs: 30_000,
  flightStallMs: 5_000,
  flightMaxLoadWaitMs: 300_000,
  commandTimeoutMs: 1_000,
};

/**
 * Request headers browsers may send from other origins: what mainstream GraphQL clients, tracing
 * and error-reporting libraries add. Tokens are bearer, never cookies, so allowing a header grants
 * nothing by itself; an unlisted one makes the browser refuse the request before it is sent.
 */
export const DEFAULT_CORS_ALLOWED_HEADERS: readonly string[] = [
  'authorization',
  'content-type',
  'accept',
  'cache-control',
  'if-none-match',
  'x-upstream-metrics',
  'x-plans-explain',
  'x-graphql-yoga-csrf',
  'apollo-require-preflight',
  'x-apollo-operation-name',
  'apollographql-client-name',
  'apollographql-client-version',
  'graphql-client-name',
  'graphql-client-version',
  'x-graphql-client-name',
  'x-graphql-client-version',
  'traceparent',
  'tracestate',
  'baggage',
  'sentry-trace',
  'x-request-id',
  // Offline write queues replay writes with it (src/writes/idempotency.ts).
  'idempotency-key',
  // Browser sign-in's sign-out: a header a page elsewhere cannot send without a preflight.
  'x-requested-with',
];

/** Automatic persisted queries (Apollo's protocol): hash-only requests after a first full one. */
export interface PersistedQueriesConfig {
  /** Documents remembered by hash, least recently used evicted. @default 1_000 */
  maxEntries: number;
  /** Bytes of document text remembered in all. @default 16 MiB */
  maxBytes: number;
}

export const DEFAULT_PERSISTED_QUERIES: PersistedQueriesConfig = {
  maxEntries: 1_000,
  maxBytes: 16 * 1024 * 1024,
};

/** Registered operations: the manifest graphql-codegen's client preset writes. */
export interface TrustedDocumentsConfig {
  /** JSON object of hash → document text (`persisted-documents.json`). */
  manifestPath: string;
  /**
   * Run only the manifest's operations; any other document is refused before execution, and
   * automatic persisted queries cannot register new ones. @default false
   */
  only: boolean;
}

/** `ETag` / `304 Not Modified` for queries sent with GET; the answer cache for GET and POST. */
export interface HttpCachingConfig {
  /** Operations whose last answer's dependencies are remembered for revalidation. @default 10_000 */
  maxEntries: number;
  /**
   * Byte budget of the answer cache (answers by ETag, replayed without execution while the
   * replicas they read are unchanged); 0 turns it off. @default 32 MiB
   */
  answerMaxBytes: number;
}

export const DEFAULT_HTTP_CACHING: HttpCachingConfig = {
  maxEntries: 10_000,
  answerMaxBytes: 32 * 1024 * 1024,
};

export interface GatewayConfig {
  /** REST base URL including `/v1`. Tokens are forwarded to this origin only. */
  upstreamUrl: string;
  /**
   * Replica and REST-cache freshness when the request says nothing, and the oldest data a
   * request may ask for (`Cache-Control: max-age` can only ask for fresher). @default 30_000
   */
  maxAgeMs: number;
  /** Byte budget of all replicas together. @default half the process's memory (`defaultReplicaBytes`) */
  replicaMaxBytes: number;
  /**
   * Byte budget of the REST cache (user, plan lists, money movements of every token), apart
   * from the replicas'. @default 16 MiB
   */
  restCacheMaxBytes: number;
  /**
   * How long one operation waits for the upstream in all (retries and queueing included);
   * past it, reads answer from what is held (marked stale) or with UPSTREAM_UNAVAILABLE. Writes
   * are never cut short. @default 20_000
   */
  operationDeadlineMs: number;
  /** The upstream's per-token quota, for `Query.rateLimit`. @default { limit: 200, windowMs: 3_600_000 } */
  rateLimit: { limit: number; windowMs: number };
  limits: Limits;
  /** The parsed-document cache of the admission path. @default DEFAULT_DOCUMENT_CACHE */
  documentCache: DocumentCacheConfig;
  /** Origins allowed to call from browsers; `*` allows any (tokens are bearer, never cookies). @default '*' */
  corsOrigins: '*' | string[];
  /** Request headers allowed from other origins. @default DEFAULT_CORS_ALLOWED_HEADERS */
  corsAllowedHeaders: readonly string[];
  /** Automatic persisted queries; `false` refuses hash-only requests. @default DEFAULT_PERSISTED_QUERIES */
  persistedQueries: PersistedQueriesConfig | false;
  /** A manifest of registered operations, optionally the only ones allowed. @default none */
  trustedDocuments?: TrustedDocumentsConfig;
  /** ETag revalidation of GET queries; `false` sends no ETag. @default DEFAULT_HTTP_CACHING */
  httpCaching: HttpCachingConfig | false;
  /**
   * When responses carry `extensions.upstream` (calls, cache hits, replica age): always, or only
   * when the request sends `X-Upstream-Metrics: 1`. @default 'always' in development
   */
  metrics: 'always' | 'on-request';
  /** Serve GraphiQL at the GraphQL endpoint. @default true (`npm start`: off with NODE_ENV=production) */
  graphiql: boolean;
  /**
   * Answer `__schema` / `__type` selections. Off, they are refused before execution with
   * INTROSPECTION_DISABLED (`__typename` stays allowed). Either way introspection counts toward
   * the depth, breadth, cost and alias limits. @default true (`npm start`: off with
   * NODE_ENV=production)
   */
  introspection: boolean;
  /**
   * Serve the graph as a Federation v2 subgraph at `/subgraph` on the GraphQL port (`_service`,
   * `_entities`; docs/federation.md), with the same replicas, limits and admission path.
   * @default true
   */
  subgraph: boolean;
  /**
   * Queries that can run compiled do, from a document's third run (compiled after its first repeat)
   * (`src/server/plugins/use-compiled-queries.ts`); off, every operation runs through graphql-js's
   * executor. @default true
   */
  compiledQueries: boolean;
  /**
   * Plain queries the answer cache cannot answer run without yoga's request handling
   * (`src/server/direct-miss.ts`), as yoga would run them. @default true
   */
  directMisses?: boolean;
  /** Path of the Prometheus text on the GraphQL port; `false` serves it nowhere. @default '/metrics' */
  metricsPath: string | false;
  /** gzip / br answers from this many bytes when the client accepts them; `false` never. @default 1024 */
  compressionMinBytes: number | false;
  /** Query GraphiQL opens with. */
  graphiqlDefaultQuery?: string;
  /** Headers GraphiQL opens with (e.g. the demo token in embedded mode). */
  graphiqlDefaultHeaders?: Record<string, string>;
  /** Subscriptions: their share of each token's quota and their limits. @default DEFAULT_LIVE */
  live: LiveConfig;
  /**
   * Redis (or Valkey) shared by every instance: the request ledger, one sync per (token, plan)
   * in the cluster, relayed deltas, snapshots, one poller per (token, plan). `redis://` or
   * `rediss://`. @default undefined: one process, everything in memory
   */
  redisUrl?: string;
  /** Tuning of the cluster tier (used with `redisUrl`). @default DEFAULT_CLUSTER */
  cluster: ClusterConfig;
  /**
   * Webhooks (src/webhooks, docs/webhooks.md): on only with the operator's key, which seals
   * everything they keep (the tokens they poll with, secrets, endpoints, the outbox). @default none: the mutations answer WEBHOOKS_DISABLED
   */
  webhooks?: WebhooksConfig;
  /**
   * Sign-in (src/sign-in, docs/sign-in.md): the gateway as the upstream's OAuth client, its
   * grants sealed under the operator's key, browser sessions at `/auth/*`. @default none: only
   * bearer tokens
   */
  signIn?: SignInConfig;
}

export interface SignInConfig {
  /** The operator's key (`SEAL_KEY`): seals every grant, session and sign-in in progress. */
  key: Uint8Array;
  /** The gateway's public origin (`PUBLIC_URL`): its `/auth/callback` is registered upstream. */
  publicOrigin: string;
  /** The upstream's OAuth origin (`/oauth/authorize`, `/oauth/token` at its root). */
  oauthOrigin: string;
  clientId: string;
  clientSecret: string;
  /** `read-only` asks for read access only. @default undefined: full access */
  scope?: 'read-only';
  /** The SQLite file of grants and sessions (without `redisUrl`); ':memory:' keeps them in memory. */
  databasePath: string;
  /** How long a session lives without being used. @default 30 days */
  sessionTtlMs: number;
  /** A grant's upstream token is refreshed this long before it expires. @default 5 minutes */
  refreshAheadMs: number;
  /** Sign-ins in progress kept at once; a flood pushes out the oldest. @default 1,000 */
  maxPendingSignIns: number;
  /** Grants (and sessions) kept at once, least recently made forgotten first. @default 100,000 */
  maxGrants: number;
}

export const DEFAULT_SIGN_IN: Pick<
  SignInConfig,
  'sessionTtlMs' | 'refreshAheadMs' | 'maxPendingSignIns' | 'maxGrants'
> = {
  sessionTtlMs: 30 * 86_400_000,
  refreshAheadMs: 5 * 60_000,
  maxPendingSignIns: 1_000,
  maxGrants: 100_000,
};

export function defaultConfig(upstreamUrl: string): GatewayConfig {
  return {
    upstreamUrl,
    maxAgeMs: DEFAULT_MAX_AGE_MS,
    replicaMaxBytes: defaultReplicaBytes(),
    restCacheMaxBytes: DEFAULT_REST_CACHE_BYTES,
    operationDeadlineMs: DEFAULT_OPERATION_DEADLINE_MS,
    rateLimit: { limit: 200, windowMs: 3_600_000 },
    limits: { ...DEFAULT_LIMITS },
    documentCache: { ...DEFAULT_DOCUMENT_CACHE },
    corsOrigins: '*',
    corsAllowedHeaders: [...DEFAULT_CORS_ALLOWED_HEADERS],
    persistedQueries: { ...DEFAULT_PERSISTED_QUERIES },
    httpCaching: { ...DEFAULT_HTTP_CACHING },
    metrics: 'always',
    graphiql: true,
    live: { ...DEFAULT_LIVE },
    introspection: true,
    subgraph: true,
    compiledQueries: true,
    metricsPath: '/metrics',
    compressionMinBytes: 1024,
    cluster: { ...DEFAULT_CLUSTER },
  };
}

/** The Model Context Protocol server (src/mcp): tools and resources for AI agents. */
export interface McpConfig {
  /** Serve Streamable HTTP at this path of the GraphQL port; `false`: not at all. @default '/mcp' */
  path: string | false;
  /** List and run the write tools (create, update, assign). @default false: read-only */
  writes: boolean;
  /** The raw `graphql` tool: any operation within the limits (mutations only with `writes`). @default false */
  graphqlTool: boolean;
  /** The `search_schema` tool: types and fields by name or description. @default false */
  schemaSearch: boolean;
  /** The named operations of the trusted-documents manifest as tools too. @default false */
  trustedDocumentTools: boolean;
  /** Streamable HTTP sessions one token may hold at once; a new one closes its oldest. @default 8 */
  sessionsPerToken: number;
  /**
   * Streamable HTTP sessions in all (about 45 KB each). Past it a new session makes room: the
   * longest-idle session without an open stream idle past `sessionIdleWhenFullMs`, else the
   * longest-idle session of the token holding the most. @default 1_000
   */
  maxSessions: number;
  /** A session without a request (or an open stream) this long is closed. @default 1_800_000 (30 min) */
  sessionIdleMs: number;
  /** With the table full, a session without a request or stream this long gives way first. @default 60_000 (1 min) */
  sessionIdleWhenFullMs: number;
  /** Resource URIs one session may subscribe to in one plan. @default 16 */
  subscriptionsPerPlan: number;
  /** Resource URIs one session may subscribe to in all its plans. @default 64 */
  subscriptionsPerSession: number;
}

/** @see McpConfig.subscriptionsPerPlan */
export const DEFAULT_MCP_SUBSCRIPTIONS_PER_PLAN = 16;
/** @see McpConfig.subscriptionsPerSession */
export const DEFAULT_MCP_SUBSCRIPTIONS_PER_SESSION = 64;

export const DEFAULT_MCP: McpConfig = {
  path: '/mcp',
  writes: false,
  graphqlTool: false,
  schemaSearch: false,
  trustedDocumentTools: false,
  sessionsPerToken: 8,
  maxSessions: 1_000,
  sessionIdleMs: 30 * 60_000,
  sessionIdleWhenFullMs: 60_000,
  subscriptionsPerPlan: DEFAULT_MCP_SUBSCRIPTIONS_PER_PLAN,
  subscriptionsPerSession: DEFAULT_MCP_SUBSCRIPTIONS_PER_SESSION,
};

/** Webhooks: where endpoints, tokens and the outbox are kept, and how deliveries behave. */
export interface WebhooksConfig {
  /** 32 bytes that seal everything webhooks keep (tokens, secrets, endpoints, the outbox). */
  key: Uint8Array;
  /** The SQLite file (without `redisUrl`). @default `${DATA_DIR}/webhooks.db` */
  databasePath: string;
  /** Deliver to private, loopback and link-local addresses too (and http on loopback). @default false */
  allowPrivateTargets: boolean;
  /** A delivery not answered (status and body) within this is a failure. @default 10_000 */
  timeoutMs: number;
  /** Deliveries in flight at once on this instance, all endpoints together. @default 32 */
  concurrency: number;
  /** Bytes of a response body read (the rest is dropped unread). @default 4_096 */
  responseBytes: number;
  /** After a rotation the old secret also signs for this long. @default 86_400_000 (24 h) */
  secretOverlapMs: number;
  /** First retry delay; each next one doubles (with jitter) up to `maxDelayMs`. @default 30_000 */
  retryBaseMs: number;
  /** @default 3_600_000 (1 h) */
  retryMaxDelayMs: number;
  /** An event failing this long disables its endpoint. @default 86_400_000 (24 h) */
  retryWindowMs: number;
}

export const DEFAULT_WEBHOOKS: Omit<WebhooksConfig, 'key' | 'databasePath'> = {
  allowPrivateTargets: false,
  timeoutMs: 10_000,
  concurrency: 32,
  responseBytes: 4_096,
  secretOverlapMs: 24 * 3_600_000,
  retryBaseMs: 30_000,
  retryMaxDelayMs: 3_600_000,
  retryWindowMs: 24 * 3_600_000,
};
