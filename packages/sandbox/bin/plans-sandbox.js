#!/usr/bin/env node
// `npx plans-sandbox`: the sandbox's CLI as built (`dist/cli.js`). It is a file of its own, present
// before any build, so that `npm ci` links the command; in a clone, `npm run build` makes the CLI.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write(
    'plans-sandbox: dist/cli.js is missing: run `npm run build` first (or `npm run sandbox` on the sources)\n',
  );
  process.exit(1);
}
await import(cli.href);
