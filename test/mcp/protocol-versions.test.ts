/**
 * Protocol version negotiation at `/mcp`, with the SDK's own client asking for each version: the
 * newest the installed SDK knows and the one before it are answered as asked (and then sent in
 * every request's `mcp-protocol-version`), a version the server does not know is answered with
 * the server's newest (the specification's rule; the client then decides). Tools keep their
 * output schemas and answers their `structuredContent` in each. docs/mcp.md names the two.
 */
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  isInitializeRequest,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack.js';
import { amountsIn, call, textOf } from './support/mcp-clients.js';
import { rpcAt } from './support/raw-mcp.js';

const TOKEN = 'mcp-versions-token-0123456789';
const NEWEST = LATEST_PROTOCOL_VERSION;
const PREVIOUS = SUPPORTED_PROTOCOL_VERSIONS[1]!;

let stack: Stack;
const clients: Client[] = [];

beforeAll(async () => {
  stack = await startStack({
    sandbox: { rateLimit: false, users: [{ token: TOKEN, plans: [{ transactions: 30 }] }] },
    mcp: {},
  });
});
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await stack.close();
});

/** The SDK's client, its `initialize` asking for `version` (the SDK always asks its newest). */
async function connectAsking(version: string) {
  const sent: string[] = [];
  // What each request after initialize says its version is.
  const recording: typeof fetch = (input, init) => {
    const header = new Headers(init?.headers).get('mcp-protocol-version');
    if (header) sent.push(header);
    return fetch(input, init);
  };
  const transport = new StreamableHTTPClientTransport(new URL(stack.mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    fetch: recording,
  });
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (isInitializeRequest(message))
      message = { ...message, params: { ...message.params, protocolVersion: version } };
    return send(message, options);
  };
  const client = new Client({ name: 'versions', version: '1.0.0' });
  clients.push(client);
  await client.connect(transport);
  return { client, transport, sent };
}

describe('protocol versions', () => {
  it('the SDK knows two versions at least, newest first', () => {
    expect(SUPPORTED_PROTOCOL_VERSIONS[0]).toBe(NEWEST);
    expect(PREVIOUS < NEWEST).toBe(true);
  });

  for (const [asked, answered] of [
    [NEWEST, NEWEST],
    [PREVIOUS, PREVIOUS],
    // Older versions the SDK still accepts are answered as asked and work the same way.
    ...SUPPORTED_PROTOCOL_VERSIONS.slice(2).map((older) => [older, older] as const),
    ['2099-01-01', NEWEST],
  ] as const)
    it(`asked for ${asked}, answers ${answered}; tools keep output schemas and structured content`, async () => {
      const { client, transport, sent } = await connectAsking(asked);
      expect(transport.protocolVersion).toBe(answered);
      const { tools } = await client.listTools();
      const overview = tools.find((tool) => tool.name === 'plan_overview');
      expect(overview?.outputSchema).toMatchObject({ type: 'object' });
      // The SDK's client checks structuredContent against the output schema: a mismatch throws.
      const result = await call(client, 'plan_overview');
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ plan: { id: expect.any(String) } });
      expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
      expect(amountsIn(result.structuredContent).length).toBeGreaterThan(0);
      expect(sent.length).toBeGreaterThan(0);
      expect(new Set(sent)).toEqual(new Set([answered]));
    });

  it('answers an unknown version in initialize with its newest, and refuses it in the header', async () => {
    const asked = await rpcAt(
      stack.mcpUrl,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '1999-01-01',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      },
      { authorization: `Bearer ${TOKEN}` },
    );
    expect(asked.status).toBe(200);
    expect(JSON.parse(asked.text)).toMatchObject({ result: { protocolVersion: NEWEST } });
    const session = asked.headers['mcp-session-id'];
    expect(typeof session).toBe('string');
    const later = await rpcAt(
      stack.mcpUrl,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      {
        authorization: `Bearer ${TOKEN}`,
        'mcp-session-id': String(session),
        'mcp-protocol-version': '1999-01-01',
      },
    );
    expect(later.status).toBe(400);
    expect(later.text).toContain('Unsupported protocol version: 1999-01-01');
  });

  it('docs/mcp.md names the newest version and the previous one', () => {
    const docs = readFileSync(new URL('../../docs/mcp.md', import.meta.url), 'utf8');
    const section = docs.slice(docs.indexOf('## Protocol versions'));
    expect(section).toContain(`\`${NEWEST}\``);
    expect(section).toContain(`\`${PREVIOUS}\``);
    for (const older of SUPPORTED_PROTOCOL_VERSIONS.slice(2))
      expect(section).toContain(`\`${older}\``);
  });
});
