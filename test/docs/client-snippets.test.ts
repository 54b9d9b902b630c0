/**
 * docs/clients.md quotes the example files verbatim, and test/clients runs those files against a
 * real gateway: what a reader copies is what the tests run.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('docs/clients.md', () => {
  it.each([
    'examples/apollo-client.ts',
    'examples/apollo-trusted-documents.ts',
    'examples/urql-client.ts',
    'examples/relay/account-transactions.ts',
    'examples/codegen.ts',
  ])('quotes %s verbatim (the file the tests run)', (file) => {
    expect(read('docs/clients.md')).toContain(`\`\`\`ts\n${read(file)}\`\`\``);
  });
});
