import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Served {
  /** `http://127.0.0.1:<port><path>`. */
  readonly url: string;
  /** Closes every connection, then the server. */
  close(): Promise<void>;
}

/** Serves `handler` (a yoga instance, a router) on a free loopback port. */
export async function serveOnLoopback(handler: RequestListener, path: string): Promise<Served> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
