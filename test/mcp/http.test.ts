/**
 * `/mcp` on the gateway's port, at the HTTP level: credentials (401 with `WWW-Authenticate`),
 * origins (DNS rebinding) and CORS, sessions bound to their token, bounded per token and in all
 * (a full table makes room) and closed when idle, on the gateway's manual clock and timers,
 * body limits, and GraphQL beside it unchanged (compression, metrics counting tool calls).
 */
import type { Socket } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServedGateway, startStack, type TimedStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import { call, connectHttp } from './support/mcp-clients.js';
import { INITIALIZE, neverReadingStream, openSession, ping, rpcAt } from './support/raw-mcp.js';

const FIRST = 'mcp-first-token-0123456789';
const OTHER = 'mcp-other-token-0123456789';
const THIRD = 'mcp-third-token-0123456789';
const ALLOWED = 'https://assistant.example';

let stack: TimedStack;
const clients: Client[] = [];
const sockets: Socket[] = [];

beforeAll(async () => {
  stack = await startStack({
    clock: 'manual',
    timers: 'manual',
    sandbox: {
      rateLimit: false,
      users: [FIRST, OTHER, THIRD].map((token) => ({ token, plans: [{ transactions: 50 }] })),
    },
    config: { corsOrigins: [ALLOWED] },
    mcp: { sessionsPerToken: 2 },
  });
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
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
    body: JSON.stringify(INITIALIZE),
  });

/** A session opened by hand at `gateway` (no client behind it: no stream, no requests). */
const opened = async (gateway: ServedGateway, token: string) => {
  const id = await openSession(gateway.mcpUrl, token);
  if (typeof id !== 'string') throw new Error(`no session: ${id}`);
  return id;
};

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

  it('closes a session without requests or streams after sessionIdleMs, on the gateway timers', async () => {
    const small = await stack.addGateway({ mcp: { sessionIdleMs: 60_000 } });
    const idle = await opened(small, FIRST);
    const streaming = await opened(small, OTHER);
    const stream = await neverReadingStream(small.mcpUrl, OTHER, streaming);
    sockets.push(stream);
    stream.resume();
    await until(() => stream.bytesRead > 0, 'the event stream to open');

    await stack.scheduler.advance(59_999);
    expect(small.mcp?.sessions()).toBe(2);
    await stack.scheduler.advance(1);
    // The one with an open stream is not idle, however long it stays quiet.
    expect(small.mcp?.sessions()).toBe(1);
    expect(await ping(small.mcpUrl, FIRST, idle)).toBe(404);
    await stack.scheduler.advance(10 * 60_000);
    expect(await ping(small.mcpUrl, OTHER, streaming)).toBe(200);

    // Once its stream ends, it is idle like any other.
    stream.destroy();
    await until(async () => {
      await stack.scheduler.advance(60_000);
      return small.mcp?.sessions() === 0;
    }, 'the session to close once idle after its stream ended');
  });

  it('makes room in a full table: the longest-idle session of the token holding the most gives way', async () => {
    const small = await stack.addGateway({ mcp: { maxSessions: 3, sessionsPerToken: 8 } });
    const a1 = await opened(small, FIRST);
    await stack.scheduler.advance(1_000);
    const a2 = await opened(small, FIRST);
    await stack.scheduler.advance(1_000);
    const b1 = await opened(small, OTHER);
    await stack.scheduler.advance(1_000);

    // Before: 503 for the sessions' idle time (30 minutes), for as long as the flood lasts.
    const c1 = await openSession(small.mcpUrl, THIRD);
    expect(c1).toBeTypeOf('string');
    expect(small.mcp?.sessions()).toBe(3);
    expect(await ping(small.mcpUrl, FIRST, a1)).toBe(404);
    expect(await ping(small.mcpUrl, FIRST, a2)).toBe(200);
    expect(await ping(small.mcpUrl, OTHER, b1)).toBe(200);

    // The flooder comes back, its sessions just pinged: it displaces its own, not the newcomer.
    await stack.scheduler.advance(1_000);
    const a3 = await opened(small, FIRST);
    expect(small.mcp?.sessions()).toBe(3);
    expect(await ping(small.mcpUrl, FIRST, a2)).toBe(404);
    expect(await ping(small.mcpUrl, FIRST, a3)).toBe(200);
    expect(await ping(small.mcpUrl, THIRD, c1 as string)).toBe(200);
    expect(await ping(small.mcpUrl, OTHER, b1)).toBe(200);
  });

  it('makes room first with a session idle past sessionIdleWhenFullMs without a stream', async () => {
    const small = await stack.addGateway({
      mcp: { maxSessions: 3, sessionsPerToken: 8, sessionIdleWhenFullMs: 60_000 },
    });
    const b1 = await opened(small, OTHER);
    await stack.scheduler.advance(60_000);
    const a1 = await opened(small, FIRST);
    const a2 = await opened(small, FIRST);
    await opened(small, THIRD);
    // FIRST holds the most, but OTHER's session has been left alone for a minute.
    expect(await ping(small.mcpUrl, OTHER, b1)).toBe(404);
    expect(await ping(small.mcpUrl, FIRST, a1)).toBe(200);
    expect(await ping(small.mcpUrl, FIRST, a2)).toBe(200);
  });
});

describe('origins and CORS', () => {
  it('refuses a DNS-rebinding page with the default CORS_ORIGINS=*, which still serves GraphQL', async () => {
    const open = await stack.addGateway({ mcp: {} });
    const { port } = new URL(open.mcpUrl);
    const auth = { authorization: `Bearer ${FIRST}` };
    const status = async (headers: Record<string, string>) =>
      (await rpcAt(open.mcpUrl, INITIALIZE, { ...auth, ...headers })).status;

    // A page of rebound.example whose name now resolves to the gateway: Origin and Host agree.
    const rebound = await rpcAt(open.mcpUrl, INITIALIZE, {
      ...auth,
      host: `rebound.example:${port}`,
      origin: `http://rebound.example:${port}`,
    });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.text).error.message).toMatch(/may not use MCP.*CORS_ORIGINS/);
    expect(await status({ origin: 'https://elsewhere.example' })).toBe(403);
    expect(await status({ origin: 'null' })).toBe(403);
    await expect(
      connectHttp(open.mcpUrl, FIRST, { origin: 'https://elsewhere.example' }),
    ).rejects.toThrow(/403|may not use MCP/);

    // Its own address, by IP or localhost, and clients that are no browser.
    expect(await status({ origin: `http://127.0.0.1:${port}` })).toBe(200);
    expect(await status({ host: `localhost:${port}`, origin: `http://localhost:${port}` })).toBe(
      200,
    );
    expect(await status({})).toBe(200);

    // GraphQL on the same port keeps CORS_ORIGINS=*.
    const graphql = await fetch(open.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        origin: 'https://elsewhere.example',
        ...auth,
      },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(graphql.status).toBe(200);
  });

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
