import { GraphQLError } from 'graphql';
import { gatewayError } from './codes.js';

/**
 * Errors raised on purpose (by resolvers as GraphQLError, by graphql-js validation and
 * coercion, by yoga's HTTP layer) reach the client as they are. Anything else, such as a
 * TypeError in a resolver, becomes "Unexpected error." with code INTERNAL_SERVER_ERROR. Unlike
 * yoga's development mode, nothing of the original error (message, stack) is ever added: such
 * a message could carry a URL with a token in it.
 */
export function maskError(error: unknown, message: string): Error {
  if (error instanceof GraphQLError) {
    const original = error.originalError;
    if (original === undefined || original === null || original instanceof GraphQLError)
      return error;
    return gatewayError(message, 'INTERNAL_SERVER_ERROR', { nodes: error.nodes, path: error.path });
  }
  return gatewayError(message, 'INTERNAL_SERVER_ERROR');
}
