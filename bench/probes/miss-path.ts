/**
 * Issue 34's non-repeated warm query over real HTTP: the gateway as `cli.ts` serves it
 * (the front door: `withWireReplay` before yoga, on `node:http`), without and with the direct path
 * of misses (`src/server/direct-miss.ts`, `DIRECT_MISSES`), against bare graphql-yoga with
 * graphql-jit on `node:http` serving the same answer. Each server side runs in a process of its
 * own (`miss-path-server.ts`: the gateway with its sandbox, and the floor), and so does the client
 * (`miss-path-client.ts`): a side's CPU over a batch (`process.cpuUsage`, asked of it before and
 * after) is its own work and its own garbage collection alone. Sides alternate (yoga's path,
 * direct path, floor, ...), `--batches` batches of `--requests` sequential requests on one
 * keep-alive connection; a figure is the median batch's CPU per request, the ratio the median of
 * the rounds' ratios. `bench/warm-cpu.ts` measures the same in process, through `yoga.fetch`,
 * where a path taken before yoga's HTTP handling cannot show.
 *
 *   NODE_ENV=production npx tsx bench/probes/miss-path.ts [--batches 9 --requests 300] [--json]
 *   NODE_ENV=production npx tsx bench/probes/miss-path.ts --only direct --cpu-prof
 *     (each server process writes its CPU profile to the current directory on exit)
 */
import { type ChildProcess, fork } from 'node:child_process';
import { parseArgs } from 'node:util';
import {
  DASHBOARD,
  MISS_PATH_TOKEN,
  type ServerMessage,
  type ServerReply,
} from './miss-path-shared.js';

const { values } = parseArgs({
  options: {
    batches: { type: 'string', default: '9' },
    requests: { type: 'string', default: '300' },
    /** Run only this side's batches (`direct`, `yoga`, `floor`): for a CPU profile of it. */
    only: { type: 'string' },
    /** Start the server processes with `--cpu-prof`. */
    'cpu-prof': { type: 'boolean', default: false },
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

const here = (file: string) => new URL(file, import.meta.url).pathname;
function child(file: string, args: string[], profile = false): ChildProcess {
  return fork(here(file), args, {
    execArgv: ['--import', 'tsx', ...(profile ? ['--cpu-prof'] : [])],
  });
}

/** The next message of `from` that `pick` accepts. */
function next<T>(from: ChildProcess, pick: (message: ServerReply) => T | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: ServerReply) => {
      const picked = pick(message);
      if (picked === undefined) return;
      from.off('message', onMessage);
      from.off('exit', onExit);
      resolve(picked);
    };
    const onExit = (code: number | null) => reject(new Error(`a server side exited (${code})`));
    from.on('message', onMessage);
    from.once('exit', onExit);
  });
}

const ports = (message: ServerReply) => ('ports' in message ? message.ports : undefined);
const cpuOf = (message: ServerReply) => ('cpuMicros' in message ? message.cpuMicros : undefined);

async function cpuMicros(server: ChildProcess): Promise<number> {
  const answer = next(server, cpuOf);
  server.send({ cpu: true } satisfies ServerMessage);
  return answer;
}

interface Side {
  readonly server: ChildProcess;
  readonly port: number;
  readonly variables: Record<string, unknown>;
  readonly nonce: boolean;
  readonly authorization?: string;
}

/** The side's server CPU ms per request over one batch of the client's. */
async function batch(side: Side, count: number): Promise<number> {
  const before = await cpuMicros(side.server);
  const done = await new Promise<{ wrong: number; sample: string }>((resolve) => {
    client.once('message', resolve);
    const { server: _, ...sent } = side;
    client.send({ ...sent, query: DASHBOARD, count });
  });
  const used = (await cpuMicros(side.server)) - before;
  if (done.wrong > 0) throw new Error(`${done.wrong} wrong answers: ${done.sample}`);
  return used / 1000 / count;
}

const profile = values['cpu-prof'] === true;
const client = child('./miss-path-client.ts', []);
const gatewayServer = child('./miss-path-server.ts', ['gateway'], profile);
const floorServer = child('./miss-path-server.ts', ['floor'], profile);

const median = (xs: readonly number[]) =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

try {
  const gatewayPorts = await next(gatewayServer, ports);
  const gatewaySide: Side = {
    server: gatewayServer,
    port: gatewayPorts.yoga ?? 0,
    variables: {},
    nonce: true,
    authorization: `Bearer ${MISS_PATH_TOKEN}`,
  };
  const directSide: Side = { ...gatewaySide, port: gatewayPorts.direct ?? 0 };
  // The first load fills the replica; the next ones warm V8 up and compile the document.
  await batch(gatewaySide, 200);
  await batch(directSide, 200);
  const response = await fetch(`http://127.0.0.1:${directSide.port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${MISS_PATH_TOKEN}` },
    body: JSON.stringify({ query: DASHBOARD, variables: { nonce: -1 } }),
  });
  const answer = ((await response.json()) as { data: Record<string, unknown> }).data;
  const floorReady = next(floorServer, ports);
  floorServer.send({ answer } satisfies ServerMessage);
  // graphql-jit refuses an omitted non-null variable with a default: the floor is sent it.
  const floorSide: Side = {
    server: floorServer,
    port: (await floorReady).floor ?? 0,
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
  // Asked to exit, a server process profiled with --cpu-prof writes its profile.
  for (const server of [gatewayServer, floorServer])
    server.send({ exit: true } satisfies ServerMessage);
}
