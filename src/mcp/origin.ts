/**
 * Which browser pages may use `/mcp`. The MCP specification asks servers to check `Origin`
 * against DNS rebinding: a page of `evil.example` whose name then resolves to 127.0.0.1 sends
 * `Origin: http://evil.example:4000` with `Host: evil.example:4000`, so "the origin matches the
 * host" proves nothing when the host is a name. `/mcp` therefore takes, from a browser:
 *
 * - the origins `CORS_ORIGINS` lists (its `*` grants nothing here: it is for GraphQL clients);
 * - the gateway's own origin when the page reached it by an IP address or `localhost`, names no
 *   other site can take over.
 *
 * A request without `Origin` is not from a page (or is a same-origin GET, which cannot carry
 * the token or session header a page does not have) and passes.
 */
import { isIP } from 'node:net';
import { ownOriginsOf } from '../admission/origin.js';

export const FOREIGN_ORIGIN =
  "This origin may not use MCP on this gateway: a browser page may call /mcp only from the gateway's own address (an IP address or localhost) or from an origin listed in CORS_ORIGINS.";

/** Whether a request with `origin` (its `Origin` header) to `host` (its `Host`) may go on. */
export function isMcpOrigin(
  origin: string | null,
  host: string | undefined,
  corsOrigins: '*' | readonly string[],
): boolean {
  if (origin === null) return true;
  if (corsOrigins !== '*' && corsOrigins.includes(origin)) return true;
  return host !== undefined && isAddress(host) && ownOriginsOf(host).includes(origin);
}

/** Private: whether a `Host` header names the gateway by an IP address or `localhost`. */
function isAddress(host: string): boolean {
  let hostname: string;
  try {
    hostname = new URL(`http://${host}`).hostname;
  } catch {
    return false;
  }
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  return bare === 'localhost' || isIP(bare) !== 0;
}
