/**
 * An `OAuthClientProvider` as an MCP client keeps one, everything in memory: what the SDK's
 * `auth()` needs to discover, register, sign in with PKCE and keep its tokens. Its redirect is a
 * loopback port a desktop client would listen on (nothing listens: tests read the code off it).
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

export const LOOPBACK_REDIRECT = 'http://127.0.0.1:53682/callback';

export class MemoryProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly redirectUrl = LOOPBACK_REDIRECT;
  readonly clientMetadata: OAuthClientMetadata;
  constructor(clientName: string) {
    this.clientMetadata = {
      redirect_uris: [LOOPBACK_REDIRECT],
      client_name: clientName,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}
