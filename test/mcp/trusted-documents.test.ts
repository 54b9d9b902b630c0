/**
 * MCP under `TRUSTED_DOCUMENTS_ONLY`: the curated tools, the manifest's tools and resources are
 * the gateway's own documents and run; the raw `graphql` tool carries a client's text and is
 * refused exactly as that text would be over HTTP.
 */
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack.js';
import { call, connectHttp, textOf } from './support/mcp-clients.js';

const MANIFEST = fileURLToPath(
  new URL('../../examples/generated/persisted-documents.json', import.meta.url),
);

let stack: Stack;
let client: Client;

beforeAll(async () => {
  stack = await startStack({
    sandbox: { rateLimit: false },
    config: { trustedDocuments: { manifestPath: MANIFEST, only: true } },
    mcp: { graphqlTool: true, trustedDocumentTools: true },
  });
  client = await connectHttp(stack.mcpUrl, stack.token);
});
afterAll(async () => {
  await client.close();
  await stack.close();
});

describe('MCP with trusted documents only', () => {
  it('runs the curated tools', async () => {
    const result = await call(client, 'list_plans', {});
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(JSON.stringify(result.structuredContent)).toContain(stack.planId);
  });

  it("runs the manifest's operations as tools", async () => {
    const result = await call(client, 'transactions_page', {});
    expect(result.isError, textOf(result)).toBeFalsy();
  });

  it('reads resources', async () => {
    const read = await client.readResource({ uri: `plans://${stack.planId}/overview` });
    expect(JSON.stringify(read.contents[0])).toContain(stack.planId);
  });

  it('refuses text sent through the graphql tool, as HTTP refuses it, with no upstream call', async () => {
    stack.resetUpstreamCalls();
    const result = await call(client, 'graphql', { query: '{ plans { id } }' });
    expect(result.isError, textOf(result)).toBe(true);
    expect(JSON.parse(textOf(result)).errors[0].extensions.code).toBe('PERSISTED_QUERY_ONLY');
    expect(stack.upstreamCalls()).toEqual([]);
    const http = await stack.gql('{ plans { id } }');
    expect(http.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_ONLY');
  });
});
