/**
 * Where the gateway is. `VITE_GATEWAY_URL` (read when the app is built or served by Vite) names
 * it, e.g. `https://gateway.example.com`; unset, the gateway is the page's own origin, which is
 * how Vite's dev server (`npm run example:web`) serves it: it passes `/auth` and `/graphql` on to
 * the gateway of `npm start`.
 */
export interface Gateway {
  /** The gateway's origin and path prefix, ending in `/`. */
  readonly base: URL;
  /** GraphQL over HTTP. */
  readonly graphql: string;
  /** GraphQL over WebSocket (graphql-ws), at the same path. */
  readonly webSocket: string;
  /** Who is signed in (`GET`, with the session cookie). */
  readonly session: string;
  /** Ends the session (`POST`). */
  readonly logout: string;
}

/**
 * The gateway named by `configured` (VITE_GATEWAY_URL), or the page's origin when it is empty.
 * Throws, naming the variable and its value, when it is not an absolute http(s) URL.
 */
export function gatewayAt(configured: string | undefined, pageOrigin: string): Gateway {
  const value = configured?.trim() || pageOrigin;
  let base: URL;
  try {
    base = new URL(value);
  } catch {
    throw new Error(
      `VITE_GATEWAY_URL must be an absolute URL such as https://gateway.example.com, not '${value}'.`,
    );
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new Error(`VITE_GATEWAY_URL must be an http or https URL, not '${value}'.`);
  if (base.search || base.hash)
    throw new Error(
      `VITE_GATEWAY_URL names the gateway only, without a query or fragment: '${value}'.`,
    );
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  const graphql = new URL('graphql', base).href;
  return {
    base,
    graphql,
    webSocket: graphql.replace(/^http/, 'ws'),
    session: new URL('auth/session', base).href,
    logout: new URL('auth/logout', base).href,
  };
}
