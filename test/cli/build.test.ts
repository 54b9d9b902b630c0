/**
 * The production start: `npm run build` (the workspace packages, then the gateway), then
 * `node dist/cli.js` against a real upstream (a sandbox in this process). One process, no
 * TypeScript tooling, no sandbox or OpenTelemetry module, the REST contract from its build, and a
 * write in flight when SIGTERM arrives still completes and reaches its client. The sandbox
 * package's own command runs from its build too.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createSandbox, type Sandbox } from '@plans-gateway/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, launchStdio } from '../mcp/support/mcp-clients.js';
import { exclusively } from '../support/exclusive.js';
import { runCommand } from '../support/run-command.js';
import { until } from '../support/wait.js';
import { childrenOf, killAll, launch, ROOT } from './support/process.js';

const run = promisify(execFile);
const RECORDER = new URL('./support/record-modules.mjs', import.meta.url).href;

describe('node dist/cli.js', () => {
  let sandbox: Sandbox;
  let scratch: string;

  beforeAll(async () => {
    // The build script as users run it, minus its type check: `npm test` has type-checked these
    // sources already (tsc --noEmit), and `--noCheck` emits the same JavaScript in half the time.
    // One build at a time in this checkout: another run's then finds it up to date.
    const build = await exclusively('npm run build', () =>
      runCommand('npm', ['run', 'build', '--', '--noCheck'], { cwd: ROOT }),
    );
    expect(build.code, build.output).toBe(0);
    sandbox = await createSandbox({ port: 0 });
    scratch = mkdtempSync(join(tmpdir(), 'gateway-build-'));
  }, 180_000);

  afterAll(async () => {
    killAll();
    await sandbox?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('prints its version and its help', async () => {
    const cli = (flag: string) => run('node', ['dist/cli.js', flag], { cwd: ROOT });
    const [{ stdout: version }, { stdout: help }] = await Promise.all([
      cli('--version'),
      cli('--help'),
    ]);
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(version.trim()).toBe(manifest.version);
    expect(help).toContain('Usage:');
    expect(help).toContain('SHUTDOWN_GRACE_MS');
  });

  it('runs as one process that loads no sandbox, tsx, OpenTelemetry or Redis module, and answers', async () => {
    const moduleLog = join(scratch, 'modules.txt');
    const app = launch('node', ['--import', RECORDER, 'dist/cli.js'], {
      UPSTREAM_URL: sandbox.url,
      PORT: '0',
      HOST: '127.0.0.1',
      MODULE_LOG: moduleLog,
      METRICS_PORT: '0',
    });
    const url = await app.listening;
    expect(childrenOf(app.child.pid ?? -1)).toEqual([]);
    expect(app.group()).toEqual([app.child.pid]);

    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${sandbox.users[0]?.token}`,
      },
      body: JSON.stringify({ query: '{ plan(id: "last-used") { name } }' }),
    });
    expect(((await response.json()) as { data: unknown }).data).toEqual({
      plan: { name: 'Demo Household' },
    });

    // METRICS_PORT moves /metrics off the GraphQL port.
    const metricsUrl = String(app.logs().find((line) => line.msg === 'listening')?.metrics);
    expect(metricsUrl).toMatch(/^http:\/\/localhost:\d+\/metrics$/);
    expect(await (await fetch(metricsUrl)).text()).toContain(
      'gateway_operations_total{operation="anonymous",type="query",outcome="ok"} 1',
    );
    expect((await fetch(url.replace('/graphql', '/metrics'))).status).toBe(404);

    const modules = readFileSync(moduleLog, 'utf8').trim().split('\n');
    expect(modules).toContain(new URL('dist/cli.js', `file://${ROOT}`).href);
    expect(modules.some((m) => m.includes('/dist/gateway/gateway.js'))).toBe(true);
    expect(modules.filter((m) => m.includes('/packages/sandbox/'))).toEqual([]);
    // The workspace packages load as built, never from their TypeScript sources.
    expect(modules.some((m) => m.includes('/packages/rest-contract/dist/'))).toBe(true);
    expect(modules.filter((m) => /\/packages\/[^/]+\/src\//.test(m))).toEqual([]);
    expect(modules.filter((m) => /\/tsx\/|typescript/.test(m))).toEqual([]);
    expect(modules.filter((m) => m.includes('@opentelemetry'))).toEqual([]);
    // Without REDIS_URL the Redis client is never loaded (src/cluster imports it on demand).
    expect(modules.filter((m) => m.includes('/ioredis/'))).toEqual([]);
    expect(modules.filter((m) => m.startsWith(`file://${ROOT}src/`))).toEqual([]);
  });

  it('serves MCP over stdio from the build, its tool documents copied beside it', async () => {
    const server = await launchStdio(
      { UPSTREAM_URL: sandbox.url, PLANS_TOKEN: sandbox.users[0]?.token ?? '' },
      ['dist/cli.js', 'mcp'],
    );
    try {
      const { tools } = await server.client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('plan_overview');
      const overview = await call(server.client, 'plan_overview');
      expect(overview.structuredContent).toMatchObject({ plan: { name: 'Demo Household' } });
    } finally {
      await server.client.close().catch(() => {});
      server.killGroup();
    }
  });

  it('without UPSTREAM_URL, embeds the sandbox from its built package', async () => {
    const moduleLog = join(scratch, 'embedded-modules.txt');
    const app = launch('node', ['--import', RECORDER, 'dist/cli.js'], {
      UPSTREAM_URL: undefined,
      PORT: '0',
      MODULE_LOG: moduleLog,
    });
    const url = await app.listening;
    await until(() => /Demo token: \S+\n/.test(app.output()), 'the demo token');
    const token = /Demo token: (\S+)\n/.exec(app.output())?.[1];
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: '{ plan(id: "last-used") { name } }' }),
    });
    expect(await response.json()).toMatchObject({ data: { plan: { name: 'Demo Household' } } });
    app.child.kill('SIGTERM');
    expect(await app.exited).toBe(0);
    const modules = readFileSync(moduleLog, 'utf8').trim().split('\n');
    expect(modules.some((m) => m.includes('/packages/sandbox/dist/sandbox.js'))).toBe(true);
    expect(modules.filter((m) => /\/packages\/[^/]+\/src\//.test(m))).toEqual([]);
  });

  it('runs the sandbox package alone from its build (npx plans-sandbox), and stops on SIGTERM', async () => {
    const moduleLog = join(scratch, 'sandbox-modules.txt');
    const bin = join(ROOT, 'node_modules/.bin/plans-sandbox');
    const app = launch(
      'node',
      ['--import', RECORDER, bin, '--port', '0', '--token', 'bin-token', '--transactions', '40'],
      { MODULE_LOG: moduleLog },
    );
    await until(
      () => /listening on http:\/\/\S+\/v1\n/.test(app.output()),
      'the sandbox to listen',
    );
    const url = /listening on (http:\/\/\S+\/v1)/.exec(app.output())?.[1];
    const answer = await fetch(`${url}/user`, { headers: { authorization: 'Bearer bin-token' } });
    expect(answer.status).toBe(200);
    app.child.kill('SIGTERM');
    expect(await app.exited).toBe(0);

    const modules = readFileSync(moduleLog, 'utf8').trim().split('\n');
    const ours = modules.filter((m) => m.startsWith(`file://${ROOT}`));
    expect(ours.some((m) => m.includes('/packages/sandbox/dist/'))).toBe(true);
    expect(ours.some((m) => m.includes('/packages/rest-contract/dist/'))).toBe(true);
    expect(
      ours.filter((m) => !/\/packages\/(sandbox|rest-contract)\/(bin|dist)\//.test(m)),
    ).toEqual([]);
  });

  it('lets a write in flight finish on SIGTERM, answers its client, then exits 0', async () => {
    const app = launch('node', ['dist/cli.js'], {
      UPSTREAM_URL: sandbox.url,
      PORT: '0',
      HOST: '127.0.0.1',
      SHUTDOWN_GRACE_MS: '20000',
    });
    const url = await app.listening;
    const token = sandbox.users[0]?.token ?? '';
    const post = (query: string) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query }),
      });
    // Warm the replica, so the write below is the only upstream work in flight.
    await (await post('{ plan(id: "last-used") { id } }')).json();
    sandbox.setLatency({ fixedMs: 1_000 });
    try {
      sandbox.resetCalls();
      const answer = post(
        'mutation { createPayee(planId: "last-used", input: { name: "Across SIGTERM" }) { __typename ... on CreatePayeePayload { payee { name } } } }',
      );
      await until(
        () => sandbox.calls().some((c) => c.method === 'POST' && c.path.endsWith('/payees')),
        'the write to reach the upstream',
      );
      app.child.kill('SIGTERM');
      const response = await answer;
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        data: {
          createPayee: { __typename: 'CreatePayeePayload', payee: { name: 'Across SIGTERM' } },
        },
      });
      expect(await app.exited).toBe(0);
      const shutdown = app.logs().find((line) => line.msg?.toString().startsWith('shutting down'));
      expect(shutdown?.inFlight).toBe(1);
      expect(app.logs().some((line) => line.msg === 'stopped')).toBe(true);
      expect(app.logs().some((line) => 'abandoned' in line)).toBe(false);
      await expect(fetch(url)).rejects.toThrow();
    } finally {
      sandbox.setLatency({ fixedMs: 0 });
    }
  });

  it('closes what is still running when SHUTDOWN_GRACE_MS has passed, and exits 0', async () => {
    const app = launch('node', ['dist/cli.js'], {
      UPSTREAM_URL: sandbox.url,
      PORT: '0',
      HOST: '127.0.0.1',
      SHUTDOWN_GRACE_MS: '200',
    });
    const url = await app.listening;
    sandbox.setLatency({ fixedMs: 60_000 });
    try {
      sandbox.resetCalls();
      const answer = fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${sandbox.users[0]?.token}`,
        },
        body: JSON.stringify({ query: '{ user { id } }' }),
      }).then(
        (response) => response.status,
        () => 'dropped',
      );
      await until(() => sandbox.calls().length > 0, 'the read to reach the upstream');
      app.child.kill('SIGTERM');
      expect(await app.exited).toBe(0);
      expect(await answer).toBe('dropped');
      expect(app.logs().find((line) => 'abandoned' in line)).toMatchObject({
        level: 'warn',
        abandoned: 1,
      });
    } finally {
      sandbox.setLatency({ fixedMs: 0 });
    }
  });
});
