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

import type { OAuthTokenResponse } from '../../upstream/types.js';
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

export function createOAuthService(
  clients: readonly OAuthClientOptions[],
  state: SandboxState,
  tokens: TokenRegistry,
  clock: Clock,
): OAuthService {
  const byId = new Map(clients.map((client) => [client.clientId, client]));
  const codes = new Map<string, PendingCode>();
  const refreshTokens = new Map<string, RefreshGrant>();

  const pickUser = (raw: string | undefined): UserState | null => {
    const users = [...state.users.values()];
    if (raw === undefined || raw === '') return users[0] ?? null;
    if (/^\d+$/.test(raw)) return users[Number(raw)] ?? null;
    return state.users.get(raw.toLowerCase()) ?? null;
  };

  const issue = (
    grant: Grant,
    withRefresh: boolean,
    predecessor: string | null,
  ): OAuthTokenResponse & { refresh_token: string } => {
    const client = byId.get(grant.clientId);
    const issued = tokens.issueOAuth(
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
    if (withRefresh) refreshTokens.set(refreshToken, { ...grant, accessToken: issued.accessToken });
    return {
      access_token: issued.accessToken,
      token_type: 'bearer',
      expires_in: issued.expiresIn,
      refresh_token: refreshToken,
      scope: grant.scope,
      created_at: issued.createdAt,
    };
  };

  return {
    authorize(query) {
      const client = query.client_id ? byId.get(query.client_id) : undefined;
      if (!client)
        return oauthError(400, 'invalid_client', `Unknown client_id '${query.client_id ?? ''}'`);
      if (!query.redirect_uri)
        return oauthError(400, 'invalid_request', 'redirect_uri is required');
      if (query.redirect_uri !== client.redirectUri) {
        return oauthError(
          400,
          'invalid_request',
          "redirect_uri does not match the application's redirect URI",
        );
      }
      const stateParam: Record<string, string> =
        query.state === undefined ? {} : { state: query.state };
      const redirectError = (
        error: string,
        description: string,
        inFragment: boolean,
      ): OAuthResponse => ({
        status: 302,
        headers: {
          location: withParams(
            client.redirectUri,
            { error, error_description: description, ...stateParam },
            inFragment,
          ),
        },
      });
      const responseType = query.response_type;
      if (responseType !== 'code' && responseType !== 'token') {
        return redirectError(
          'unsupported_response_type',
          "response_type must be 'code' or 'token'",
          false,
        );
      }
      const implicit = responseType === 'token';
      const scopeParam = query.scope ?? '';
      if (scopeParam !== '' && scopeParam !== 'read-only') {
        return redirectError('invalid_scope', "scope must be 'read-only' or left out", implicit);
      }
      const user = pickUser(query.sandbox_user);
      if (!user)
        return oauthError(
          400,
          'invalid_request',
          `sandbox_user '${query.sandbox_user ?? ''}' is not a sandbox user`,
        );
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
      const grant: Grant = {
        clientId: client.clientId,
        userId: user.id,
        scope: scopeParam === 'read-only' ? 'read-only' : 'full',
        defaultPlanId,
      };
      if (implicit) {
        const issued = issue(grant, false, null);
        const fragment = {
          access_token: issued.access_token,
          token_type: 'bearer',
          expires_in: String(issued.expires_in),
          scope: grant.scope,
          ...stateParam,
        };
        return {
          status: 302,
          headers: { location: withParams(client.redirectUri, fragment, true) },
        };
      }
      const code = generateSecret(18);
      codes.set(code, {
        ...grant,
        redirectUri: client.redirectUri,
        expiresAt: clock.now() + CODE_LIFETIME_MS,
      });
      return {
        status: 302,
        headers: { location: withParams(client.redirectUri, { code, ...stateParam }, false) },
      };
    },

    token(params) {
      const grantType = params.grant_type;
      if (!grantType) return oauthError(400, 'invalid_request', 'grant_type is required');
      if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
        return oauthError(
          400,
          'unsupported_grant_type',
          "grant_type must be 'authorization_code' or 'refresh_token'",
        );
      }
      const client = params.client_id ? byId.get(params.client_id) : undefined;
      if (!client || params.client_secret !== client.clientSecret) {
        return oauthError(401, 'invalid_client', 'Unknown client_id or wrong client_secret');
      }
      if (grantType === 'authorization_code') {
        if (!params.code) return oauthError(400, 'invalid_request', 'code is required');
        const pending = codes.get(params.code);
        if (!pending || pending.clientId !== client.clientId) {
          return oauthError(
            400,
            'invalid_grant',
            'The authorization code is invalid or was already used',
          );
        }
        codes.delete(params.code);
        if (clock.now() >= pending.expiresAt)
          return oauthError(400, 'invalid_grant', 'The authorization code has expired');
        if (params.redirect_uri !== pending.redirectUri) {
          return oauthError(
            400,
            'invalid_grant',
            'redirect_uri does not match the one used to authorize',
          );
        }
        return { status: 200, body: issue(pending, true, null) };
      }
      if (!params.refresh_token)
        return oauthError(400, 'invalid_request', 'refresh_token is required');
      const refresh = refreshTokens.get(params.refresh_token);
      if (!refresh || refresh.clientId !== client.clientId) {
        return oauthError(400, 'invalid_grant', 'The refresh token is invalid or was already used');
      }
      refreshTokens.delete(params.refresh_token);
      return { status: 200, body: issue(refresh, true, refresh.accessToken) };
    },
  };
}
