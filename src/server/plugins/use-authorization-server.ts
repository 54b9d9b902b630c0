import type { IncomingMessage } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import type { AuthorizationServer } from '../../authorization/authorization-server.js';
import { PROTECTED_RESOURCE_METADATA_PATH } from '../../authorization/metadata.js';

/**
 * The gateway's authorization server (`src/authorization`) on yoga's port: its metadata, its
 * `/oauth/*` endpoints, and on every 401 of a resource it protects (`/graphql`) the
 * `resource_metadata` parameter of `WWW-Authenticate` (RFC 9728, 5.1) that tells a client where
 * to start signing in. The caller's address (for the registration bound) is the socket's: a
 * proxy's forwarded headers are not trusted here.
 */
export function useAuthorizationServer(server: AuthorizationServer): Plugin {
  return {
    async onRequest({ request, url, endResponse, serverContext }) {
      if (!server.serves(url.pathname)) return;
      endResponse(await server.handle(request, addressOf(serverContext)));
    },
    onResponse({ request, response }) {
      if (response.status !== 401) return;
      const challenge = response.headers.get('www-authenticate');
      if (challenge !== null && !/^Bearer\b/i.test(challenge)) return;
      if (challenge?.includes('resource_metadata=')) return;
      const path = new URL(request.url).pathname;
      if (!server.serves(`${PROTECTED_RESOURCE_METADATA_PATH}${path}`)) return;
      const metadata = server.resourceMetadataUrl(path);
      response.headers.set(
        'www-authenticate',
        `${challenge ?? 'Bearer'}${challenge && challenge !== 'Bearer' ? ',' : ''} resource_metadata="${metadata}"`,
      );
    },
  };
}

function addressOf(serverContext: unknown): string {
  const request = (serverContext as { req?: IncomingMessage } | undefined)?.req;
  return request?.socket?.remoteAddress ?? 'unknown';
}
