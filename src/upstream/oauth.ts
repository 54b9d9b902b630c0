/**
 * The upstream's OAuth, as its client application (RFC 6749's authorization code grant, as the
 * reference's OAuth section describes it): where to send a browser for consent, and the two
 * calls of the token endpoint (a code exchanged, a refresh token used). The client secret goes
 * only in the body of those calls to the OAuth origin; nothing here logs, and no answer's text is
 * repeated in an error (it may hold a token).
 */
import { type Dispatcher, request } from 'undici';

export interface OAuthClientOptions {
  /** The origin whose root serves `/oauth/authorize` and `/oauth/token`. */
  readonly origin: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The registered redirect URI (the gateway's `/auth/callback`). */
  readonly redirectUri: string;
  readonly scope?: 'read-only' | undefined;
  /** @default undici's global dispatcher */
  readonly dispatcher?: Dispatcher | undefined;
  /** A token call not answered within this fails (`temporarily_unavailable`). @default 10_000 */
  readonly timeoutMs?: number;
  /** The clock of an answer without `created_at` (epoch ms). @default Date.now */
  readonly now?: () => number;
}

/** A pair the token endpoint issued; `expiresAt` by the upstream's clock (epoch ms). */
export interface TokenPair {
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly expiresAt: number;
}

/**
 * A token call that gave no pair: the OAuth error the endpoint named (`invalid_grant`: the code
 * or refresh token is spent or revoked), or `temporarily_unavailable` when it did not answer.
 */
export interface OAuthRefusal {
  readonly error: string;
  /** The endpoint refused for good (4xx); false: try again later. */
  readonly final: boolean;
}

export interface OAuthClient {
  /** The consent page's URL for `state`. */
  authorizeUrl(state: string): URL;
  exchangeCode(code: string): Promise<TokenPair | OAuthRefusal>;
  refresh(refreshToken: string): Promise<TokenPair | OAuthRefusal>;
}

/** What an OAuth error code may be (RFC 6749, 5.2: printable ASCII without `"` and `\`). */
const ERROR_CODE = /^[\x20-\x21\x23-\x5b\x5d-\x7e]{1,64}$/;

export function createOAuthClient(options: OAuthClientOptions): OAuthClient {
  const {
    origin,
    clientId,
    clientSecret,
    redirectUri,
    timeoutMs = 10_000,
    now = Date.now,
  } = options;
  async function token(fields: Record<string, string>): Promise<TokenPair | OAuthRefusal> {
    let answer: Dispatcher.ResponseData;
    try {
      answer = await request(new URL('/oauth/token', origin), {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({
          ...fields,
          client_id: clientId,
          client_secret: clientSecret,
        }).toString(),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      });
    } catch {
      return { error: 'temporarily_unavailable', final: false };
    }
    let body: Record<string, unknown> = {};
    try {
      const parsed: unknown = await answer.body.json();
      if (typeof parsed === 'object' && parsed !== null) body = parsed as Record<string, unknown>;
    } catch {
      // Not JSON: judged by its status alone.
    }
    const { access_token, refresh_token, expires_in, created_at, error } = body;
    if (
      answer.statusCode === 200 &&
      typeof access_token === 'string' &&
      typeof refresh_token === 'string' &&
      typeof expires_in === 'number'
    ) {
      const issued = typeof created_at === 'number' ? created_at * 1000 : now();
      return {
        accessToken: access_token,
        refreshToken: refresh_token,
        expiresAt: issued + expires_in * 1000,
      };
    }
    const named = typeof error === 'string' && ERROR_CODE.test(error) ? error : undefined;
    if (answer.statusCode >= 500 || answer.statusCode === 429)
      return { error: named ?? 'temporarily_unavailable', final: false };
    return { error: named ?? 'invalid_grant', final: true };
  }
  return {
    authorizeUrl(state) {
      const url = new URL('/oauth/authorize', origin);
      url.search = new URLSearchParams({
        client_id: clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        state,
        ...(options.scope ? { scope: options.scope } : {}),
      }).toString();
      return url;
    },
    exchangeCode: (code) =>
      token({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }),
    refresh: (refreshToken) => token({ grant_type: 'refresh_token', refresh_token: refreshToken }),
  };
}
