/**
 * Issue 34's non-repeated warm query over real HTTP: the gateway as `cli.ts` serves it
 * (the front door: `withWireReplay` before yoga, on `node:http`), without and with the direct path of misses
 * (`src/server/direct-miss.ts`, `DIRECT_MISSES`), against bare graphql-yoga with graphql-jit on
 * `node:http` serving the same answer, with the client (`miss-path-client.ts`) in a child
 * process, so this process's CPU (`process.cpuUsage`) is the two servers' alone. Sides alternate
 * (yoga's path, direct path, floor, ...), `--batches` batches of `--requests` sequential requests on one
 * keep-alive connection; a figure is the median batch's CPU per request, the ratio the median of
 * the rounds' ratios. `bench/warm-cpu.ts` measures the same in process, through `yoga.fetch`,
 * where a path taken before yoga's HTTP handling cannot show.
 *
 *   NODE_ENV=production npx tsx bench/probes/miss-path.ts [--batches 9 --requests 300] [--json]
 *   NODE_ENV=production node --cpu-prof --import tsx bench/probes/miss-path.ts --only direct
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { createSandbox } from '@plans-gateway/sandbox';
import { buildSchema } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import { defaultConfig } from '../../src/config/config.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { withFrontDoor } from '../../src/server/front-door.js';
import { withWireReplay } from '../../src/server/wire-replay.js';

const TOKEN = 'bench-miss-path-token';
const DASHBOARD = readFileSync(new URL('../dashboard.graphql', import.meta.url), 'utf8');
const { values } = parseArgs({
  options: {
    batches: { type: 'string', default: '9' },
    requests: { type: 'string', default: '300' },
    /** Run only this side's batches (`direct`, `yoga`, `floor`): for a CPU profile of it. */
    only: { type: 'string' },
    /** One JSON line of the figures (`MissPathResult`, what `--summary` reads). */
    json: { type: 'boolean', default: false },
  },
});

/** What `--json` prints: CPU milliseconds per request, medians of the batches; ratios to the floor. */
export interface MissPathResult {
  /** The gateway as served, misses on the direct path. */
  directMs: number;
  /** The same gateway with every request through yoga (`DIRECT_MISSES=off`). */
  yogaMs: number;
  /** Bare graphql-yoga with graphql-jit serving the same answer. */
  floorMs: number;
  /** Median of the rounds' direct / floor ratios. */
  ratio: number;
  /** Median of the rounds' through-yoga / floor ratios. */
  yogaRatio: number;
  batches: number;
  requests: number;
}
const batches = Number(values.batches);
const requests = Number(values.requests);

const sandbox = await createSandbox({
  port: 0,
  rateLimit: false,
  users: [{ token: TOKEN, plans: [{ seed: 1, transactions: 1_200 }] }],
});
const gateway = createGateway({
  ...defaultConfig(sandbox.url),
  graphiql: false,
  maxAgeMs: 3_600_000,
  metrics: process.env.NODE_ENV === 'production' ? 'on-request' : 'always',
  compiledQueries: true,
  directMisses: true,
});
const servers: Server[] = [];
async function serve(handler: RequestListener): Promise<number> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}
const client = fork(new URL('./miss-path-client.ts', import.meta.url).pathname, [], {
  execArgv: ['--import', 'tsx'],
});

interface Side {
  readonly port: number;
  readonly variables: Record<string, unknown>;
  readonly nonce: boolean;
  readonly authorization?: string;
}

/** This process's CPU ms per request over one batch of the client's. */
function batch(side: Side, count: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const before = process.cpuUsage();
    client.once('message', (done: { wrong: number; sample: string }) => {
      const used = process.cpuUsage(before);
      if (done.wrong > 0) reject(new Error(`${done.wrong} wrong answers: ${done.sample}`));
      else resolve((used.user + used.system) / 1000 / count);
    });
    client.send({ ...side, query: DASHBOARD, count });
  });
}

const median = (xs: readonly number[]) =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

try {
  const gatewaySide: Side = {
    port: await serve(withWireReplay(gateway.yoga, gateway.wireReplay)),
    variables: {},
    nonce: true,
    authorization: `Bearer ${TOKEN}`,
  };
  const directSide: Side = {
    ...gatewaySide,
    port: await serve(withFrontDoor(gateway.yoga, gateway)),
  };
  // The first load fills the replica; the next ones warm V8 up and compile the document.
  await batch(gatewaySide, 200);
  await batch(directSide, 200);
  const answer = (await (
    await gateway.yoga.fetch('http://gateway.bench/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ query: DASHBOARD, variables: { nonce: -1 } }),
    })
  ).json()) as { data: Record<string, unknown> };
  const schema = buildSchema(
    readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'),
  );
  const fromAnswer: Plugin = {
    onExecute({ args }) {
      args.rootValue = answer.data;
    },
  };
  const floor = createYoga({
    schema,
    logging: false,
    graphiql: false,
    plugins: [useGraphQlJit() as Plugin, fromAnswer],
  });
  // graphql-jit refuses an omitted non-null variable with a default: the floor is sent it.
  const floorSide: Side = {
    port: await serve(floor),
    variables: { planId: 'last-used' },
    nonce: false,
  };
  await batch(floorSide, 200);
  const ms = { gateway: [] as number[], direct: [] as number[], floor: [] as number[] };
  const ratios = { gateway: [] as number[], direct: [] as number[] };
  for (let round = 0; round < batches; round += 1) {
    const runs = (side: string) => values.only === undefined || values.only === side;
    const g = runs('yoga') ? await batch(gatewaySide, requests) : Number.NaN;
    const d = runs('direct') ? await batch(directSide, requests) : Number.NaN;
    const f = runs('floor') ? await batch(floorSide, requests) : Number.NaN;
    ms.gateway.push(g);
    ms.direct.push(d);
    ms.floor.push(f);
    ratios.gateway.push(g / f);
    ratios.direct.push(d / f);
  }
  const result: MissPathResult = {
    directMs: median(ms.direct),
    yogaMs: median(ms.gateway),
    floorMs: median(ms.floor),
    ratio: median(ratios.direct),
    yogaRatio: median(ratios.gateway),
    batches,
    requests,
  };
  if (values.json) console.log(JSON.stringify(result));
  const range = (xs: number[]) => `${Math.min(...xs).toFixed(3)}-${Math.max(...xs).toFixed(3)}`;
  if (!values.json)
    console.log(
      `warm non-repeated dashboard over node:http (NODE_ENV=${process.env.NODE_ENV ?? ''}), ` +
        `CPU ms / request, median of ${batches} rounds of ${requests}:\n` +
        `  gateway through yoga  ${median(ms.gateway).toFixed(3)} (${range(ms.gateway)}), ` +
        `ratio ${median(ratios.gateway).toFixed(2)}x (${range(ratios.gateway)})\n` +
        `  gateway, direct path  ${median(ms.direct).toFixed(3)} (${range(ms.direct)}), ` +
        `ratio ${median(ratios.direct).toFixed(2)}x (${range(ratios.direct)})\n` +
        `  bare yoga + jit       ${median(ms.floor).toFixed(3)} (${range(ms.floor)})`,
    );
} finally {
  client.kill();
  for (const server of servers) server.close();
  await gateway.close();
  await sandbox.close();
}
