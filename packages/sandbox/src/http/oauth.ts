/**
 * OAuth at the origin root: `GET /oauth/authorize` (code and implicit grants) and
 * `POST /oauth/token` (authorization_code and refresh_token grants). There is no login screen:
 * authorization is approved at once on behalf of a sandbox user, chosen with the sandbox-only
 * query parameter `sandbox_user` (a user id or a zero-based index; default the first user). With
 * default plan selection, `sandbox_default_plan` picks the plan `default` will mean (default: the
 * user's default plan).
 *
 * Errors follow OAuth 2.0: `{ error, error_description }` as JSON, or as redirect parameters once
 * the client and redirect URI are known to be valid.
 */
import type { OAuthTokenResponse } from '@plans-gateway/rest-contract';
import type { Clock, OAuthClientOptions, Scope } from '../core/api.js';
import type { SandboxState, UserState } from '../store/state.js';
import { generateSecret, type TokenRegistry } from './auth.js';

const CODE_LIFETIME_MS = 10 * 60_000;

export interface OAuthResponse {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

interface Grant {
  clientId: string;
  userId: string;
  scope: Scope;
  defaultPlanId: string | null;
}

interface PendingCode extends Grant {
  redirectUri: string;
  expiresAt: number;
}

interface RefreshGrant extends Grant {
  accessToken: string;
}

export interface OAuthService {
  authorize(query: Readonly<Record<string, string>>): OAuthResponse;
  token(params: Readonly<Record<string, string>>): OAuthResponse;
}

const oauthError = (status: number, error: string, description: string): OAuthResponse => ({
  status,
  body: { error, error_description: description },
});

function withParams(uri: string, params: Record<string, string>, inFragment: boolean): string {
  const encoded = new URLSearchParams(params).toString();
  if (inFragment) return `${uri}#${encoded}`;
  return `${uri}${uri.includes('?') ? '&' : '?'}${encoded}`;
}

/** What the service holds between requests: its clients, pending codes and refresh tokens. */
interface OAuthDeps {
  readonly clients: ReadonlyMap<string, OAuthClientOptions>;
  readonly codes: Map<string, PendingCode>;
  readonly refreshTokens: Map<string, RefreshGrant>;
  readonly state: SandboxState;
  readonly tokens: TokenRegistry;
  readonly clock: Clock;
}

export function createOAuthService(
  clients: readonly OAuthClientOptions[],
  state: SandboxState,
  tokens: TokenRegistry,
  clock: Clock,
): OAuthService {
  const deps: OAuthDeps = {
    clients: new Map(clients.map((client) => [client.clientId, client])),
    codes: new Map(),
    refreshTokens: new Map(),
    state,
    tokens,
    clock,
  };
  return {
    authorize: (query) => authorize(deps, query),
    token: (params) => token(deps, params),
  };
}

/** The user a sandbox authorization acts for: an id, a zero-based index, or the first user. */
function pickUser(state: SandboxState, raw: string | undefined): UserState | null {
  const users = [...state.users.values()];
  if (raw === undefined || raw === '') return users[0] ?? null;
  if (/^\d+$/.test(raw)) return users[Number(raw)] ?? null;
  return state.users.get(raw.toLowerCase()) ?? null;
}

/** An access token for the grant, and a one-time refresh token beside it when asked for. */
function issue(
  deps: OAuthDeps,
  grant: Grant,
  withRefresh: boolean,
  predecessor: string | null,
): OAuthTokenResponse & { refresh_token: string } {
  const client = deps.clients.get(grant.clientId);
  const issued = deps.tokens.issueOAuth(
    {
      userId: grant.userId,
      scope: grant.scope,
      kind: 'oauth',
      oauth: {
        clientId: grant.clientId,
        defaultPlanSelection: client?.defaultPlanSelection ?? false,
        defaultPlanId: grant.defaultPlanId,
      },
    },
    predecessor,
  );
  const refreshToken = withRefresh ? generateSecret() : '';
  if (withRefresh) {
    deps.refreshTokens.set(refreshToken, { ...grant, accessToken: issued.accessToken });
  }
  return {
    access_token: issued.accessToken,
    token_type: 'bearer',
    expires_in: issued.expiresIn,
    refresh_token: refreshToken,
    scope: grant.scope,
    created_at: issued.createdAt,
  };
}

/**
 * The client an authorization request names, once its redirect URI is known to be the
 * registered one; until then errors are answered as JSON, never redirected.
 */
function authorizingClient(
  deps: OAuthDeps,
  query: Readonly<Record<string, string>>,
): OAuthClientOptions | OAuthResponse {
  const client = query.client_id ? deps.clients.get(query.client_id) : undefined;
  if (!client)
    return oauthError(400, 'invalid_client', `Unknown client_id '${query.client_id ?? ''}'`);
  if (!query.redirect_uri) return oauthError(400, 'invalid_request', 'redirect_uri is required');
  if (query.redirect_uri !== client.redirectUri) {
    return oauthError(
      400,
      'invalid_request',
      "redirect_uri does not match the application's redirect URI",
    );
  }
  return client;
}

/** The grant an approved authorization gives: scope, sandbox user and default plan. */
function grantOf(
  deps: OAuthDeps,
  client: OAuthClientOptions,
  query: Readonly<Record<string, string>>,
): Grant | OAuthResponse {
  const user = pickUser(deps.state, query.sandbox_user);
  if (!user) {
    return oauthError(
      400,
      'invalid_request',
      `sandbox_user '${query.sandbox_user ?? ''}' is not a sandbox user`,
    );
  }
  let defaultPlanId: string | null = null;
  if (client.defaultPlanSelection) {
    const chosen = query.sandbox_default_plan?.toLowerCase();
    if (chosen !== undefined && !user.planIds.includes(chosen)) {
      return oauthError(
        400,
        'invalid_request',
        `sandbox_default_plan '${chosen}' is not a plan of the user`,
      );
    }
    defaultPlanId = chosen ?? user.defaultPlanId;
  }
  return {
    clientId: client.clientId,
    userId: user.id,
    scope: query.scope === 'read-only' ? 'read-only' : 'full',
    defaultPlanId,
  };
}

function isResponse<T extends object>(value: T | OAuthResponse): value is OAuthResponse {
  return 'status' in value;
}

function authorize(deps: OAuthDeps, query: Readonly<Record<string, string>>): OAuthResponse {
  const client = authorizingClient(deps, query);
  if (isResponse(client)) return client;
  const stateParam: Record<string, string> =
    query.state === undefined ? {} : { state: query.state };
  const redirect = (params: Record<string, string>, inFragment: boolean): OAuthResponse => ({
    status: 302,
    headers: { location: withParams(client.redirectUri, { ...params, ...stateParam }, inFragment) },
  });
  const responseType = query.response_type;
  if (responseType !== 'code' && responseType !== 'token') {
    return redirect(
      {
        error: 'unsupported_response_type',
        error_description: "response_type must be 'code' or 'token'",
      },
      false,
    );
  }
  const implicit = responseType === 'token';
  const scopeParam = query.scope ?? '';
  if (scopeParam !== '' && scopeParam !== 'read-only') {
    return redirect(
      { error: 'invalid_scope', error_description: "scope must be 'read-only' or left out" },
      implicit,
    );
  }
  const grant = grantOf(deps, client, query);
  if (isResponse(grant)) return grant;
  if (implicit) {
    const issued = issue(deps, grant, false, null);
    return redirect(
      {
        access_token: issued.access_token,
        token_type: 'bearer',
        expires_in: String(issued.expires_in),
        scope: grant.scope,
      },
      true,
    );
  }
  const code = generateSecret(18);
  deps.codes.set(code, {
    ...grant,
    redirectUri: client.redirectUri,
    expiresAt: deps.clock.now() + CODE_LIFETIME_MS,
  });
  return redirect({ code }, false);
}

function token(deps: OAuthDeps, params: Readonly<Record<string, string>>): OAuthResponse {
  const grantType = params.grant_type;
  if (!grantType) return oauthError(400, 'invalid_request', 'grant_type is required');
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
    return oauthError(
      400,
      'unsupported_grant_type',
      "grant_type must be 'authorization_code' or 'refresh_token'",
    );
  }
  const client = params.client_id ? deps.clients.get(params.client_id) : undefined;
  if (!client || params.client_secret !== client.clientSecret) {
    return oauthError(401, 'invalid_client', 'Unknown client_id or wrong client_secret');
  }
  return grantType === 'authorization_code'
    ? redeemCode(deps, client, params)
    : redeemRefreshToken(deps, client, params);
}

/** A code is good once, for its client, before it expires, with the redirect URI it was made for. */
function redeemCode(
  deps: OAuthDeps,
  client: OAuthClientOptions,
  params: Readonly<Record<string, string>>,
): OAuthResponse {
  if (!params.code) return oauthError(400, 'invalid_request', 'code is required');
  const pending = deps.codes.get(params.code);
  if (!pending || pending.clientId !== client.clientId) {
    return oauthError(
      400,
      'invalid_grant',
      'The authorization code is invalid or was already used',
    );
  }
  deps.codes.delete(params.code);
  if (deps.clock.now() >= pending.expiresAt)
    return oauthError(400, 'invalid_grant', 'The authorization code has expired');
  if (params.redirect_uri !== pending.redirectUri) {
    return oauthError(
      400,
      'invalid_grant',
      'redirect_uri does not match the one used to authorize',
    );
  }
  return { status: 200, body: issue(deps, pending, true, null) };
}

/** A refresh token is good once; the access token it replaces is revoked on the new one's first use. */
function redeemRefreshToken(
  deps: OAuthDeps,
  client: OAuthClientOptions,
  params: Readonly<Record<string, string>>,
): OAuthResponse {
  if (!params.refresh_token) return oauthError(400, 'invalid_request', 'refresh_token is required');
  const refresh = deps.refreshTokens.get(params.refresh_token);
  if (!refresh || refresh.clientId !== client.clientId) {
    return oauthError(400, 'invalid_grant', 'The refresh token is invalid or was already used');
  }
  deps.refreshTokens.delete(params.refresh_token);
  return { status: 200, body: issue(deps, refresh, true, refresh.accessToken) };
}
