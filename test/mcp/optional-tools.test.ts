/**
 * What an operator can add to the MCP tools: the raw `graphql` tool and `search_schema` (off by
 * default; the default list is in tools.test.ts), and the named operations of the
 * trusted-documents manifest. All of them pass the same admission path as any operation.
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
    config: { trustedDocuments: { manifestPath: MANIFEST, only: false } },
    mcp: { graphqlTool: true, schemaSearch: true, trustedDocumentTools: true },
  });
  client = await connectHttp(stack.mcpUrl, stack.token);
});
afterAll(async () => {
  await client.close();
  await stack.close();
});

describe('the graphql tool', () => {
  it('is listed as a read when writes are off, and runs a query', async () => {
    const { tools } = await client.listTools();
    const graphql = tools.find((tool) => tool.name === 'graphql');
    expect(graphql?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    const result = await call(client, 'graphql', {
      query: '{ plan(id: "last-used") { id name } }',
    });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result))).toEqual({
      data: { plan: { id: stack.planId, name: expect.any(String) } },
    });
  });

  it('refuses a mutation when writes are off, with no upstream call', async () => {
    stack.resetUpstreamCalls();
    const result = await call(client, 'graphql', {
      query:
        'mutation($p: PlanId!) { createPayee(planId: $p, input: { name: "x" }) { __typename } }',
      variables: { p: stack.planId },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Mutations are refused: this server is read-only/);
    expect(stack.upstreamCalls()).toEqual([]);
  });

  it('passes the admission limits, as over HTTP', async () => {
    const deep = `{ plan(id: "last-used") { ${'accounts { plan { '.repeat(7)}id${' } }'.repeat(7)} } }`;
    const result = await call(client, 'graphql', { query: deep });
    expect(result.isError).toBe(true);
    const [refusal] = JSON.parse(textOf(result)).errors;
    expect(refusal.extensions.code).toBe('OPERATION_TOO_COMPLEX');
    // The status an HTTP transport would answer with is no part of a tool's answer.
    expect(refusal.extensions.http).toBeUndefined();
  });
});

describe('search_schema', () => {
  it('finds fields by words of their name and description', async () => {
    const result = await call(client, 'search_schema', { words: 'ready to assign' });
    expect(textOf(result)).toContain('Month.toBeBudgeted: Milliunits!: Ready to Assign.');
    const none = await call(client, 'search_schema', { words: 'zebra' });
    expect(textOf(none)).toBe('Nothing in the schema mentions zebra.');
  });
});

describe('manifest operations as tools', () => {
  it('lists and runs them, with their amounts in three forms', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['plan_header', 'transactions_page']),
    );
    expect(tools.find((tool) => tool.name === 'rename_payee')).toBeUndefined();
    const result = await call(client, 'transactions_page', {});
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(JSON.stringify(result.structuredContent)).toMatch(
      /"amount":\{"milliunits":-?\d+,"decimal":"-?\d+\.\d\d","formatted"/,
    );
  });
});
