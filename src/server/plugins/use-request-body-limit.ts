import type { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { gatewayError } from '../../errors/codes.js';

/**
 * The request body's limit, in yoga's place (`maxRequestBodySize: false`), with yoga's refusals:
 * 413 over the limit, 400 for a `Content-Length` that is not one number.
 *
 * Why not yoga's: it counts every body through a `TransformStream` and a new `Request`, also
 * when `Content-Length` already bounds it, and so also after the answer cache has read and
 * parsed that body (`use-http-caching.ts`): every POST was read and parsed twice, a fifth of a
 * mutation's time before its write in the gateway's profile. An HTTP/1.1 server reads no more
 * of a body than its `Content-Length`, so a body that declares one within the limit is left as
 * it is; a body without one (chunked) is counted as yoga counts it. Placed after every plugin
 * that chooses a request parser, so it wraps whichever one is chosen.
 */
export function useRequestBodyLimit(maxBytes: number): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      const declared = request.headers.get('content-length');
      if (declared !== null) {
        if (!/^\d+$/.test(declared)) throw invalidContentLength();
        if (Number(declared) > maxBytes) throw tooLarge();
        return;
      }
      if (!requestParser || !request.body) return;
      setRequestParser((unlimited) => requestParser(counted(unlimited, maxBytes, fetchAPI)));
    },
  };
}

/** Private: `request` with a body that fails once more than `maxBytes` bytes came through. */
function counted(
  request: Request,
  maxBytes: number,
  fetchAPI: { Request: typeof Request; TransformStream: typeof TransformStream },
): Request {
  const body = request.body;
  if (!body) return request;
  // A native stream pipes only into a native TransformStream (yoga issue 4583).
  const Transform =
    body instanceof ReadableStream ? globalThis.TransformStream : fetchAPI.TransformStream;
  let bytes = 0;
  const limited = body.pipeThrough(
    new Transform<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength;
        if (bytes > maxBytes) controller.error(tooLarge());
        else controller.enqueue(chunk);
      },
    }),
  );
  return new fetchAPI.Request(request.url, {
    method: request.method,
    headers: request.headers,
    signal: request.signal,
    body: limited,
    duplex: 'half',
  } as RequestInit);
}

function tooLarge(): GraphQLError {
  return gatewayError('Request body too large', 'REQUEST_ENTITY_TOO_LARGE', {
    extensions: { http: { status: 413 } },
  });
}

function invalidContentLength(): GraphQLError {
  return gatewayError('Content-Length header is invalid.', 'BAD_REQUEST', {
    extensions: { http: { status: 400 } },
  });
}
