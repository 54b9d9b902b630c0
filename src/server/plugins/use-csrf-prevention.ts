import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import type { Plugin } from 'graphql-yoga';

/** Headers that prove a request was preflighted (yoga's, Apollo Client's and Apollo Router's). */
export const CSRF_HEADERS: readonly string[] = [
  'x-graphql-yoga-csrf',
  'apollo-require-preflight',
  'x-apollo-operation-name',
];

export interface CsrfPreventionOptions {
  /** @default CSRF_HEADERS */
  requestHeaders?: readonly string[];
}

/**
 * Whether a browser must have preflighted this request, so CORS already decided on it: it
 * carries `Authorization` (never CORS-safelisted) or one of the CSRF headers.
 */
export function isPreflighted(
  request: { readonly headers: Pick<Headers, 'has'> },
  requestHeaders: readonly string[] = CSRF_HEADERS,
): boolean {
  return (
    request.headers.has('authorization') || requestHeaders.some((name) => request.headers.has(name))
  );
}

/**
 * yoga's CSRF prevention, except for requests carrying `Authorization`. CSRF abuses credentials a
 * browser attaches by itself (cookies); this gateway reads none, only bearer tokens, and a page
 * can only add an `Authorization` header through fetch, which browsers preflight, so CORS rules
 * such a request whatever its method. What stays checked: requests without that header (a token
 * in `access_token`, or none), which could be simple cross-site requests. This lets clients such
 * as urql send short queries as plain GET (their default) without a custom header.
 */
export function useCsrfPrevention({
  requestHeaders = CSRF_HEADERS,
}: CsrfPreventionOptions = {}): Plugin {
  const csrf = useCSRFPrevention({ requestHeaders: [...requestHeaders] });
  return {
    onRequestParse(payload) {
      if (payload.request.headers.has('authorization')) return;
      return csrf.onRequestParse?.(payload);
    },
  };
}
