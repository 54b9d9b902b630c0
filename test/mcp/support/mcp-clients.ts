/**
 * The MCP SDK's own client over both transports: Streamable HTTP to a stack's `/mcp`, and stdio
 * to `src/cli.ts mcp` started as a child process in a process group of its own (`setsid`), so the
 * cleanup kills the whole group (tsx's helper included).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ROOT } from '../../cli/support/process.js';

/** A client connected to `url` with `token` (none: no Authorization header). */
export async function connectHttp(
  url: string,
  token: string | null,
  headers: Record<string, string> = {},
): Promise<Client> {
  const client = new Client({ name: 'gateway-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: {
      headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...headers },
    },
  });
  await client.connect(transport);
  return client;
}

export interface StdioServer {
  readonly client: Client;
  /** What the server wrote to stderr (its log). */
  stderr(): string;
  /** SIGKILL to the server's process group. */
  killGroup(): void;
  /** Whether any process of the group is alive. */
  alive(): boolean;
  /** Closes the client, then kills what is left of the group. */
  close(): Promise<void>;
}

/** The sources through tsx, as `npm run mcp` runs them. */
const FROM_SOURCES = ['--import', 'tsx', 'src/cli.ts', 'mcp'];

/** How to start the server: `node` in the checkout unless said otherwise. */
export interface StdioCommand {
  /** The program (`npx`, a bin's path); node by default. */
  readonly command?: string;
  readonly cwd?: string;
  /** The client to connect (one that declares elicitation, say); a plain one by default. */
  readonly client?: Client;
}

/**
 * `node <args>` (`src/cli.ts mcp` by default) with `env`, and the SDK's client connected over
 * its stdio: the harness any conversation (a function of a connected `Client`) runs over stdio
 * with, `const server = await launchStdio(env); await conversation(server.client); await
 * server.close()`.
 */
export async function launchStdio(
  env: Record<string, string>,
  args: readonly string[] = FROM_SOURCES,
  {
    command = process.execPath,
    cwd = ROOT,
    client = new Client({ name: 'gateway-tests', version: '1.0.0' }),
  }: StdioCommand = {},
): Promise<StdioServer> {
  const transport = new StdioClientTransport({
    // setsid: the server leads a process group of its own (the same pid: setsid execs).
    command: 'setsid',
    args: [command, ...args],
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_FORMAT: 'json', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  // The transport forgets its process once closed: the group is remembered here.
  let pid: number | null = null;
  const group = () => pid ?? transport.pid ?? 0;
  const killGroup = () => {
    if (group() <= 1) return;
    try {
      process.kill(-group(), 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  try {
    await client.connect(transport);
    pid = transport.pid;
  } catch (error) {
    killGroup();
    throw new Error(`the stdio server did not start: ${String(error)}\n${stderr}`);
  }
  return {
    client,
    stderr: () => stderr,
    killGroup,
    async close() {
      await client.close().catch(() => {});
      killGroup();
    },
    alive() {
      if (group() <= 1) return false;
      try {
        process.kill(-group(), 0);
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** The text of a tool result's first content block. */
export function textOf(result: CallToolResult): string {
  const [first] = result.content;
  return first?.type === 'text' ? first.text : '';
}

/** A tool's result as the tests read it (the SDK types `callTool`'s answer loosely). */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

export interface AmountForms {
  milliunits: number;
  decimal: string;
  formatted: string;
}

/** Every amount object in a tool result, at any depth. */
export function amountsIn(value: unknown): AmountForms[] {
  if (Array.isArray(value)) return value.flatMap(amountsIn);
  if (value === null || typeof value !== 'object') return [];
  if ('milliunits' in value && 'decimal' in value && 'formatted' in value)
    return [value as AmountForms];
  return Object.values(value).flatMap(amountsIn);
}
