import type { Plugin } from 'graphql-yoga';
import { gatewayError } from '../../errors/codes.js';

/** Where a client learns what to send instead. */
export const STREAMING_MEDIA_TYPES = ['multipart/mixed', 'text/event-stream'] as const;

/**
 * An answer in parts (`@defer`, `@stream`, a subscription) asked for with an `Accept` that only
 * takes one JSON body: yoga answers 406 with an empty body, and the client cannot tell why. Still
 * 406 (no acceptable representation exists), but with a GraphQL error body that says what to
 * send, and an `Accept` header listing the types that stream. The parts are never produced: the
 * execution is ended here, so nothing it holds (a subscription's feed) waits for a reader.
 */
export function useStreamsNeedStreaming(): Plugin {
  return {
    onResultProcess({ result, resultProcessor, setResultProcessor }) {
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

// Private: what yoga hands on for an answer in parts.
function isAsyncIterable(value: unknown): value is AsyncIterableIterator<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
