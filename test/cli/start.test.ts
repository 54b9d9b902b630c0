/**
 * `npm start` as a user runs it, through npm itself: the embedded sandbox, GraphiQL with the
 * dashboard query and a Sign in button, sign-in with the sandbox's demo application, a real query, JSON logs that carry the request id but no
 * token, and SIGTERM to the npm process stopping every process it started. Every other setting
 * rule is unit-tested in settings.test.ts; one bad setting is tried here as a process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gqlWithSession, signIn } from '../sign-in/support/browser.js';
import { until } from '../support/wait.js';
import { killAll, type Launched, launch } from './support/process.js';

describe('npm start on the embedded sandbox', () => {
  let app: Launched;
  let url: string;
  let token: string;

  beforeAll(async () => {
    app = launch('npm', ['start'], { PORT: '0', UPSTREAM_URL: '', NODE_ENV: '' });
    url = await app.listening;
    await until(() => /Demo token: \S+/.test(app.output()), 'the demo banner');
    token = /Demo token: (\S+)/.exec(app.output())?.[1] ?? '';
  }, 60_000);

  afterAll(killAll);

  it('is npm and one node process, and prints the demo token and the sandbox URL', () => {
    expect(url).toMatch(/^http:\/\/localhost:\d+\/graphql$/);
    expect(app.output()).toMatch(/embedded REST sandbox at http:\/\/127\.0\.0\.1:\d+\/v1/);
    expect(token.length).toBeGreaterThan(8);
    // tsx compiles a file it has not cached through esbuild's service process, a child of node
    // that ends with it; nothing else may run.
    const commands = app.commands().filter((command) => !/\/esbuild --service=/.test(command));
    expect(commands).toEqual(['npm start', 'node --import tsx src/cli.ts']);
  });

  it('serves GraphiQL with the dashboard query and a Sign in button (no token header: the session is the credential)', async () => {
    const page = await fetch(url, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('query Dashboard');
    expect(html).not.toContain(`Bearer ${token}`);
    const origin = new URL(url).origin;
    expect(html).toContain(
      `href="${origin}/auth/login?return_to=${encodeURIComponent(`${origin}/graphql`)}"`,
    );
  });

  it('has sign-in on with the sandbox demo application: consent, then the session cookie answers', async () => {
    const origin = new URL(url).origin;
    const session = await signIn(origin, url);
    const me = await gqlWithSession(url, session, '{ plan(id: "last-used") { name } }');
    expect(me.body.data).toEqual({ plan: { name: 'Demo Household' } });
  });

  it('answers a query and logs it as JSON with time, level and the request id, never the token', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
        'x-request-id': 'start-test-1',
      },
      body: JSON.stringify({
        query: 'query Accounts { plan(id: "last-used") { name accounts { name } } }',
      }),
    });
    expect(response.headers.get('x-request-id')).toBe('start-test-1');
    const body = (await response.json()) as { data: { plan: { name: string } } };
    expect(body.data.plan.name).toBe('Demo Household');
    await until(
      () => app.logs().some((line) => line.requestId === 'start-test-1'),
      'the operation log line',
    );
    const line = app.logs().find((entry) => entry.requestId === 'start-test-1');
    expect(line).toMatchObject({
      level: 'info',
      msg: 'operation',
      operationName: 'Accounts',
      operationType: 'query',
      outcome: 'ok',
      upstreamCalls: expect.any(Number),
    });
    expect(Date.parse(String(line?.time))).not.toBeNaN();
    const jsonLines = app
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    expect(jsonLines.join('\n')).not.toContain(token);
  });

  it('stops every process of its group on SIGTERM to npm, exiting 0', async () => {
    expect(app.group().length).toBeGreaterThan(0);
    app.child.kill('SIGTERM');
    expect(await app.exited).toBe(0);
    // Each check runs `ps`, so it looks less often.
    await until(() => app.group().length === 0, 'every process of the group to exit', {
      everyMs: 50,
    });
    expect(app.logs().some((line) => line.msg === 'stopped')).toBe(true);
  });
});

describe('npm start stopped through its process group', () => {
  afterAll(killAll);

  it('drains once when npm passes on the SIGTERM the node process also got, right after listening', async () => {
    const app = launch('npm', ['start'], { PORT: '0', UPSTREAM_URL: '', NODE_ENV: '' });
    await app.listening;
    // As `kill -TERM -- -<pgid>` does: npm and node each get one, and npm passes its own on.
    process.kill(-app.child.pid!, 'SIGTERM');
    const messages = () => app.logs().map((line) => line.msg);
    const ended = ['stopped', 'second signal: exiting without waiting'];
    await until(
      () => messages().some((msg) => ended.includes(String(msg))),
      () => app.output(),
    );
    await until(() => app.group().length === 0, 'every process of the group to exit', {
      everyMs: 50,
    });
    expect(messages()).toContain('stopped');
    expect(messages()).not.toContain('second signal: exiting without waiting');
  }, 60_000);
});

describe('a bad setting', () => {
  afterAll(killAll);

  it('exits with status 2 and a message naming the variable', async () => {
    const app = launch('node', ['--import', 'tsx', 'src/cli.ts'], { PORT: '99999' });
    expect(await app.exited).toBe(2);
    expect(app.output()).toContain('PORT must be an integer from 0 to 65535; got "99999"');
    expect(app.output()).not.toContain('RangeError');
  });
});
