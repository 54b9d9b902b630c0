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
  DEFAULT_EVICT_IDLE_MS,
  DEFAULT_MAX_ASSET_READERS,
  DEFAULT_STALL_MS,
  type GraphiQLOptions,
  useGraphiQL,
} from '../../src/server/plugins/graphiql/use-graphiql.js';
import { createManualScheduler, type ManualScheduler } from '../../src/time/scheduler.js';
import { until } from '../support/wait.js';

let server: Server | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/**
 * GraphiQL on a loopback port, its stall and eviction timers on a manual scheduler; the path of
 * its 5 MB script.
 */
async function serve(
  options: GraphiQLOptions,
): Promise<{ origin: string; script: string; scheduler: ManualScheduler }> {
  let time = 0;
  const scheduler = createManualScheduler({
    now: () => time,
    set: (at) => {
      time = at;
    },
  });
  const yoga = createYoga({
    schema: createSchema({ typeDefs: 'type Query { hello: String }' }),
    logging: false,
    graphiql: false,
    plugins: [useGraphiQL({ ...options, scheduler })],
  });
  server = createServer(yoga);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const page = await (
    await fetch(`${origin}/graphql`, { headers: { accept: 'text/html' } })
  ).text();
  const script = /src="(\/graphiql\/[0-9a-f]+\/app\.js)"/.exec(page)?.[1] ?? '';
  return { origin, script, scheduler };
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

/**
 * Asks until a download is served whole, `passing` ms of the scheduler's time before each ask
 * (a reader still taking the chunks its socket absorbs restarts its stall time); the statuses
 * seen on the way.
 */
async function served(url: string, scheduler: ManualScheduler, passing: number): Promise<number[]> {
  const statuses: number[] = [];
  await until(
    async () => {
      await scheduler.advance(passing);
      const answer = await download(url);
      statuses.push(answer.status);
      return answer.status === 200 && answer.complete;
    },
    () => `a download served (${statuses.length} asked, the last answered ${statuses.at(-1)})`,
    { everyMs: 50 },
  );
  return statuses;
}

describe('GraphiQL downloads that stop reading', () => {
  it('are cut after stallMs, and their slots serve other clients', async () => {
    const { origin, script, scheduler } = await serve({
      maxConcurrentReaders: 2,
      stallMs: 300,
      evictIdleMs: 3_600_000,
    });
    await nonReader(origin, script);
    await nonReader(origin, script);
    // Both slots are held: the next client waits...
    await scheduler.advance(299);
    expect((await download(`${origin}${script}`)).status).toBe(503);
    // ...until the stalled downloads are cut (nothing else can free a slot here).
    const statuses = await served(`${origin}${script}`, scheduler, 300);
    expect(new Set(statuses.slice(0, -1))).toEqual(new Set(statuses.length > 1 ? [503] : []));
  });

  it('give the slot of the one idle longest to a new client when every slot is taken', async () => {
    const { origin, script, scheduler } = await serve({
      maxConcurrentReaders: 2,
      stallMs: 3_600_000,
      evictIdleMs: 100,
    });
    await nonReader(origin, script);
    await nonReader(origin, script);
    // Neither has been idle for evictIdleMs yet.
    await scheduler.advance(99);
    expect((await download(`${origin}${script}`)).status).toBe(503);
    // Nothing is cut for stalling within the hour: only eviction can make room.
    const statuses = await served(`${origin}${script}`, scheduler, 100);
    expect(statuses.at(-1)).toBe(200);
  });

  it('default to 64 downloads at once, cut after 10 s without a chunk, evicted after 2 s idle', () => {
    // The figures docs/security.md gives; the behaviour with each is tested above.
    expect([DEFAULT_MAX_ASSET_READERS, DEFAULT_STALL_MS, DEFAULT_EVICT_IDLE_MS]).toEqual([
      64, 10_000, 2_000,
    ]);
  });
});
