/**
 * A server side of `miss-path.ts`, in a process of its own, so that the CPU it reports is its
 * own work and its own garbage collection alone (in one process, one side's garbage was
 * collected during the other's batches). Started with `gateway` or `floor`:
 *
 * - `gateway`: the sandbox (idle once the replica is loaded) and the gateway as `cli.ts` serves
 *   it, on two ports: every request through yoga (`withWireReplay` before it) and the front door
 *   (misses on the direct path); answers `{ ports: { yoga, direct }, answer }`, `answer` being the
 *   dashboard's data for the floor to serve;
 * - `floor`: bare graphql-yoga with graphql-jit serving `answer` (sent in its first message).
 *
 * Then each `{ cpu: true }` message is answered with `process.cpuUsage()` in microseconds, and
 * `{ exit: true }` ends the process normally (so that `--cpu-prof` writes its profile).
 */
import { readFileSync } from 'node:fs';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { createSandbox } from '@plans-gateway/sandbox';
import { buildSchema } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import { defaultConfig } from '../../src/config/config.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { withFrontDoor } from '../../src/server/front-door.js';
import { withWireReplay } from '../../src/server/wire-replay.js';
import { MISS_PATH_TOKEN, type ServerMessage, type ServerReply } from './miss-path-shared.js';

function reply(message: ServerReply): void {
  process.send?.(message);
}

async function serve(handler: RequestListener): Promise<number> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function cpuMicros(): number {
  const used = process.cpuUsage();
  return used.user + used.system;
}

async function startGateway(): Promise<void> {
  const sandbox = await createSandbox({
    port: 0,
    rateLimit: false,
    users: [{ token: MISS_PATH_TOKEN, plans: [{ seed: 1, transactions: 1_200 }] }],
  });
  const gateway = createGateway({
    ...defaultConfig(sandbox.url),
    graphiql: false,
    maxAgeMs: 3_600_000,
    metrics: process.env.NODE_ENV === 'production' ? 'on-request' : 'always',
    compiledQueries: true,
    directMisses: true,
  });
  const yoga = await serve(withWireReplay(gateway.yoga, gateway.wireReplay));
  const direct = await serve(withFrontDoor(gateway.yoga, gateway));
  reply({ ports: { yoga, direct } });
}

async function startFloor(answer: Record<string, unknown>): Promise<void> {
  const schema = buildSchema(
    readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'),
  );
  const fromAnswer: Plugin = {
    onExecute({ args }) {
      args.rootValue = answer;
    },
  };
  const floor = createYoga({
    schema,
    logging: false,
    graphiql: false,
    plugins: [useGraphQlJit() as Plugin, fromAnswer],
  });
  reply({ ports: { floor: await serve(floor) } });
}

const side = process.argv[2];
if (side !== 'gateway' && side !== 'floor')
  throw new Error(`side must be gateway or floor: ${side}`);
process.on('message', (message: ServerMessage) => {
  if ('cpu' in message) reply({ cpuMicros: cpuMicros() });
  else if ('exit' in message) process.exit(0);
  else if (side === 'floor') void startFloor(message.answer);
});
if (side === 'gateway') await startGateway();
