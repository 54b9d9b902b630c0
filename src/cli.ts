/**
 * `npm start` / `node dist/cli.js`: the gateway on PORT against UPSTREAM_URL, or, without
 * UPSTREAM_URL, against an embedded REST sandbox seeded with a demo plan; MCP at `/mcp` beside
 * GraphQL. `npm run mcp` / `node dist/cli.js mcp`: the same gateway as an MCP server over stdio
 * (no port), for desktop assistants. Settings come from the environment (`settings.ts`); the
 * logic lives in createGateway and src/mcp. The sandbox and OpenTelemetry are imported only when
 * used, so a production process loads neither.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Sandbox } from '@plans-gateway/sandbox';
import {
  DEFAULT_CORS_ALLOWED_HEADERS,
  DEFAULT_DOCUMENT_CACHE,
  DEFAULT_HTTP_CACHING,
  DEFAULT_LIMITS,
  DEFAULT_PERSISTED_QUERIES,
  DEFAULT_SIGN_IN,
  defaultConfig,
  type GatewayConfig,
  type SignInConfig,
} from './config/config.js';
import { parseSettings, type Settings, USAGE } from './config/settings.js';
import { createGateway, type Gateway } from './gateway/gateway.js';
import { createMcpHttp, type McpHttp, withMcp } from './mcp/http.js';
import { createMcpParts } from './mcp/session.js';
import { serveStdio } from './mcp/stdio.js';
import { schema } from './schema/index.js';
import { DASHBOARD_QUERY } from './server/example-queries.js';
import { withFrontDoor } from './server/front-door.js';
import { type HttpService, listen } from './server/http-server.js';
import { attachWebSockets, type WebSocketAttachment } from './server/websockets.js';
import { createLogger, type Logger } from './telemetry/logger.js';
import type { OtelTracing } from './telemetry/otel.js';
import { epochNow } from './time/clock.js';

/** How long a start waits for Redis before serving alone. */
const REDIS_STARTUP_WAIT_MS = 3_000;
/** Longest wait for each resource to close once the HTTP server has drained. */
const CLOSE_STEP_MS = 2_000;
/** The same stop signal again within this is a copy of the first (see `stop`), not a second. */
const REPEATED_SIGNAL_MS = 500;

function within(ms: number, work: Promise<unknown> | undefined): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(2);
}

function version(): string {
  const manifest: unknown = JSON.parse(
    readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
  );
  const value =
    typeof manifest === 'object' && manifest !== null && 'version' in manifest
      ? manifest.version
      : undefined;
  return typeof value === 'string' ? value : 'unknown';
}

/** The embedded sandbox's demo application: any loopback `/auth/callback` is its redirect. */
const SANDBOX_DEMO_CLIENT = {
  clientId: 'sandbox-demo-client',
  clientSecret: 'sandbox-demo-secret',
};

/**
 * Sign-in as configured, or, on the embedded sandbox, with its demo application so a newcomer
 * sees the whole flow with no account: the gateway's loopback URL, and without SEAL_KEY a key
 * of this process alone with grants in memory (they end with it). Undefined: sign-in off.
 */
function signInOf(
  settings: Settings,
  upstreamUrl: string,
  embedded: boolean,
): SignInConfig | undefined {
  const configured = settings.signIn;
  if (!configured && !embedded) return undefined;
  const shownHost =
    settings.host === '0.0.0.0' || settings.host === '127.0.0.1' ? 'localhost' : settings.host;
  const publicOrigin =
    configured?.publicOrigin ??
    // PORT=0 is known only once listening: sign-in needs PUBLIC_URL then.
    (settings.port === 0 ? undefined : `http://${shownHost}:${settings.port}`);
  if (publicOrigin === undefined) return undefined;
  const upstream = new URL(upstreamUrl);
  const key = settings.sealKey ?? (configured ? undefined : randomBytes(32));
  if (!key) return undefined;
  return {
    ...DEFAULT_SIGN_IN,
    key,
    publicOrigin,
    oauthOrigin:
      configured?.oauthOrigin ??
      (upstream.hostname === 'api.ynab.com' ? 'https://app.ynab.com' : upstream.origin),
    clientId: configured?.clientId ?? SANDBOX_DEMO_CLIENT.clientId,
    clientSecret: configured?.clientSecret ?? SANDBOX_DEMO_CLIENT.clientSecret,
    ...(configured?.scope ? { scope: configured.scope } : {}),
    databasePath: configured?.databasePath ?? (settings.sealKey ? './data/sign-in.db' : ':memory:'),
    sessionTtlMs: configured?.sessionTtlMs ?? DEFAULT_SIGN_IN.sessionTtlMs,
  };
}

function configOf(
  settings: Settings,
  upstreamUrl: string,
  demoToken?: string,
  signIn?: SignInConfig,
): GatewayConfig {
  return {
    ...defaultConfig(upstreamUrl),
    maxAgeMs: settings.maxAgeMs,
    replicaMaxBytes: settings.replicaMaxBytes,
    restCacheMaxBytes: settings.restCacheMaxBytes,
    operationDeadlineMs: settings.operationDeadlineMs,
    limits: {
      ...DEFAULT_LIMITS,
      documentBytes: settings.maxDocumentBytes,
      costMode: settings.costLimitMode,
    },
    documentCache: { ...DEFAULT_DOCUMENT_CACHE, maxBytes: settings.documentCacheMaxBytes },
    corsOrigins: settings.corsOrigins,
    corsAllowedHeaders: [...DEFAULT_CORS_ALLOWED_HEADERS, ...settings.corsExtraHeaders],
    persistedQueries: settings.persistedQueries ? { ...DEFAULT_PERSISTED_QUERIES } : false,
    ...(settings.trustedDocuments ? { trustedDocuments: settings.trustedDocuments } : {}),
    httpCaching: settings.httpCaching
      ? { ...DEFAULT_HTTP_CACHING, answerMaxBytes: settings.answerCacheMaxBytes }
      : false,
    metrics: settings.production ? 'on-request' : 'always',
    graphiql: settings.graphiql,
    introspection: settings.introspection,
    subgraph: settings.subgraph,
    compiledQueries: settings.compiledQueries,
    directMisses: settings.directMisses,
    metricsPath: settings.metrics && settings.metricsPort === undefined ? '/metrics' : false,
    compressionMinBytes: settings.compressionMinBytes,
    live: settings.live,
    ...(settings.redisUrl ? { redisUrl: settings.redisUrl } : {}),
    cluster: settings.cluster,
    ...(settings.webhooks ? { webhooks: settings.webhooks } : {}),
    ...(signIn ? { signIn } : {}),
    graphiqlDefaultQuery: DASHBOARD_QUERY,
    ...(demoToken ? { graphiqlDefaultHeaders: { Authorization: `Bearer ${demoToken}` } } : {}),
  };
}

// Private: `/metrics` alone on its own port (METRICS_PORT), e.g. reachable only inside a cluster.
function metricsHandler(gateway: Gateway) {
  return (request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    gateway.metrics.text().then(
      (text) => response.writeHead(200, { 'content-type': gateway.metrics.contentType }).end(text),
      () => response.writeHead(500).end(),
    );
  };
}

/** A port free on `host` a moment ago (the embedded demo's PORT=0 with sign-in). */
async function freePort(host: string): Promise<number> {
  const probe = await listen(() => {}, { port: 0, host });
  await probe.shutdown(0);
  return probe.port;
}

async function listenOrFail(
  handler: Parameters<typeof listen>[0],
  port: number,
  host: string,
  name: string,
): Promise<HttpService> {
  try {
    return await listen(handler, { port, host });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') fail(`${name} ${port} is in use; set ${name} to another port`);
    if (code === 'EACCES') fail(`${name} ${port} needs privileges; use a port above 1023`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      fail(`HOST ${host} is not an address of this machine`);
    throw error;
  }
}

async function main(): Promise<void> {
  const parsed = parseSettings(process.argv.slice(2), process.env, {
    stdoutIsTTY: process.stdout.isTTY === true,
  });
  if (parsed.kind === 'help') return void process.stdout.write(USAGE);
  if (parsed.kind === 'version') return void process.stdout.write(`${version()}\n`);
  if (parsed.kind === 'error') fail(`${parsed.message}\n\n${USAGE}`);
  const { settings, command } = parsed;
  const logger = await createLogger({
    level: settings.logLevel,
    pretty: settings.prettyLogs,
    // Over stdio, stdout carries the protocol: the log goes to stderr.
    ...(command === 'mcp' ? { destination: process.stderr } : {}),
  });

  let sandbox: Sandbox | null = null;
  let upstreamUrl = settings.upstreamUrl;
  if (!upstreamUrl) {
    const { createSandbox } = await import('@plans-gateway/sandbox');
    sandbox = await createSandbox({ port: 0 });
    upstreamUrl = sandbox.url;
  }
  const demoUser = sandbox?.users[0];
  let tracing: OtelTracing | undefined;
  if (settings.otlpEndpoint) {
    const { createOtelTracing } = await import('./telemetry/otel.js');
    tracing = await createOtelTracing({
      endpoint: settings.otlpEndpoint,
      serviceName: settings.serviceName,
    });
  }
  // Sign-in names its own callback URL before the port is open: on the embedded sandbox, PORT=0
  // takes a port free now (a developer's machine; PUBLIC_URL says it otherwise).
  const port =
    command === 'serve' && sandbox && settings.port === 0 && !settings.signIn?.publicOrigin
      ? await freePort(settings.host)
      : settings.port;
  const signIn =
    command === 'serve'
      ? signInOf({ ...settings, port }, upstreamUrl, sandbox !== null)
      : undefined;
  const gateway = createGateway(configOf(settings, upstreamUrl, demoUser?.token, signIn), {
    logger,
    processMetrics: settings.metrics,
    ...(tracing ? { tracer: tracing.tracer } : {}),
  });

  // Briefly: an instance that cannot reach Redis starts alone (warned) and joins once it can.
  await gateway.cluster?.ready(REDIS_STARTUP_WAIT_MS);
  if (command === 'mcp') {
    const token = settings.mcpToken ?? demoUser?.token;
    if (!token) fail('mcp needs the upstream token in PLANS_TOKEN (or YNAB_TOKEN)');
    const parts = createMcpParts(gateway, schema, settings.mcp, version());
    logger.info(
      { upstream: sandbox ? 'embedded sandbox' : upstreamUrl, writes: settings.mcp.writes },
      'mcp over stdio',
    );
    const signalled = new Promise((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await Promise.race([serveStdio(parts, token), signalled]);
    await within(CLOSE_STEP_MS, gateway.close());
    await within(CLOSE_STEP_MS, sandbox?.close());
    await within(CLOSE_STEP_MS, tracing?.shutdown());
    process.exit(0);
  }
  const { host } = settings;
  const mcpHttp = settings.mcp.path
    ? createMcpHttp(createMcpParts(gateway, schema, settings.mcp, version()))
    : undefined;
  const http = await listenOrFail(
    withFrontDoor(withMcp(gateway, mcpHttp), gateway),
    port,
    host,
    'PORT',
  );
  const sockets = attachWebSockets(http.server, gateway);
  const metricsHttp =
    settings.metrics && settings.metricsPort !== undefined
      ? await listenOrFail(metricsHandler(gateway), settings.metricsPort, host, 'METRICS_PORT')
      : undefined;
  // Before "listening" is logged: whoever waits for that line may stop the process at once.
  let stopping: { signal: NodeJS.Signals; at: number } | undefined;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      // The same signal again at once is one stop delivered twice: sent to the process group,
      // npm passes its copy on to this process too. Only a later one means "do not wait".
      if (signal === stopping.signal && epochNow() - stopping.at < REPEATED_SIGNAL_MS) return;
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    stopping = { signal, at: epochNow() };
    void shutdown(signal, {
      logger,
      gateway,
      http,
      sockets,
      mcpHttp,
      metricsHttp,
      sandbox,
      tracing,
      settings,
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const shownHost = host === '0.0.0.0' || host === '127.0.0.1' ? 'localhost' : host;
  const url = `http://${shownHost}:${http.port}/graphql`;
  logger.info(
    {
      url,
      mcp: settings.mcp.path ? `http://${shownHost}:${http.port}${settings.mcp.path}` : 'off',
      host,
      upstream: sandbox ? 'embedded sandbox' : upstreamUrl,
      graphiql: settings.graphiql ? url : 'off',
      ...(settings.subgraph ? { subgraph: `http://${shownHost}:${http.port}/subgraph` } : {}),
      ...(metricsHttp ? { metrics: `http://${shownHost}:${metricsHttp.port}/metrics` } : {}),
      tracing: tracing ? settings.otlpEndpoint : 'off',
      signIn: signIn
        ? `${signIn.publicOrigin}/auth/login?return_to=${encodeURIComponent(url)}`
        : 'off',
    },
    'listening',
  );
  if (sandbox && demoUser)
    printDemoBanner(url, sandbox, demoUser, settings.graphiql, signIn !== undefined);
  // The subgraph schema is built once the port is open (about as long as the graph's took), so
  // the start is not slower for it and a router's first fetch does not wait for it.
  if (gateway.subgraph) setImmediate(gateway.subgraph);
}

async function shutdown(
  signal: NodeJS.Signals,
  parts: {
    logger: Logger;
    gateway: Gateway;
    http: HttpService;
    sockets: WebSocketAttachment;
    mcpHttp: McpHttp | undefined;
    metricsHttp: HttpService | undefined;
    sandbox: Sandbox | null;
    tracing: OtelTracing | undefined;
    settings: Settings;
  },
): Promise<void> {
  const { logger, gateway, http, sockets, mcpHttp, metricsHttp, sandbox, tracing, settings } =
    parts;
  logger.info(
    { signal, inFlight: http.inFlight(), graceMs: settings.shutdownGraceMs },
    'shutting down: draining requests in flight',
  );
  gateway.drain();
  try {
    // WebSocket connections are upgrades the HTTP drain does not see: close them first (1001,
    // going away) so their clients reconnect to another instance.
    await within(CLOSE_STEP_MS, sockets.close());
    // MCP sessions hold streams open (notifications): they end like WebSockets do.
    await within(CLOSE_STEP_MS, mcpHttp?.close());
    const { abandoned } = await http.shutdown(settings.shutdownGraceMs);
    if (abandoned > 0)
      logger.warn({ abandoned }, 'grace period over: closed connections with answers unsent');
    await metricsHttp?.shutdown(0);
    // Past the grace period nothing may hold the exit up: an upstream request still hanging
    // would keep the pool's close waiting for its own timeout.
    await within(CLOSE_STEP_MS, gateway.close());
    await within(CLOSE_STEP_MS, sandbox?.close());
    await within(CLOSE_STEP_MS, tracing?.shutdown());
    logger.info('stopped');
  } catch (error) {
    logger.error(
      { errorType: error instanceof Error ? error.name : typeof error },
      'shutdown failed',
    );
  }
  process.exit(0);
}

// Private: the embedded sandbox only; shows the demo token on purpose, outside the logs. Every URL
// printed answers: GraphiQL only when it is served, the sandbox as reached from this process.
function printDemoBanner(
  url: string,
  sandbox: Sandbox,
  user: { token: string; readOnlyToken: string | null },
  graphiql: boolean,
  signIn: boolean,
): void {
  const query =
    '{"query":"{ plan(id: \\"last-used\\") { name accounts { name balanceFormatted } } }"}';
  const curl = `curl -s ${url} -H 'content-type: application/json' -H 'authorization: Bearer ${user.token}' -d '${query}'`;
  process.stdout.write(
    [
      `Gateway listening on ${url}`,
      `Upstream: embedded REST sandbox at ${sandbox.url} (inside this process)`,
      `Demo token: ${user.token}`,
      `Read-only demo token: ${user.readOnlyToken ?? '(none)'}`,
      ...(graphiql
        ? [
            signIn
              ? `Open GraphiQL and Sign in (the dashboard query is filled in): ${url}`
              : `Open GraphiQL (the dashboard query and the token header are filled in): ${url}`,
            `Or: ${curl}`,
          ]
        : ['GraphiQL is off (GRAPHIQL=on serves it). Try:', curl]),
      '',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
