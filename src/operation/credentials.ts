/**
 * Who an operation acts for, as the admission path admitted it (`src/admission/credentials.ts`
 * makes every value of this type, once per presented credential): what the upstream is sent
 * beside the key of everything held for the caller. Everything after admission (the context,
 * loaders, writes, live updates, HTTP caching, the upstream client) takes it as it is, and
 * reads no header. The refusal of an operation that needs credentials and has none is here too.
 */
import type { GraphQLError } from 'graphql';
import { gatewayError } from '../errors/codes.js';

export interface Credentials {
  /** The upstream access token: sent upstream, and nowhere else. */
  readonly token: string;
  /**
   * The key of what is held for this caller (replicas, ledgers, budgets, logs, metrics): the
   * SHA-256 digest of the token, never the token. A caller known by a grant (sign-in) is keyed
   * by the grant instead (`grantKey` in src/sign-in/grants.ts), so that its upstream token can
   * change under the same key.
   */
  readonly tokenKey: string;
}

function unauthenticated(): GraphQLError {
  return gatewayError(
    'No access token: send `Authorization: Bearer <token>` (or the `access_token` query parameter).',
    'UNAUTHENTICATED',
  );
}

/** The operation's credentials, or the refusal of an operation that needs them and has none. */
export function requireCredentials(credentials: Credentials | null | undefined): Credentials {
  if (!credentials) throw unauthenticated();
  return credentials;
}
