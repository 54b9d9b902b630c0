import type { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { gatewayError } from '../../errors/codes.js';

/** Where a client learns what to send instead. */
export const STREAMING_MEDIA_TYPES = ['multipart/mixed', 'text/event-stream'] as const;

/**
 * Answers in parts (`@defer`, `@stream`, a subscription) where no stream can carry them. The
 * parts are never produced: each such execution is ended here, so nothing it holds (a
 * subscription's feed) waits for a reader.
 * - Asked for with an `Accept` that only takes one JSON body: yoga answers 406 with an empty
 *   body, and the client cannot tell why. Still 406 (no acceptable representation exists), but
 *   with a GraphQL error body that says what to send, and an `Accept` header listing the types
 *   that stream.
 * - Inside a batch, which answers once as one JSON array: yoga would print the item as `{}`, a
 *   silent success. The item is answered with an error that says to send it alone; the batch's
 *   other items keep their answers.
 */
export function useStreamsNeedStreaming(): Plugin {
  return {
    onResultProcess({ result, resultProcessor, setResult, setResultProcessor }) {
      if (Array.isArray(result)) {
        if (result.some(isAsyncIterable)) setResult(result.map(unlessStream));
        return;
      }
      if (resultProcessor || !isAsyncIterable(result)) return;
      void result.return?.();
      const error = gatewayError(
        `This operation answers in parts (@defer, @stream or a subscription), which a single JSON body cannot carry: send \`Accept: ${STREAMING_MEDIA_TYPES.join('` or `')}\`, or leave out @defer and @stream.`,
        'NOT_ACCEPTABLE',
      );
      setResultProcessor(
        (_result, fetchAPI) =>
          new fetchAPI.Response(JSON.stringify({ errors: [error.toJSON()] }), {
            status: 406,
            headers: {
              'content-type': 'application/json; charset=utf-8',
              accept: STREAMING_MEDIA_TYPES.join(', '),
            },
          }),
        'application/json',
      );
    },
  };
}

// Private: a batch item, or, for an answer in parts, an error saying to send it alone.
function unlessStream<T>(item: T): T | { errors: GraphQLError[] } {
  if (!isAsyncIterable(item)) return item;
  void item.return?.();
  return {
    errors: [
      gatewayError(
        'A subscription, @defer or @stream cannot be answered in a batch: send it as its own ' +
          'request (SSE: Accept: text/event-stream; or over WebSocket).',
        'BAD_REQUEST',
      ),
    ],
  };
}

// Private: what yoga hands on for an answer in parts.
function isAsyncIterable(value: unknown): value is AsyncIterableIterator<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
