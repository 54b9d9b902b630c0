/**
 * `/mcp` by hand, for what the SDK's client never does: set `Host` (node:http, since fetch
 * sends its own), open sessions without a client behind them, and hold a session's GET event
 * stream on a raw socket that is never read, as a stalled client does.
 */
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';

export const PROTOCOL_VERSION = '2025-06-18';

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
} as const;

export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

/** One JSON-RPC POST to `url`, with `headers` (`host` included) over those it needs. */
export function rpcAt(url: string, body: unknown, headers: Record<string, string> = {}) {
  const target = new URL(url);
  const payload = JSON.stringify(body);
  return new Promise<RawAnswer>((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(payload),
          ...headers,
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text }),
        );
      },
    );
    req.once('error', reject);
    req.end(payload);
  });
}

/** The headers of a request in session `sessionId` with `token`. */
export function inSession(token: string, sessionId: string): Record<string, string> {
  return {
    authorization: `Bearer ${token}`,
    'mcp-session-id': sessionId,
    'mcp-protocol-version': PROTOCOL_VERSION,
  };
}

/** A session opened by hand (initialize, then `initialized`): its id, or the status refusing it. */
export async function openSession(url: string, token: string): Promise<string | number> {
  const opened = await rpcAt(url, INITIALIZE, { authorization: `Bearer ${token}` });
  const id = opened.headers['mcp-session-id'];
  if (opened.status !== 200 || typeof id !== 'string') return opened.status;
  await rpcAt(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, inSession(token, id));
  return id;
}

/** A ping in the session: 200 while it lives, 404 once it is gone. */
export async function ping(url: string, token: string, sessionId: string): Promise<number> {
  const answer = await rpcAt(
    url,
    { jsonrpc: '2.0', id: 'ping', method: 'ping' },
    inSession(token, sessionId),
  );
  return answer.status;
}

/** `resources/subscribe` in the session; resolves to the JSON-RPC error's message, if any. */
export async function subscribeAt(
  url: string,
  token: string,
  sessionId: string,
  uri: string,
): Promise<string | undefined> {
  const answer = await rpcAt(
    url,
    { jsonrpc: '2.0', id: uri, method: 'resources/subscribe', params: { uri } },
    inSession(token, sessionId),
  );
  const body = JSON.parse(answer.text) as { error?: { message: string } };
  return body.error?.message;
}

/** The session's GET event stream on a raw socket that reads nothing from now on. */
export function neverReadingStream(url: string, token: string, sessionId: string): Promise<Socket> {
  const { port, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.pause();
      socket.write(
        [
          `GET ${pathname} HTTP/1.1`,
          `host: 127.0.0.1:${port}`,
          'accept: text/event-stream',
          ...Object.entries(inSession(token, sessionId)).map(([k, v]) => `${k}: ${v}`),
          '',
          '',
        ].join('\r\n'),
      );
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/**
 * Reads what a stream held by `neverReadingStream` holds from now on, until its response ends
 * (the last chunk of a chunked body; the connection itself may stay open) or the socket closes.
 */
export function readResponseToEnd(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.endsWith('\r\n0\r\n\r\n')) resolve(text);
    });
    socket.on('close', () => resolve(text));
    socket.resume();
  });
}
