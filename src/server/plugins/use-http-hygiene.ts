import type { Plugin } from 'graphql-yoga';
import type { Admission } from '../../admission/admission.js';
import { ownOriginsOf } from '../../admission/origin.js';
import { adoptCarried } from '../wire-replay.js';

export interface HttpHygieneOptions {
  /** Its origin check (stage 6) runs here too, before the body is read. */
  admission: Pick<Admission, 'originRefusal' | 'presentedBy' | 'adoptPresented'>;
}

/**
 * Headers every answer carries, and the origin check yoga's CORS leaves out. Data answers are
 * per token and must never sit in a shared cache (`no-store` unless a plugin said otherwise,
 * as the GraphiQL assets do); browsers must not guess content types. Yoga answers an unlisted
 * origin with `Access-Control-Allow-Origin: null`, which a sandboxed frame (whose origin is
 * `null`) takes as a grant; and CORS only hides answers, while a refused request never runs:
 * the admission path's origin check refuses it at the door, before its body is read, on every
 * path (GraphiQL's and `/metrics` too). A page served by the gateway itself (GraphiQL) is
 * same-origin and always allowed.
 */
export function useHttpHygiene({ admission }: HttpHygieneOptions): Plugin {
  return {
    onRequest({ request, url, endResponse, fetchAPI, serverContext }) {
      // A request the wire replay read and handed on: what it presents was read there.
      adoptCarried(admission, request, (serverContext as { req?: unknown } | undefined)?.req);
      // A session cookie is honoured only from the gateway's own and the listed origins.
      const refusal = admission.originRefusal(
        request.headers.get('origin'),
        [url.origin, ...ownOriginsOf(request.headers.get('host'))],
        admission.presentedBy(request)?.kind === 'session',
      );
      if (!refusal) return;
      endResponse(
        new fetchAPI.Response(
          JSON.stringify({
            errors: [{ message: refusal.message, extensions: { code: refusal.extensions.code } }],
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
