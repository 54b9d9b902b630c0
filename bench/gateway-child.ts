/**
 * The gateway under measurement, alone in its own process so its memory is its own: started by
 * `gateway-process.ts` with `node --import tsx --expose-gc`, it listens on an ephemeral loopback
 * port and answers a few requests over IPC (move its clock, read its memory and replica figures).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_HTTP_CACHING, DEFAULT_MAX_AGE_MS, defaultConfig } from '../src/config/config.js';
import { createGateway } from '../src/gateway/gateway.js';
import type { QueryMeter } from '../src/replica/transaction-query.js';
import { withFrontDoor } from '../src/server/front-door.js';
import type { ChildReply, ChildRequest, GatewayFigures } from './gateway-process.js';

const [upstreamUrl, maxAgeArg, redisUrl, redisPrefix] = process.argv.slice(2);
if (!upstreamUrl || !process.send) {
  throw new Error(
    'gateway-child: run through gateway-process.ts with the upstream URL as argument',
  );
}

/** The bench moves time forward to put replicas past their max-age without waiting. */
let clockOffsetMs = 0;
const meter: QueryMeter = { rowsVisited: 0 };
const gateway = createGateway(
  {
    ...defaultConfig(upstreamUrl),
    graphiql: false,
    // The replay bench runs as deployed (`NODE_ENV=production`): metrics only when asked.
    metrics: process.env.BENCH_METRICS === 'on-request' ? 'on-request' : 'always',
    maxAgeMs: Number(maxAgeArg ?? DEFAULT_MAX_AGE_MS),
    ...(process.env.BENCH_OPERATION_DEADLINE_MS
      ? { operationDeadlineMs: Number(process.env.BENCH_OPERATION_DEADLINE_MS) }
      : {}),
    ...(process.env.BENCH_REPLICA_MAX_BYTES
      ? { replicaMaxBytes: Number(process.env.BENCH_REPLICA_MAX_BYTES) }
      : {}),
    ...(process.env.BENCH_ANSWER_CACHE_MAX_BYTES
      ? {
          httpCaching: {
            ...DEFAULT_HTTP_CACHING,
            answerMaxBytes: Number(process.env.BENCH_ANSWER_CACHE_MAX_BYTES),
          },
        }
      : {}),
    ...(redisUrl
      ? {
          redisUrl,
          cluster: { ...defaultConfig(upstreamUrl).cluster, keyPrefix: redisPrefix ?? 'pgw:' },
        }
      : {}),
  },
  { now: () => Date.now() + clockOffsetMs, replicaMeter: meter },
);
const server = createServer(withFrontDoor(gateway.yoga, gateway));
server.keepAliveTimeout = 60_000;

function figures(): GatewayFigures {
  const memory = process.memoryUsage();
  return {
    rssBytes: memory.rss,
    heapUsedBytes: memory.heapUsed,
    heapTotalBytes: memory.heapTotal,
    externalBytes: memory.external,
    replicas: gateway.replicas.stats(),
    rowsVisited: meter.rowsVisited,
    cpuMicros: process.cpuUsage().user + process.cpuUsage().system,
    cpuSystemMicros: process.cpuUsage().system,
    mainThreadCpuMicros: mainThreadCpuMicros(),
    ...(gateway.cluster ? { cluster: gateway.cluster.stats() } : {}),
  };
}

/** The main thread's user and system time from /proc (clock ticks of 10 ms), NaN elsewhere. */
function mainThreadCpuMicros(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return Number.NaN;
  }
}

function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('gateway-child: start node with --expose-gc');
  // Twice: the first pass can leave objects whose finalizers free more.
  gc();
  gc();
}

process.on('message', (raw: unknown) => {
  const request = raw as ChildRequest;
  const reply = (message: ChildReply) => process.send!(message);
  try {
    switch (request.type) {
      case 'advance':
        clockOffsetMs += request.ms;
        reply({ id: request.id, ok: true, result: null });
        return;
      case 'figures':
        if (request.gc) collectGarbage();
        reply({ id: request.id, ok: true, result: figures() });
        return;
      case 'reset-meter':
        meter.rowsVisited = 0;
        reply({ id: request.id, ok: true, result: null });
        return;
      case 'close':
        server.closeAllConnections();
        server.close(() => {
          void gateway.close().then(() => {
            reply({ id: request.id, ok: true, result: null });
            process.disconnect();
          });
        });
        return;
    }
  } catch (error) {
    reply({
      id: request.id,
      ok: false,
      error: error instanceof Error ? error.message : String(error),
    });
  }
});

await gateway.cluster?.ready(5_000);
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.send!({ type: 'ready', url: `http://127.0.0.1:${port}/graphql` });
});
