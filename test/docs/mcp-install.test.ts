/**
 * The desktop install snippets (docs/mcp.md, README) name what `npm pack` makes and the command
 * the package has: test/cli/mcp-package.test.ts runs that command from the packed tarball.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const manifest = JSON.parse(read('package.json')) as {
  name: string;
  version: string;
  bin: Record<string, string>;
};

describe('the desktop install snippets', () => {
  it('the package has one command, plans-gateway-mcp, so npx runs it by the package alone', () => {
    expect(Object.keys(manifest.bin)).toEqual(['plans-gateway-mcp']);
  });

  it.each(['docs/mcp.md', 'README.md'])('%s runs the packed tarball through npx', (file) => {
    const tarball = `${manifest.name}-${manifest.version}.tgz`;
    expect(read(file)).toContain(
      `"args": ["-y", "--package=/path/to/${tarball}", "plans-gateway-mcp"]`,
    );
  });
});
