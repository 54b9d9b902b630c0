/**
 * The import graph's rules, checked by `npm test` (`npm run lint`). Module cycles make load order
 * matter; folder cycles mean two folders cannot be read, tested or replaced one without the other.
 * Each rule's name is what a failing run prints.
 */

/**
 * The layers, lowest first: each imports only from the layers listed before it (docs/architecture.md#code-layout
 * lists the same order and says what each holds). A folder and the ones below it can be
 * read, tested and replaced without anything above. The sandbox sits below the server so that
 * only `src/cli.ts` (and tests, benchmarks) load it; its own rule narrows it further.
 */
const LAYERS = [
  'packages/rest-contract',
  'src/config',
  'src/time',
  'src/crypto',
  'src/replica',
  'src/errors',
  'src/operation',
  'src/telemetry',
  'src/upstream',
  'src/replica-fetch',
  'src/loaders',
  'src/live',
  'src/cluster',
  'src/writes',
  'src/webhooks',
  'src/sign-in',
  'src/authorization',
  'src/schema',
  'src/admission',
  'src/deliveries',
  'src/server',
  'src/gateway',
  'src/mcp',
  'packages/sandbox',
  'src/cli.ts',
];

const pathOf = (layer) => `^${layer.replaceAll('.', '\\.')}(/|$)`;

/** One rule per layer: nothing in it imports from a layer listed after it. */
const layerRules = LAYERS.slice(0, -1).map((layer, index) => ({
  name: `layer-order:${layer}`,
  severity: 'error',
  comment: `${layer} imports only from the layers above it (${LAYERS.slice(0, index).join(', ') || 'none'}); see LAYERS.`,
  from: { path: pathOf(layer) },
  to: { path: LAYERS.slice(index + 1).map(pathOf) },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'no-module-cycles',
      severity: 'error',
      comment: 'A module imports itself back through its own imports.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment: 'A folder imports from a folder that imports it back.',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'src-stays-out-of-tests',
      severity: 'error',
      comment: 'Shipped code must not load test or benchmark code.',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'rest-contract-stands-alone',
      severity: 'error',
      comment:
        'The REST contract is the bottom layer that the gateway and the sandbox share: it imports nothing of theirs.',
      from: { path: '^packages/rest-contract/' },
      to: { pathNot: ['^packages/rest-contract/', '^node_modules/'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'client-kit-stands-alone',
      severity: 'error',
      comment:
        'The client kit is what client apps install: besides itself it imports only its client libraries (peers), never the gateway, so an app gets none of the server.',
      from: { path: '^packages/client-kit/' },
      to: { pathNot: ['^packages/client-kit/', '^node_modules/'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'sandbox-imports-only-the-rest-contract',
      severity: 'error',
      comment:
        'The sandbox stands on its own (npx plans-sandbox) and imitates the upstream: besides itself it imports only the REST contract, never the gateway, its tests or its benchmarks, so it cannot drift toward the gateway view of the data.',
      from: { path: '^packages/sandbox/' },
      to: {
        pathNot: ['^packages/(sandbox|rest-contract)/', '^node_modules/'],
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'schema-loads-through-its-index',
      severity: 'error',
      comment:
        "The graph's fields are in the order src/schema/index.ts loads the modules that add them; a module loaded first from elsewhere (a test, in a worker shared by files) would reorder them, and the SDL would no longer match schema.graphql and subgraph.graphql. Outside src/schema, import index.ts, or context, cost, cost-directives and input-checks, which add nothing to the builder.",
      from: { pathNot: '^src/schema/' },
      to: {
        path: '^src/schema/',
        pathNot: '^src/schema/(index|context|cost|cost-directives|input-checks)\\.ts$',
      },
    },
    {
      name: 'admission-is-transport-neutral',
      severity: 'error',
      comment:
        "The admission path serves every transport (HTTP, WebSocket, MCP, webhook feeds): nothing in src/admission loads a transport or its library. A transport adapter (yoga's plugin, the WebSocket glue) lives with its transport.",
      from: { path: '^src/admission/' },
      to: {
        path: [
          '^src/(server|mcp|gateway)/',
          '^node_modules/(graphql-yoga|graphql-ws|ws|@modelcontextprotocol)/',
          '^(node:)?https?$',
        ],
      },
    },
    {
      name: 'authorization-server-is-transport-neutral',
      severity: 'error',
      comment:
        "The gateway's OAuth authorization server (src/authorization) answers fetch Requests and knows HTTP, not GraphQL: it loads no transport, no GraphQL, nothing of the admission path that calls it, and of the MCP SDK only the shared metadata shapes (shared/auth.js). yoga serves it through src/server/plugins/use-authorization-server.ts.",
      from: { path: '^src/authorization/' },
      to: {
        path: [
          '^src/(server|mcp|gateway|admission|schema)/',
          '^node_modules/(graphql|graphql-yoga|graphql-ws|ws)/',
          '^(node:)?https?$',
          // Resolved through the SDK's exports map, or named as imported when that fails.
          '^(node_modules/)?@modelcontextprotocol/',
        ],
        pathNot: '^(node_modules/)?@modelcontextprotocol/sdk/(dist/esm/)?shared/auth\\.',
      },
    },
    {
      name: 'mcp-runs-operations-through-run-operation',
      severity: 'error',
      comment:
        "MCP is a transport beside HTTP, not a part of it: of src/server it uses only run-operation.ts (the one way a transport that is not yoga's own runs an operation). What transports share sits below them (src/admission).",
      from: { path: '^src/mcp/' },
      to: { path: '^src/server/', pathNot: '^src/server/run-operation\\.ts$' },
    },
    {
      name: 'only-admission-makes-credentials',
      severity: 'error',
      comment:
        "Credentials (the upstream token beside the key it is held under) are made by the admission path alone, once per presented credential (src/admission/credentials.ts), and travel whole from there: nothing else in src digests a token. The upstream client's own digest serves only callers that hold no Credentials.",
      from: { path: '^src/', pathNot: '^src/(admission|upstream)/' },
      to: { path: '^src/upstream/token-key\\.ts$' },
    },
    {
      name: 'yoga-plugins-live-in-plugins',
      severity: 'error',
      comment:
        "yoga's plugins live in src/server/plugins, and plugins/order.ts lists them in the order they run: a plugin library (@graphql-yoga/plugin-*, @graphql-yoga/render-graphiql, @envelop/*) is loaded there alone.",
      from: { path: '^src/', pathNot: '^src/server/plugins/' },
      to: { path: '^node_modules/(@graphql-yoga/(plugin-|render-)|@envelop/)' },
    },
    {
      name: 'one-redis-link',
      comment:
        "Redis is reached through the cluster's one link (src/cluster/redis.ts): no offline queue, every round trip bounded by REDIS_COMMAND_TIMEOUT_MS, a hang taking every caller off Redis at once. A client of one's own (webhooks had one) would wait without bound.",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cluster/redis\\.ts$' },
      to: { path: '^node_modules/ioredis/' },
    },
    {
      name: 'webhook-registry-runs-no-operation',
      comment:
        'src/webhooks is the registry below the schema (store, vault, kinds, targets, signing): it keeps endpoints and the outbox, and runs no GraphQL operation. Running feeds and sending deliveries is a transport (src/deliveries), above the schema beside the others.',
      severity: 'error',
      from: { path: '^src/webhooks/' },
      to: { path: '^node_modules/graphql/' },
    },
    {
      name: 'time-stands-alone',
      comment:
        'src/time is the one clock and the timers every part runs on (a manual one in tests): it imports nothing of the gateway, so every layer can take a Clock or a Scheduler from it and none can tie time to its own data. The live scheduler used to sit in src/live, which cluster, webhooks and server then imported.',
      severity: 'error',
      from: { path: '^src/time/' },
      to: { pathNot: ['^src/time/', '^node_modules/'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'writes-never-import-live',
      comment:
        "The write pipeline applies a write's answer to the replica and tells the live hub through the store's onApplied, never by calling live updates: what a change touched (src/replica/changes.ts) is the replica's, so a write's changes are resolved without loading src/live. The diff used to sit in src/live/changes.ts.",
      severity: 'error',
      from: { path: '^src/writes/' },
      to: { path: '^src/live/' },
    },
    {
      name: 'failure-policy-lives-in-errors',
      comment:
        'Which failures may be answered from an older copy (the stale policy, classifyFailure) is a decision about errors: it lives in src/errors/failure-policy.ts beside the codes it reads, where any layer above errors can take it. A failure policy kept elsewhere (it sat in src/server, so the wiring took an errors decision from the HTTP layer) is refused wherever it is imported from.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '(^|/)failure-policy\\.ts$', pathNot: '^src/errors/failure-policy\\.ts$' },
    },
    {
      name: 'telemetry-reads-declared-stats',
      comment:
        "Telemetry reads figures the other parts keep (replicas, the request ledger, the Redis tier) through interfaces it declares itself (src/telemetry/metrics.ts), and implements the operation's meter and span types: besides itself it imports only the settings (log levels) and src/operation, never a part it measures. It imported the cluster's ClusterStats, which held it above src/cluster.",
      severity: 'error',
      from: { path: '^src/telemetry/' },
      to: { path: '^src/', pathNot: '^src/(telemetry|config|operation)/' },
    },
    {
      name: 'crypto-stands-alone',
      comment:
        'src/crypto is the one AES-256-GCM and the sealing under keys: it imports nothing of the gateway (only node:crypto), so every layer can seal with it and none can bend it toward its data.',
      severity: 'error',
      from: { path: '^src/crypto/' },
      to: { pathNot: ['^src/crypto/', '^node_modules/'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'live-reads-plans-through-the-replica',
      severity: 'error',
      comment:
        "Live updates get every plan, a replay's backfill included, through the replica store, whose one fetch path holds the cluster's flight lease and relay, the sync metrics and the memory estimate: nothing in src/live reaches the REST client or that path beside it.",
      from: { path: '^src/live/' },
      to: { path: ['^src/upstream/client\\.ts$', '^src/replica-fetch/'] },
    },
    {
      name: 'replicas-are-built-on-the-replica-side',
      severity: 'error',
      comment:
        'A replica is built from a streamed export only in src/replica and its one fetch path (src/replica-fetch: the export into a builder, the delta, the sync metrics, the too-large memo); wiring and other folders take the store as it is.',
      from: { path: '^src/', pathNot: '^src/(replica|replica-fetch)/' },
      to: { path: '^src/replica/plan-builder\\.ts$' },
    },
    {
      name: 'undici-only-in-the-http-clients',
      severity: 'error',
      comment:
        "undici is the gateway's HTTP client in two places: the REST client (src/upstream, with its policies: token gate, ledger, fair share, retries) and webhook deliveries to checked targets (src/deliveries, src/webhooks/target.ts). Anything else sending HTTP would skip those policies. The wiring may name undici's Dispatcher type to hand one over.",
      from: {
        path: '^src/',
        pathNot: ['^src/(upstream|deliveries)/', '^src/webhooks/target\\.ts$'],
      },
      to: { path: '^node_modules/undici/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'upstream-never-reaches-graphql',
      severity: 'error',
      comment:
        'The REST client knows HTTP, not GraphQL (docs/architecture.md#code-layout): nothing src/upstream imports, directly or through other modules, loads graphql.',
      from: { path: '^src/upstream/' },
      to: { path: '^node_modules/graphql/', reachable: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
