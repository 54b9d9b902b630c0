/**
 * The one-line install for desktop assistants: `npm pack` of the gateway (its build, the bin,
 * the workspace packages it imports bundled inside) installed into an empty folder, and
 * `npx plans-gateway-mcp` there answering the SDK's stdio client against a sandbox on loopback.
 * Nothing of the checkout is used once installed: no tsx, no sources, no workspace links. The
 * tarball carries `npm-shrinkwrap.json` (written by `prepack`, scripts/pack-shrinkwrap.ts), which
 * npm follows when the package comes from a registry (whose metadata says `_hasShrinkwrap`, as
 * npm's registry sets on publish): installed so, through a registry on loopback that serves this
 * tarball (and sends every other package to the configured registry), the tree has the locked
 * versions and npm has no engine to warn about on Node 20.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandbox, type Sandbox } from '@plans-gateway/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  amountsIn,
  call,
  launchStdio,
  type StdioServer,
  textOf,
} from '../mcp/support/mcp-clients.js';
import { exclusively } from '../support/exclusive.js';
import { runCommand } from '../support/run-command.js';
import { ROOT } from './support/process.js';

interface Packed {
  readonly filename: string;
  readonly files: readonly { path: string }[];
  readonly bundled: readonly string[];
}

let sandbox: Sandbox;
let scratch: string;
let app: string;
let packed: Packed;
let server: StdioServer | undefined;
let installOutput: string;
let locked: Locked;
let registryApp: string;
let registry: { url: string; server: Server } | undefined;

/**
 * Private: a registry on loopback holding the packed tarball (its metadata says
 * `_hasShrinkwrap`, as npm's registry says of a published package with one); every other
 * request is redirected to `upstream`.
 */
async function serveRegistry(
  tarball: string,
  upstream: string,
): Promise<{ url: string; server: Server }> {
  const bytes = readFileSync(tarball);
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
  };
  const file = `/-/${manifest.name}-${manifest.version}.tgz`;
  const integrity = `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
  const served = createServer((request, response) => {
    if (request.url === `/${manifest.name}`) {
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          name: manifest.name,
          'dist-tags': { latest: manifest.version },
          versions: {
            [manifest.version]: {
              ...manifest,
              _hasShrinkwrap: true,
              dist: { tarball: `${url}${file}`, integrity },
            },
          },
        }),
      );
    } else if (request.url === file) {
      response.end(bytes);
    } else {
      response.statusCode = 302;
      response.setHeader('location', `${upstream.replace(/\/$/, '')}${request.url}`);
      response.end();
    }
  });
  await new Promise<void>((listening) => served.listen(0, '127.0.0.1', listening));
  const url = `http://127.0.0.1:${(served.address() as AddressInfo).port}`;
  return { url, server: served };
}

interface Locked {
  readonly packages: Record<string, { version?: string; inBundle?: boolean }>;
}

const SHRINKWRAP_SCRIPT = 'scripts/pack-shrinkwrap.ts';

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'gateway-mcp-package-'));
  app = join(scratch, 'app');
  // The build as build.test.ts runs it (one at a time in this checkout: the second finds it up
  // to date), and the pack under the same lock, so no other run rewrites dist/ while it is read.
  // `--ignore-scripts`: the pack's own `prepack` would build again, with the type check.
  const pack = await exclusively('npm run build', async () => {
    const build = await runCommand('npm', ['run', 'build', '--', '--noCheck'], {
      cwd: ROOT,
      timeoutMs: 300_000,
    });
    expect(build.code, build.output).toBe(0);
    // What `prepack` does after the build, and `postpack` after the pack.
    const shrinkwrap = await runCommand('node', ['--import', 'tsx', SHRINKWRAP_SCRIPT], {
      cwd: ROOT,
    });
    expect(shrinkwrap.code, shrinkwrap.output).toBe(0);
    locked = JSON.parse(readFileSync(join(ROOT, 'npm-shrinkwrap.json'), 'utf8')) as Locked;
    try {
      return await runCommand(
        'npm',
        ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch],
        { cwd: ROOT },
      );
    } finally {
      await runCommand('node', ['--import', 'tsx', SHRINKWRAP_SCRIPT, '--remove'], { cwd: ROOT });
    }
  });
  expect(pack.code, pack.output).toBe(0);
  // npm prints notices before the JSON on some versions: the JSON is the last array.
  const [first] = JSON.parse(pack.output.slice(pack.output.indexOf('[\n'))) as Packed[];
  expect(first).toBeDefined();
  packed = first!;
  // An empty project, as a user's folder (or npx's cache) is.
  mkdirSync(app);
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'assistant-host', version: '1.0.0', private: true }),
  );
  // From the local cache where it has the packages (the registry otherwise). Install scripts
  // are skipped: better-sqlite3's compiles SQLite when no prebuilt binary can be fetched
  // (minutes on two cores), and the stdio server never opens a database.
  const install = await runCommand(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      join(scratch, packed.filename),
    ],
    { cwd: app, timeoutMs: 480_000 },
  );
  expect(install.code, install.output).toBe(0);
  // The same tarball from a registry, as `npx plans-graphql-gateway` gets it once published.
  registryApp = join(scratch, 'registry-app');
  mkdirSync(registryApp);
  writeFileSync(
    join(registryApp, 'package.json'),
    JSON.stringify({ name: 'assistant-host', version: '1.0.0', private: true }),
  );
  const upstream = (
    await runCommand('npm', ['config', 'get', 'registry'], { cwd: registryApp })
  ).output.trim();
  registry = await serveRegistry(join(scratch, packed.filename), upstream);
  const fromRegistry = await runCommand(
    'npm',
    [
      'install',
      '--registry',
      registry.url,
      '--prefer-offline',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      'plans-graphql-gateway@0.1.0',
    ],
    { cwd: registryApp, timeoutMs: 480_000 },
  );
  expect(fromRegistry.code, fromRegistry.output).toBe(0);
  installOutput = fromRegistry.output;
  sandbox = await createSandbox({ port: 0, host: '127.0.0.1', rateLimit: false });
}, 900_000);

afterAll(async () => {
  await server?.close();
  await new Promise((done) => (registry ? registry.server.close(done) : done(undefined)));
  await sandbox?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('holds the build, the bin and the bundled workspace packages, and no sources', () => {
    const paths = packed.files.map((file) => file.path);
    expect(paths).toContain('bin/plans-gateway-mcp.js');
    expect(paths).toContain('dist/cli.js');
    expect(paths).toContain('dist/mcp/operations/plan-overview.graphql');
    expect(paths).toContain('node_modules/@plans-gateway/sandbox/dist/index.js');
    expect(paths).toContain('node_modules/@plans-gateway/rest-contract/dist/index.js');
    expect([...packed.bundled].sort()).toEqual([
      '@plans-gateway/rest-contract',
      '@plans-gateway/sandbox',
    ]);
    expect(
      paths.filter((path) => /(^|\/)src\/|\.ts$/.test(path) && !path.endsWith('.d.ts')),
    ).toEqual([]);
    const installed = join(app, 'node_modules/plans-graphql-gateway');
    expect(existsSync(join(installed, 'dist/cli.js'))).toBe(true);
    // The workspace packages come from inside the tarball, not as links to the checkout.
    const sandboxManifest = join(installed, 'node_modules/@plans-gateway/sandbox/package.json');
    const hoisted = join(app, 'node_modules/@plans-gateway/sandbox/package.json');
    expect(existsSync(sandboxManifest) || existsSync(hoisted)).toBe(true);
    expect(readFileSync(join(app, 'package.json'), 'utf8')).toContain('plans-graphql-gateway');
  });

  it('installs the locked versions from its shrinkwrap, without engine warnings', () => {
    expect(packed.files.map((file) => file.path)).toContain('npm-shrinkwrap.json');
    // The checkout keeps only package-lock.json.
    expect(existsSync(join(ROOT, 'npm-shrinkwrap.json'))).toBe(false);
    expect(installOutput).not.toMatch(/EBADENGINE|Unsupported engine/);
    const installed = join(registryApp, 'node_modules/plans-graphql-gateway');
    const versionAt = (location: string) => {
      for (const base of [installed, registryApp]) {
        const file = join(base, location, 'package.json');
        if (existsSync(file))
          return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
      }
      return undefined;
    };
    const differing = Object.entries(locked.packages)
      .filter(([location, entry]) => location !== '' && entry.version !== undefined)
      .map(([location, entry]) => [location, entry.version, versionAt(location)])
      .filter(([, want, got]) => want !== got);
    expect(differing).toEqual([]);
    expect(versionAt('node_modules/@whatwg-node/promise-helpers')).toBe('1.3.2');
  });

  it('runs `npx plans-gateway-mcp` over stdio: lists the tools and calls one', async () => {
    server = await launchStdio(
      {
        UPSTREAM_URL: sandbox.url,
        PLANS_TOKEN: sandbox.users[0]!.token,
        npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? '', '.npm'),
      },
      ['--offline', 'plans-gateway-mcp'],
      { command: 'npx', cwd: app },
    );
    const { tools } = await server.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['list_plans', 'plan_overview', 'month_budget']),
    );
    const overview = tools.find((tool) => tool.name === 'plan_overview');
    expect(overview?.outputSchema?.type).toBe('object');
    const result = await call(server.client, 'plan_overview', {
      planId: sandbox.users[0]!.planIds[0]!,
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ plan: { name: 'Demo Household' } });
    const amounts = amountsIn(result.structuredContent);
    expect(amounts.length).toBeGreaterThan(0);
    for (const amount of amounts)
      expect(Number(amount.decimal) * 1000).toBeCloseTo(amount.milliunits, 6);
    // The server ran from the installed package, against this sandbox.
    expect(server.stderr()).toContain('"msg":"mcp over stdio"');
    expect(sandbox.calls().length).toBeGreaterThan(0);
  });
});
