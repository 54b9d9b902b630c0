import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HttpService {
  readonly server: Server;
  readonly port: number;
  /** Requests being answered now. */
  inFlight(): number;
  /**
   * Stops accepting connections, lets the requests in flight finish (their answers go out with
   * `Connection: close`), and closes every connection once they have or `graceMs` has passed.
   * Resolves with how many requests were still unfinished at the deadline (0 when drained).
   */
  shutdown(graceMs: number): Promise<{ abandoned: number }>;
}

/** Listens on port/host (0 = any free port); rejects with the listen error (EADDRINUSE...). */
export async function listen(
  handler: RequestListener,
  { port, host }: { port: number; host: string },
): Promise<HttpService> {
  const open = new Set<ServerResponse>();
  let draining = false;
  let onIdle: (() => void) | undefined;
  const server = createServer((request, response) => {
    open.add(response);
    if (draining) response.setHeader('connection', 'close');
    response.once('close', () => {
      open.delete(response);
      if (draining) server.closeIdleConnections();
      if (open.size === 0) onIdle?.();
    });
    handler(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    inFlight: () => open.size,
    async shutdown(graceMs) {
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const response of open)
        if (!response.headersSent) response.setHeader('connection', 'close');
      server.closeIdleConnections();
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        if (open.size === 0) return resolve();
        onIdle = resolve;
        timer = setTimeout(resolve, graceMs);
      });
      clearTimeout(timer);
      const abandoned = open.size;
      server.closeAllConnections();
      await closed;
      return { abandoned };
    },
  };
}
