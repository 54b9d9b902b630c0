/**
 * OAuth at the origin root, as the interface describes it, plus what a test needs to drive it:
 * - `GET /oauth/authorize` (code and implicit grants): checks the client and redirect URI (a bad
 *   one gets an error page, never a redirect), then, in `page` mode, shows the sign-in page (which
 *   sandbox user) and the consent page; in `approve` / `deny` mode (or with the sandbox-only
 *   parameter `sandbox_consent`) it answers at once.
 * - `POST /oauth/authorize`: the consent page's answer, naming its one-time request.
 * - `POST /oauth/token`: `authorization_code` and `refresh_token` grants, with RFC 6749 errors.
 *
 * Every authorization is a grant: its access tokens (2 hours, by the sandbox clock) and its one
 * live refresh token. A refresh token works once; the access token it replaced keeps working until
 * the new one is first used. A code used twice ends its grant (RFC 6749, 4.1.2). A restricted
 * application gets at most 25 access tokens from new authorizations of users other than its owner.
 */
import { timingSafeEqual } from 'node:crypto';
import type { OAuthTokenResponse } from '@plans-gateway/rest-contract';
import type { Clock, OAuthConsentOptions, OAuthGrantFilter, Scope } from '../core/api.js';
import type { SandboxState, UserState } from '../store/state.js';
import { type GrantLink, generateSecret, type TokenRegistry } from './auth.js';
import { consentPage, errorPage, type HtmlPage, signInPage } from './consent-page.js';
import { findUser, matchesRedirectUri, type RegisteredClient } from './oauth-clients.js';

const CODE_LIFETIME_MS = 10 * 60_000;
const CONSENT_LIFETIME_MS = 10 * 60_000;
/** Pending codes and consent requests kept at most; a flood of authorizations evicts the oldest. */
const MAX_PENDING = 10_000;
const RESTRICTED_TOKEN_LIMIT = 25;
const CONSENT_MODES: readonly OAuthConsentOptions['mode'][] = ['page', 'approve', 'deny'];

export interface OAuthResponse {
  status: number;
  headers?: Record<string, string>;
  /** A JSON answer (the token endpoint). */
  json?: unknown;
  /** A page for the browser (the authorization endpoint). */
  html?: string;
}

export interface OAuthService {
  authorize(query: Readonly<Record<string, string>>): OAuthResponse;
  /** The consent page's form, posted back. */
  consent(fields: Readonly<Record<string, string>>): OAuthResponse;
  /** `authorization` is the request's Authorization header (HTTP Basic client authentication). */
  token(params: Readonly<Record<string, string>>, authorization: string | undefined): OAuthResponse;
  setConsent(consent: OAuthConsentOptions): void;
  revokeGrants(filter: OAuthGrantFilter): number;
}

interface OAuthGrant extends GrantLink {
  readonly clientId: string;
  readonly userId: string;
  readonly scope: Scope;
  readonly defaultPlanId: string | null;
}

interface Expiring {
  expiresAt: number;
}

interface PendingCode extends Expiring {
  readonly grant: OAuthGrant;
  readonly redirectUri: string;
  /** Exchanged once already: a second exchange ends the grant. */
  spent: boolean;
}

interface LiveRefreshToken {
  readonly grant: OAuthGrant;
  /** The access token issued with it, revoked once the one its use brings is first used. */
  readonly accessToken: string;
}

/** An authorization request the sandbox accepted, waiting for the user's answer. */
interface ConsentRequest {
  readonly client: RegisteredClient;
  readonly redirectUri: string;
  readonly implicit: boolean;
  readonly scope: Scope;
  readonly state: string | undefined;
  readonly user: UserState;
  readonly defaultPlanId: string | null;
}

interface PendingConsent extends ConsentRequest, Expiring {}

interface OAuthDeps {
  readonly clients: ReadonlyMap<string, RegisteredClient>;
  readonly state: SandboxState;
  readonly tokens: TokenRegistry;
  readonly clock: Clock;
  readonly grants: Set<OAuthGrant>;
  readonly codes: Map<string, PendingCode>;
  readonly refreshTokens: Map<string, LiveRefreshToken>;
  readonly consents: Map<string, PendingConsent>;
  /** Access tokens restricted applications got for users other than their owner. */
  readonly restrictedIssued: Map<string, number>;
  consent: OAuthConsentOptions;
}

export function createOAuthService(
  clients: ReadonlyMap<string, RegisteredClient>,
  state: SandboxState,
  tokens: TokenRegistry,
  consent: OAuthConsentOptions,
): OAuthService {
  const deps: OAuthDeps = {
    clients,
    state,
    tokens,
    clock: state.clock,
    grants: new Set(),
    codes: new Map(),
    refreshTokens: new Map(),
    consents: new Map(),
    restrictedIssued: new Map(),
    consent: checkedConsent(state, consent, 'oauthConsent'),
  };
  return {
    authorize: (query) => authorize(deps, query),
    consent: (fields) => answerConsent(deps, fields),
    token: (params, authorization) => token(deps, params, authorization),
    setConsent(next) {
      deps.consent = checkedConsent(state, next, 'setOAuthConsent');
    },
    revokeGrants: (filter) => revokeGrants(deps, filter),
  };
}

function checkedConsent(
  state: SandboxState,
  consent: OAuthConsentOptions,
  path: string,
): OAuthConsentOptions {
  if (!CONSENT_MODES.includes(consent.mode)) {
    throw new RangeError(
      `${path}.mode must be one of ${CONSENT_MODES.join(', ')}, got ${String(consent.mode)}`,
    );
  }
  if (consent.user === undefined) return { ...consent };
  const user = findUser(state, consent.user);
  if (!user) {
    throw new RangeError(
      `${path}.user '${String(consent.user)}' is neither a user id nor an index into users`,
    );
  }
  const plan = consent.defaultPlanId?.toLowerCase();
  if (plan !== undefined && !user.planIds.includes(plan))
    throw new RangeError(`${path}.defaultPlanId '${plan}' is not a plan of that user`);
  return { ...consent };
}

/** Keeps an expiring entry, pruning expired ones (then the oldest) when the map is full. */
function remember<T extends Expiring>(
  map: Map<string, T>,
  key: string,
  value: T,
  now: number,
): void {
  if (map.size >= MAX_PENDING) {
    for (const [k, v] of map) if (v.expiresAt <= now) map.delete(k);
    const oldest = map.keys().next();
    if (map.size >= MAX_PENDING && !oldest.done) map.delete(oldest.value);
  }
  map.set(key, value);
}

const oauthError = (
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): OAuthResponse => ({ status, headers, json: { error, error_description: description } });

const page = ({ status, html }: HtmlPage): OAuthResponse => ({ status, html });

function isResponse<T extends object>(value: T | OAuthResponse): value is OAuthResponse {
  return 'status' in value;
}

/** Sends the browser back to the application, with `state` as it came. */
function redirect(
  status: 302 | 303,
  uri: string,
  params: Record<string, string>,
  state: string | undefined,
  inFragment: boolean,
): OAuthResponse {
  const encoded = new URLSearchParams(state === undefined ? params : { ...params, state });
  const location = inFragment
    ? `${uri}#${encoded}`
    : `${uri}${uri.includes('?') ? '&' : '?'}${encoded}`;
  return { status, headers: { location } };
}

const DENIED = { error: 'access_denied', error_description: 'The user denied the authorization' };

/** The client and redirect URI of a request, or the page saying which of them is wrong. */
function redirectTarget(
  deps: OAuthDeps,
  query: Readonly<Record<string, string>>,
): { client: RegisteredClient; redirectUri: string } | OAuthResponse {
  if (!query.client_id) return page(errorPage(400, 'invalid_request', 'client_id is required.'));
  const client = deps.clients.get(query.client_id);
  if (!client) {
    return page(
      errorPage(400, 'invalid_client', `No application has the client_id '${query.client_id}'.`),
    );
  }
  if (!query.redirect_uri)
    return page(errorPage(400, 'invalid_request', 'redirect_uri is required.'));
  if (!matchesRedirectUri(client, query.redirect_uri)) {
    return page(
      errorPage(
        400,
        'invalid_request',
        `The redirect_uri '${query.redirect_uri}' is not registered for ${client.name}.`,
      ),
    );
  }
  return { client, redirectUri: query.redirect_uri };
}

/** The sandbox user who approves, `'choose'` for the sign-in page, or the page naming a bad one. */
function approvingUser(
  deps: OAuthDeps,
  query: Readonly<Record<string, string>>,
  mode: OAuthConsentOptions['mode'],
): UserState | 'choose' | OAuthResponse {
  const named = query.sandbox_user;
  if (named !== undefined && named !== '') {
    return (
      findUser(deps.state, named) ??
      page(
        errorPage(
          400,
          'invalid_request',
          `sandbox_user '${named}' is neither a sandbox user's id nor an index.`,
        ),
      )
    );
  }
  const users = [...deps.state.users.values()];
  if (mode === 'approve')
    return findUser(deps.state, deps.consent.user ?? 0) ?? (users[0] as UserState);
  return users.length === 1 ? (users[0] as UserState) : 'choose';
}

/**
 * The plan `default` will mean: the one asked for (checked), else none, so that `default` follows
 * the user's default plan.
 */
function defaultPlanOf(
  client: RegisteredClient,
  user: UserState,
  asked: string | undefined,
): string | null | OAuthResponse {
  if (!client.defaultPlanSelection) return null;
  if (asked === undefined || asked === '') return user.defaultPlanId;
  const plan = asked.toLowerCase();
  if (user.planIds.includes(plan)) return plan;
  return page(errorPage(400, 'invalid_request', `'${asked}' is not a plan of the signed-in user.`));
}

const FORWARDED = [
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'sandbox_default_plan',
] as const;

function authorizationFields(query: Readonly<Record<string, string>>): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const name of FORWARDED) if (query[name] !== undefined) fields[name] = query[name];
  return fields;
}

/** The grant and scope a request asks for, or the error to redirect back with. */
function askedFor(
  query: Readonly<Record<string, string>>,
): { implicit: boolean; scope: Scope } | { error: Record<string, string>; implicit: boolean } {
  const responseType = query.response_type;
  if (responseType !== 'code' && responseType !== 'token') {
    const error = responseType
      ? {
          error: 'unsupported_response_type',
          error_description: "response_type must be 'code' or 'token'",
        }
      : { error: 'invalid_request', error_description: 'response_type is required' };
    return { error, implicit: false };
  }
  const implicit = responseType === 'token';
  const scope = query.scope ?? '';
  if (scope !== '' && scope !== 'read-only') {
    const error = {
      error: 'invalid_scope',
      error_description: "scope must be 'read-only' or left out",
    };
    return { error, implicit };
  }
  return { implicit, scope: scope === 'read-only' ? 'read-only' : 'full' };
}

function authorize(deps: OAuthDeps, query: Readonly<Record<string, string>>): OAuthResponse {
  const target = redirectTarget(deps, query);
  if (isResponse(target)) return target;
  const { client, redirectUri } = target;
  const back = (params: Record<string, string>, inFragment: boolean) =>
    redirect(302, redirectUri, params, query.state, inFragment);
  const asked = askedFor(query);
  if ('error' in asked) return back(asked.error, asked.implicit);
  const { implicit } = asked;
  const mode = (query.sandbox_consent ?? deps.consent.mode) as OAuthConsentOptions['mode'];
  if (!CONSENT_MODES.includes(mode)) {
    return page(
      errorPage(400, 'invalid_request', "sandbox_consent must be 'page', 'approve' or 'deny'."),
    );
  }
  if (mode === 'deny') return back(DENIED, implicit);
  const user = approvingUser(deps, query, mode);
  if (user === 'choose') {
    const users = [...deps.state.users.values()].map((u) => ({
      id: u.id,
      name: u.name,
      planCount: u.planIds.length,
    }));
    return page(signInPage(client.name, users, authorizationFields(query)));
  }
  if (isResponse(user)) return user;
  // The configured plan is the configured user's; another user approving gets their own default.
  const configuredPlan = deps.consent.defaultPlanId?.toLowerCase();
  const defaultPlanId = defaultPlanOf(
    client,
    user,
    query.sandbox_default_plan ??
      (mode === 'approve' ? user.planIds.find((id) => id === configuredPlan) : undefined),
  );
  if (defaultPlanId !== null && typeof defaultPlanId !== 'string') return defaultPlanId;
  const request: ConsentRequest = {
    client,
    redirectUri,
    implicit,
    scope: asked.scope,
    state: query.state,
    user,
    defaultPlanId,
  };
  if (mode === 'approve') return approve(deps, request, 302);
  return consentScreen(deps, request, query);
}

/** The consent page for a request, under a new one-time id its form sends back. */
function consentScreen(
  deps: OAuthDeps,
  request: ConsentRequest,
  query: Readonly<Record<string, string>> | null,
): OAuthResponse {
  const ticket = generateSecret(18);
  const now = deps.clock.now();
  remember(deps.consents, ticket, { ...request, expiresAt: now + CONSENT_LIFETIME_MS }, now);
  const { client, user } = request;
  const switchUserHref =
    query !== null && deps.state.users.size > 1
      ? `/oauth/authorize?${new URLSearchParams(authorizationFields(query))}`
      : null;
  const plans = client.defaultPlanSelection
    ? user.planIds.map((id) => ({ id, name: deps.state.plans.get(id)?.store.name ?? id }))
    : null;
  return page(
    consentPage({
      clientName: client.name,
      scope: request.scope,
      userName: user.name,
      switchUserHref,
      plans,
      defaultPlanId: request.defaultPlanId ?? user.defaultPlanId ?? user.planIds[0] ?? null,
      ticket,
      redirectOrigin: new URL(request.redirectUri).origin,
      refusal: restrictedRefusal(deps, client, user.id),
    }),
  );
}

function answerConsent(deps: OAuthDeps, fields: Readonly<Record<string, string>>): OAuthResponse {
  const ticket = fields.request ?? '';
  const pending = deps.consents.get(ticket);
  if (!pending || deps.clock.now() >= pending.expiresAt) {
    deps.consents.delete(ticket);
    return page(
      errorPage(
        400,
        'invalid_request',
        'This authorization request has expired or was already answered.',
      ),
    );
  }
  const decision = fields.decision;
  if (decision !== 'approve' && decision !== 'deny') {
    return page(errorPage(400, 'invalid_request', "decision must be 'approve' or 'deny'."));
  }
  deps.consents.delete(ticket);
  if (decision === 'deny')
    return redirect(303, pending.redirectUri, DENIED, pending.state, pending.implicit);
  const defaultPlanId = defaultPlanOf(
    pending.client,
    pending.user,
    fields.default_plan ?? pending.defaultPlanId ?? undefined,
  );
  if (defaultPlanId !== null && typeof defaultPlanId !== 'string') return defaultPlanId;
  return approve(deps, { ...pending, defaultPlanId }, 303);
}

function restrictedRefusal(
  deps: OAuthDeps,
  client: RegisteredClient,
  userId: string,
): string | null {
  if (!client.restricted || userId === client.ownerUserId) return null;
  if ((deps.restrictedIssued.get(client.clientId) ?? 0) < RESTRICTED_TOKEN_LIMIT) return null;
  return `${client.name} is in restricted mode and has already received ${RESTRICTED_TOKEN_LIMIT} access tokens for users other than its owner, so it cannot be authorized until its review lifts restricted mode.`;
}

function countRestricted(deps: OAuthDeps, grant: OAuthGrant): void {
  const client = deps.clients.get(grant.clientId);
  if (!client?.restricted || grant.userId === client.ownerUserId) return;
  deps.restrictedIssued.set(client.clientId, (deps.restrictedIssued.get(client.clientId) ?? 0) + 1);
}

/** An approved request: a code, or (implicit grant) an access token, sent back to the client. */
function approve(deps: OAuthDeps, request: ConsentRequest, status: 302 | 303): OAuthResponse {
  if (restrictedRefusal(deps, request.client, request.user.id))
    return consentScreen(deps, request, null);
  const grant: OAuthGrant = {
    id: generateSecret(12),
    clientId: request.client.clientId,
    userId: request.user.id,
    scope: request.scope,
    defaultPlanId: request.defaultPlanId,
    revoked: false,
  };
  deps.grants.add(grant);
  if (request.implicit) {
    countRestricted(deps, grant);
    const issued = issue(deps, grant, false, null);
    return redirect(
      status,
      request.redirectUri,
      {
        access_token: issued.access_token,
        token_type: 'bearer',
        expires_in: String(issued.expires_in),
        scope: grant.scope,
      },
      request.state,
      true,
    );
  }
  const code = generateSecret(18);
  const now = deps.clock.now();
  remember(
    deps.codes,
    code,
    { grant, redirectUri: request.redirectUri, expiresAt: now + CODE_LIFETIME_MS, spent: false },
    now,
  );
  return redirect(status, request.redirectUri, { code }, request.state, false);
}

/** An access token for the grant, and its one live refresh token when asked for. */
function issue(
  deps: OAuthDeps,
  grant: OAuthGrant,
  withRefresh: boolean,
  predecessor: string | null,
): OAuthTokenResponse {
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
    grant,
    predecessor,
  );
  const refreshToken = withRefresh ? generateSecret() : '';
  if (withRefresh) deps.refreshTokens.set(refreshToken, { grant, accessToken: issued.accessToken });
  return {
    access_token: issued.accessToken,
    token_type: 'bearer',
    expires_in: issued.expiresIn,
    refresh_token: refreshToken,
    scope: grant.scope,
    created_at: issued.createdAt,
  };
}

const sameSecret = (given: string, expected: string): boolean => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** `Authorization: Basic` credentials (RFC 6749, 2.3.1: each part form-encoded), if sent. */
function basicCredentials(
  authorization: string | undefined,
): { id: string; secret: string } | 'malformed' | null {
  const match = /^basic\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  try {
    const part = (text: string) => decodeURIComponent(text.replace(/\+/g, ' '));
    return { id: part(decoded.slice(0, colon)), secret: part(decoded.slice(colon + 1)) };
  } catch {
    return 'malformed';
  }
}

/** The client a token request authenticates as (form fields or HTTP Basic), or the refusal. */
function authenticateClient(
  deps: OAuthDeps,
  params: Readonly<Record<string, string>>,
  authorization: string | undefined,
): RegisteredClient | OAuthResponse {
  const basic = basicCredentials(authorization);
  const challenge: Record<string, string> =
    basic === null ? {} : { 'www-authenticate': 'Basic realm="Plans sandbox"' };
  if (basic === 'malformed')
    return oauthError(401, 'invalid_client', 'The Basic credentials are malformed', challenge);
  if (basic !== null && params.client_secret !== undefined) {
    return oauthError(
      400,
      'invalid_request',
      'Send the client credentials once: in the Authorization header or as form fields, not both',
    );
  }
  const id = basic?.id ?? params.client_id;
  const secret = basic?.secret ?? params.client_secret ?? '';
  if (!id) return oauthError(401, 'invalid_client', 'client_id is required', challenge);
  if (basic !== null && params.client_id !== undefined && params.client_id !== id) {
    return oauthError(
      401,
      'invalid_client',
      'client_id differs from the Basic credentials',
      challenge,
    );
  }
  const client = deps.clients.get(id);
  if (!client || !sameSecret(secret, client.clientSecret))
    return oauthError(401, 'invalid_client', 'Unknown client_id or wrong client_secret', challenge);
  return client;
}

function token(
  deps: OAuthDeps,
  params: Readonly<Record<string, string>>,
  authorization: string | undefined,
): OAuthResponse {
  const client = authenticateClient(deps, params, authorization);
  if (isResponse(client)) return client;
  const grantType = params.grant_type;
  if (!grantType) return oauthError(400, 'invalid_request', 'grant_type is required');
  if (grantType === 'authorization_code') return redeemCode(deps, client, params);
  if (grantType === 'refresh_token') return redeemRefreshToken(deps, client, params);
  return oauthError(
    400,
    'unsupported_grant_type',
    "grant_type must be 'authorization_code' or 'refresh_token'",
  );
}

/**
 * A code is good once, for its client, within 10 minutes, with the redirect URI it was made for;
 * presented a second time it ends the grant it started (RFC 6749, 4.1.2).
 */
function redeemCode(
  deps: OAuthDeps,
  client: RegisteredClient,
  params: Readonly<Record<string, string>>,
): OAuthResponse {
  if (!params.code) return oauthError(400, 'invalid_request', 'code is required');
  if (!params.redirect_uri) {
    return oauthError(
      400,
      'invalid_request',
      'redirect_uri is required: the one the authorization was made with',
    );
  }
  const pending = deps.codes.get(params.code);
  if (!pending || pending.grant.clientId !== client.clientId)
    return oauthError(400, 'invalid_grant', 'The authorization code is invalid');
  if (deps.clock.now() >= pending.expiresAt) {
    deps.codes.delete(params.code);
    return oauthError(400, 'invalid_grant', 'The authorization code has expired');
  }
  if (pending.spent) {
    pending.grant.revoked = true;
    return oauthError(
      400,
      'invalid_grant',
      'The authorization code was already used; the tokens issued for it are revoked',
    );
  }
  pending.spent = true;
  if (params.redirect_uri !== pending.redirectUri) {
    return oauthError(
      400,
      'invalid_grant',
      'redirect_uri does not match the one used to authorize',
    );
  }
  if (pending.grant.revoked)
    return oauthError(400, 'invalid_grant', 'The authorization has been revoked');
  const refusal = restrictedRefusal(deps, client, pending.grant.userId);
  if (refusal) return oauthError(400, 'invalid_grant', refusal);
  countRestricted(deps, pending.grant);
  return { status: 200, json: issue(deps, pending.grant, true, null) };
}

/** A refresh token is good once; the access token it replaces is revoked on the new one's first use. */
function redeemRefreshToken(
  deps: OAuthDeps,
  client: RegisteredClient,
  params: Readonly<Record<string, string>>,
): OAuthResponse {
  if (!params.refresh_token) return oauthError(400, 'invalid_request', 'refresh_token is required');
  const refresh = deps.refreshTokens.get(params.refresh_token);
  if (!refresh || refresh.grant.clientId !== client.clientId)
    return oauthError(400, 'invalid_grant', 'The refresh token is invalid or was already used');
  deps.refreshTokens.delete(params.refresh_token);
  if (refresh.grant.revoked)
    return oauthError(400, 'invalid_grant', 'The authorization has been revoked');
  return { status: 200, json: issue(deps, refresh.grant, true, refresh.accessToken) };
}

function revokeGrants(deps: OAuthDeps, filter: OAuthGrantFilter): number {
  const { token: presented, userId, clientId } = filter;
  if (presented === undefined && userId === undefined && clientId === undefined)
    throw new TypeError('revokeOAuthGrants: give a token, a userId or a clientId');
  let byToken: GrantLink | null = null;
  if (presented !== undefined) {
    byToken = deps.tokens.grantOf(presented) ?? deps.refreshTokens.get(presented)?.grant ?? null;
    if (byToken === null) return 0;
  }
  let revoked = 0;
  for (const grant of deps.grants) {
    if (grant.revoked) continue;
    if (byToken !== null && grant !== byToken) continue;
    if (userId !== undefined && grant.userId !== userId.toLowerCase()) continue;
    if (clientId !== undefined && grant.clientId !== clientId) continue;
    grant.revoked = true;
    revoked++;
  }
  return revoked;
}
