/**
 * The image's start, without Docker: the CLI run with the environment the Dockerfile's runtime
 * stage sets (NODE_ENV=production, HOST, PORT: here an ephemeral port), as `docker run` would.
 * It must listen on every interface (a container is reached through its own, never its
 * loopback), and print only URLs that answer: GraphiQL where it is served, none where it is not.
 */
import { createSandbox, type Sandbox } from '@plans-gateway/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/wait.js';
import { imageEnv, listeningAddresses } from './support/image.js';
import { killAll, type Launched, launch } from './support/process.js';

const PLAN_NAME = '{ plan(id: "last-used") { name } }';

/** The CLI as the image runs it, on the image's environment over `env`. */
function startAsImage(env: Record<string, string>): Launched {
  return launch('node', ['--import', 'tsx', 'src/cli.ts'], {
    ...imageEnv(),
    PORT: '0',
    UPSTREAM_URL: '',
    GRAPHIQL: '',
    INTROSPECTION: '',
    ...env,
  });
}

function portOf(url: string): number {
  return Number(new URL(url).port);
}

async function query(url: string, token: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: PLAN_NAME }),
  });
  return (await response.json()) as { data?: { plan: { name: string } } };
}

afterAll(killAll);

it('sets production, every interface and port 4000 in the image', () => {
  expect(imageEnv()).toEqual({ NODE_ENV: 'production', HOST: '0.0.0.0', PORT: '4000' });
});

describe('the image without UPSTREAM_URL: the demo', () => {
  let app: Launched;
  let url: string;

  beforeAll(async () => {
    app = startAsImage({});
    url = await app.listening;
    await until(() => /Demo token: \S+/.test(app.output()), 'the demo banner');
  }, 60_000);

  it('listens on every interface, so a published port reaches it', () => {
    expect(listeningAddresses(portOf(url))).toEqual(['0.0.0.0']);
    expect(app.logs().find((line) => line.msg === 'listening')).toMatchObject({
      host: '0.0.0.0',
      graphiql: url,
    });
  });

  it('prints GraphiQL, and GraphiQL answers there with its Sign in button', async () => {
    const token = /Demo token: (\S+)/.exec(app.output())?.[1] ?? '';
    expect(app.output()).toContain(
      `Open GraphiQL and Sign in (the dashboard query is filled in): ${url}`,
    );
    const page = await fetch(url, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('>Sign in</a>');
    expect((await query(url, token)).data?.plan.name).toBe('Demo Household');
  });
});

describe('the image without UPSTREAM_URL, GraphiQL turned off', () => {
  it('prints the curl command and says GraphiQL is off, never a page that answers 406', async () => {
    const app = startAsImage({ GRAPHIQL: 'off' });
    const url = await app.listening;
    await until(() => /Demo token: \S+/.test(app.output()), 'the demo banner');
    expect(app.output()).not.toContain('Open GraphiQL');
    expect(app.output()).toContain('GraphiQL is off (GRAPHIQL=on serves it). Try:');
    const curl = /^curl -s (\S+) .*authorization: Bearer (\S+)'/m.exec(app.output());
    expect(curl?.[1]).toBe(url);
    expect((await query(url, curl?.[2] ?? '')).data?.plan.name).toBe('Demo Household');
  }, 60_000);
});

describe('the image with UPSTREAM_URL', () => {
  let upstream: Sandbox;
  let app: Launched;
  let url: string;

  beforeAll(async () => {
    upstream = await createSandbox({ port: 0 });
    app = startAsImage({ UPSTREAM_URL: upstream.url });
    url = await app.listening;
  }, 60_000);

  afterAll(() => upstream?.close());

  it('listens on every interface and answers a client with its own token', async () => {
    expect(listeningAddresses(portOf(url))).toEqual(['0.0.0.0']);
    const token = upstream.users[0]?.token ?? '';
    expect((await query(url, token)).data?.plan.name).toBeTruthy();
  });

  it('prints no GraphiQL (production keeps it off before a real upstream) and no demo token', async () => {
    expect(app.logs().find((line) => line.msg === 'listening')).toMatchObject({
      host: '0.0.0.0',
      graphiql: 'off',
      upstream: upstream.url,
    });
    expect(app.output()).not.toMatch(/Open GraphiQL|Demo token/);
    const page = await fetch(url, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type') ?? '').not.toContain('text/html');
  });
});
