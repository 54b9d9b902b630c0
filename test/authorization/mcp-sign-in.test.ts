/**
 * The MCP SDK's own OAuth client signs in to the gateway with no static token: it meets the 401
 * at `/mcp`, follows `resource_metadata` to the protected resource metadata (RFC 9728), the
 * authorization server metadata (RFC 8414), registers (RFC 7591), sends the browser to
 * `/oauth/authorize` with PKCE S256 and `resource` (RFC 8707), exchanges the code and calls a tool
 * over Streamable HTTP with the gateway's own access token. The browser's part (the gateway, the
 * sandbox's consent, browser sign-in's callback) is done here by following redirects.
 */
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../mcp/support/mcp-clients.js';
import {
  MemoryProvider,
  LOOPBACK_REDIRECT as REDIRECT,
} from '../mcp/support/memory-oauth-provider.js';
import { INITIALIZE } from '../mcp/support/raw-mcp.js';
import {
  type AuthorizationStack,
  followSignIn,
  startAuthorizationStack,
} from './support/authorization-stack.js';

let stack: AuthorizationStack;
const clients: Client[] = [];

beforeAll(async () => {
  stack = await startAuthorizationStack();
});
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await stack.close();
});

/** The browser's part: the code the client's redirect URI receives. */
async function browserSignIn(provider: MemoryProvider): Promise<string> {
  if (!provider.authorizationUrl) throw new Error('the client asked for no authorization');
  const landed = await followSignIn(provider.authorizationUrl, REDIRECT, stack.sandbox.origin);
  if (!(landed instanceof URL)) throw new Error(`sign-in stopped: ${landed.status} ${landed.text}`);
  const code = landed.searchParams.get('code');
  if (code === null) throw new Error(`no code: ${landed.href}`);
  expect(landed.searchParams.get('iss')).toBe(stack.origin);
  return code;
}

const connect = async (provider: MemoryProvider) => {
  const client = new Client({ name: 'gateway-oauth-tests', version: '1.0.0' });
  clients.push(client);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(stack.mcpUrl), { authProvider: provider }),
  );
  return client;
};

describe('the MCP SDK signs in through the gateway', () => {
  it('with auth(): discovers, registers, signs in with PKCE, and calls a tool', async () => {
    stack.sandbox.resetCalls();
    const provider = new MemoryProvider('Gateway test assistant');
    expect(await auth(provider, { serverUrl: stack.mcpUrl })).toBe('REDIRECT');
    // Registered dynamically, as a public client.
    expect(provider.information?.client_id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(provider.information).not.toHaveProperty('client_secret');
    const asked = provider.authorizationUrl as URL;
    expect(asked.origin + asked.pathname).toBe(`${stack.origin}/oauth/authorize`);
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
    expect(asked.searchParams.get('resource')).toBe(stack.mcpUrl);

    const code = await browserSignIn(provider);
    expect(await auth(provider, { serverUrl: stack.mcpUrl, authorizationCode: code })).toBe(
      'AUTHORIZED',
    );
    expect(provider.saved?.access_token).toMatch(/^pgw_at_/);
    expect(provider.saved?.refresh_token).toMatch(/^pgw_rt_/);
    expect(provider.saved?.token_type).toBe('Bearer');

    const client = await connect(provider);
    const listed = await call(client, 'list_plans');
    expect(listed.isError).toBeFalsy();
    expect(JSON.stringify(listed.structuredContent ?? listed.content)).toContain('Demo');

    // The gateway's tokens never went upstream; the upstream's token never reached the client.
    const sent = stack.sandbox.calls().map((c) => c.token ?? '');
    expect(sent.some((token) => token.startsWith('pgw_'))).toBe(false);
    expect(JSON.stringify(provider.saved)).not.toContain(
      sent.find((token) => token !== '' && !token.startsWith('sandbox-')) ?? 'never',
    );
  });

  it('from the transport: a 401 starts the sign-in, finishAuth ends it, the next connect works', async () => {
    const provider = new MemoryProvider('Gateway test assistant');
    const first = new Client({ name: 'gateway-oauth-tests', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(stack.mcpUrl), {
      authProvider: provider,
    });
    await expect(first.connect(transport)).rejects.toThrow(/Unauthorized/i);
    await transport.finishAuth(await browserSignIn(provider));
    await first.close().catch(() => {});

    const client = await connect(provider);
    expect((await call(client, 'list_plans')).isError).toBeFalsy();
  });

  it('refreshes with the SDK when the access token is gone, and the old one stops working', async () => {
    const provider = new MemoryProvider('Gateway test assistant');
    await auth(provider, { serverUrl: stack.mcpUrl });
    await auth(provider, {
      serverUrl: stack.mcpUrl,
      authorizationCode: await browserSignIn(provider),
    });
    const before = provider.saved as OAuthTokens;
    // The SDK refreshes when it holds a refresh token and is asked to authorize again.
    expect(await auth(provider, { serverUrl: stack.mcpUrl })).toBe('AUTHORIZED');
    const after = provider.saved as OAuthTokens;
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    const stale = await fetch(stack.mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${before.access_token}`,
      },
      body: JSON.stringify(INITIALIZE),
    });
    expect(stale.status).toBe(401);
    await stale.body?.cancel();
    const client = await connect(provider);
    expect((await call(client, 'list_plans')).isError).toBeFalsy();
  });
});
