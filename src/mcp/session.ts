/**
 * One MCP session: an `McpServer` (the SDK's) with the gateway's tools and resources, for one
 * client over one transport (a Streamable HTTP session, or stdio). The tools' input and output
 * schemas are JSON Schema generated from GraphQL, not zod, so `tools/list` and `tools/call` are
 * handled on the SDK's underlying `Server`; resources use `McpServer.registerResource`.
 */
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { GraphQLSchema } from 'graphql';
import type { McpConfig } from '../config/config.js';
import { logInternalError } from '../errors/internal-errors.js';
import type { Gateway } from '../gateway/gateway.js';
import { buildCatalog, type ToolCatalog } from './catalog.js';
import { moveMoneyTool } from './move-money.js';
import { type OptionalTool, optionalTools } from './optional-tools.js';
import { registerPrompts } from './prompts.js';
import { reportTools } from './reports.js';
import { registerResources, type SessionStream } from './resources.js';
import { type Caller, createToolRunner, type ToolRunner } from './tool-runner.js';

/** What every session of a gateway shares: the catalog, the runner, the optional tools. */
export interface McpParts {
  readonly gateway: Gateway;
  readonly config: McpConfig;
  readonly catalog: ToolCatalog;
  readonly runner: ToolRunner;
  readonly optional: readonly OptionalTool[];
  readonly version: string;
}

export interface McpSession {
  readonly server: McpServer;
  /** Ends the session's resource subscriptions and closes its server and transport. */
  close(): Promise<void>;
}

const INSTRUCTIONS = `Tools and resources over a budgeting app's plans (budgets). Call list_plans first: every other tool takes a planId (or "last-used"). Amounts in results carry milliunits (integer thousandths), an exact decimal string in the plan's currency and the formatted text: quote the decimal or formatted form to people. Amount arguments are in the plan's currency units, as a number or a string (800 and "800.00" are both 800.00, exactly, at most 3 decimals); milliunits only through the arguments ending in Milliunits; negative amounts are outflows. Accounts, categories and payees may be given by name where a tool says so. Months are "current", "2026-11" or a date in the month. Answers come from the gateway's copy of the plan, no older than its max-age (30 s by default), so repeated reads cost nothing upstream.`;

/** The parts of a gateway's MCP server, built once (the tool documents are parsed here). */
export function createMcpParts(
  gateway: Gateway,
  schema: GraphQLSchema,
  config: McpConfig,
  version: string,
): McpParts {
  const catalog = buildCatalog(schema, config, gateway.config.trustedDocuments?.manifestPath);
  for (const reason of catalog.skipped)
    gateway.logger?.warn({ reason }, 'mcp: manifest operation not offered as a tool');
  const runner = createToolRunner(gateway, schema, catalog, config);
  return {
    gateway,
    config,
    catalog,
    runner,
    optional: [
      ...reportTools(runner, schema),
      moveMoneyTool(runner, schema, catalog, config.writes),
      ...optionalTools(gateway, schema, config),
    ],
    version,
  };
}

/** A transport that paces its own writes (stdio: the SDK's `send` waits for stdout to drain). */
const SELF_PACED: SessionStream = { backedUp: () => undefined, end: () => {} };

/**
 * A session's server; `caller` says who sends each request (its token), `stream` how its
 * notifications are paced and ended.
 */
export function createMcpSession(
  parts: McpParts,
  caller: (extra: { authInfo?: AuthInfo | undefined }) => Caller,
  stream: SessionStream = SELF_PACED,
): McpSession {
  const { gateway, runner, optional, config } = parts;
  const mcp = new McpServer(
    { name: 'plans-graphql-gateway', title: 'Plans GraphQL gateway', version: parts.version },
    {
      capabilities: {
        tools: { listChanged: false },
        resources: { subscribe: true, listChanged: false },
        logging: {},
      },
      instructions: INSTRUCTIONS,
    },
  );
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      ...runner.list(),
      ...optional.filter((extra) => config.writes || !extra.writes).map((extra) => extra.tool),
    ],
  }));
  mcp.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args = {} } = request.params;
    const who = caller(extra);
    const extraTool = optional.find((tool) => tool.tool.name === name);
    // Elicitation only when the client declared it: otherwise the write runs as described.
    const confirm = mcp.server.getClientCapabilities()?.elicitation
      ? (message: string) => confirmed(mcp, message)
      : undefined;
    try {
      return extraTool
        ? await extraTool.call(args, who)
        : await runner.call(name, args, who, confirm);
    } catch (error) {
      logInternalError(gateway.logger, error, 'mcp tool call failed');
      return { isError: true, content: [{ type: 'text', text: 'Unexpected error.' }] };
    }
  });
  const subscriptions = registerResources(mcp, {
    gateway,
    catalog: parts.catalog,
    runner,
    caller,
    now: () => gateway.scheduler.now(),
    onError: (error) => logInternalError(gateway.logger, error, 'mcp resource updates failed'),
    limits: {
      perPlan: config.subscriptionsPerPlan,
      perSession: config.subscriptionsPerSession,
      pendingBytes: gateway.config.live.pendingBytesPerSubscriber,
    },
    stream,
  });
  registerPrompts(mcp);
  // McpServer announces list changes once resources are registered; these lists never change.
  mcp.server.registerCapabilities({
    tools: { listChanged: false },
    resources: { subscribe: true, listChanged: false },
    prompts: { listChanged: false },
  });
  return {
    server: mcp,
    async close() {
      subscriptions.close();
      await mcp.close();
    },
  };
}

/** Private: the user's answer to `message` through elicitation (declined or cancelled: no). */
async function confirmed(mcp: McpServer, message: string): Promise<boolean> {
  const answer = await mcp.server.elicitInput({
    message,
    requestedSchema: {
      type: 'object',
      properties: {
        confirm: { type: 'boolean', title: 'Go ahead', description: 'Make this change.' },
      },
      required: ['confirm'],
    },
  });
  return answer.action === 'accept' && answer.content?.confirm === true;
}
