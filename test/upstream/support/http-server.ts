import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the server saw of one request. */
export interface ReceivedRequest {
  method: string;
  /** Raw request target: path and query exactly as sent. */
  url: string;
  pathname: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  body: string;
  /** Client port of the connection that carried the request: equal ports, same socket. */
  remotePort: number | undefined;
}

export type TestHandler = (
  request: ReceivedRequest,
  res: ServerResponse,
  req: IncomingMessage,
) => unknown;

export interface TestServer {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** `http://127.0.0.1:PORT/v1` */
  readonly baseUrl: string;
  /** Every request received, in order. */
  readonly requests: ReceivedRequest[];
  /** Replaces the handler for the following requests. */
  handle(handler: TestHandler): void;
  /** Open TCP connections right now. */
  connections(): Promise<number>;
  close(): Promise<void>;
}

/** Answers `status` with `body` serialized as JSON. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** A REST error response in the interface's wrapper. */
export function sendRestError(
  res: ServerResponse,
  status: number,
  id: string,
  name: string,
  detail: string,
): void {
  sendJson(res, status, { error: { id, name, detail } });
}

/**
 * A tiny `node:http` server on 127.0.0.1, port 0, whose handler each test sets. It records
 * what it received so tests assert on the wire, not on the client's internals.
 */
export async function startTestServer(): Promise<TestServer> {
  const requests: ReceivedRequest[] = [];
  let handler: TestHandler = (_request, res) => sendJson(res, 200, { data: {} });

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = req.url ?? '/';
      const parsed = new URL(url, 'http://127.0.0.1');
      const received: ReceivedRequest = {
        method: req.method ?? '',
        url,
        pathname: parsed.pathname,
        query: Object.fromEntries(parsed.searchParams),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: req.socket.remotePort,
      };
      requests.push(received);
      Promise.resolve(handler(received, res, req)).catch((error: unknown) => {
        res.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    origin,
    baseUrl: `${origin}/v1`,
    requests,
    handle(next) {
      handler = next;
    },
    connections() {
      return new Promise((resolve, reject) =>
        server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
      );
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}
