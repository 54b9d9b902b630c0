/**
 * `npm run bench:warm-cpu`: the gateway's CPU per warm dashboard that the answer cache cannot
 * answer (issue 34's "non-repeated warm query"), against bare graphql-yoga with graphql-jit
 * serving the same answer, in this process and without sockets (`yoga.fetch`, the answer read as
 * text): for changes of the warm path that the floor bench (`--floor`, HTTP and a load generator
 * beside it) cannot resolve on a shared machine. The plan is the floor bench's (seed 1, 1,200
 * transactions); the sandbox in this process answers the first load only, every request after it
 * is answered from the replica.
 *
 * Every request of the gateway is a miss of the answer cache, which is on as deployed: each one
 * carries a variable no operation declares (`nonce`, a counter), which the fingerprint names and
 * execution ignores, so the document is the same (compiled from its second run, as a client's
 * repeated query is) and the answer is the same, but no answer is ever asked for twice.
 * `--cache-off` turns the answer cache off instead (every request executed, nothing stored).
 *
 * The floor: a graphql-yoga server over the printed schema whose default resolvers read the
 * gateway's own answer, with `@envelop/graphql-jit` (compiled queries), in this process too. The
 * two sides run in turn (gateway, floor, gateway, ...), `--batches` batches of `--requests`
 * sequential requests each; a figure is the median batch's process CPU (user and system) per
 * request, and the ratio is the median of the rounds' ratios. Run it with `NODE_ENV=production`
 * to measure as deployed:
 *
 *   NODE_ENV=production npm run bench:warm-cpu [-- --batches 9 --requests 300]
 *   ... -- --executor    the gateway with compiled queries off (yoga's executor)
 *   ... -- --cache-off   the gateway with the answer cache off
 *   ... -- --json        one JSON line of the figures
 *   ... -- --gateway-only  no floor batches (for a CPU profile of the gateway: node --cpu-prof)
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { createSandbox } from '@plans-gateway/sandbox';
import { buildSchema } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import { DEFAULT_HTTP_CACHING, defaultConfig } from '../src/config/config.js';
import { createGateway } from '../src/gateway/gateway.js';

const TOKEN = 'bench-warm-cpu-token';
const DASHBOARD = readFileSync(new URL('./dashboard.graphql', import.meta.url), 'utf8');

const { values } = parseArgs({
  options: {
    batches: { type: 'string', default: '9' },
    requests: { type: 'string', default: '300' },
    executor: { type: 'boolean', default: false },
    'cache-off': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    'gateway-only': { type: 'boolean', default: false },
  },
});
const batches = Number(values.batches);
const requests = Number(values.requests);
const cacheOff = values['cache-off'] === true;

/** What `--json` prints: CPU milliseconds per request, medians of the batches. */
interface WarmCpuResult {
  gatewayMs: number;
  floorMs: number;
  /** Median of the rounds' gateway / floor ratios. */
  ratio: number;
  batches: number;
  requests: number;
  compiledQueries: boolean;
  answerCache: boolean;
}

const sandbox = await createSandbox({
  port: 0,
  rateLimit: false,
  users: [{ token: TOKEN, plans: [{ seed: 1, transactions: 1_200 }] }],
});
const gateway = createGateway({
  ...defaultConfig(sandbox.url),
  graphiql: false,
  maxAgeMs: 3_600_000,
  // As deployed: upstream metrics only when asked (NODE_ENV=production's default).
  metrics: process.env.NODE_ENV === 'production' ? 'on-request' : 'always',
  ...(cacheOff ? { httpCaching: { ...DEFAULT_HTTP_CACHING, answerMaxBytes: 0 } } : {}),
  compiledQueries: !values.executor,
});

let nonce = 0;
async function dashboard(): Promise<string> {
  nonce += 1;
  const response = await gateway.yoga.fetch('http://gateway.bench/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ query: DASHBOARD, variables: { nonce } }),
  });
  const text = await response.text();
  if (response.status !== 200 || text.includes('"errors"')) {
    throw new Error(`dashboard: HTTP ${response.status} ${text.slice(0, 300)}`);
  }
  return text;
}

const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** A turn of the event loop, as between requests read from sockets (work queued after an answer runs). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function batch(run: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < requests; i += 1) {
    await run();
    await nextTurn();
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / requests;
}

try {
  // The first load fills the replica; the next ones warm V8 up.
  let answerText = '';
  for (let i = 0; i < 200; i += 1) {
    answerText = await dashboard();
    await nextTurn();
  }
  const answer = JSON.parse(answerText) as { data: Record<string, unknown> };
  // The floor serves the data; the gateway's answer adds its metrics (\`extensions\`).
  const floorText = JSON.stringify({ data: answer.data });
  const schema = buildSchema(readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8'));
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
  const floorBody = JSON.stringify({ query: DASHBOARD, variables: { planId: 'last-used' } });
  const floorDashboard = async (): Promise<void> => {
    const response = await floor.fetch('http://floor.bench/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: floorBody,
    });
    const text = await response.text();
    if (text !== floorText) throw new Error(`floor: ${text.slice(0, 300)}`);
  };
  for (let i = 0; i < 200; i += 1) {
    await floorDashboard();
    await nextTurn();
  }

  const gatewayMs: number[] = [];
  const floorMs: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < batches; round += 1) {
    const g = await batch(dashboard);
    const f = values['gateway-only'] ? Number.NaN : await batch(floorDashboard);
    gatewayMs.push(g);
    floorMs.push(f);
    ratios.push(g / f);
  }
  const result: WarmCpuResult = {
    gatewayMs: median(gatewayMs),
    floorMs: median(floorMs),
    ratio: median(ratios),
    batches,
    requests,
    compiledQueries: !values.executor,
    answerCache: !cacheOff,
  };
  if (values.json) console.log(JSON.stringify(result));
  else {
    const range = (xs: number[]) => `${Math.min(...xs).toFixed(3)}-${Math.max(...xs).toFixed(3)}`;
    console.log(
      `warm non-repeated dashboard in process (${values.executor ? 'executor' : 'compiled queries'}, ` +
        `answer cache ${cacheOff ? 'off' : 'on, every request a miss'}, NODE_ENV=${process.env.NODE_ENV ?? ''}): ` +
        `gateway ${result.gatewayMs.toFixed(3)} CPU ms / request (${range(gatewayMs)}), ` +
        `bare yoga + graphql-jit ${result.floorMs.toFixed(3)} (${range(floorMs)}), ` +
        `ratio ${result.ratio.toFixed(2)}x (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}); ` +
        `median of ${batches} rounds of ${requests}`,
    );
  }
} finally {
  await gateway.close();
  await sandbox.close();
}
