import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The README and the pages of docs/, where client sections quote the examples. */
const pages = () => [
  read('README.md'),
  ...readdirSync(new URL('../../docs', import.meta.url))
    .filter((name) => name.endsWith('.md'))
    .map((name) => read(`docs/${name}`)),
];

describe('client sections of the docs', () => {
  it.each([
    'examples/apollo-client.ts',
    'examples/urql-client.ts',
    'examples/relay/account-transactions.ts',
    'examples/codegen.ts',
  ])('quote %s verbatim (the file the tests run)', (file) => {
    const quote = `\`\`\`ts\n${read(file)}\`\`\``;
    expect(pages().some((page) => page.includes(quote))).toBe(true);
  });
});
