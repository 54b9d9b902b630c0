/**
 * GraphQL over WebSocket (the `graphql-transport-ws` protocol of `graphql-ws`) on the gateway's
 * HTTP server, at the GraphQL endpoint. Every operation runs through the gateway's yoga instance
 * (`getEnveloped`), so it gets the same context, limits and error masking as over HTTP.
 *
 * - Authentication: the client's token in `connectionParams`, as `{ authorization: 'Bearer <t>' }`
 *   (or `{ token: '<t>' }`). A connection without one is refused (close code 4403); a wrong one
 *   fails each subscription with UNAUTHENTICATED, as over HTTP.
 * - Limits: `live.maxSubscriptionsPerConnection` operations at once per connection (refused
 *   with TOO_MANY_SUBSCRIPTIONS beyond it); messages up to `limits.bodyBytes`.
 * - Heartbeats: a ping every `live.heartbeatMs`; a connection that does not answer before the
 *   next one is terminated (graphql-ws's keep-alive).
 * - Idle: a connection with no operation for `live.idleTimeoutMs` is closed (1000, "idle").
 */
import type { Server } from 'node:http';
import { GraphQLError } from 'graphql';
import type { Context } from 'graphql-ws';
import { type Extra, useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { gatewayError } from '../contracts/error-codes.js';
import type { TimerHandle } from '../live/scheduler.js';
import type { Gateway } from './gateway.js';

export const IDLE_CLOSE_CODE = 1000;

export interface WebSocketAttachment {
  /** Closes every connection (1001, going away) and stops accepting new ones. */
  close(): Promise<void>;
}

export interface AttachWebSocketsOptions {
  /** Where clients connect. @default '/graphql' */
  path?: string;
}

type ConnectionParams = Record<string, unknown>;
type WsContext = Context<ConnectionParams, Extra>;

/** The bearer token a client put in `connectionParams`, if any. */
export function tokenFromConnectionParams(params: ConnectionParams | undefined): string | null {
  if (!params) return null;
  const header = params.authorization ?? params.Authorization;
  if (typeof header === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match?.[1]) return match[1];
  }
  const token = params.token ?? params.access_token;
  return typeof token === 'string' && /^\S+$/.test(token) ? token : null;
}

export function attachWebSockets(
  server: Server,
  gateway: Gateway,
  { path = '/graphql' }: AttachWebSocketsOptions = {},
): WebSocketAttachment {
  const { live: settings, limits } = gateway.config;
  const scheduler = gateway.live.scheduler;
  const wss = new WebSocketServer({ server, path, maxPayload: limits.bodyBytes });
  const idleTimers = new WeakMap<WsContext, TimerHandle>();

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

  const disposable = useServer<ConnectionParams>(
    {
      onConnect(ctx) {
        if (tokenFromConnectionParams(ctx.connectionParams) === null) return false;
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
        idleTimers.get(ctx)?.cancel();
        const token = tokenFromConnectionParams(ctx.connectionParams);
        // The yoga context is built from a request, as over HTTP: the token travels as its header.
        const request = new Request(`http://websocket.invalid${path}`, {
          headers: token ? { authorization: `Bearer ${token}` } : {},
        });
        const enveloped = gateway.yoga.getEnveloped({ request, params: payload });
        let document: ReturnType<typeof enveloped.parse>;
        try {
          document = enveloped.parse(payload.query);
        } catch (error) {
          return [error instanceof GraphQLError ? error : new GraphQLError('Syntax error')];
        }
        const errors = enveloped.validate(enveloped.schema, document);
        if (errors.length > 0) return errors;
        return {
          schema: enveloped.schema,
          document,
          variableValues: payload.variables ?? undefined,
          operationName: payload.operationName ?? undefined,
          contextValue: await enveloped.contextFactory(),
          rootValue: { execute: enveloped.execute, subscribe: enveloped.subscribe },
        };
      },
      onComplete(ctx) {
        // Whether any operation is left is checked when the timer fires.
        watchIdle(ctx);
      },
      onClose(ctx) {
        idleTimers.get(ctx)?.cancel();
      },
      execute: (args) => (args.rootValue as EnvelopedRoot).execute(args),
      subscribe: (args) => (args.rootValue as EnvelopedRoot).subscribe(args),
    },
    wss,
    settings.heartbeatMs,
  );

  return {
    async close() {
      await disposable.dispose();
    },
  };
}

interface EnvelopedRoot {
  execute: typeof import('graphql').execute;
  subscribe: typeof import('graphql').subscribe;
}
