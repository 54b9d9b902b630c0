/**
 * Where a gateway outside the image listens when `HOST` is not set: on loopback only, against a
 * real upstream as with the embedded sandbox, its metrics port too, so a developer's GraphiQL,
 * MCP and metrics are not on the network. The image sets `HOST=0.0.0.0` (image-start.test.ts).
 * A second loopback address (127.0.0.2) tells the two apart: only a gateway listening on every
 * interface answers there.
 */
import { createSandbox, type Sandbox } from '@plans-gateway/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningAddresses } from './support/image.js';
import { killAll, type Launched, launch } from './support/process.js';

/** `/health` at `host`: its status, or the code of the connection's failure. */
async function healthAt(host: string, port: number): Promise<number | string> {
  try {
    return (await fetch(`http://${host}:${port}/health`)).status;
  } catch (error) {
    return String((error as { cause?: { code?: unknown } }).cause?.code ?? error);
  }
}

afterAll(killAll);

describe('with UPSTREAM_URL and no HOST', () => {
  let upstream: Sandbox;
  let app: Launched;
  let port: number;
  let metricsPort: number;

  beforeAll(async () => {
    upstream = await createSandbox({ port: 0 });
    app = launch('node', ['--import', 'tsx', 'src/cli.ts'], {
      PORT: '0',
      METRICS_PORT: '0',
      UPSTREAM_URL: upstream.url,
      HOST: undefined,
      NODE_ENV: '',
    });
    port = Number(new URL(await app.listening).port);
    const line = app.logs().find((entry) => entry.msg === 'listening');
    metricsPort = Number(new URL(String(line?.metrics)).port);
  }, 60_000);

  afterAll(() => upstream?.close());

  it('listens on 127.0.0.1 only, the GraphQL port and the metrics port', async () => {
    expect(app.logs().find((line) => line.msg === 'listening')).toMatchObject({
      host: '127.0.0.1',
    });
    expect(listeningAddresses(port)).toEqual(['127.0.0.1']);
    expect(listeningAddresses(metricsPort)).toEqual(['127.0.0.1']);
    expect(await healthAt('127.0.0.1', port)).toBe(200);
    expect(await healthAt('127.0.0.2', port)).toBe('ECONNREFUSED');
    expect(await healthAt('127.0.0.2', metricsPort)).toBe('ECONNREFUSED');
  });
});

describe('with HOST=0.0.0.0', () => {
  it('listens on every interface, where 127.0.0.2 reaches it too', async () => {
    const app = launch('node', ['--import', 'tsx', 'src/cli.ts'], {
      PORT: '0',
      HOST: '0.0.0.0',
      UPSTREAM_URL: '',
      NODE_ENV: '',
    });
    const port = Number(new URL(await app.listening).port);
    expect(listeningAddresses(port)).toEqual(['0.0.0.0']);
    expect(await healthAt('127.0.0.2', port)).toBe(200);
  }, 60_000);
});
