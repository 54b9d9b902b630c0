/**
 * What the authorization server and the resources it protects say about themselves: RFC 8414's
 * authorization server metadata at `/.well-known/oauth-authorization-server`, and RFC 9728's
 * protected resource metadata at `/.well-known/oauth-protected-resource<path>` for each resource
 * (`/graphql`, `/mcp`), which a 401 names in `WWW-Authenticate` (MCP's authorization
 * specification). The shapes are the MCP SDK's (`shared/auth.js`), so its client reads them as
 * they are.
 */
import type {
  OAuthMetadata,
  OAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/sdk/shared/auth.js';

export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

export const ENDPOINTS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
  revoke: '/oauth/revoke',
  /** Where a browser lands when nothing can be redirected to the client (an expired request). */
  error: '/oauth/error',
} as const;

/** The scope the gateway's tokens carry: the signed-in person's plans, as the upstream grants them. */
export const SCOPE = 'plans';

/** The issuer as metadata names it: the origin, without a trailing slash. */
export function issuerOf(base: URL): string {
  return base.origin;
}

export function authorizationServerMetadata(
  base: URL,
): OAuthMetadata & { authorization_response_iss_parameter_supported: boolean } {
  const at = (path: string) => new URL(path, base).href;
  return {
    issuer: issuerOf(base),
    authorization_endpoint: at(ENDPOINTS.authorize),
    token_endpoint: at(ENDPOINTS.token),
    registration_endpoint: at(ENDPOINTS.register),
    revocation_endpoint: at(ENDPOINTS.revoke),
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
    revocation_endpoint_auth_methods_supported: [
      'none',
      'client_secret_post',
      'client_secret_basic',
    ],
    scopes_supported: [SCOPE],
    // RFC 9207: the authorization response names its issuer.
    authorization_response_iss_parameter_supported: true,
  };
}

/** The resource's identifier (RFC 8707): its URL on the gateway. */
export function resourceOf(base: URL, path: string): string {
  return new URL(path, base).href;
}

export function protectedResourceMetadata(base: URL, path: string): OAuthProtectedResourceMetadata {
  return {
    resource: resourceOf(base, path),
    authorization_servers: [issuerOf(base)],
    bearer_methods_supported: ['header'],
    scopes_supported: [SCOPE],
    resource_name: `Plans gateway ${path === '/mcp' ? 'MCP server' : 'GraphQL API'}`,
  };
}

/** Where a resource's metadata is served: the well-known prefix, then the resource's path. */
export function resourceMetadataUrl(base: URL, path: string): string {
  return new URL(`${PROTECTED_RESOURCE_METADATA_PATH}${path}`, base).href;
}
