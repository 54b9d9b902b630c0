/**
 * RFC 7591 dynamic client registration, as MCP clients use it: the metadata is read with the MCP
 * SDK's own schema, then held to what this server supports (the code grant with PKCE, redirect
 * URIs a browser can be sent to). What is registered is bounded twice: each address may register
 * `perAddress` clients per `windowMs` (429 `slow_down` past it), and the table holds at most
 * `maxClients`: a newcomer to a full table evicts the oldest client that never signed anyone in,
 * and is refused (`temporarily_unavailable`) when every client has. Clients that never sign
 * anyone in expire after `unusedClientMs`; the others `clientIdleMs` after their last sign-in.
 */
import {
  type OAuthClientInformationFull,
  type OAuthClientMetadata,
  OAuthClientMetadataSchema,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { OAuthRefusal } from './oauth-errors.js';

export type ClientAuthMethod = 'none' | 'client_secret_post' | 'client_secret_basic';

/** A client as the server keeps it (sealed in its row): the secret only as a keyed digest. */
export interface RegisteredClient {
  readonly clientId: string;
  readonly redirectUris: readonly string[];
  readonly authMethod: ClientAuthMethod;
  readonly secretDigest?: string | undefined;
  readonly name?: string | undefined;
  readonly issuedAt: number;
}

/** At most this many redirect URIs, each at most this long: metadata is stored for each client. */
const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2_000;
const MAX_NAME_LENGTH = 200;

/** The registration request's metadata, checked; or the RFC 7591 refusal naming what is wrong. */
export function checkClientMetadata(body: unknown): OAuthClientMetadata & {
  token_endpoint_auth_method: ClientAuthMethod;
} {
  const parsed = OAuthClientMetadataSchema.safeParse(body);
  if (!parsed.success) {
    const redirect = parsed.error.issues.some((issue) => issue.path[0] === 'redirect_uris');
    const first = parsed.error.issues[0];
    throw new OAuthRefusal(
      redirect ? 'invalid_redirect_uri' : 'invalid_client_metadata',
      `The client metadata is not valid: ${first ? `${first.path.join('.') || 'body'}: ${first.message}` : 'not an object'}.`,
    );
  }
  const metadata = parsed.data;
  if (metadata.redirect_uris.length === 0 || metadata.redirect_uris.length > MAX_REDIRECT_URIS)
    throw new OAuthRefusal(
      'invalid_redirect_uri',
      `redirect_uris must list 1 to ${MAX_REDIRECT_URIS} URIs.`,
    );
  for (const uri of metadata.redirect_uris) checkRedirectUri(uri);
  if ((metadata.client_name?.length ?? 0) > MAX_NAME_LENGTH)
    throw new OAuthRefusal(
      'invalid_client_metadata',
      `client_name is over ${MAX_NAME_LENGTH} characters.`,
    );
  const method = metadata.token_endpoint_auth_method ?? 'client_secret_basic';
  if (method !== 'none' && method !== 'client_secret_post' && method !== 'client_secret_basic')
    throw new OAuthRefusal(
      'invalid_client_metadata',
      'token_endpoint_auth_method must be none, client_secret_post or client_secret_basic.',
    );
  for (const grant of metadata.grant_types ?? ['authorization_code'])
    if (grant !== 'authorization_code' && grant !== 'refresh_token')
      throw new OAuthRefusal(
        'invalid_client_metadata',
        `grant_types: ${JSON.stringify(grant).slice(0, 60)} is not supported (authorization_code, refresh_token).`,
      );
  for (const type of metadata.response_types ?? ['code'])
    if (type !== 'code')
      throw new OAuthRefusal('invalid_client_metadata', 'response_types must be ["code"].');
  return { ...metadata, token_endpoint_auth_method: method };
}

/**
 * A redirect URI this server may send a browser to: absolute, no fragment (RFC 6749, 3.1.2);
 * https, or http on a loopback address (RFC 8252, 7.3), or an app's private scheme with a dot in
 * it (RFC 8252, 7.1: `com.example.app:/callback`). Never `javascript:` or `data:`.
 */
function checkRedirectUri(uri: string): void {
  const refuse = (why: string) =>
    new OAuthRefusal('invalid_redirect_uri', `The redirect URI ${quoteUri(uri)} ${why}.`);
  if (uri.length > MAX_URI_LENGTH) throw refuse(`is over ${MAX_URI_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw refuse('is not an absolute URI');
  }
  if (url.hash !== '' || uri.includes('#')) throw refuse('has a fragment');
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:') {
    if (isLoopback(url.hostname)) return;
    throw refuse('is http on a host that is not a loopback address (use https)');
  }
  const scheme = url.protocol.slice(0, -1);
  if (/^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+$/.test(scheme)) return;
  throw refuse(
    'has a scheme a browser must not be sent to (https, loopback http, or an app scheme like com.example.app)',
  );
}

export function isLoopback(hostname: string): boolean {
  return hostname === '127.0.0.1' || hostname === '[::1]' || hostname === 'localhost';
}

/**
 * Whether `requested` is one of the client's redirect URIs: compared as strings (OAuth 2.1),
 * except that a loopback redirect may name any port (RFC 8252, 7.3: a native app listens on an
 * ephemeral one).
 */
export function redirectMatches(client: RegisteredClient, requested: string): boolean {
  if (client.redirectUris.includes(requested)) return true;
  let asked: URL;
  try {
    asked = new URL(requested);
  } catch {
    return false;
  }
  if (asked.protocol !== 'http:' || !isLoopback(asked.hostname)) return false;
  return client.redirectUris.some((uri) => {
    const registered = new URL(uri);
    if (registered.protocol !== 'http:' || registered.hostname !== asked.hostname) return false;
    registered.port = asked.port;
    return registered.href === asked.href;
  });
}

/** The registration response (RFC 7591, 3.2.1): the metadata as registered, the id, the secret once. */
export function registrationResponse(
  client: RegisteredClient,
  metadata: OAuthClientMetadata,
  secret: string | undefined,
): OAuthClientInformationFull {
  return {
    ...metadata,
    client_id: client.clientId,
    client_id_issued_at: Math.floor(client.issuedAt / 1000),
    token_endpoint_auth_method: client.authMethod,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    ...(secret === undefined ? {} : { client_secret: secret, client_secret_expires_at: 0 }),
  };
}

/** Private: a URI in an error description, bounded (it is the caller's own input). */
function quoteUri(uri: string): string {
  return JSON.stringify(uri.length > 80 ? `${uri.slice(0, 80)}…` : uri);
}

/**
 * Per-address registration counts in fixed windows, on the server's clock. The map holds at
 * most `maxAddresses`; past it the oldest window is forgotten (so a flood from many addresses
 * costs bounded memory and meets the table's bound instead).
 */
export function createRegistrationWindows(options: {
  perAddress: number;
  windowMs: number;
  maxAddresses: number;
}) {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    /** Counts one registration from `address`; false when it is over the limit. */
    allow(address: string, now: number): boolean {
      let window = windows.get(address);
      if (!window || now - window.start >= options.windowMs) {
        windows.delete(address);
        window = { start: now, count: 0 };
        windows.set(address, window);
        if (windows.size > options.maxAddresses) {
          const oldest = windows.keys().next().value;
          if (oldest !== undefined) windows.delete(oldest);
        }
      }
      window.count += 1;
      return window.count <= options.perAddress;
    },
  };
}
