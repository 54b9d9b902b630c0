import type { CORSOptions } from 'graphql-yoga';
import type { GatewayConfig } from '../config/config.js';
import { REQUEST_ID_HEADER } from './plugins/use-request-id.js';

/** Browsers cache a preflight this long, so a page pays for one per endpoint every 10 minutes. */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * yoga's CORS options for the gateway: the configured origins and request headers, GET and POST.
 * Credentials (the session cookie of sign-in) only with sign-in on and only for a list of
 * origins: `*` never carries them. `ETag` and the request id are exposed so client code can read
 * them; browsers revalidate with the ETag on their own.
 */
export function corsOptions(
  config: Pick<GatewayConfig, 'corsOrigins' | 'corsAllowedHeaders' | 'signIn'>,
): CORSOptions | ((request: Request) => CORSOptions) {
  const { corsOrigins } = config;
  if (corsOrigins === '*') return options(config, '*');
  // A listed origin gets itself back; any other none (whatwg-node would name the one listed
  // origin to every caller, which a browser refuses anyway, but says more than it must).
  return (request) => {
    const origin = request.headers.get('origin');
    return origin !== null && corsOrigins.includes(origin) ? options(config, [origin]) : false;
  };
}

function options(
  config: Pick<GatewayConfig, 'corsOrigins' | 'corsAllowedHeaders' | 'signIn'>,
  origin: '*' | string[],
): CORSOptions {
  return {
    origin,
    methods: ['GET', 'POST'],
    allowedHeaders: [...config.corsAllowedHeaders],
    exposedHeaders: ['etag', REQUEST_ID_HEADER],
    credentials: config.signIn !== undefined && config.corsOrigins !== '*',
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  };
}
