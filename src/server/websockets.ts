/**
 * GraphQL over WebSocket (the `graphql-transport-ws` protocol of `graphql-ws`) on the gateway's
 * HTTP server, at the GraphQL endpoint (and at `/subgraph`, for a router's subscriptions). graphql-ws speaks the protocol; this file is its glue to
 * `ws` (in place of `graphql-ws/use/ws`, which prints to stderr and closes the whole connection
 * with 4500 when anything throws) and to the gateway: every operation passes the admission path
 * (src/admission) and then runs through the gateway's yoga instance (`getEnveloped`), so
 * it gets the same checks, context, error masking and report as over HTTP.
 *
 * - Origin: an upgrade from an origin outside `CORS_ORIGINS` is refused with 403 before any
 *   connection exists (WebSockets are not subject to CORS; browsers send `Origin` on upgrades).
 * - Authentication: the client's token in `connectionParams`, as `{ authorization: 'Bearer <t>' }`
 *   (or `{ token: '<t>' }`), else the upgrade request's, as over HTTP (`Authorization: Bearer`,
 *   which server-side clients and routers send on the upgrade, or `access_token` in its URL). It
 *   is checked per operation, as over HTTP: an operation with a token that cannot be one, or one
 *   the upstream refused, fails alone (an `error` message); without a token, what needs one fails
 *   with UNAUTHENTICATED.
 * - Refusals of one operation never end the connection; a failure of the gateway's own is
 *   logged (structured, through the gateway's logger) and fails that operation only.
 * - Limits: `live.maxSubscriptionsPerConnection` operations at once per connection (refused
 *   with TOO_MANY_SUBSCRIPTIONS beyond it); messages up to `limits.bodyBytes` (a larger one
 *   closes the connection with 1009, as HTTP answers 413: its operation was never read).
 * - Heartbeats: a ping every `live.heartbeatMs`; a connection that does not answer before the
 *   next one is terminated.
 * - Idle: a connection with no operation for `live.idleTimeoutMs` is closed (1000, "idle").
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  type ExecutionArgs,
  type ExecutionResult,
  GraphQLError,
  type GraphQLSchema,
} from 'graphql';
import {
  CloseCode,
  type Context,
  handleProtocols,
  makeServer,
  type OperationResult,
} from 'graphql-ws';
import { type WebSocket, WebSocketServer } from 'ws';
import type { Admission } from '../admission/admission.js';
import { ownOriginsOf } from '../admission/origin.js';
import { type Presented, presentedByConnection, sessionOf } from '../admission/presented.js';
import type { GatewayConfig } from '../config/config.js';
import { copyError, gatewayError } from '../errors/codes.js';
import { logInternalError } from '../errors/internal-errors.js';
import { cleanError } from '../errors/use-error-hygiene.js';
import type { Logger } from '../telemetry/logger.js';
import type { Scheduler, TimerHandle } from '../time/scheduler.js';
import { SUBGRAPH_PATH } from './plugins/use-subgraph-endpoint.js';
import type { GatewayYoga } from './run-operation.js';

export const IDLE_CLOSE_CODE = 1000;

export interface WebSocketAttachment {
  /** Closes every connection (1001, going away) and stops accepting new ones. */
  close(): Promise<void>;
}

export interface AttachWebSocketsOptions {
  /** Where clients connect to the graph. @default '/graphql' */
  path?: string;
}

/** What GraphQL over WebSocket needs of a gateway (`createGateway`'s `Gateway` is one). */
export interface WebSocketGateway {
  readonly yoga: GatewayYoga;
  /** The subgraph, when served: its schema and the yoga instance that runs it. */
  readonly subgraph?: () => { readonly schema: GraphQLSchema; readonly yoga: GatewayYoga };
  readonly config: Pick<GatewayConfig, 'live' | 'limits'>;
  readonly admission: Admission;
  readonly logger?: Logger;
  /** The gateway's timers (idle connections close on them). */
  readonly scheduler: Scheduler;
  /**
   * Tells of callers whose credentials ended (a sign-in's grant, on any instance): their
   * connections close with 4401 (graphql-ws's Unauthorized, which its client does not retry).
   */
  readonly credentialsEnded?: (listener: (tokenKey: string) => void) => () => void;
}

/** graphql-ws's close code for a connection whose credentials are gone. */
export const UNAUTHORIZED_CLOSE_CODE = 4401;

/** Private: what runs the operations of one WebSocket path. */
interface Endpoint {
  readonly yoga: GatewayYoga;
  /** The schema admission prices against, when not the graph's. */
  readonly schema?: GraphQLSchema;
}

type ConnectionParams = Record<string, unknown>;
interface Extra {
  readonly socket: WebSocket;
  readonly request: IncomingMessage;
}
type WsContext = Context<ConnectionParams, Extra>;
type Enveloped = ReturnType<GatewayYoga['getEnveloped']>;

export function attachWebSockets(
  server: Server,
  gateway: WebSocketGateway,
  { path = '/graphql' }: AttachWebSocketsOptions = {},
): WebSocketAttachment {
  const { live: settings, limits } = gateway.config;
  const { admission, logger } = gateway;
  // The graph, and the subgraph when served (a router's subscriptions arrive there), made on
  // first use.
  const endpoints = new Map<string, () => Endpoint>([[path, () => ({ yoga: gateway.yoga })]]);
  const { subgraph } = gateway;
  if (subgraph) endpoints.set(SUBGRAPH_PATH, subgraph);
  const scheduler = gateway.scheduler;
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: limits.bodyBytes,
    handleProtocols: (protocols) => handleProtocols(protocols),
  });
  const idleTimers = new WeakMap<WsContext, TimerHandle>();
  // Connections by the key of the credentials their operations run with, to close them when
  // those end (a sign-in's grant).
  const byKey = new Map<string, Set<WebSocket>>();
  const holdKey = (socket: WebSocket, tokenKey: string) => {
    let sockets = byKey.get(tokenKey);
    if (!sockets) {
      sockets = new Set();
      byKey.set(tokenKey, sockets);
    }
    if (sockets.has(socket)) return;
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0) byKey.delete(tokenKey);
    });
  };
  const stopEnded = gateway.credentialsEnded?.((tokenKey) => {
    for (const socket of byKey.get(tokenKey) ?? [])
      socket.close(UNAUTHORIZED_CLOSE_CODE, 'Unauthorized');
  });
  // What each connection presents, read at its first operation: every operation on it carries
  // the same value, which admission checks and digests once.
  const presentedOn = new WeakMap<WsContext, Presented | null>();
  const presentedOf = (ctx: WsContext): Presented | undefined => {
    let presented = presentedOn.get(ctx);
    if (presented === undefined) {
      const { headers, url } = ctx.extra.request;
      const upgrade = { authorization: headers.authorization, url, cookie: headers.cookie };
      presented = presentedByConnection(ctx.connectionParams, upgrade) ?? null;
      presentedOn.set(ctx, presented);
    }
    return presented ?? undefined;
  };
  // The yoga instance each operation runs in, by its context (graphql-ws hands the args back).
  const runners = new WeakMap<object, Enveloped>();

  const watchIdle = (ctx: WsContext) => {
    idleTimers.get(ctx)?.cancel();
    idleTimers.set(
      ctx,
      scheduler.setTimeout(() => {
        if (Object.keys(ctx.subscriptions).length === 0) {
          ctx.extra.socket.close(IDLE_CLOSE_CODE, 'idle');
        }
      }, settings.idleTimeoutMs),
    );
  };
  const internal = (error: unknown, what: string): GraphQLError => {
    // yoga's masking (context building, execution) has logged what it masked already.
    if (error instanceof GraphQLError && error.extensions.code === 'INTERNAL_SERVER_ERROR')
      return error;
    logInternalError(logger, error, what);
    return gatewayError('Unexpected error.', 'INTERNAL_SERVER_ERROR');
  };
  const run = (kind: 'execute' | 'subscribe', args: ExecutionArgs): OperationResult => {
    const runner = runners.get(args.contextValue as object);
    if (!runner) return { errors: [internal(new Error('no runner'), 'websocket operation lost')] };
    try {
      return Promise.resolve(runner[kind](args)).catch(
        (error: unknown): ExecutionResult => ({
          errors: [internal(error, 'websocket operation failed')],
        }),
      );
    } catch (error) {
      return { errors: [internal(error, 'websocket operation failed')] };
    }
  };

  const protocol = makeServer<ConnectionParams, Extra>({
    onConnect(ctx) {
      watchIdle(ctx);
      return true;
    },
    async onSubscribe(ctx, _id, payload) {
      if (Object.keys(ctx.subscriptions).length > settings.maxSubscriptionsPerConnection) {
        return [
          gatewayError(
            `Too many operations on this connection: at most ${settings.maxSubscriptionsPerConnection} at once.`,
            'TOO_MANY_SUBSCRIPTIONS',
            { extensions: { limit: settings.maxSubscriptionsPerConnection } },
          ),
        ];
      }
      try {
        const { headers } = ctx.extra.request;
        const endpointPath = pathOf(ctx.extra.request);
        const endpoint = endpoints.get(endpointPath)?.();
        if (!endpoint) throw new Error(`no WebSocket endpoint at ${endpointPath}`);
        const verdict = await admission.admit({
          query: payload.query,
          variables: payload.variables,
          operationName: payload.operationName,
          extensions: payload.extensions,
          presented: presentedOf(ctx),
          origin: headers.origin ?? null,
          ownOrigins: ownOriginsOf(headers.host),
          requestId: randomUUID(),
          ...(endpoint.schema ? { schema: endpoint.schema } : {}),
        });
        if (!verdict.admitted) return [forSocket(verdict.error)];
        if (verdict.credentials) holdKey(ctx.extra.socket, verdict.credentials.tokenKey);
        // The yoga context is built from a request, as over HTTP, and the credentials admission
        // made; the request carries no credential.
        const enveloped = endpoint.yoga.getEnveloped({
          request: new Request(`http://websocket.invalid${endpointPath}`),
          credentials: verdict.credentials,
          // The price admission made: extensions.cost and measure mode's wouldRefuse read it.
          admittedCost: verdict.cost ?? null,
          params: { ...payload, query: verdict.query },
        });
        const errors = enveloped.validate(enveloped.schema, verdict.document);
        if (errors.length > 0) return errors.map(forSocket);
        const contextValue = await enveloped.contextFactory();
        runners.set(contextValue, enveloped);
        // A refused operation leaves the idle timer running: only one that runs stops it.
        idleTimers.get(ctx)?.cancel();
        return {
          schema: enveloped.schema,
          document: verdict.document,
          variableValues: payload.variables ?? undefined,
          operationName: payload.operationName ?? undefined,
          contextValue,
        };
      } catch (error) {
        return [forSocket(internal(error, 'websocket operation failed'))];
      }
    },
    onNext(_ctx, _id, _payload, _args, result) {
      if (!result.errors?.length) return;
      return { ...result, errors: result.errors.map((error) => forSocket(error).toJSON()) };
    },
    onComplete(ctx) {
      // Whether any operation is left is checked when the timer fires.
      watchIdle(ctx);
    },
    onClose(ctx) {
      idleTimers.get(ctx)?.cancel();
    },
    execute: (args) => run('execute', args),
    subscribe: (args) => run('subscribe', args),
  });

  wss.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    // `ws` closes the connection itself after such an error (1009 for a message over maxPayload).
    socket.once('error', (error) => {
      logger?.warn(
        { transport: 'websocket', errorType: error.name, reason: error.message },
        'websocket connection failed',
      );
    });
    const heartbeat = keepAlive(socket, settings.heartbeatMs);
    const closed = protocol.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve, reject) => {
            if (socket.readyState !== socket.OPEN) return resolve();
            socket.send(data, (error) => (error ? reject(error) : resolve()));
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) =>
          socket.on('message', async (data) => {
            try {
              await handle(String(data));
            } catch (error) {
              // A send to a socket closing meanwhile is no failure of the gateway's.
              if (socket.readyState !== socket.OPEN) return;
              logInternalError(logger, error, 'websocket message failed');
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            }
          }),
      },
      { socket, request },
    );
    socket.once('close', (code, reason) => {
      heartbeat.stop();
      void closed(code, String(reason));
    });
  });

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!endpoints.has(pathOf(request))) {
      refuseUpgrade(socket, 400, { message: 'No WebSocket endpoint here.' });
      return;
    }
    // A browser's cookies travel with its upgrade: a session is honoured only from the
    // gateway's own and the listed origins.
    const refusal = admission.originRefusal(
      request.headers.origin ?? null,
      ownOriginsOf(request.headers.host),
      request.headers.authorization === undefined &&
        sessionOf(request.headers.cookie) !== undefined,
    );
    if (refusal) {
      refuseUpgrade(socket, 403, {
        message: refusal.message,
        extensions: { code: refusal.extensions.code },
      });
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  };
  server.on('upgrade', onUpgrade);

  return {
    async close() {
      stopEnded?.();
      server.off('upgrade', onUpgrade);
      for (const client of wss.clients) client.close(1001, 'Going away');
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/** Private: the path of an upgrade request. */
function pathOf(request: IncomingMessage): string {
  return new URL(request.url ?? '/', 'http://upgrade.invalid').pathname;
}

/**
 * Private: pings every `intervalMs`; a connection whose pong has not come by the next ping is
 * terminated (graphql-ws's keep-alive, on real time: it watches real sockets).
 */
function keepAlive(socket: WebSocket, intervalMs: number): { stop(): void } {
  let awaitingPong = false;
  const onPong = () => {
    awaitingPong = false;
  };
  socket.on('pong', onPong);
  const timer = setInterval(() => {
    if (socket.readyState !== socket.OPEN) return;
    if (awaitingPong) {
      socket.terminate();
      return;
    }
    awaitingPong = true;
    socket.ping();
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      socket.off('pong', onPong);
    },
  };
}

/** Private: an error as it travels over the socket: cleaned, without the HTTP-only extension. */
function forSocket(error: GraphQLError): GraphQLError {
  const clean = cleanError(error);
  if (clean.extensions.http === undefined) return clean;
  const { http: _httpOnly, ...extensions } = clean.extensions;
  return copyError(clean, { extensions });
}

/** Private: answers an upgrade request with a JSON error and closes its socket. */
function refuseUpgrade(
  socket: Duplex,
  status: number,
  error: { message: string; extensions?: Record<string, unknown> },
): void {
  const body = JSON.stringify({ errors: [error] });
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${status === 403 ? 'Forbidden' : 'Bad Request'}\r\n` +
      'Connection: close\r\n' +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
