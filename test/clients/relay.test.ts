import { spawn } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startStack } from '../support/stack.js';

const require = createRequire(import.meta.url);
const root = new URL('../../', import.meta.url).pathname;

/** relay-compiler's own launcher (it picks the native binary shipped in the npm package). */
function runRelayCompiler(cwd: string): Promise<{ code: number | null; output: string }> {
  const cli = join(dirname(require.resolve('relay-compiler/package.json')), 'cli.js');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli], { cwd, detached: true });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('relay-compiler against schema.graphql', () => {
  const dir = mkdtempSync(join(tmpdir(), 'relay-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function project(fragmentFile: string) {
    rmSync(join(dir, 'src'), { recursive: true, force: true });
    mkdirSync(join(dir, 'src'));
    copyFileSync(join(root, 'schema.graphql'), join(dir, 'schema.graphql'));
    writeFileSync(join(dir, 'src', 'fragment.ts'), fragmentFile);
    writeFileSync(
      join(dir, 'relay.config.json'),
      JSON.stringify({ src: './src', schema: './schema.graphql', language: 'typescript' }),
    );
  }

  it('accepts a fragment with @refetchable and @connection (Node, node(id:), cursor connection)', async () => {
    project(readFileSync(join(root, 'examples/relay/account-transactions.ts'), 'utf8'));
    const { code, output } = await runRelayCompiler(dir);
    expect(output).not.toMatch(/\[ERROR\]/);
    expect(code).toBe(0);
    const refetch = readFileSync(
      join(dir, 'src/__generated__/AccountTransactionsPaginationQuery.graphql.ts'),
      'utf8',
    );
    // The refetch query Relay built goes through the gateway's node(id:), and the gateway runs it.
    expect(refetch).toContain('node(id: $id)');
    const text = JSON.parse(/"text": ("(?:[^"\\]|\\.)*")/.exec(refetch)![1]!) as string;
    const stack = await startStack();
    try {
      const accounts = await stack.gql<{ plan: { accounts: { id: string }[] } }>(
        '{ plan(id: "last-used") { accounts { id } } }',
      );
      const id = accounts.body.data!.plan.accounts[0]!.id;
      const page = await stack.gql<{ node: { id: string; transactions: { edges: unknown[] } } }>(
        text,
        { id, count: 5 },
      );
      expect(page.body.errors).toBeUndefined();
      expect(page.body.data!.node.id).toBe(id);
      expect(page.body.data!.node.transactions.edges).toHaveLength(5);
    } finally {
      await stack.close();
    }
  });

  it('rejects what the schema lacks (the check is real)', async () => {
    project(
      readFileSync(join(root, 'examples/relay/account-transactions.ts'), 'utf8').replace(
        'balanceFormatted',
        'balanceInDollars',
      ),
    );
    const { code, output } = await runRelayCompiler(dir);
    expect(code).not.toBe(0);
    expect(output).toContain('balanceInDollars');
    expect(readdirSync(join(dir, 'src'))).toEqual(['fragment.ts']);
  });
});
