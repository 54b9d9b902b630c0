/**
 * The client kit as an app gets it: built to JavaScript and declarations (`npm run build` in
 * packages/client-kit), packed, installed into an empty app, and imported from plain JavaScript;
 * its Apollo and graphcache configurations load in real caches. Its generated parts follow the
 * schema (`npm run codegen`, checked by `npm test`).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exclusively } from '../support/exclusive.js';
import { runCommand } from '../support/run-command.js';

const root = new URL('../../', import.meta.url).pathname;
const kit = join(root, 'packages/client-kit');
const app = mkdtempSync(join(tmpdir(), 'client-kit-app-'));

/** Runs `code` as an ES module with node in `cwd`; its printed JSON. */
async function nodeModule(code: string, cwd: string): Promise<unknown> {
  const { code: exit, output } = await runCommand(
    process.execPath,
    ['--input-type=module', '-e', code],
    { cwd },
  );
  expect(exit, output).toBe(0);
  return JSON.parse(output);
}

beforeAll(async () => {
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  // One build at a time in this checkout; another run's then finds it up to date (its build
  // info lives in dist/, so a removed dist/ is built again).
  const build = await exclusively('client-kit build', () =>
    runCommand(process.execPath, [tsc, '-b', 'tsconfig.build.json'], { cwd: kit }),
  );
  expect(build.code, build.output).toBe(0);
});
afterAll(() => rmSync(app, { recursive: true, force: true }));

describe('@plans-gateway/client-kit as a package', () => {
  it('ships JavaScript and declarations for every entry point it exports', () => {
    const manifest = JSON.parse(readFileSync(join(kit, 'package.json'), 'utf8')) as {
      exports: Record<string, { types: string; default: string }>;
    };
    expect(Object.keys(manifest.exports)).toEqual(['.', './apollo', './graphcache', './offline']);
    for (const entry of Object.values(manifest.exports)) {
      expect(existsSync(join(kit, entry.types))).toBe(true);
      expect(existsSync(join(kit, entry.default))).toBe(true);
    }
  });

  it('installs into an empty app and imports from plain JavaScript', async () => {
    const pack = await runCommand('npm', ['pack', '--pack-destination', app, '--json'], {
      cwd: kit,
    });
    expect(pack.code, pack.output).toBe(0);
    const [packed] = JSON.parse(pack.output) as { filename: string; files: { path: string }[] }[];
    expect(packed!.files.map((file) => file.path)).toContain('dist/index.d.ts');
    expect(packed!.files.map((file) => file.path).some((path) => path.startsWith('src/'))).toBe(
      false,
    );
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'app', version: '1.0.0', private: true, type: 'module' }),
    );
    const install = await runCommand(
      'npm',
      ['install', '--offline', '--no-audit', '--no-fund', `./${packed!.filename}`],
      { cwd: app },
    );
    expect(install.code, install.output).toBe(0);
    const kitInApp = await nodeModule(
      `const kit = await import('@plans-gateway/client-kit');
       console.log(JSON.stringify({
         exports: Object.keys(kit).sort(),
         planIsEntity: kit.isEntityType('Plan'),
         settingsIsEntity: kit.isEntityType('PlanSettings'),
         errorMembers: kit.possibleTypes.Error,
         milliunits: kit.scalars.Milliunits,
         planPages: kit.connectionFields.Plan.transactions,
       }));`,
      app,
    );
    expect(kitInApp).toEqual({
      exports: [
        'connectionFields',
        'embeddedTypes',
        'isEntityType',
        'paginatedFields',
        'possibleTypes',
        'scalars',
      ],
      planIsEntity: true,
      settingsIsEntity: false,
      errorMembers: expect.arrayContaining(['NotFoundError', 'ValidationError']),
      milliunits: 'number',
      planPages: expect.arrayContaining(['accountId', 'categoryId', 'month']),
    });
  });

  it('configures a real InMemoryCache and graphcache from its built entry points', async () => {
    // From the repository, where the workspace links the package and the client libraries are.
    const configured = await nodeModule(
      `import { InMemoryCache } from '@apollo/client';
       import { cacheExchange } from '@urql/exchange-graphcache';
       import * as apollo from '@plans-gateway/client-kit/apollo';
       import * as graphcache from '@plans-gateway/client-kit/graphcache';
       const cache = new InMemoryCache(apollo.cacheConfig());
       cache.writeQuery({
         query: (await import('graphql')).parse('{ plan(id: "p") { id settings { dateFormat { format } } } }'),
         data: { plan: { __typename: 'Plan', id: 'p', settings: { __typename: 'PlanSettings', dateFormat: { __typename: 'DateFormat', format: 'YYYY-MM-DD' } } } },
       });
       const { keys, resolvers } = graphcache.cacheConfig();
       cacheExchange({ keys, resolvers });
       console.log(JSON.stringify({
         entities: Object.keys(cache.extract()).sort(),
         planFields: Object.keys(apollo.typePolicies().Plan.fields).sort(),
         settingsKey: keys.PlanSettings({}),
         paginated: Object.keys(resolvers.Account),
       }));`,
      root,
    );
    expect(configured).toEqual({
      entities: ['Plan:p', 'ROOT_QUERY'],
      planFields: expect.arrayContaining(['transactions', 'scheduledTransactions']),
      settingsKey: null,
      paginated: ['transactions'],
    });
  });
});
