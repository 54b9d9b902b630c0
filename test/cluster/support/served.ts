/**
 * A gateway instance in this process, served over real HTTP and WebSocket on an ephemeral port,
 * with a cluster the test built (its own scheduler, its own settings) or, given `config.redisUrl`,
 * the one the gateway makes itself (as production does, logging to `logger`).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Cluster, type ClusterOptions, createCluster } from '../../../src/cluster/cluster.js';
import { defaultConfig, type GatewayConfig } from '../../../src/config/config.js';
import type { Scheduler } from '../../../src/live/scheduler.js';
import { createGateway, type Gateway } from '../../../src/server/gateway.js';
import { attachWebSockets } from '../../../src/server/websockets.js';
import type { Logger } from '../../../src/telemetry/logger.js';

export interface ServedInstance {
  readonly gateway: Gateway;
  readonly cluster: Cluster;
  /** `http://127.0.0.1:PORT/graphql` */
  readonly url: string;
  /** `ws://127.0.0.1:PORT/graphql` */
  readonly wsUrl: string;
  close(): Promise<void>;
}

export interface ServeOptions {
  upstreamUrl: string;
  now: () => number;
  scheduler: Scheduler;
  /** A cluster of the test's own; without it `config.redisUrl` must be set. */
  cluster?: ClusterOptions;
  config?: Partial<GatewayConfig>;
  logger?: Logger;
}

export async function serveInstance(options: ServeOptions): Promise<ServedInstance> {
  const { upstreamUrl, now, scheduler, logger } = options;
  const own = options.cluster && createCluster({ now, scheduler, ...options.cluster });
  const gateway = createGateway(
    { ...defaultConfig(upstreamUrl), graphiql: false, ...options.config },
    { now, scheduler, ...(own ? { cluster: own } : {}), ...(logger ? { logger } : {}) },
  );
  const cluster = gateway.cluster;
  if (!cluster) throw new Error('serveInstance: give a cluster or config.redisUrl');
  const server = createServer(gateway.yoga);
  const sockets = attachWebSockets(server, gateway);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    gateway,
    cluster,
    url: `http://127.0.0.1:${port}/graphql`,
    wsUrl: `ws://127.0.0.1:${port}/graphql`,
    async close() {
      await gateway.live.close();
      await sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gateway.close();
      // The gateway closes only the cluster it made.
      await own?.close();
    },
  };
}
