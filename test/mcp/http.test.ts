/**
 * `/mcp` on the gateway's port, at the HTTP level: credentials (401 with `WWW-Authenticate`),
 * origins and CORS, sessions bound to their token and bounded per token, body limits, and
 * GraphQL beside it unchanged (compression, metrics counting tool calls).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import { call, connectHttp } from './support/mcp-clients.js';

const OTHER = 'mcp-other-token-0123456789';
const ALLOWED = 'https://assistant.example';

let stack: Stack;
const clients: Client[] = [];

beforeAll(async () => {
  stack = await startStack({
    sandbox: {
      rateLimit: false,
      users: [
        { token: 'mcp-first-token-0123456789', plans: [{ transactions: 50 }] },
        { token: OTHER, plans: [{ transactions: 50 }] },
      ],
    },
    config: { corsOrigins: [ALLOWED] },
    mcp: { sessionsPerToken: 2 },
  });
});
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await stack.close();
});

const connect = async (token: string) => {
  const client = await connectHttp(stack.mcpUrl, token);
  clients.push(client);
  return client;
};

const initialize = (headers: Record<string, string>) => initializeAt(stack.mcpUrl, headers);

const initializeAt = (url: string, headers: Record<string, string>) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'curl', version: '1' },
      },
    }),
  });

describe('credentials', () => {
  it('answers a request without a token 401 with WWW-Authenticate', async () => {
    const response = await initialize({});
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="plans-gateway"');
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 } });
    await expect(connectHttp(stack.mcpUrl, null)).rejects.toThrow(/No access token/);
  });

  it('answers a token the upstream refuses 401 invalid_token, asking the upstream once', async () => {
    stack.resetUpstreamCalls();
    for (let i = 0; i < 3; i += 1) {
      const response = await initialize({ authorization: 'Bearer made-up-token-0123456789' });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(
        'Bearer realm="plans-gateway", error="invalid_token"',
      );
    }
    expect(stack.upstreamCalls()).toEqual(['getUser']);
  });

  it('binds a session to its token: another token gets 404, as for no session', async () => {
    const client = await connect(stack.token);
    await call(client, 'list_plans');
    const sessionId = (client.transport as { sessionId?: string }).sessionId!;
    const response = await fetch(stack.mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        authorization: `Bearer ${OTHER}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(response.status).toBe(404);
  });
});

describe('sessions', () => {
  it('keeps at most sessionsPerToken per token: a new one closes the oldest', async () => {
    const first = await connect(OTHER);
    await call(first, 'list_plans');
    const second = await connect(OTHER);
    const third = await connect(OTHER);
    expect((await call(second, 'list_plans')).isError).toBeFalsy();
    expect((await call(third, 'list_plans')).isError).toBeFalsy();
    await expect(call(first, 'list_plans')).rejects.toThrow(/404|Session not found/);
  });

  it('refuses a session past maxSessions with 503, and closes one left idle', async () => {
    const small = await stack.addGateway({ mcp: { maxSessions: 1, sessionIdleMs: 50 } });
    const open = (headers: Record<string, string>) =>
      initializeAt(small.mcpUrl, { authorization: `Bearer ${stack.token}`, ...headers });
    // A client that initializes and goes away (no stream open, no DELETE).
    expect((await open({})).status).toBe(200);
    const full = await open({});
    expect(full.status).toBe(503);
    expect(full.headers.get('retry-after')).toBe('60');
    await until(() => small.mcp?.sessions() === 0, 'the idle session to close');
    expect((await open({})).status).toBe(200);
  });
});

describe('origins and CORS', () => {
  it('refuses an origin outside CORS_ORIGINS with 403 before reading anything', async () => {
    const response = await initialize({
      authorization: `Bearer ${stack.token}`,
      origin: 'https://elsewhere.example',
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers a preflight from an allowed origin with the MCP headers allowed and exposed', async () => {
    const response = await fetch(stack.mcpUrl, {
      method: 'OPTIONS',
      headers: {
        origin: ALLOWED,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-session-id',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(response.headers.get('access-control-allow-headers')).toContain('mcp-session-id');
    expect(response.headers.get('access-control-expose-headers')).toContain('mcp-session-id');
    const initialized = await initialize({
      authorization: `Bearer ${stack.token}`,
      origin: ALLOWED,
    });
    expect(initialized.status).toBe(200);
    expect(initialized.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(initialized.headers.get('mcp-session-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('limits', () => {
  it('answers a body over the limit 413 without parsing it', async () => {
    const response = await fetch(stack.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.token}` },
      body: `{"pad":"${'x'.repeat(stack.gateway.config.limits.bodyBytes)}"}`,
    });
    expect(response.status).toBe(413);
  });

  it('answers a body that is not JSON with a JSON-RPC parse error', async () => {
    const response = await fetch(stack.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.token}` },
      body: '{"jsonrpc":',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: -32700 } });
  });
});

describe('GraphQL beside it', () => {
  it('still answers GraphQL, compressed, and counts tool calls in /metrics by operation', async () => {
    const client = await connect(stack.token);
    await call(client, 'plan_overview');
    const metrics = await (await fetch(stack.url.replace('/graphql', '/metrics'))).text();
    expect(metrics).toMatch(/gateway_operations_total\{[^}]*operation="PlanOverview"[^}]*\} 1/);

    const response = await fetch(stack.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${stack.token}`,
        'accept-encoding': 'gzip',
      },
      body: JSON.stringify({
        query: '{ plan(id: "last-used") { transactions(first: 50) { nodes { id memo } } } }',
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect((await response.json()).data.plan.transactions.nodes).toHaveLength(50);
  });
});
