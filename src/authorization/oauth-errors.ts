/**
 * The OAuth errors the authorization server answers with, as their RFCs name them: RFC 6749
 * (5.2 for the token endpoint, 4.1.2.1 for the authorization endpoint), RFC 7591 (3.2.2,
 * registration), RFC 8707 (`invalid_target`), RFC 7009 (revocation). A description says what was
 * wrong in words a developer can act on; it never quotes a secret, a code or a token.
 */

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'invalid_target'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'unsupported_token_type'
  | 'server_error'
  | 'temporarily_unavailable'
  | 'slow_down';

/** A refusal: the error, its description and the HTTP status the endpoint answers with. */
export class OAuthRefusal extends Error {
  override readonly name = 'OAuthRefusal';
  readonly code = 'GW_ERR_OAUTH_REFUSAL';
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = statusOf(error),
  ) {
    super(`${error}: ${description}`);
  }
}

function statusOf(error: OAuthErrorCode): number {
  if (error === 'invalid_client') return 401;
  if (error === 'server_error') return 500;
  if (error === 'temporarily_unavailable') return 503;
  if (error === 'slow_down') return 429;
  return 400;
}

/** The JSON answer of a refusal (no caching: RFC 6749, 5.1). */
export function refusalResponse(refusal: OAuthRefusal, headers: HeadersInit = {}): Response {
  return json({ error: refusal.error, error_description: refusal.description }, refusal.status, {
    ...(refusal.status === 401 ? { 'www-authenticate': 'Basic realm="plans-gateway"' } : {}),
    ...headers,
  });
}

export function json(body: unknown, status = 200, headers: HeadersInit = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      ...headers,
    },
  });
}
