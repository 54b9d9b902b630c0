/**
 * `npm start` as a user runs it: the CLI in a child process, embedded sandbox, GraphiQL with the
 * dashboard query and demo token filled in, a real query, a clean shutdown; bad settings refused.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = `${ROOT}node_modules/.bin/tsx`;

interface Started {
  child: ChildProcess;
  output: () => string;
  url: string;
  token: string;
}

function start(
  env: Record<string, string>,
): Started & { ready: Promise<void>; exited: Promise<number | null> } {
  const child = spawn(TSX, ['src/cli.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const started = { child, output: () => text, url: '', token: '' };
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const url = /Gateway listening on (\S+)/.exec(text)?.[1];
      const token = /Demo token: (\S+)/.exec(text)?.[1];
      if (url && token) {
        started.url = url;
        started.token = token;
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    void exited.then((code) => reject(new Error(`exited with ${code}: ${text}`)));
  });
  return Object.assign(started, { ready, exited });
}

describe('npm start on the embedded sandbox', () => {
  let app: ReturnType<typeof start>;

  beforeAll(async () => {
    app = start({ PORT: '0', UPSTREAM_URL: '' });
    await app.ready;
  }, 60_000);

  afterAll(() => {
    if (app.child.exitCode === null) app.child.kill('SIGKILL');
  });

  it('prints the GraphiQL URL, the demo token and the sandbox URL', () => {
    expect(app.url).toMatch(/^http:\/\/localhost:\d+\/graphql$/);
    expect(app.output()).toMatch(/embedded REST sandbox at http:\/\/127\.0\.0\.1:\d+\/v1/);
    expect(app.token.length).toBeGreaterThan(8);
  });

  it('serves GraphiQL with the dashboard query and the token header filled in', async () => {
    const page = await fetch(app.url, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('query Dashboard');
    expect(html).toContain(`Bearer ${app.token}`);
  });

  it('answers the dashboard query with the demo token', async () => {
    const response = await fetch(app.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${app.token}` },
      body: JSON.stringify({ query: '{ plan(id: "last-used") { name accounts { name } } }' }),
    });
    const body = (await response.json()) as {
      data: { plan: { name: string; accounts: unknown[] } };
    };
    expect(body.data.plan.name).toBe('Demo Household');
    expect(body.data.plan.accounts.length).toBeGreaterThanOrEqual(6);
  });

  it('logs one structured line per operation without the token', () => {
    const lines = app
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'));
    const operations = lines.map(
      (line) => JSON.parse(line) as { msg: string; upstreamCalls: number },
    );
    expect(operations.some((o) => o.msg === 'operation' && o.upstreamCalls >= 1)).toBe(true);
    expect(lines.join('\n')).not.toContain(app.token);
  });

  it('shuts down cleanly on SIGTERM', async () => {
    app.child.kill('SIGTERM');
    expect(await app.exited).toBe(0);
  });
});

describe('bad settings', () => {
  it.each([
    [{ PORT: 'eighty' }, /PORT must be an integer/],
    [{ UPSTREAM_URL: 'api.ynab.com' }, /UPSTREAM_URL must be an absolute URL/],
    [{ MAX_AGE_SECONDS: '-5' }, /MAX_AGE_SECONDS must be an integer >= 0/],
  ])('%j is refused with a message naming it', async (env, message) => {
    const app = start({ PORT: '0', ...env });
    app.ready.catch(() => undefined);
    expect(await app.exited).toBe(2);
    expect(app.output()).toMatch(message);
  });
});
