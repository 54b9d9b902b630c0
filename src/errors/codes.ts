/**
 * Errors the gateway makes: `gatewayError` with a code of the catalogue (catalogue.ts, where each
 * code says what it means), so a refusal cannot be written with a code that is not in the list.
 */
import { GraphQLError, type GraphQLErrorOptions } from 'graphql';
import type { ErrorCode } from './catalogue.js';

export type { ErrorCode } from './catalogue.js';

/** A GraphQL error with one of the gateway's codes and whatever else its extensions carry. */
export function gatewayError(
  message: string,
  code: ErrorCode,
  options: Omit<GraphQLErrorOptions, 'extensions'> & {
    /** Whatever else the error carries; its code is `code`, never one written here. */
    extensions?: Record<string, unknown> & { code?: never };
  } = {},
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
