/**
 * Who an operation acts for: the caller's token as it arrived (sent upstream only) beside its
 * digest (the only form that keys caches, ledgers and logs), and the refusals of a missing or
 * impossible token. Shared by the HTTP plugins, the loaders, writes and live updates.
 */
import type { GraphQLError } from 'graphql';
import { gatewayError } from '../errors/codes.js';
import { tokenKey } from '../upstream/token-key.js';

export interface Credentials {
  readonly token: string;
  /** Digest of the token: the only form that keys caches and ledgers. */
  readonly tokenKey: string;
}

export function unauthenticated(): GraphQLError {
  return gatewayError(
    'No access token: send `Authorization: Bearer <token>` (or the `access_token` query parameter).',
    'UNAUTHENTICATED',
  );
}

/** Longer tokens are refused: real ones are a few dozen characters. */
export const MAX_TOKEN_LENGTH = 4_096;
/** What can travel as a bearer token in a header: visible ASCII, no spaces. */
const TOKEN_PATTERN = /^[\x21-\x7e]+$/;

/** The token a request presents: `Authorization: Bearer`, else the `access_token` parameter. */
export function presentedToken(request: Request): string | undefined {
  const header = request.headers.get('authorization');
  const fromHeader = header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
  return fromHeader ?? new URL(request.url).searchParams.get('access_token') ?? undefined;
}

/** Whether a token could be sent upstream as a bearer token at all. */
export function isUsableToken(token: string): boolean {
  return token.length <= MAX_TOKEN_LENGTH && TOKEN_PATTERN.test(token);
}

/**
 * The caller's token, from `Authorization: Bearer` or the `access_token` query parameter (the
 * two ways the REST interface accepts). Only its digest is kept beside it, for cache keys.
 * A token that could never be sent upstream (non-ASCII, control characters, over
 * MAX_TOKEN_LENGTH) throws UNAUTHENTICATED (HTTP 401); the admission path refuses such an
 * operation before anything is built for it (src/admission).
 */
export function credentialsFrom(request: Request): Credentials | null {
  const token = presentedToken(request);
  if (!token) return null;
  if (!isUsableToken(token)) throw unusableToken();
  return { token, tokenKey: tokenKey(token) };
}

/** The refusal of a token that cannot be one; its message never quotes the token. */
export function unusableToken(): GraphQLError {
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
