/**
 * MCP over stdio, for desktop assistants that start the server as a child process
 * (`node dist/cli.js mcp`): one session, the token from the environment, JSON-RPC on stdin and
 * stdout (so logs go to stderr). It ends when stdin closes.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpSession, type McpParts } from './session.js';

/** Serves one session over the process's stdin and stdout; resolves when the client is gone. */
export async function serveStdio(parts: McpParts, token: string): Promise<void> {
  const session = createMcpSession(parts, () => ({ token, origin: null, ownOrigins: [] }));
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  await session.server.connect(transport);
  await closed;
  await session.close().catch(() => {});
}
