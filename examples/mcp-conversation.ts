/**
 * The example conversation of docs/mcp.md, run for real: a sandbox, a gateway with MCP at `/mcp`
 * (writes on), and the MCP SDK's client making the tool calls an assistant would make for "How
 * much is left for groceries this month? And log 12.34 at the Corner Shop as groceries." Prints
 * each call and its result (long lists cut) as Markdown: `npx tsx examples/mcp-conversation.ts`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createSandbox } from '@plans-gateway/sandbox';
import { DEFAULT_MCP, defaultConfig } from '../src/config/config.js';
import { createGateway } from '../src/gateway/gateway.js';
import { createMcpHttp, withMcp } from '../src/mcp/http.js';
import { createMcpParts } from '../src/mcp/session.js';
import { schema } from '../src/schema/index.js';
import { listen } from '../src/server/http-server.js';

/** Lists in results are cut to this many items in the transcript. */
const SHOWN = 2;

async function main(): Promise<void> {
  const sandbox = await createSandbox({ port: 0 });
  const gateway = createGateway(defaultConfig(sandbox.url));
  const mcp = createMcpHttp(
    createMcpParts(gateway, schema, { ...DEFAULT_MCP, writes: true }, 'example'),
  );
  const http = await listen(withMcp(gateway, mcp), { port: 0, host: '127.0.0.1' });
  const client = new Client({ name: 'example-assistant', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${http.port}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${sandbox.users[0]?.token}` } },
    }),
  );
  const lines: string[] = [];
  const step = async (
    name: string,
    args: Record<string, unknown>,
    shown: (data: unknown) => unknown = (data) => data,
  ) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    lines.push(
      '```jsonc',
      `// tools/call`,
      JSON.stringify({ name, arguments: args }, null, 2),
      `// result${result.isError ? ' (isError)' : ''}.structuredContent`,
      JSON.stringify(cut(shown(result.structuredContent ?? result.content)), null, 2),
      '```',
      '',
    );
    return result.structuredContent as Record<string, unknown>;
  };

  const { plans } = (await step('list_plans', {})) as { plans: { id: string }[] };
  const planId = plans[0]?.id;
  const budget = (await step('month_budget', { planId }, onlyGroceries)) as {
    plan: { month: { month: string; categories: { categoryId: string; name: string }[] } };
  };
  const groceries = budget.plan.month.categories.find((c) => c.name === 'Groceries');
  await step('search_transactions', {
    planId,
    categoryId: groceries?.categoryId,
    sinceDate: budget.plan.month.month,
    first: 2,
  });
  const overview = (await step('plan_overview', { planId })) as {
    plan: { accounts: { id: string; type: string }[] };
  };
  const checking = overview.plan.accounts.find((a) => a.type === 'checking');
  await step('create_transaction', {
    planId,
    accountId: checking?.id,
    date: new Date().toISOString().slice(0, 10),
    amount: '-12.34',
    payeeName: 'Corner Shop',
    categoryId: groceries?.categoryId,
    memo: 'logged by the assistant',
  });
  process.stdout.write(lines.join('\n'));

  await client.close();
  await mcp.close();
  await http.shutdown(0);
  await gateway.close();
  await sandbox.close();
}

/** Private: the month budget with its Groceries row alone (the others are left out). */
function onlyGroceries(data: unknown): unknown {
  const { plan } = data as { plan: { month: { categories: { name: string }[] } } };
  const { categories } = plan.month;
  const kept = categories.filter((c) => c.name === 'Groceries');
  return {
    plan: {
      ...plan,
      month: {
        ...plan.month,
        categories: [...kept, `... ${categories.length - kept.length} more`],
      },
    },
  };
}

/** Private: lists cut to their first items, saying how many were left out. */
function cut(value: unknown): unknown {
  if (Array.isArray(value)) {
    const kept = value.slice(0, SHOWN).map(cut);
    return value.length > SHOWN ? [...kept, `... ${value.length - SHOWN} more`] : kept;
  }
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, cut(item)]));
}

await main();
