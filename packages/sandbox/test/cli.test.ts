/**
 * The sandbox's CLI (`npm start` in this package, `npm run sandbox` at the top): the operational
 * interface other tools rely on (docs/architecture.md#an-embedded-rest-sandbox): options as
 * flags or environment variables, the URL printed once ready, a clean stop on SIGTERM, status 2
 * on a bad option. Each CLI runs in its own
 * process group, and the group is what gets killed, so no sandbox outlives the suite.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { expectError } from './support/expect-response.js';
import { createRest, dataOf } from './support/rest.js';

/** The package's folder: `npm start` here runs `node --import tsx src/cli.ts`. */
const PACKAGE = fileURLToPath(new URL('..', import.meta.url));

const running: ChildProcess[] = [];

/** Whether any process of the group led by `pid` is still alive. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitForGroupGone(pid: number, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (groupAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

afterEach(async () => {
  for (const child of running.splice(0)) {
    if (child.pid === undefined || !groupAlive(child.pid)) continue;
    process.kill(-child.pid, 'SIGKILL');
    await waitForGroupGone(child.pid);
  }
});

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
}

function launch(args: string[], env: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: PACKAGE,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  running.push(child);
  return child;
}

/** Starts the CLI and resolves once it has printed the URL it listens on. */
function start(args: string[], env: Record<string, string> = {}): Promise<Started> {
  const child = launch(args, env);
  let stdout = '';
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/\S+\/v1)/.exec(stdout);
      if (match?.[1] !== undefined) resolve({ child, url: match[1], output: () => stdout });
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('exit', (code) =>
      reject(
        new Error(`the sandbox exited (${String(code)}) before listening: ${stderr}${stdout}`),
      ),
    );
  });
}

function exited(child: ChildProcess): Promise<{ code: number | null; stderr: string }> {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve({ code: child.exitCode, stderr });
    else child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('npm run sandbox', () => {
  it('serves a seeded plan with the given tokens and size, and stops on SIGTERM', async () => {
    const { child, url, output } = await start([
      '--port',
      '0',
      '--token',
      'cli-token',
      '--read-only-token',
      'cli-read',
      '--transactions',
      '50',
      '--seed',
      '3',
    ]);
    expect(output()).toContain('cli-token');
    const rest = createRest(url, 'cli-token');
    expect((await rest.get('/user')).status).toBe(200);
    const plan = dataOf(await rest.get('/plans/last-used'), 'getPlanById').plan;
    expect(plan.transactions.filter((t) => !t.deleted)).toHaveLength(50);
    expectError(
      await createRest(url, 'cli-read').post(`/plans/${plan.id}/payees`, { payee: { name: 'x' } }),
      403,
      '403.3',
      'unauthorized_scope',
    );

    const stopped = exited(child);
    child.kill('SIGTERM');
    expect((await stopped).code).toBe(0);
    await expect(fetch(`${url}/user`)).rejects.toThrow();
    // SIGTERM to the wrapper stops the node process it started too.
    expect(await waitForGroupGone(child.pid ?? 0)).toBe(true);
  });

  it('reads its options from the environment, with flags winning', async () => {
    const { url } = await start(['--token', 'flag-token'], {
      SANDBOX_PORT: '0',
      SANDBOX_TOKEN: 'env-token',
      SANDBOX_READ_ONLY_TOKEN: 'env-read',
      SANDBOX_TRANSACTIONS: '30',
    });
    expect((await createRest(url, 'flag-token').get('/user')).status).toBe(200);
    expect((await createRest(url, 'env-token').get('/user')).status).toBe(401);
    expect((await createRest(url, 'env-read').get('/user')).status).toBe(200);
  });

  it('prints and serves its OAuth applications, with the redirect URIs it was given', async () => {
    const { url, output } = await start([
      '--port',
      '0',
      '--transactions',
      '10',
      '--oauth-redirect-uri',
      'http://127.0.0.1/custom/callback',
      '--oauth-client',
      'id=cli-app,secret=cli-secret,redirect-uri=https://cli.example/cb,name=CLI App',
    ]);
    const origin = new URL(url).origin;
    expect(output()).toContain(
      `OAuth authorize   ${origin}/oauth/authorize (sign-in and consent pages)`,
    );
    expect(output()).toContain('client_id=sandbox-demo-client  client_secret=sandbox-demo-secret');
    expect(output()).toMatch(
      /CLI App: client_id=cli-app\n +redirect URIs https:\/\/cli.example\/cb /,
    );
    expect(output()).not.toContain('cli-secret');
    const authorize = (clientId: string, redirectUri: string) =>
      fetch(
        `${origin}/oauth/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, response_type: 'code' })}`,
        { redirect: 'manual' },
      );
    const page = await authorize('sandbox-demo-client', 'http://127.0.0.1:4123/custom/callback');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Authorize Plans Sandbox Demo App');
    // The given URIs replaced the defaults.
    expect(
      (await authorize('sandbox-demo-client', 'http://localhost:8080/oauth/callback')).status,
    ).toBe(400);
    const other = await authorize('cli-app', 'https://cli.example/cb');
    expect(await other.text()).toContain('Authorize CLI App');
  });

  it('exits with status 2 and names a bad option', async () => {
    const result = await exited(launch(['--port', 'not-a-port']));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/port/);
  });
});
