/**
 * A remote MCP client signs in on `npm start`'s configuration (the CLI as `npm start` runs it:
 * the embedded sandbox, sign-in on with its demo application, no other setting): the SDK's
 * `auth()` meets the 401 at `/mcp`, discovers, registers, sends the browser through the
 * sandbox's consent page (followed here by redirects), exchanges the code, and its transport
 * calls a tool with the gateway's own token. No static token anywhere.
 * (test/authorization/mcp-sign-in.test.ts runs the same flow on an assembled stack.)
 */
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, textOf } from '../mcp/support/mcp-clients.js';
import {
  MemoryProvider,
  LOOPBACK_REDIRECT as REDIRECT,
} from '../mcp/support/memory-oauth-provider.js';
import { until } from '../support/wait.js';
import { killAll, type Launched, launch } from './support/process.js';

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
    const provider = new MemoryProvider('npm start assistant');
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
