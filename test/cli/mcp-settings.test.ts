/** The MCP settings and the `mcp` command, as `parseSettings` reads them. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_MCP } from '../../src/config/config.js';
import { parseSettings } from '../../src/config/settings.js';

const run = (argv: string[], env: Record<string, string> = {}) => {
  const parsed = parseSettings(argv, env);
  if (parsed.kind !== 'run') throw new Error(`not run: ${JSON.stringify(parsed)}`);
  return parsed;
};

describe('MCP settings', () => {
  it('serves /mcp read-only by default, and the HTTP gateway without a command', () => {
    const parsed = run([]);
    expect(parsed.command).toBe('serve');
    expect(parsed.settings.mcp).toEqual(DEFAULT_MCP);
    expect(DEFAULT_MCP).toMatchObject({
      path: '/mcp',
      writes: false,
      graphqlTool: false,
      schemaSearch: false,
    });
  });

  it('reads each switch', () => {
    const { settings } = run([], {
      MCP: 'off',
      MCP_WRITES: 'on',
      MCP_GRAPHQL_TOOL: 'true',
      MCP_SCHEMA_SEARCH: '1',
      MCP_TRUSTED_DOCUMENT_TOOLS: 'on',
      TRUSTED_DOCUMENTS: 'persisted-documents.json',
      MCP_SESSION_IDLE_SECONDS: '60',
      MCP_SUBSCRIPTIONS_PER_PLAN: '4',
      MCP_SUBSCRIPTIONS_PER_SESSION: '12',
    });
    expect(settings.mcp).toEqual({
      ...DEFAULT_MCP,
      path: false,
      writes: true,
      graphqlTool: true,
      schemaSearch: true,
      trustedDocumentTools: true,
      sessionIdleMs: 60_000,
      subscriptionsPerPlan: 4,
      subscriptionsPerSession: 12,
    });
  });

  it('bounds the resource subscriptions of a session by default', () => {
    expect(run([]).settings.mcp).toMatchObject({
      subscriptionsPerPlan: 16,
      subscriptionsPerSession: 64,
    });
  });

  it('names the variable that is wrong', () => {
    expect(parseSettings([], { MCP_WRITES: 'maybe' })).toEqual({
      kind: 'error',
      message: 'MCP_WRITES must be on or off (also true/false, 1/0); got "maybe"',
    });
    expect(parseSettings([], { MCP_TRUSTED_DOCUMENT_TOOLS: 'on' })).toEqual({
      kind: 'error',
      message: 'MCP_TRUSTED_DOCUMENT_TOOLS needs TRUSTED_DOCUMENTS (the manifest path)',
    });
    expect(parseSettings(['serve'], {})).toMatchObject({ kind: 'error' });
    expect(parseSettings([], { MCP_SUBSCRIPTIONS_PER_PLAN: '0' })).toEqual({
      kind: 'error',
      message: 'MCP_SUBSCRIPTIONS_PER_PLAN must be an integer from 1 to 1000; got "0"',
    });
    expect(parseSettings([], { MCP_SUBSCRIPTIONS_PER_SESSION: 'all' })).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('MCP_SUBSCRIPTIONS_PER_SESSION must be an integer'),
    });
  });

  it('runs `mcp` with the token of PLANS_TOKEN, else YNAB_TOKEN', () => {
    expect(run(['mcp'], { YNAB_TOKEN: 'b' }).settings.mcpToken).toBe('b');
    const both = run(['mcp'], { PLANS_TOKEN: 'a', YNAB_TOKEN: 'b' });
    expect([both.command, both.settings.mcpToken]).toEqual(['mcp', 'a']);
    expect(run(['mcp']).settings.mcpToken).toBeUndefined();
  });
});
