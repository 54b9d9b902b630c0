/**
 * GraphiQL downloads that stop reading cannot lock the other GraphiQL clients out (issue 18,
 * item 6): over real sockets, a download that takes nothing for `stallMs` is cut and its slot
 * freed, and with every slot taken a new download gets the slot of the one idle longest.
 */
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { createSchema, createYoga } from 'graphql-yoga';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type GraphiQLOptions,
  useGraphiQL,
} from '../../src/server/plugins/graphiql/use-graphiql.js';
import { until } from '../support/wait.js';

let server: Server | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** GraphiQL on a loopback port; the path of its 5 MB script. */
async function serve(options: GraphiQLOptions): Promise<{ origin: string; script: string }> {
  const yoga = createYoga({
    schema: createSchema({ typeDefs: 'type Query { hello: String }' }),
    logging: false,
    graphiql: false,
    plugins: [useGraphiQL(options)],
  });
  server = createServer(yoga);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const page = await (
    await fetch(`${origin}/graphql`, { headers: { accept: 'text/html' } })
  ).text();
  const script = /src="(\/graphiql\/[0-9a-f]+\/app\.js)"/.exec(page)?.[1] ?? '';
  return { origin, script };
}

/** A client that asks for `path`, reads the status line, and then nothing. */
async function nonReader(origin: string, path: string): Promise<void> {
  const { port } = new URL(origin);
  const socket = connect(Number(port), '127.0.0.1');
  sockets.push(socket);
  socket.on('error', () => {});
  const status = await new Promise<string>((resolve) => {
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      resolve(chunk.toString('latin1').slice(9, 12));
    });
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  });
  expect(status).toBe('200');
}

/** A download read to its end: its status and whether every announced byte came. */
async function download(url: string): Promise<{ status: number; complete: boolean }> {
  const response = await fetch(url, { headers: { 'accept-encoding': 'identity' } });
  const body = Buffer.from(await response.arrayBuffer());
  return {
    status: response.status,
    complete: body.length > 0 && body.length === Number(response.headers.get('content-length')),
  };
}

/** Asks until a download is served whole; the statuses seen on the way. */
async function served(url: string): Promise<number[]> {
  const statuses: number[] = [];
  await until(
    async () => {
      const answer = await download(url);
      statuses.push(answer.status);
      return answer.status === 200 && answer.complete;
    },
    () => `a download served (got ${statuses.join(', ')})`,
    { everyMs: 50 },
  );
  return statuses;
}

describe('GraphiQL downloads that stop reading', () => {
  it('are cut after stallMs, and their slots serve other clients', async () => {
    const { origin, script } = await serve({
      maxConcurrentReaders: 2,
      stallMs: 300,
      evictIdleMs: 3_600_000,
    });
    await nonReader(origin, script);
    await nonReader(origin, script);
    // Both slots are held: the next client waits...
    expect((await download(`${origin}${script}`)).status).toBe(503);
    // ...until the stalled downloads are cut (nothing else can free a slot here).
    const statuses = await served(`${origin}${script}`);
    expect(new Set(statuses.slice(0, -1))).toEqual(new Set(statuses.length > 1 ? [503] : []));
  });

  it('give the slot of the one idle longest to a new client when every slot is taken', async () => {
    const { origin, script } = await serve({
      maxConcurrentReaders: 2,
      stallMs: 3_600_000,
      evictIdleMs: 100,
    });
    await nonReader(origin, script);
    await nonReader(origin, script);
    // Nothing is cut for stalling within the hour: only eviction can make room.
    const statuses = await served(`${origin}${script}`);
    expect(statuses.at(-1)).toBe(200);
  });
});
