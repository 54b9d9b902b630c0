import type { ExecutionResult, GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { copyError } from './codes.js';

/** @default 1,000 characters: every message the gateway writes is far shorter. */
export const MAX_ERROR_MESSAGE_LENGTH = 1_000;

/**
 * The last look at every error before it is sent, whatever produced it (request parsing,
 * validation, execution): the message is cut to `maxMessageLength`, and
 * `extensions.originalError` is dropped. Yoga puts the JSON parser's message there for an
 * invalid body, and that message quotes the body back (a token inside included); graphql-js
 * quotes unknown names and refused values of any length.
 */
export function useErrorHygiene({
  maxMessageLength = MAX_ERROR_MESSAGE_LENGTH,
}: {
  /** @default MAX_ERROR_MESSAGE_LENGTH */
  maxMessageLength?: number;
} = {}): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result)) setResult(result.map((one) => cleanResult(one, maxMessageLength)));
      else if (!(Symbol.asyncIterator in result)) setResult(cleanResult(result, maxMessageLength));
    },
  };
}

/** One error as every transport sends it: its message cut, no `originalError` extension. */
export function cleanError(
  error: GraphQLError,
  maxMessageLength = MAX_ERROR_MESSAGE_LENGTH,
): GraphQLError {
  const { originalError, ...extensions } = error.extensions ?? {};
  // Yoga answers such a request 400 only while the parser's error is attached (with
  // `Accept: application/json` it would be 200 otherwise); keep the 400.
  if (originalError !== undefined && typeof extensions.http === 'object' && extensions.http)
    extensions.http = { ...extensions.http, spec: false };
  const long = error.message.length > maxMessageLength;
  if (!long && originalError === undefined) return error;
  const message = long
    ? `${error.message.slice(0, maxMessageLength)}… (${error.message.length - maxMessageLength} more characters)`
    : error.message;
  return copyError(error, { message, extensions });
}

/** A result whose errors are cleaned (`cleanError`); the same object when none needs it. */
export function cleanResult<R extends ExecutionResult>(
  result: R,
  maxMessageLength = MAX_ERROR_MESSAGE_LENGTH,
): R {
  if (
    !result.errors?.some(
      (e) => e.message.length > maxMessageLength || e.extensions?.originalError !== undefined,
    )
  )
    return result;
  return { ...result, errors: result.errors.map((e) => cleanError(e, maxMessageLength)) };
}
