/**
 * The gateway as OAuth 2.1 authorization server for mobile apps and MCP clients: its endpoints
 * (metadata, registration, authorize, token, revocation) as functions of a fetch `Request`, the
 * end of the upstream's consent (`complete`, the `CompleteAuthorization` of `src/sign-in/ports.ts`)
 * and the check of its access tokens for the admission path (`access`). It holds no transport:
 * `src/server/plugins/use-authorization-server.ts` serves it on yoga's port.
 *
 * The flow: a client registers (RFC 7591), sends the browser to `/oauth/authorize` with a PKCE
 * S256 challenge and the resource it wants (RFC 8707); the request is kept under a random id and
 * the browser goes through the upstream's consent (`UpstreamSignIn.begin`). Browser sign-in's
 * callback makes the grant and calls `complete`, which issues a code bound to client, redirect
 * URI, challenge and resource, and answers where the browser goes: the client's redirect URI
 * with `code`, `state` and `iss`. The client exchanges the code with its verifier at
 * `/oauth/token` for an access token (`pgw_at_…`, one hour) and a refresh token (`pgw_rt_…`),
 * both opaque, of one family bound to the grant. A refresh rotates both; a refresh token used
 * twice revokes its family (and a code used twice, the family it made), ending the grant.
 *
 * What it stores (`store.ts`) is sealed under the operator's key for the row it is in; codes and
 * tokens are keyed by keyed digests and never stored. Nothing it logs or answers quotes one.
 */
import type { Sealer } from '../crypto/sealer.js';
import type { Credentials } from '../operation/credentials.js';
import type { CompleteAuthorization, Grant, GrantBook, UpstreamSignIn } from '../sign-in/ports.js';
import { SignInStoreUnavailableError } from '../sign-in/records.js';
import type { Logger } from '../telemetry/logger.js';
import {
  AUTHORIZATION_SERVER_METADATA_PATH,
  authorizationServerMetadata,
  ENDPOINTS,
  issuerOf,
  PROTECTED_RESOURCE_METADATA_PATH,
  protectedResourceMetadata,
  resourceMetadataUrl,
  resourceOf,
  SCOPE,
} from './metadata.js';
import { json, OAuthRefusal, refusalResponse } from './oauth-errors.js';
import {
  checkClientMetadata,
  createRegistrationWindows,
  type RegisteredClient,
  redirectMatches,
  registrationResponse,
} from './registration.js';
import { hasShape, isChallenge, issue, randomId, verifierMatches } from './secrets.js';
import {
  type AuthorizationStore,
  AuthorizationStoreUnavailableError,
  type RowKind,
  type StoredRow,
} from './store.js';

export interface AuthorizationLimits {
  /** How long a code may wait for its exchange (OAuth 2.1: short). @default 60 s */
  codeMs: number;
  /** How long the browser may take through the upstream's consent. @default 10 min */
  requestMs: number;
  /** An access token's life. @default 1 h */
  accessTokenMs: number;
  /** A refresh token family's life without a refresh. @default 30 days */
  refreshTokenMs: number;
  /** Registered clients kept at most (the oldest never used go first). @default 10,000 */
  maxClients: number;
  /** How long a client that never signed anyone in is kept. @default 1 day */
  unusedClientMs: number;
  /** How long a client is kept after its last sign-in. @default 90 days */
  clientIdleMs: number;
  /** Registrations one address may make per `registrationWindowMs`. @default 20 */
  registrationsPerAddress: number;
  /** @default 1 h */
  registrationWindowMs: number;
  /** Authorization requests waiting for consent, at most (the oldest go first). @default 10,000 */
  maxRequests: number;
  /** Token families one grant may have (the oldest is revoked past it). @default 10 */
  familiesPerGrant: number;
}

export const DEFAULT_AUTHORIZATION_LIMITS: AuthorizationLimits = {
  codeMs: 60_000,
  requestMs: 10 * 60_000,
  accessTokenMs: 60 * 60_000,
  refreshTokenMs: 30 * 24 * 60 * 60_000,
  maxClients: 10_000,
  unusedClientMs: 24 * 60 * 60_000,
  clientIdleMs: 90 * 24 * 60 * 60_000,
  registrationsPerAddress: 20,
  registrationWindowMs: 60 * 60_000,
  maxRequests: 10_000,
  familiesPerGrant: 10,
};

/** Body bytes the endpoints read at most (registration metadata, token forms). */
const MAX_BODY_BYTES = 16 * 1024;
/** Used refresh tokens kept per family for reuse detection. */
const USED_REFRESH_KEPT = 5;
/** How often expired rows are swept (on a request, on the server's clock). */
const SWEEP_EVERY_MS = 60_000;

export interface AuthorizationServerOptions {
  /** The gateway's public origin (the issuer, and the base of its resources' identifiers). */
  issuer: URL;
  /** The paths of the resources its tokens open. @default ['/graphql', '/mcp'] */
  resources?: readonly string[];
  grants: GrantBook;
  signIn: UpstreamSignIn;
  sealer: Sealer;
  store: AuthorizationStore;
  /** The server's clock (epoch ms). @default Date.now */
  now?: () => number;
  logger?: Logger | undefined;
  limits?: Partial<AuthorizationLimits>;
}

/**
 * Stage 5's answer for a gateway access token: its credentials, why it is refused, or that it
 * could not be checked now (`unavailable`: the store or the grants' store did not answer; the
 * token may be good, so it is not refused).
 */
export type AccessCheck =
  | { readonly ok: true; readonly credentials: Credentials; readonly grantId: string }
  | { readonly ok: false; readonly description: string; readonly unavailable?: true };

export interface AuthorizationServer {
  readonly issuer: URL;
  /** Whether the server answers `path` (its endpoints and metadata). */
  serves(path: string): boolean;
  /** Answers a request to one of its paths; `address` is the caller's (registration bounds). */
  handle(request: Request, address?: string): Promise<Response>;
  /** Browser sign-in's callback calls this when an authorization's consent comes back. */
  readonly complete: CompleteAuthorization;
  /**
   * The credentials of a gateway access token presented at `path`, or why not: unknown,
   * expired, revoked, issued for another resource, or its grant is gone.
   */
  access(token: string, path: string): Promise<AccessCheck>;
  /** The protected resource metadata URL of the resource at `path`, for `WWW-Authenticate`. */
  resourceMetadataUrl(path: string): string;
  /** Live rows by kind now (clients, pending requests, codes, tokens): bounds and leftovers. */
  counts(): Promise<Record<RowKind, number>>;
  /** Stops listening to the grant book (the store is the caller's to close). */
  close(): void;
}

/** A pending authorization request, between `/oauth/authorize` and `complete`. */
interface PendingRequest {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly challenge: string;
  readonly state: string | undefined;
  readonly resource: string | undefined;
  readonly scope: string;
}

/** A code's content: what its exchange must match. */
interface CodeContent {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly challenge: string;
  readonly resource: string | undefined;
  readonly scope: string;
  readonly grantId: string;
  readonly family: string;
}

/** A token's content (access and refresh alike). */
interface TokenContent {
  readonly clientId: string;
  readonly resource: string | undefined;
  readonly scope: string;
  readonly grantId: string;
  readonly family: string;
}

export function createAuthorizationServer(
  options: AuthorizationServerOptions,
): AuthorizationServer {
  const { issuer, grants, signIn, sealer, store, logger } = options;
  const now = options.now ?? Date.now;
  const limits = { ...DEFAULT_AUTHORIZATION_LIMITS, ...options.limits };
  const resources = options.resources ?? ['/graphql', '/mcp'];
  const resourceIds = new Map(resources.map((path) => [resourceOf(issuer, path), path]));
  const windows = createRegistrationWindows({
    perAddress: limits.registrationsPerAddress,
    windowMs: limits.registrationWindowMs,
    maxAddresses: 10_000,
  });
  const metadataPaths = new Map(
    resources.map((path) => [`${PROTECTED_RESOURCE_METADATA_PATH}${path}`, path]),
  );
  let lastSweep = Number.NEGATIVE_INFINITY;

  // ---- rows, sealed for their place ----
  const digest = (kind: RowKind, secret: string) => sealer.digest(`oauth-${kind}`, secret);
  const grantRef = (grantId: string) => sealer.digest('oauth-grant', grantId);
  const seal = (kind: RowKind, key: string, content: unknown) =>
    sealer.seal(JSON.stringify(content), `oauth:${kind}:${key}`);
  const open = <T>(row: StoredRow): T =>
    JSON.parse(sealer.open(row.sealed, `oauth:${row.kind}:${row.key}`)) as T;

  const log = (event: string, fields: Record<string, unknown> = {}) =>
    logger?.info({ oauth: event, ...fields }, `oauth ${event}`);

  /** Ends a family: its tokens go, and the grant it was made for (no one else holds it). */
  const revokeFamily = async (family: string, grantId: string, why: string) => {
    await store.deleteFamily(family);
    log('family revoked', { reason: why });
    await grants.end(grantId).catch((error: unknown) => {
      logger?.warn({ err: error }, 'oauth: ending a grant failed');
    });
  };

  // The grant ended elsewhere (sign-out, the upstream refused its refresh): its tokens go.
  const unsubscribe = grants.onEnded((grantId) => {
    void store.deleteGrant(grantRef(grantId)).catch((error: unknown) => {
      logger?.warn({ err: error }, 'oauth: dropping an ended grant failed');
    });
  });

  const sweep = async () => {
    const at = now();
    if (at - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = at;
    for (const row of await store.sweep(at)) {
      const { grantId } = open<CodeContent>(row);
      log('code expired');
      await grants.end(grantId).catch(() => {});
    }
  };

  // ---- clients ----
  const clientOf = async (clientId: string | null): Promise<RegisteredClient | undefined> => {
    if (!clientId || clientId.length > 64) return undefined;
    const row = await store.get('client', clientId, now());
    return row ? open<RegisteredClient>(row) : undefined;
  };

  /** The client a token or revocation request authenticates as (RFC 6749, 2.3), or the refusal. */
  const authenticated = async (request: Request, form: URLSearchParams) => {
    const basic = basicCredentials(request.headers.get('authorization'));
    const clientId = basic?.id ?? form.get('client_id');
    const secret = basic?.secret ?? form.get('client_secret');
    if (basic && form.get('client_id') !== null && form.get('client_id') !== basic.id)
      throw new OAuthRefusal('invalid_request', 'client_id differs from the Basic credentials.');
    const client = await clientOf(clientId);
    if (!client) throw new OAuthRefusal('invalid_client', 'Unknown client: register first.');
    if (client.authMethod === 'none') {
      if (secret !== null)
        throw new OAuthRefusal('invalid_client', 'This client is public: it sends no secret.');
      return client;
    }
    if (secret === null || client.secretDigest !== sealer.digest('oauth-client-secret', secret))
      throw new OAuthRefusal('invalid_client', 'The client secret is missing or wrong.');
    return client;
  };

  // ---- endpoints ----
  const register = async (request: Request, address: string) => {
    if (request.method !== 'POST')
      throw new OAuthRefusal('invalid_request', 'Register with POST and a JSON body.');
    const at = now();
    // Counted before the body is read: a flood costs a map lookup per request.
    if (!windows.allow(address, at))
      throw new OAuthRefusal(
        'slow_down',
        `Too many registrations from this address: at most ${limits.registrationsPerAddress} per ${Math.round(limits.registrationWindowMs / 60_000)} minutes.`,
      );
    const metadata = checkClientMetadata(await readJson(request));
    const over = (await store.count('client', at)) + 1 - limits.maxClients;
    if (over > 0 && (await store.evict('client', over, at, true)) < over)
      throw new OAuthRefusal(
        'temporarily_unavailable',
        'The registration table is full; try again later.',
      );
    const secret =
      metadata.token_endpoint_auth_method === 'none'
        ? undefined
        : `pgw_cs_${randomId()}${randomId()}`;
    const client: RegisteredClient = {
      clientId: randomId(),
      redirectUris: metadata.redirect_uris,
      authMethod: metadata.token_endpoint_auth_method,
      secretDigest: secret === undefined ? undefined : sealer.digest('oauth-client-secret', secret),
      name: metadata.client_name,
      issuedAt: at,
    };
    await store.put({
      kind: 'client',
      key: client.clientId,
      sealed: seal('client', client.clientId, client),
      createdAt: at,
      expiresAt: at + limits.unusedClientMs,
    });
    log('client registered', { clientName: client.name ?? null });
    return json(registrationResponse(client, metadata, secret), 201);
  };

  const authorize = async (request: Request): Promise<Response> => {
    if (request.method !== 'GET')
      throw new OAuthRefusal('invalid_request', 'Send the browser here with GET.');
    const params = new URL(request.url).searchParams;
    // Until the client and its redirect URI are known, nothing may be redirected (RFC 6749, 4.1.2.1).
    const client = await clientOf(params.get('client_id'));
    if (!client)
      return errorPage(
        new OAuthRefusal('invalid_request', 'Unknown or missing client_id: register first.'),
      );
    const redirectUri = params.get('redirect_uri');
    if (redirectUri === null || !redirectMatches(client, redirectUri))
      return errorPage(
        new OAuthRefusal(
          'invalid_request',
          'redirect_uri is missing or is not one the client registered.',
        ),
      );
    const state = params.get('state') ?? undefined;
    const back = (refusal: OAuthRefusal) => {
      log('authorization refused', { error: refusal.error });
      return redirect(withParams(redirectUri, errorParams(refusal, state, issuer)));
    };
    if (params.get('response_type') !== 'code')
      return back(new OAuthRefusal('unsupported_response_type', 'response_type must be code.'));
    const challenge = params.get('code_challenge');
    if (
      challenge === null ||
      params.get('code_challenge_method') !== 'S256' ||
      !isChallenge(challenge)
    )
      return back(
        new OAuthRefusal(
          'invalid_request',
          'PKCE is required: code_challenge (43 base64url characters) with code_challenge_method=S256.',
        ),
      );
    const resources = params.getAll('resource');
    if (resources.length > 1) return back(new OAuthRefusal('invalid_target', 'Name one resource.'));
    const resource = resources[0];
    if (resource !== undefined && !resourceIds.has(canonical(resource)))
      return back(
        new OAuthRefusal(
          'invalid_target',
          `resource must be one of this gateway's: ${[...resourceIds.keys()].join(', ')}.`,
        ),
      );
    const scope = params.get('scope');
    if (scope?.split(' ').some((s) => s !== '' && s !== SCOPE))
      return back(new OAuthRefusal('invalid_scope', `The only scope is ${SCOPE}.`));
    if (state !== undefined && state.length > 1_000)
      return back(new OAuthRefusal('invalid_request', 'state is over 1,000 characters.'));

    await sweep();
    const at = now();
    const over = (await store.count('request', at)) + 1 - limits.maxRequests;
    if (over > 0) await store.evict('request', over, at);
    const requestId = randomId();
    const pending: PendingRequest = {
      clientId: client.clientId,
      redirectUri,
      challenge,
      state,
      resource: resource === undefined ? undefined : canonical(resource),
      scope: SCOPE,
    };
    await store.put({
      kind: 'request',
      key: requestId,
      sealed: seal('request', requestId, pending),
      createdAt: at,
      expiresAt: at + limits.requestMs,
    });
    return redirect((await signIn.begin({ kind: 'authorization', requestId })).href);
  };

  const complete: CompleteAuthorization = async (requestId, outcome) => {
    const row = await store.take('request', requestId, now());
    const grant = 'grant' in outcome ? outcome.grant : undefined;
    if (!row) {
      // Too late or replayed: the client cannot be told; the grant made for it goes.
      if (grant) await grants.end(grant.id).catch(() => {});
      log('authorization refused', { error: 'invalid_request', reason: 'request expired' });
      return errorUrl(issuer, 'expired');
    }
    const pending = open<PendingRequest>(row);
    if (!grant) {
      const refusal =
        'error' in outcome && outcome.error === 'access_denied'
          ? new OAuthRefusal('access_denied', 'The person declined.')
          : new OAuthRefusal('server_error', 'The upstream sign-in failed.');
      log('authorization refused', { error: refusal.error });
      return new URL(withParams(pending.redirectUri, errorParams(refusal, pending.state, issuer)));
    }
    return new URL(withParams(pending.redirectUri, await issueCode(pending, grant)));
  };

  const issueCode = async (pending: PendingRequest, grant: Grant) => {
    const code = issue('code');
    const key = digest('code', code);
    const at = now();
    const content: CodeContent = {
      clientId: pending.clientId,
      redirectUri: pending.redirectUri,
      challenge: pending.challenge,
      resource: pending.resource,
      scope: pending.scope,
      grantId: grant.id,
      family: randomId(),
    };
    await store.put({
      kind: 'code',
      key,
      sealed: seal('code', key, content),
      createdAt: at,
      expiresAt: at + limits.codeMs,
      family: content.family,
      grant: grantRef(grant.id),
    });
    await store.touch('client', pending.clientId, at + limits.clientIdleMs, at);
    log('code issued');
    return {
      code,
      ...(pending.state === undefined ? {} : { state: pending.state }),
      iss: issuerOf(issuer),
    };
  };

  const issueTokens = async (content: TokenContent) => {
    const at = now();
    const access = issue('access');
    const refresh = issue('refresh');
    const base = { createdAt: at, family: content.family, grant: grantRef(content.grantId) };
    const accessKey = digest('access', access);
    const refreshKey = digest('refresh', refresh);
    // One access token per family: the one a refresh replaces stops working.
    await store.trimFamily(content.family, 'access', 0);
    await store.put({
      ...base,
      kind: 'access',
      key: accessKey,
      sealed: seal('access', accessKey, content),
      expiresAt: at + limits.accessTokenMs,
    });
    await store.put({
      ...base,
      kind: 'refresh',
      key: refreshKey,
      sealed: seal('refresh', refreshKey, content),
      expiresAt: at + limits.refreshTokenMs,
    });
    await store.trimFamily(content.family, 'refresh', USED_REFRESH_KEPT + 1);
    return json({
      access_token: access,
      token_type: 'Bearer',
      expires_in: Math.floor(limits.accessTokenMs / 1000),
      refresh_token: refresh,
      scope: content.scope,
    });
  };

  const codeExchange = async (client: RegisteredClient, form: URLSearchParams) => {
    const code = form.get('code');
    if (code === null) throw new OAuthRefusal('invalid_request', 'code is missing.');
    const key = hasShape('code', code) ? digest('code', code) : undefined;
    // A late code's grant ends here, before the refusal (the sweep would end it later).
    lastSweep = Number.NEGATIVE_INFINITY;
    await sweep();
    const row = key ? await store.claim('code', key, now()) : undefined;
    if (!row)
      throw new OAuthRefusal('invalid_grant', 'The code is unknown or expired: sign in again.');
    const content = open<CodeContent>(row);
    if (row.used) {
      // A code used twice: whoever used it first may be the thief; the tokens it gave go.
      await revokeFamily(content.family, content.grantId, 'code reused');
      throw new OAuthRefusal('invalid_grant', 'The code was already used: sign in again.');
    }
    // Every refusal from here spends the code and ends its grant: nothing is left behind.
    const refuse = async (refusal: OAuthRefusal) => {
      await store.delete('code', row.key);
      await grants.end(content.grantId).catch(() => {});
      return refusal;
    };
    if (content.clientId !== client.clientId)
      throw await refuse(
        new OAuthRefusal('invalid_grant', 'The code was issued to another client.'),
      );
    if (form.get('redirect_uri') !== content.redirectUri)
      throw await refuse(
        new OAuthRefusal(
          'invalid_grant',
          'redirect_uri differs from the one the authorization request named.',
        ),
      );
    const verifier = form.get('code_verifier');
    if (verifier === null)
      throw await refuse(new OAuthRefusal('invalid_request', 'code_verifier is missing (PKCE).'));
    if (!verifierMatches(verifier, content.challenge))
      throw await refuse(
        new OAuthRefusal('invalid_grant', 'code_verifier does not match the code_challenge.'),
      );
    const resource = form.get('resource');
    if (resource !== null && canonical(resource) !== content.resource)
      throw await refuse(
        new OAuthRefusal(
          'invalid_target',
          'resource differs from the one the code was issued for.',
        ),
      );
    await evictFamilies(content.grantId);
    log('tokens issued', { grant: 'authorization_code' });
    return issueTokens(content);
  };

  /** Keeps a grant's families within `familiesPerGrant`, revoking the oldest. */
  const evictFamilies = async (grantId: string) => {
    const families = await store.familiesOf(grantRef(grantId), now());
    for (const family of families.slice(
      0,
      Math.max(0, families.length + 1 - limits.familiesPerGrant),
    ))
      await store.deleteFamily(family);
  };

  const refreshExchange = async (client: RegisteredClient, form: URLSearchParams) => {
    const token = form.get('refresh_token');
    if (token === null) throw new OAuthRefusal('invalid_request', 'refresh_token is missing.');
    const key = hasShape('refresh', token) ? digest('refresh', token) : undefined;
    const found = key ? await store.get('refresh', key, now()) : undefined;
    if (!found || !key)
      throw new OAuthRefusal('invalid_grant', 'The refresh token is unknown, expired or revoked.');
    const content = open<TokenContent>(found);
    if (content.clientId !== client.clientId)
      throw new OAuthRefusal('invalid_grant', 'The refresh token was issued to another client.');
    const resource = form.get('resource');
    if (resource !== null && canonical(resource) !== content.resource)
      throw new OAuthRefusal(
        'invalid_target',
        'resource differs from the one the token was issued for.',
      );
    const row = await store.claim('refresh', key, now());
    if (!row)
      throw new OAuthRefusal('invalid_grant', 'The refresh token is unknown, expired or revoked.');
    if (row.used) {
      // Reuse: one of the two holders is not the client. The whole family goes (OAuth 2.1, 4.3.1).
      await revokeFamily(content.family, content.grantId, 'refresh token reused');
      throw new OAuthRefusal(
        'invalid_grant',
        'The refresh token was already used: every token of this sign-in is revoked; sign in again.',
      );
    }
    if (!(await grants.get(content.grantId))) {
      await store.deleteGrant(grantRef(content.grantId));
      throw new OAuthRefusal('invalid_grant', 'This sign-in has ended: sign in again.');
    }
    log('tokens issued', { grant: 'refresh_token' });
    return issueTokens(content);
  };

  const token = async (request: Request) => {
    if (request.method !== 'POST')
      throw new OAuthRefusal('invalid_request', 'POST a form to the token endpoint.');
    const form = await readForm(request);
    const client = await authenticated(request, form);
    await sweep();
    const grantType = form.get('grant_type');
    if (grantType === 'authorization_code') return codeExchange(client, form);
    if (grantType === 'refresh_token') return refreshExchange(client, form);
    throw new OAuthRefusal(
      'unsupported_grant_type',
      'grant_type must be authorization_code or refresh_token.',
    );
  };

  const revoke = async (request: Request) => {
    if (request.method !== 'POST')
      throw new OAuthRefusal('invalid_request', 'POST a form to the revocation endpoint.');
    const form = await readForm(request);
    const client = await authenticated(request, form);
    const token = form.get('token');
    if (token === null) throw new OAuthRefusal('invalid_request', 'token is missing.');
    for (const kind of ['access', 'refresh'] as const) {
      if (!hasShape(kind, token)) continue;
      const row = await store.get(kind, digest(kind, token), now());
      if (!row) break;
      const content = open<TokenContent>(row);
      if (content.clientId !== client.clientId)
        throw new OAuthRefusal('unauthorized_client', 'The token was issued to another client.');
      // Either token ends the sign-in it belongs to (RFC 7009, 2.1: the refresh token's access
      // tokens too).
      await revokeFamily(content.family, content.grantId, 'revoked by the client');
    }
    // Unknown, expired or already revoked: the same answer (RFC 7009, 2.2).
    return new Response(null, { status: 200, headers: { 'cache-control': 'no-store' } });
  };

  const routes = new Map<string, (request: Request, address: string) => Promise<Response>>([
    [
      AUTHORIZATION_SERVER_METADATA_PATH,
      async () => json(authorizationServerMetadata(issuer), 200, PUBLIC),
    ],
    [ENDPOINTS.register, register],
    [ENDPOINTS.authorize, authorize],
    [ENDPOINTS.token, token],
    [ENDPOINTS.revoke, revoke],
    [ENDPOINTS.error, async (request) => errorPageAt(new URL(request.url).searchParams)],
  ]);

  return {
    issuer,
    serves: (path) => routes.has(path) || metadataPaths.has(path),
    async handle(request, address = 'unknown') {
      const path = new URL(request.url).pathname;
      const resourcePath = metadataPaths.get(path);
      if (resourcePath !== undefined)
        return json(protectedResourceMetadata(issuer, resourcePath), 200, PUBLIC);
      const route = routes.get(path);
      if (!route) return json({ error: 'not_found' }, 404);
      try {
        return await route(request, address);
      } catch (error) {
        if (error instanceof AuthorizationStoreUnavailableError) {
          logger?.warn({ oauth: 'store unavailable', path }, error.message);
          return refusalResponse(
            new OAuthRefusal('temporarily_unavailable', 'Try again in a moment.'),
            { 'retry-after': '1' },
          );
        }
        if (!(error instanceof OAuthRefusal)) throw error;
        if (path !== ENDPOINTS.authorize) log('request refused', { path, error: error.error });
        return refusalResponse(error);
      }
    },
    complete,
    async access(token, path) {
      const key = hasShape('access', token) ? digest('access', token) : undefined;
      let row: StoredRow | undefined;
      try {
        row = key ? await store.get('access', key, now()) : undefined;
      } catch (error) {
        if (!(error instanceof AuthorizationStoreUnavailableError)) throw error;
        logger?.warn({ oauth: 'store unavailable', path }, error.message);
        return unavailable;
      }
      if (!row)
        return { ok: false, description: 'The access token is unknown, expired or revoked.' };
      const content = open<TokenContent>(row);
      const here = resourceOf(issuer, path);
      if (content.resource !== undefined && content.resource !== here)
        return {
          ok: false,
          description: `The access token was issued for another resource (${content.resource}), not ${here}.`,
        };
      try {
        const credentials = await grants.credentials(content.grantId);
        return { ok: true, credentials, grantId: content.grantId };
      } catch (error) {
        if (error instanceof SignInStoreUnavailableError) {
          logger?.warn({ oauth: 'grant store unavailable', path }, error.message);
          return unavailable;
        }
        return { ok: false, description: 'This sign-in has ended: sign in again.' };
      }
    },
    resourceMetadataUrl: (path) => resourceMetadataUrl(issuer, path),
    async counts() {
      const at = now();
      const kinds = ['client', 'request', 'code', 'access', 'refresh'] as const;
      const counted = await Promise.all(kinds.map((kind) => store.count(kind, at)));
      return Object.fromEntries(kinds.map((kind, i) => [kind, counted[i] ?? 0])) as Record<
        RowKind,
        number
      >;
    },
    close: unsubscribe,
  };
}

/** A token that could not be checked now. */
const unavailable: AccessCheck = {
  ok: false,
  unavailable: true,
  description: 'The sign-in store did not answer: try again in a moment.',
};

/** Metadata is public and the same for everyone: any page may read it (MCP clients in browsers). */
const PUBLIC = { 'access-control-allow-origin': '*', 'cache-control': 'max-age=300' };

/** A resource indicator compared as the URL it names (a trailing slash of a bare origin aside). */
function canonical(resource: string): string {
  try {
    const url = new URL(resource);
    url.hash = '';
    return url.href;
  } catch {
    return resource;
  }
}

function basicCredentials(header: string | null): { id: string; secret: string } | undefined {
  const match = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  const part = (text: string) => {
    try {
      return decodeURIComponent(text.replace(/\+/g, ' '));
    } catch {
      return text;
    }
  };
  return { id: part(decoded.slice(0, colon)), secret: part(decoded.slice(colon + 1)) };
}

async function readBody(request: Request): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > MAX_BODY_BYTES)
    throw new OAuthRefusal('invalid_request', `The body is over ${MAX_BODY_BYTES} bytes.`);
  const text = await request.text();
  if (Buffer.byteLength(text) > MAX_BODY_BYTES)
    throw new OAuthRefusal('invalid_request', `The body is over ${MAX_BODY_BYTES} bytes.`);
  return text;
}

async function readForm(request: Request): Promise<URLSearchParams> {
  const type = request.headers.get('content-type') ?? '';
  if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded'))
    throw new OAuthRefusal(
      'invalid_request',
      'Send the parameters as application/x-www-form-urlencoded.',
    );
  const form = new URLSearchParams(await readBody(request));
  for (const name of new Set(form.keys()))
    if (form.getAll(name).length > 1 && name !== 'resource')
      throw new OAuthRefusal('invalid_request', `${name} is repeated.`);
  return form;
}

async function readJson(request: Request): Promise<unknown> {
  const type = request.headers.get('content-type') ?? '';
  if (!type.toLowerCase().startsWith('application/json'))
    throw new OAuthRefusal(
      'invalid_client_metadata',
      'Send the client metadata as application/json.',
    );
  try {
    return JSON.parse(await readBody(request)) as unknown;
  } catch (error) {
    if (error instanceof OAuthRefusal) throw error;
    throw new OAuthRefusal('invalid_client_metadata', 'The body is not JSON.');
  }
}

function redirect(location: string): Response {
  return new Response(null, {
    status: 302,
    headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
  });
}

function withParams(uri: string, params: Record<string, string>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.href;
}

function errorParams(refusal: OAuthRefusal, state: string | undefined, issuer: URL) {
  return {
    error: refusal.error,
    error_description: refusal.description,
    ...(state === undefined ? {} : { state }),
    iss: issuerOf(issuer),
  };
}

/**
 * Private: the page a browser is sent to when the sign-in cannot go back to the app. It names
 * a reason by key only: the page's text is the server's own, never the URL's (no one can make
 * the gateway's origin show words of their choosing).
 */
const ERROR_PAGES = {
  expired: new OAuthRefusal(
    'invalid_request',
    'This sign-in took too long or was already finished: start again from the app.',
  ),
} as const;

function errorUrl(issuer: URL, reason: keyof typeof ERROR_PAGES): URL {
  const url = new URL(ENDPOINTS.error, issuer);
  url.searchParams.set('reason', reason);
  return url;
}

function errorPageAt(params: URLSearchParams): Response {
  const reason = params.get('reason');
  const refusal =
    reason !== null && Object.hasOwn(ERROR_PAGES, reason)
      ? ERROR_PAGES[reason as keyof typeof ERROR_PAGES]
      : new OAuthRefusal('invalid_request', 'The sign-in failed: start again from the app.');
  return errorPage(refusal);
}

/** Private: what a browser sees when it cannot be sent back to the app (a small HTML page). */
function errorPage(refusal: OAuthRefusal): Response {
  const status = refusal.status;
  const error = escapeHtml(refusal.error);
  const description = escapeHtml(refusal.description);
  const body = `<!doctype html><meta charset="utf-8"><title>Sign-in failed</title><h1>Sign-in failed</h1><p><span class="error-code">${error}</span></p><p>${description}</p>`;
  return new Response(body, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none'",
      'x-content-type-options': 'nosniff',
    },
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
