import type { Plugin } from 'graphql-yoga';
import type { ErrorCode } from '../../contracts/error-codes.js';

export interface HttpHygieneOptions {
  /** Browser origins allowed, or `*`. With a list, any other `Origin` (`null` included) is refused. */
  corsOrigins: '*' | readonly string[];
}

/**
 * Headers every answer carries, and the origin check yoga's CORS leaves out. Data answers are
 * per token and must never sit in a shared cache (`no-store` unless a plugin said otherwise,
 * as the GraphiQL assets do); browsers must not guess content types. Yoga answers an unlisted
 * origin with `Access-Control-Allow-Origin: null`, which a sandboxed frame (whose origin is
 * `null`) takes as a grant; and CORS only hides answers, while a refused request never runs.
 * A page served by the gateway itself (GraphiQL) is same-origin and always allowed.
 */
export function useHttpHygiene({ corsOrigins }: HttpHygieneOptions): Plugin {
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (corsOrigins === '*') return;
      const origin = request.headers.get('origin');
      if (origin === null || origin === url.origin || corsOrigins.includes(origin)) return;
      endResponse(
        new fetchAPI.Response(
          JSON.stringify({
            errors: [
              {
                message: 'This origin is not allowed to call the gateway (see CORS_ORIGINS).',
                extensions: { code: 'FORBIDDEN_ORIGIN' satisfies ErrorCode },
              },
            ],
          }),
          { status: 403, headers: { 'content-type': 'application/json; charset=utf-8' } },
        ),
      );
    },
    onResponse({ response }) {
      response.headers.set('x-content-type-options', 'nosniff');
      if (!response.headers.has('cache-control')) response.headers.set('cache-control', 'no-store');
    },
  };
}
