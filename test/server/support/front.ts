/**
 * A gateway on a loopback port with its WebSocket endpoint, logging JSON lines into memory: what
 * the transport suites send to and read from.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { defaultConfig, type GatewayConfig } from '../../../src/config/config.js';
import { createGateway, type Gateway, type GatewayDeps } from '../../../src/server/gateway.js';
import { attachWebSockets } from '../../../src/server/websockets.js';
import { createLogger } from '../../../src/telemetry/logger.js';

export interface Front {
  gateway: Gateway;
  /** `http://127.0.0.1:PORT/graphql` */
  url: string;
  /** `ws://127.0.0.1:PORT/graphql` */
  wsUrl: string;
  /** The JSON lines logged so far. */
  log: Record<string, unknown>[];
  close(): Promise<void>;
}

export async function startFront(
  upstreamUrl: string,
  {
    config = {},
    deps = {},
    maxHeaderSize,
  }: {
    config?: Partial<GatewayConfig>;
    deps?: Omit<GatewayDeps, 'logger'>;
    /** node's limit of request headers (GET requests carry their document there). */
    maxHeaderSize?: number;
  } = {},
): Promise<Front> {
  const log: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line.trim() !== '') log.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const logger = await createLogger({ level: 'info', destination });
  const gateway = createGateway(
    { ...defaultConfig(upstreamUrl), graphiql: false, ...config },
    { ...deps, logger },
  );
  const server = createServer(maxHeaderSize ? { maxHeaderSize } : {}, gateway.yoga);
  const sockets = attachWebSockets(server, gateway);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    gateway,
    url: `http://127.0.0.1:${port}/graphql`,
    wsUrl: `ws://127.0.0.1:${port}/graphql`,
    log,
    async close() {
      await sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gateway.close();
    },
  };
}
