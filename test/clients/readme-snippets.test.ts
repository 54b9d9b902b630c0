import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('README client sections', () => {
  it.each([
    'examples/apollo-client.ts',
    'examples/urql-client.ts',
    'examples/relay/account-transactions.ts',
    'examples/codegen.ts',
  ])('quote %s verbatim (the file the tests run)', (file) => {
    expect(read('README.md')).toContain(`\`\`\`ts\n${read(file)}\`\`\``);
  });
});
