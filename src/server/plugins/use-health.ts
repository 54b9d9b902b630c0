import { SPECIFICATION_VERSION } from '@plans-gateway/rest-contract';
import type { Plugin } from 'graphql-yoga';

/** What `/health` answers: alive, and the upstream specification the gateway was built for. */
export interface Health {
  readonly status: 'alive';
  readonly upstream: { readonly specification: string };
}

/**
 * `/health` says which version of the upstream's specification this build follows, so an
 * operator can tell whether it predates a change upstream without reading the image. yoga's own
 * health check answers the path first (200, no body); this fills the body in. Liveness only: it
 * asks the upstream nothing (`/ready` does).
 */
export function useHealth(endpoint = '/health'): Plugin {
  const body = JSON.stringify({
    status: 'alive',
    upstream: { specification: SPECIFICATION_VERSION },
  } satisfies Health);
  return {
    onResponse({ request, response, setResponse, fetchAPI }) {
      if (response.status !== 200 || new URL(request.url).pathname !== endpoint) return;
      const headers = new fetchAPI.Headers(response.headers);
      headers.set('content-type', 'application/json; charset=utf-8');
      setResponse(new fetchAPI.Response(body, { status: 200, headers }));
    },
  };
}
