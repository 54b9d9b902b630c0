/**
 * `npm start`: the gateway on PORT against UPSTREAM_URL, or, without UPSTREAM_URL, against an
 * embedded REST sandbox seeded with a demo plan. Configuration comes from the environment only;
 * the logic lives in createGateway and createSandbox.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_PORT, defaultConfig, type GatewayConfig } from './config.js';
import type { Sandbox } from './sandbox/api.js';
import { createSandbox } from './sandbox/index.js';
import { DASHBOARD_QUERY } from './server/example-queries.js';
import { createGateway } from './server/gateway.js';
import { attachWebSockets } from './server/websockets.js';

/** How long `npm start` waits for Redis before serving alone. */
const REDIS_STARTUP_WAIT_MS = 3_000;

function fail(message: string): never {
  console.error(`error: ${message}`);
  process.exit(2);
}

function integerEnv(name: string, fallback: number, min = 0): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min)
    fail(`${name} must be an integer >= ${min}; got ${JSON.stringify(raw)}`);
  return value;
}

function upstreamUrlEnv(): string | undefined {
  const raw = process.env.UPSTREAM_URL;
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    fail(
      `UPSTREAM_URL must be an absolute URL such as https://api.ynab.com/v1; got ${JSON.stringify(raw)}`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    fail('UPSTREAM_URL must use http or https');
  return raw.replace(/\/+$/, '');
}

function redisEnv(config: GatewayConfig): void {
  const raw = process.env.REDIS_URL;
  if (!raw) return;
  if (!/^rediss?:\/\/[^/]/.test(raw)) {
    fail('REDIS_URL must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379');
  }
  config.redisUrl = raw;
  const prefix = process.env.REDIS_KEY_PREFIX;
  if (prefix !== undefined && prefix !== '') {
    if (!/^[\w:.-]{1,64}$/.test(prefix)) {
      fail(
        `REDIS_KEY_PREFIX must be 1-64 letters, digits, or _ : . -; got ${JSON.stringify(prefix)}`,
      );
    }
    config.cluster.keyPrefix = prefix;
  }
}

function configFromEnv(upstreamUrl: string, embedded: { token: string } | null): GatewayConfig {
  const config = defaultConfig(upstreamUrl);
  config.maxAgeMs = integerEnv('MAX_AGE_SECONDS', config.maxAgeMs / 1000) * 1000;
  config.replicaMaxBytes =
    integerEnv('REPLICA_MAX_MB', config.replicaMaxBytes / 1024 / 1024, 1) * 1024 * 1024;
  const origins = process.env.CORS_ORIGINS;
  if (origins && origins !== '*')
    config.corsOrigins = origins
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean);
  const production = process.env.NODE_ENV === 'production';
  config.metrics = production ? 'on-request' : 'always';
  config.graphiql = process.env.GRAPHIQL !== 'off';
  config.graphiqlDefaultQuery = DASHBOARD_QUERY;
  if (embedded) config.graphiqlDefaultHeaders = { Authorization: `Bearer ${embedded.token}` };
  redisEnv(config);
  return config;
}

async function main(): Promise<void> {
  const port = integerEnv('PORT', DEFAULT_PORT);
  let upstreamUrl = upstreamUrlEnv();
  let sandbox: Sandbox | null = null;
  if (!upstreamUrl) {
    sandbox = await createSandbox({ port: 0 });
    upstreamUrl = sandbox.url;
  }
  const demoUser = sandbox?.users[0];
  const config = configFromEnv(upstreamUrl, demoUser ? { token: demoUser.token } : null);
  const gateway = createGateway(config, {
    log: (entry) => console.log(JSON.stringify({ level: 'info', msg: 'operation', ...entry })),
    onClusterChange: (change) =>
      console.log(
        JSON.stringify(
          change.available
            ? {
                level: 'info',
                msg: change.first ? 'redis connected' : 'redis back: cooperating again',
              }
            : { level: 'warn', msg: 'redis unavailable: working alone', reason: change.reason },
        ),
      ),
  });
  // Briefly: an instance that cannot reach Redis starts alone and joins when it can.
  await gateway.cluster?.ready(REDIS_STARTUP_WAIT_MS);
  const server = createServer(gateway.yoga);
  const sockets = attachWebSockets(server, gateway);
  const host = process.env.HOST ?? (sandbox ? '127.0.0.1' : '0.0.0.0');
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  }).catch((error: NodeJS.ErrnoException) =>
    fail(
      error.code === 'EADDRINUSE'
        ? `port ${port} is in use; set PORT to another one`
        : error.message,
    ),
  );
  const { port: actualPort } = server.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' || host === '127.0.0.1' ? 'localhost' : host;
  const url = `http://${shownHost}:${actualPort}/graphql`;

  console.log(`Gateway listening on ${url}`);
  if (sandbox && demoUser) {
    console.log(`Upstream: embedded REST sandbox at ${sandbox.url}`);
    console.log(`Demo token: ${demoUser.token}`);
    console.log(`Read-only demo token: ${demoUser.readOnlyToken ?? '(none)'}`);
    console.log(`Open GraphiQL (the dashboard query and the token header are filled in): ${url}`);
    console.log(
      `Or: curl -s ${url} -H 'content-type: application/json' -H 'authorization: Bearer ${demoUser.token}' -d '{"query":"{ plan(id: \\"last-used\\") { name accounts { name balanceFormatted } } }"}'`,
    );
  } else {
    console.log(`Upstream: ${upstreamUrl} (clients send their own tokens)`);
  }

  const shutdown = async (signal: string) => {
    console.log(`${signal}: shutting down`);
    await sockets.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await gateway.close();
    await sandbox?.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));
