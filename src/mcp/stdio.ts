/**
 * MCP over stdio, for desktop assistants that start the server as a child process
 * (`node dist/cli.js mcp`): one session, the token from the environment, JSON-RPC on stdin and
 * stdout (so logs go to stderr). It ends when stdin closes.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { bearer } from '../admission/presented.js';
import { createMcpSession, type McpParts } from './session.js';

/** Serves one session over the process's stdin and stdout; resolves when the client is gone. */
export async function serveStdio(parts: McpParts, token: string): Promise<void> {
  // One value for the session: admission checks and digests it once.
  const presented = bearer(token);
  const session = createMcpSession(parts, () => ({ presented, origin: null, ownOrigins: [] }));
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  await session.server.connect(transport);
  await closed;
  await session.close().catch(() => {});
}
