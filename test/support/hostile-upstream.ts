/**
 * A hostile upstream for tests and probes: a real `node:http` server on port 0 that stands in
 * front of a REST sandbox and, per request, passes it through or misbehaves in ways the sandbox
 * cannot: inflated or regressing `server_knowledge`, wrongly typed fields, per-tenant hangs,
 * endless or huge bodies, refusals of chosen tokens.
 *
 * What it does with each request is decided by `rule(request)`, which tests replace at will;
 * every request is recorded (`calls()`), with its token, so a test can count what a tenant cost.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OPERATION_IDS, type OperationId, ROUTES } from '@plans-gateway/rest-contract';

export interface HostileRequest {
  /** The REST operation the path and method name, `null` for anything else. */
  readonly operationId: OperationId | null;
  readonly method: string;
  /** Path without the query, e.g. `/v1/plans/…`. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** The bearer token presented, if any. */
  readonly token: string | null;
}

export type HostileAction =
  /** Forward to the target unchanged. */
  | { readonly kind: 'pass' }
  /**
   * Forward (with the query `query` returns, when given), then replace the JSON body of a 2xx
   * answer with `rewrite(body)`.
   */
  | {
      readonly kind: 'rewrite';
      readonly rewrite: (body: unknown) => unknown;
      readonly query?: (query: URLSearchParams) => URLSearchParams;
    }
  /** Answer without asking the target. */
  | { readonly kind: 'reply'; readonly status: number; readonly body: unknown }
  /** Accept the request and never answer (until the client gives up or `close()`). */
  | { readonly kind: 'hang' }
  /** Forward it once `until` resolves: a request held in flight for as long as the test says. */
  | { readonly kind: 'hold'; readonly until: Promise<void> }
  /** Answer 200 with a body that never ends, as fast as the client reads. */
  | { readonly kind: 'endless' }
  /**
   * Forward, then send the answer in `pieces` parts, each once `next()` resolves: a body that
   * streams as slowly as the test says (headers go with the first part).
   */
  | {
      readonly kind: 'drip';
      readonly pieces: number;
      readonly next: () => Promise<void>;
      /** Told once each part has been handed to the socket. */
      readonly sent?: () => void;
    };

export type HostileRule = (request: HostileRequest) => HostileAction;

export interface HostileCall extends HostileRequest {
  /** The action taken. */
  readonly action: HostileAction['kind'];
}

export interface HostileUpstream {
  /** Base URL including `/v1`, for the gateway's `upstreamUrl`. */
  readonly url: string;
  /** Replaces what happens to the next requests; `pass` for all by default. */
  setRule(rule: HostileRule): void;
  calls(): readonly HostileCall[];
  resetCalls(): void;
  /** Requests answered so far and still open (hung or endless). */
  openRequests(): number;
  /** Bytes written to endless bodies so far, all together. */
  endlessBytes(): number;
  /** Ends every hung or endless answer by closing its connection (the client sees a reset). */
  dropOpen(): void;
  close(): Promise<void>;
}

export interface HostileUpstreamOptions {
  /** The sandbox's base URL (with `/v1`) that `pass` and `rewrite` forward to. */
  target?: string;
}

const PASS: HostileAction = { kind: 'pass' };
const CHUNK = Buffer.alloc(64 * 1024, 0x20);

/** One request of the REST interface with a path template, as a matcher. */
const MATCHERS = OPERATION_IDS.map((operationId) => {
  const route = ROUTES[operationId];
  const pattern = route.path.replace(/\{\w+\}/g, '[^/]+');
  return { operationId, method: route.method, regex: new RegExp(`^/v1${pattern}$`) };
});

export function operationOf(method: string, path: string): OperationId | null {
  return MATCHERS.find((m) => m.method === method && m.regex.test(path))?.operationId ?? null;
}

export async function startHostileUpstream(
  options: HostileUpstreamOptions = {},
): Promise<HostileUpstream> {
  const { target } = options;
  let rule: HostileRule = () => PASS;
  const calls: HostileCall[] = [];
  const open = new Set<ServerResponse>();
  let endlessBytes = 0;

  async function forward(
    request: HostileRequest,
    req: IncomingMessage,
    body: Buffer,
  ): Promise<{ status: number; text: string; retryAfter: string | null }> {
    if (!target) throw new Error('hostile upstream: no target to forward to');
    const base = new URL(target);
    const url = `${base.origin}${request.path}${request.query.size > 0 ? `?${request.query}` : ''}`;
    const headers: Record<string, string> = {};
    if (req.headers.authorization) headers.authorization = req.headers.authorization;
    if (req.headers['content-type']) headers['content-type'] = req.headers['content-type'];
    const response = await fetch(url, {
      method: request.method,
      headers,
      ...(body.length > 0 ? { body: body.toString('utf8') } : {}),
    });
    return {
      status: response.status,
      text: await response.text(),
      retryAfter: response.headers.get('retry-after'),
    };
  }

  function reply(res: ServerResponse, status: number, text: string, extra = {}): void {
    if (res.destroyed) return;
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      ...extra,
    });
    res.end(text);
  }

  function endless(res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.write('{"data":{"padding":"');
    const pump = () => {
      do endlessBytes += CHUNK.length;
      while (!res.destroyed && res.write(CHUNK));
      if (!res.destroyed) res.once('drain', pump);
    };
    pump();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const parsed = new URL(req.url ?? '/', 'http://hostile');
    const method = req.method ?? 'GET';
    const header = req.headers.authorization;
    const request: HostileRequest = {
      operationId: operationOf(method, parsed.pathname),
      method,
      path: parsed.pathname,
      query: parsed.searchParams,
      token: header ? (/^Bearer\s+(\S+)/i.exec(header)?.[1] ?? null) : null,
    };
    const action = rule(request);
    calls.push({ ...request, action: action.kind });
    switch (action.kind) {
      case 'hang':
        open.add(res);
        res.on('close', () => open.delete(res));
        return;
      case 'endless':
        open.add(res);
        res.on('close', () => open.delete(res));
        endless(res);
        return;
      case 'reply':
        reply(res, action.status, JSON.stringify(action.body));
        return;
      case 'drip': {
        open.add(res);
        res.on('close', () => open.delete(res));
        const answer = Buffer.from((await forward(request, req, body)).text, 'utf8');
        const size = Math.ceil(answer.length / action.pieces);
        for (let at = 0; at < answer.length && !res.destroyed; at += size) {
          await action.next();
          if (!res.headersSent) {
            res.writeHead(200, {
              'content-type': 'application/json; charset=utf-8',
              'content-length': answer.length,
            });
          }
          res.write(answer.subarray(at, at + size), () => action.sent?.());
        }
        res.end();
        return;
      }
      case 'hold':
      case 'pass':
      case 'rewrite': {
        if (action.kind === 'hold') await action.until;
        const sent =
          action.kind === 'rewrite' && action.query
            ? { ...request, query: action.query(new URLSearchParams(request.query)) }
            : request;
        const answer = await forward(sent, req, body);
        let text = answer.text;
        if (action.kind === 'rewrite' && answer.status >= 200 && answer.status < 300) {
          text = JSON.stringify(action.rewrite(JSON.parse(text)));
        }
        reply(
          res,
          answer.status,
          text,
          answer.retryAfter ? { 'retry-after': answer.retryAfter } : {},
        );
        return;
      }
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) reply(res, 502, '{"error":{"id":"502","name":"bad_gateway"}}');
      else res.destroy();
    });
  });
  // Idle connections are the client's to close, as the sandbox's (see its `keepAliveTimeout`):
  // a server-side idle timer racing a request sent after a stall resets it.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    setRule(next) {
      rule = next;
    },
    calls: () => calls,
    resetCalls() {
      calls.length = 0;
    },
    openRequests: () => open.size,
    endlessBytes: () => endlessBytes,
    dropOpen() {
      for (const res of open) res.destroy();
    },
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
