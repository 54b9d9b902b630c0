/**
 * Every `extensions.code` the gateway itself answers with, as one union, so a refusal cannot be
 * written with a code that is not in the list (and the table in docs/graph.md#errors has one
 * place to follow).
 * Codes that graphql-yoga adds on its own (`GRAPHQL_VALIDATION_FAILED`, ...) are its own and not
 * repeated here; the ones the gateway's admission path answers with itself are.
 */
import { GraphQLError, type GraphQLErrorOptions } from 'graphql';
import type { GatewayErrorCode } from './upstream-error.js';

/** Codes of the gateway's own refusals, beside the ones that translate an upstream answer. */
type RefusalCode =
  /** The document is not GraphQL (a syntax error); the same code yoga and Apollo use. */
  | 'GRAPHQL_PARSE_FAILED'
  /** An argument or variable the gateway refuses before any upstream call. */
  | 'BAD_USER_INPUT'
  /** Over a limit of the admission path: bytes, tokens, nesting, aliases, directives, depth, breadth, cost. */
  | 'OPERATION_TOO_COMPLEX'
  /** Introspection is off (`INTROSPECTION=off`, the production default). */
  | 'INTROSPECTION_DISABLED'
  /** A hash-only request (automatic persisted queries) names a text not registered yet. */
  | 'PERSISTED_QUERY_NOT_FOUND'
  /** A trusted-documents gateway got a document it does not hold. */
  | 'PERSISTED_QUERY_NOT_IN_LIST'
  /** A trusted-documents gateway got a document's text instead of its hash. */
  | 'PERSISTED_QUERY_ONLY'
  /** A browser origin outside `CORS_ORIGINS`. */
  | 'FORBIDDEN_ORIGIN'
  /** Over the subscriptions allowed per token or per connection. */
  | 'TOO_MANY_SUBSCRIPTIONS'
  /**
   * A subscription's client stopped reading while changes kept coming: more than the gateway
   * keeps for one subscriber waited for it. Subscribe again with `since`.
   */
  | 'SUBSCRIBER_TOO_SLOW'
  /**
   * An answer in parts (`@defer`, `@stream`, a subscription) asked for with an `Accept` header
   * that takes only one JSON body (HTTP 406).
   */
  | 'NOT_ACCEPTABLE'
  /** The gateway is stopping; a subscription ends with this. */
  | 'SHUTTING_DOWN'
  /** Webhooks are off: no WEBHOOK_KEY, or one that does not open the webhook store. */
  | 'WEBHOOKS_DISABLED'
  /**
   * The webhook store (Redis) did not answer within `REDIS_COMMAND_TIMEOUT_MS`, or is away: the
   * call failed at once instead of waiting. Try again once it is back.
   */
  | 'WEBHOOKS_UNAVAILABLE'
  /** A request body over `limits.bodyBytes` (HTTP 413); yoga's code, as its limiter answered. */
  | 'REQUEST_ENTITY_TOO_LARGE'
  /** A failure the gateway did not expect, masked. */
  | 'INTERNAL_SERVER_ERROR';

export type ErrorCode = GatewayErrorCode | RefusalCode;

/** A GraphQL error with one of the gateway's codes and whatever else its extensions carry. */
export function gatewayError(
  message: string,
  code: ErrorCode,
  options: Omit<GraphQLErrorOptions, 'extensions'> & { extensions?: Record<string, unknown> } = {},
): GraphQLError {
  return new GraphQLError(message, { ...options, extensions: { code, ...options.extensions } });
}

/**
 * `error` with another message or other extensions, still pointing where it pointed (nodes,
 * source, positions, path): how the transports and the hygiene pass reshape an error they did
 * not make. `originalError` is kept only when asked for.
 */
export function copyError(
  error: GraphQLError,
  changes: {
    message?: string;
    extensions?: Record<string, unknown>;
    originalError?: Error | undefined;
  },
): GraphQLError {
  return new GraphQLError(changes.message ?? error.message, {
    ...(error.nodes ? { nodes: error.nodes } : {}),
    ...(error.source ? { source: error.source } : {}),
    ...(error.positions ? { positions: error.positions } : {}),
    ...(error.path ? { path: error.path } : {}),
    ...(changes.originalError ? { originalError: changes.originalError } : {}),
    extensions: changes.extensions ?? error.extensions,
  });
}

/** An error as data, so it can cross the event bus (JSON) and be rebuilt on the other side. */
export interface SerializedError {
  readonly message: string;
  readonly extensions: Readonly<Record<string, unknown>>;
}

/** What `revivedError` rebuilds: the message and extensions, code included, as they were. */
export function serializedError(error: GraphQLError): SerializedError {
  return { message: error.message, extensions: { ...error.extensions } };
}

/** An error that crossed the bus, made a GraphQL error again with the code it was sent with. */
export function revivedError(error: SerializedError): GraphQLError {
  return new GraphQLError(error.message, { extensions: { ...error.extensions } });
}
