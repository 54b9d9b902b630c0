/**
 * `npm run bench:warm-cpu`: the gateway's CPU per warm dashboard, in process and without sockets
 * (`yoga.fetch`, the answer read as text), for comparing small changes of the warm path that the
 * floor bench (`--floor`, HTTP and a load generator beside it) cannot resolve on a shared
 * machine. The plan is the floor bench's (seed 1, 1,200 transactions); the sandbox in this
 * process answers the first load only, every request after it is answered from the replica.
 * Batches of `--requests` sequential requests, `--batches` times; the figure is the median
 * batch's process CPU (user and system) per request. The machine's other work still shows in it
 * (compare runs taken in turn, A B A B). Run it with `NODE_ENV=production` to measure as
 * deployed:
 *
 *   NODE_ENV=production npm run bench:warm-cpu [-- --batches 9 --requests 300]
 *   ... -- --executor    the same with compiled queries off (yoga's executor)
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createSandbox } from '@plans-gateway/sandbox';
import { DEFAULT_HTTP_CACHING, defaultConfig } from '../src/config/config.js';
import { createGateway } from '../src/gateway/gateway.js';

const TOKEN = 'bench-warm-cpu-token';
const DASHBOARD = readFileSync(new URL('./dashboard.graphql', import.meta.url), 'utf8');

const { values } = parseArgs({
  options: {
    batches: { type: 'string', default: '9' },
    requests: { type: 'string', default: '300' },
    executor: { type: 'boolean', default: false },
  },
});
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
  metrics: 'always',
  // Every request executed: the answer cache would answer a repeated operation from its body.
  httpCaching: { ...DEFAULT_HTTP_CACHING, answerMaxBytes: 0 },
  compiledQueries: !values.executor,
});
const body = JSON.stringify({ query: DASHBOARD });

async function dashboard(): Promise<void> {
  const response = await gateway.yoga.fetch('http://gateway.bench/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body,
  });
  const text = await response.text();
  if (response.status !== 200 || text.includes('"errors"')) {
    throw new Error(`dashboard: HTTP ${response.status} ${text.slice(0, 300)}`);
  }
}

try {
  // The first load fills the replica; the next ones warm V8 up.
  for (let i = 0; i < 200; i += 1) await dashboard();
  const perRequest: number[] = [];
  for (let batch = 0; batch < batches; batch += 1) {
    const before = process.cpuUsage();
    for (let i = 0; i < requests; i += 1) await dashboard();
    const used = process.cpuUsage(before);
    perRequest.push((used.user + used.system) / 1000 / requests);
  }
  const sorted = [...perRequest].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  console.log(
    `warm dashboard in process (${values.executor ? 'executor' : 'compiled queries'}, NODE_ENV=${process.env.NODE_ENV ?? ''}): ` +
      `${median.toFixed(3)} CPU ms / request, median of ${batches} batches of ${requests} ` +
      `(min ${sorted[0]!.toFixed(3)}, max ${sorted.at(-1)!.toFixed(3)})`,
  );
} finally {
  await gateway.close();
  await sandbox.close();
}
