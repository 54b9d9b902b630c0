import type { Plugin } from 'graphql-yoga';

export const REQUEST_ID_HEADER = 'x-request-id';
/** What a caller's id may look like: short, printable, no spaces or quotes (it goes into logs). */
const ACCEPTED_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export interface RequestIds {
  /** Adopts a valid `X-Request-Id`, else generates one, and returns it on the response. */
  readonly plugin: Plugin;
  /** The id given to a request (generated on first sight if the plugin has not seen it). */
  of(request: Request): string;
}

/**
 * Request ids: a caller's `X-Request-Id` is kept when it is at most 128 characters of a safe
 * set, otherwise replaced by a fresh UUID, so a client cannot inject text into log lines.
 */
export function createRequestIds(generate: () => string = () => crypto.randomUUID()): RequestIds {
  const ids = new WeakMap<Request, string>();
  const of = (request: Request): string => {
    let id = ids.get(request);
    if (id === undefined) {
      id = requestIdFor(request.headers.get(REQUEST_ID_HEADER), generate);
      ids.set(request, id);
    }
    return id;
  };
  return {
    of,
    plugin: {
      onRequest({ request }) {
        of(request);
      },
      onResponse({ request, response }) {
        response.headers.set(REQUEST_ID_HEADER, of(request));
      },
    },
  };
}

/** The id of a request offering `offered`: kept when it is one, else a fresh one. */
export function requestIdFor(
  offered: string | null | undefined,
  generate: () => string = () => crypto.randomUUID(),
): string {
  return typeof offered === 'string' && ACCEPTED_ID.test(offered) ? offered : generate();
}
