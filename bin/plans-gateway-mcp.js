#!/usr/bin/env node
// `npx plans-gateway-mcp`: the gateway's MCP server over stdio (`node dist/cli.js mcp`), as a
// desktop assistant starts it. A file of its own, present before any build, so that installing
// links the command; a checkout runs `npm run build` first (or `npm run -s mcp` on the sources).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write(
    'plans-gateway-mcp: dist/cli.js is missing: run `npm run build` first (or `npm run -s mcp` on the sources)\n',
  );
  process.exit(1);
}
// The CLI reads its command from argv: `mcp` first, any flags after it.
process.argv.splice(2, 0, 'mcp');
await import(cli.href);
