/**
 * A remote MCP client signs in on `npm start`'s configuration (the CLI as `npm start` runs it:
 * the embedded sandbox, sign-in on with its demo application, no other setting): the SDK's
 * `auth()` meets the 401 at `/mcp`, discovers, registers, sends the browser through the
 * sandbox's consent page (followed here by redirects), exchanges the code, and its transport
 * calls a tool with the gateway's own token. No static token anywhere.
 * (test/authorization/mcp-sign-in.test.ts runs the same flow on an assembled stack.)
 */
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, textOf } from '../mcp/support/mcp-clients.js';
import { until } from '../support/wait.js';
import { killAll, type Launched, launch } from './support/process.js';

/** A desktop client's loopback redirect (nothing listens: the test reads the code off it). */
const REDIRECT = 'http://127.0.0.1:53682/callback';

/** What an MCP client keeps of its sign-in, in memory. */
class MemoryProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly redirectUrl = REDIRECT;
  readonly clientMetadata: OAuthClientMetadata = {
    redirect_uris: [REDIRECT],
    client_name: 'npm start assistant',
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };
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

/** The browser's part: redirects from the authorization URL to the client's, consent approved. */
async function browse(from: URL, sandboxOrigin: string): Promise<URL> {
  let url = from;
  for (let hop = 0; hop < 8; hop += 1) {
    if (url.origin === sandboxOrigin && url.pathname === '/oauth/authorize')
      url.searchParams.set('sandbox_consent', 'approve');
    const response = await fetch(url, { redirect: 'manual' });
    const location = response.headers.get('location');
    await response.body?.cancel();
    if (location === null) throw new Error(`sign-in stopped at ${url.href}: ${response.status}`);
    url = new URL(location, url);
    if (url.href.startsWith(REDIRECT)) return url;
  }
  throw new Error('too many redirects');
}

let app: Launched;
let mcpUrl: string;
let sandboxOrigin: string;
let client: Client | undefined;

beforeAll(async () => {
  // `npm start` is `node --import tsx src/cli.ts` (test/cli/start.test.ts runs it through npm).
  app = launch('node', ['--import', 'tsx', 'src/cli.ts'], {
    PORT: '0',
    UPSTREAM_URL: '',
    NODE_ENV: '',
  });
  const graphql = await app.listening;
  mcpUrl = graphql.replace(/\/graphql$/, '/mcp');
  await until(() => /embedded REST sandbox at \S+/.test(app.output()), 'the sandbox URL');
  sandboxOrigin = new URL(/embedded REST sandbox at (\S+)/.exec(app.output())![1]!).origin;
}, 120_000);

afterAll(async () => {
  await client?.close().catch(() => {});
  killAll();
});

describe('a remote MCP client on npm start', () => {
  it('is refused without a token, told where sign-in starts', async () => {
    const response = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(
      `resource_metadata="${new URL(mcpUrl).origin}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it("signs in with the SDK's auth() through the sandbox's consent, and calls a tool", async () => {
    const provider = new MemoryProvider();
    expect(await auth(provider, { serverUrl: mcpUrl })).toBe('REDIRECT');
    expect(provider.authorizationUrl?.searchParams.get('resource')).toBe(mcpUrl);
    const landed = await browse(provider.authorizationUrl!, sandboxOrigin);
    const code = landed.searchParams.get('code');
    expect(code, landed.href).toBeTruthy();
    expect(await auth(provider, { serverUrl: mcpUrl, authorizationCode: code! })).toBe(
      'AUTHORIZED',
    );
    expect(provider.saved?.access_token).toMatch(/^pgw_at_/);

    client = new Client({ name: 'npm-start-assistant', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }),
    );
    const plans = await call(client, 'list_plans');
    expect(plans.isError, textOf(plans)).toBeFalsy();
    expect(plans.structuredContent).toMatchObject({ plans: [{ name: 'Demo Household' }] });
  });
});
