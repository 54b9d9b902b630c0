import type { Plugin } from 'graphql-yoga';
import { gatewayError } from '../../errors/codes.js';

/**
 * A batch answers once, as one JSON array, so an operation in it that answers with a stream (a
 * subscription, `@defer`, `@stream`) has nowhere to go: yoga would print it as `{}`, a silent
 * success. Each such item is ended (its feed released at once) and answered with an error that
 * says how to send it instead; the batch's other items keep their answers.
 */
export function useBatchedStreams(): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (!Array.isArray(result) || !result.some(isStream)) return;
      setResult(
        result.map((item) => {
          if (!isStream(item)) return item;
          void item[Symbol.asyncIterator]().return?.();
          return { errors: [streamInBatch()] };
        }),
      );
    },
  };
}

function isStream(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

function streamInBatch() {
  return gatewayError(
    'A subscription, @defer or @stream cannot be answered in a batch: send it as its own ' +
      'request (SSE: Accept: text/event-stream; or over WebSocket).',
    'BAD_REQUEST',
  );
}
