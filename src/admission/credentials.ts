/**
 * Stage 5 of the admission path, and the one place `Credentials` are made: a presented credential
 * becomes the upstream token beside its key (the SHA-256 digest that keys every replica, ledger,
 * budget and log line), or a refusal. Each presented credential is checked and digested once,
 * however many operations it carries (a batch, a WebSocket connection, an MCP request's calls):
 * the result is kept with the `Presented` value itself, so it goes when its carrier does.
 * Whether the upstream refused the token is asked again each time: that can change any moment.
 *
 * A session cookie (sign-in) is a reference to a grant: its check asks the grant book (async:
 * the session and the grant are in the store, and the grant's upstream token may be refreshed
 * first), once per presented value too, and keys the caller by the grant, not by the token of
 * the hour. A session that is gone, forged or expired is refused with UNAUTHENTICATED and
 * `extensions.signIn`, where a browser signs in again.
 *
 * A gateway access token (`grant-token`) is looked up by the authorization server
 * (`GrantTokens`, `src/authorization`) at every operation, since it can be revoked any moment:
 * it must be known, unexpired, issued for the resource it is presented at, and its grant alive;
 * its `Credentials` are the grant's (keyed by the grant, not by the upstream token of the hour),
 * so the answer is asynchronous. It is never sent upstream itself.
 */
import type { GraphQLError } from 'graphql';
import { gatewayError } from '../errors/codes.js';
import type { Credentials } from '../operation/credentials.js';
import { tokenKey } from '../upstream/token-key.js';
import type { Presented, SessionPresented } from './presented.js';

/** Longer tokens are refused: real ones are a few dozen characters. */
const MAX_TOKEN_LENGTH = 4_096;
/** What can travel as a bearer token in a header: visible ASCII, no spaces. */
const TOKEN_PATTERN = /^[\x21-\x7e]+$/;

/** Stage 5's answer for one presented credential. */
export type CredentialsCheck =
  | { readonly ok: true; readonly credentials: Credentials }
  | {
      readonly ok: false;
      /** `unusable`: it cannot be a token at all; `refused`: the upstream refused it lately. */
      readonly reason: 'unusable' | 'refused';
      readonly error: GraphQLError;
    };

export interface CredentialsStage {
  /** Synchronous for an upstream bearer token; a session's or a gateway token's check waits. */
  check(presented: Presented): CredentialsCheck | Promise<CredentialsCheck>;
}

/** The authorization server's side of stage 5 (`src/authorization/authorization-server.ts`). */
export interface GrantTokens {
  access(
    token: string,
    path: string,
  ): Promise<
    | { readonly ok: true; readonly credentials: Credentials }
    | { readonly ok: false; readonly description: string; readonly unavailable?: true }
  >;
  /** Where the resource at `path` describes itself (RFC 9728), for `WWW-Authenticate`. */
  resourceMetadataUrl(path: string): string;
}

/**
 * A session's credentials: its grant's, refreshed if due; rejects with the GraphQL error to
 * answer (UNAUTHENTICATED with `extensions.signIn` when the session or its grant is gone).
 */
export type SessionCredentials = (session: string) => Promise<Credentials>;

export function createCredentialsStage(
  tokenRefusal: (tokenKey: string) => GraphQLError | null,
  sessions: SessionCredentials | undefined,
  grantTokens?: GrantTokens,
): CredentialsStage {
  const made = new WeakMap<Presented, Credentials>();
  const sessionChecks = new WeakMap<SessionPresented, Promise<CredentialsCheck>>();
  const checkSession = (presented: SessionPresented): Promise<CredentialsCheck> => {
    let check = sessionChecks.get(presented);
    if (!check) {
      check = (sessions ? sessions(presented.session) : Promise.reject(noSignIn())).then(
        (credentials): CredentialsCheck => ({ ok: true, credentials }),
        (error: unknown): CredentialsCheck => ({
          ok: false,
          reason: 'refused',
          error: isGraphQLError(error) ? error : noSignIn(),
        }),
      );
      sessionChecks.set(presented, check);
    }
    return check;
  };
  return {
    check(presented: Presented): CredentialsCheck | Promise<CredentialsCheck> {
      if (presented.kind === 'session') return checkSession(presented);
      if (presented.kind === 'grant-token') return grantTokenCheck(presented, grantTokens);
      let credentials = made.get(presented);
      if (!credentials) {
        if (!isUsableToken(presented.token))
          return { ok: false, reason: 'unusable', error: unusableToken() };
        credentials = { token: presented.token, tokenKey: tokenKey(presented.token) };
        made.set(presented, credentials);
      }
      const refused = tokenRefusal(credentials.tokenKey);
      return refused ? { ok: false, reason: 'refused', error: refused } : { ok: true, credentials };
    },
  };
}

function isGraphQLError(error: unknown): error is GraphQLError {
  return error instanceof Error && error.name === 'GraphQLError';
}

/** A session cookie where sign-in is off: nothing to look it up in. */
function noSignIn(): GraphQLError {
  return gatewayError(
    'Sign-in is off on this gateway: send `Authorization: Bearer <token>`.',
    'UNAUTHENTICATED',
    { extensions: { http: { status: 401 } } },
  );
}

/** Whether a token could be sent upstream as a bearer token at all. */
function isUsableToken(token: string): boolean {
  return token.length <= MAX_TOKEN_LENGTH && TOKEN_PATTERN.test(token);
}

/** The refusal of a token that cannot be one; its message never quotes the token. */
function unusableToken(): GraphQLError {
  return gatewayError(
    `The access token cannot be a token: it must be at most ${MAX_TOKEN_LENGTH} visible ASCII characters without spaces.`,
    'UNAUTHENTICATED',
    {
      extensions: {
        http: { status: 401, headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } },
      },
    },
  );
}

/** Private: stage 5 for a gateway access token; every refusal is `invalid_token` (RFC 6750, 3.1). */
async function grantTokenCheck(
  presented: Extract<Presented, { kind: 'grant-token' }>,
  grantTokens: GrantTokens | undefined,
): Promise<CredentialsCheck> {
  const refuse = (description: string): CredentialsCheck => ({
    ok: false,
    reason: 'unusable',
    error: invalidGrantToken(description, grantTokens?.resourceMetadataUrl(presented.path)),
  });
  if (!grantTokens)
    return refuse('This gateway issues no access tokens of its own: sign-in is not configured.');
  if (presented.inUrl)
    return refuse(
      'A gateway access token is accepted only in the Authorization header, never in the URL.',
    );
  if (!isUsableToken(presented.token)) return refuse('The access token cannot be a token.');
  const checked = await grantTokens.access(presented.token, presented.path);
  if (checked.ok) return { ok: true, credentials: checked.credentials };
  // Not a refusal of the token (it may be good): the client tries again, it does not sign in.
  if (checked.unavailable) return { ok: false, reason: 'refused', error: signInUnavailable() };
  return refuse(checked.description);
}

/**
 * A session or a gateway access token that could not be checked: sign-in's store (Redis) did not
 * answer. 503 with `Retry-After`, never 401 (which would send the person to sign in again).
 */
export function signInUnavailable(): GraphQLError {
  return gatewayError(
    'Sign-in could not check these credentials: its store did not answer. Try again in a moment.',
    'SIGN_IN_UNAVAILABLE',
    { extensions: { http: { status: 503, headers: { 'Retry-After': '1' } } } },
  );
}

/** A gateway token refused; the message names why, never the token. */
function invalidGrantToken(
  description: string,
  resourceMetadata: string | undefined,
): GraphQLError {
  const quoted = description.replace(/["\\]/g, "'");
  return gatewayError(description, 'UNAUTHENTICATED', {
    extensions: {
      http: {
        status: 401,
        headers: {
          'WWW-Authenticate': `Bearer error="invalid_token", error_description="${quoted}"${
            resourceMetadata ? `, resource_metadata="${resourceMetadata}"` : ''
          }`,
        },
      },
    },
  });
}
