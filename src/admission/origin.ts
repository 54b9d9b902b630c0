/**
 * The origin check, for HTTP requests and WebSocket upgrades alike. Browsers send `Origin` on
 * cross-origin fetches and on every WebSocket upgrade, and a page cannot forge it; other clients
 * send none. CORS alone only hides answers from a page, and WebSockets are not subject to CORS
 * at all, so an origin outside the list is refused before anything runs.
 */
import type { GraphQLError } from 'graphql';
import { gatewayError } from '../errors/codes.js';

/**
 * Whether a request from `origin` may run: any when the list is `*`; a request without `Origin`
 * (not from a browser) or from the gateway's own origin (GraphiQL) always; else only a listed one.
 * `null` as a value (what sandboxed frames send) is never a grant.
 */
export function isAllowedOrigin(
  allowed: '*' | readonly string[],
  origin: string | null,
  ownOrigins: readonly string[],
): boolean {
  if (allowed === '*' || origin === null) return true;
  return ownOrigins.includes(origin) || allowed.includes(origin);
}

/** The refusal of an origin outside `CORS_ORIGINS` (HTTP 403). */
export function forbiddenOrigin(): GraphQLError {
  return gatewayError(
    'This origin is not allowed to call the gateway (see CORS_ORIGINS).',
    'FORBIDDEN_ORIGIN',
    { extensions: { http: { status: 403 } } },
  );
}

/**
 * The origins a request to `host` (its `Host` header) comes from when it comes from the gateway's
 * own pages: whichever scheme the client used to reach it.
 */
export function ownOriginsOf(host: string | null | undefined): string[] {
  return host ? [`http://${host}`, `https://${host}`] : [];
}
