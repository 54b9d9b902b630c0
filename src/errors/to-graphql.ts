import type { GraphQLError } from 'graphql';
import { ReplicaDataError } from '../replica/validate.js';
import { gatewayError } from './codes.js';
import { OperationDeadlineError } from './deadline-error.js';
import {
  gatewayErrorCode,
  isUpstreamError,
  type UpstreamError,
  windowOf,
} from './upstream-error.js';

function messageOf(error: UpstreamError): string {
  if (error.quota) {
    const { limit, windowMs } = error.quota;
    const wait = Math.ceil((error.retryAfterMs ?? 0) / 1000);
    return `Not sent: this token has made the ${limit} requests the upstream allows it in ${windowOf(windowMs)} (the gateway's count); ${error.operationId} may go in ${wait} s.`;
  }
  switch (error.kind) {
    case 'http': {
      const rest = error.upstream;
      const base = rest
        ? `The upstream refused ${error.operationId} with ${rest.id} ${rest.name}: ${rest.detail}`
        : `The upstream refused ${error.operationId} with HTTP ${error.status ?? '?'}`;
      return error.outcomeUnknown ? `${base}. The write may or may not have been applied.` : base;
    }
    case 'network':
      return error.outcomeUnknown
        ? `The connection to the upstream broke during ${error.operationId}; the write may or may not have been applied.`
        : `The upstream could not be reached for ${error.operationId}.`;
    case 'timeout':
      return error.outcomeUnknown
        ? `The upstream did not answer ${error.operationId} in time; the write may or may not have been applied.`
        : `The upstream did not answer ${error.operationId} in time.`;
    case 'malformed':
      return `The upstream sent an unreadable answer to ${error.operationId}.`;
    case 'too_large': {
      const setting = error.sizeLimit?.setting;
      const raise = setting === undefined ? '' : ` (the gateway's ${setting} setting bounds it)`;
      return `The upstream's answer to ${error.operationId} was too large to read${raise}.`;
    }
  }
}

/**
 * The one place an upstream failure becomes a GraphQL error (docs/graph.md#errors): a stable
 * `extensions.code`, and the REST error kept verbatim in `extensions.upstream`. Messages are
 * built from the operation id and the REST error only, so they never carry a token or a stack.
 */
export function toGraphQLError(error: UpstreamError): GraphQLError {
  const code = gatewayErrorCode(error);
  return gatewayError(messageOf(error), code, {
    extensions: {
      upstream: error.upstream ? { ...error.upstream } : null,
      operationId: error.operationId,
      retryable: error.retryable,
      ...(error.outcomeUnknown ? { outcomeUnknown: true } : {}),
      ...(error.quota && error.retryAfterMs !== null
        ? { retryAfterSeconds: Math.ceil(error.retryAfterMs / 1000) }
        : {}),
    },
  });
}

/** An upstream answer refused at the boundary (a field of the wrong type): UPSTREAM_ERROR. */
export function unusableAnswerError(error: ReplicaDataError): GraphQLError {
  return gatewayError(`The upstream sent an unusable answer: ${error.message}.`, 'UPSTREAM_ERROR', {
    extensions: { upstream: null, field: error.path },
  });
}

/** Rethrows upstream failures as GraphQL errors; anything else passes through untouched (and is masked). */
export function rethrowAsGraphQL(error: unknown): never {
  if (isUpstreamError(error)) throw toGraphQLError(error);
  if (error instanceof ReplicaDataError) throw unusableAnswerError(error);
  if (error instanceof OperationDeadlineError) {
    throw gatewayError(error.message, 'UPSTREAM_UNAVAILABLE', {
      extensions: { upstream: null, retryable: true },
    });
  }
  throw error;
}
