/**
 * Probes of issue 29's admission and budget items: deep variables (2), `_entities` with
 * thousands of plans (5), one delta per fresh read (6) and the default interface (13). Each runs
 * in-process gateways on loopback ports over the embedded sandbox; run through
 * `bench/probes/round-three.ts`.
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { tokenKey } from '../../../src/upstream/token-key.js';
import { launch } from '../../../test/cli/support/process.js';
import { type ServedGateway, startGateway } from '../../../test/support/stack.js';
import { type Answer, codes, gql, ms, post, report, sandboxWith, userWith } from '../kit.js';
import type { Probes } from '../transports/probe.js';

const TOKEN = 'round-three-token-0001';

/** `depth` arrays inside each other, as JSON text (`[[[...]]]`): 2 bytes a level. */
const nestedJson = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** What an answer's body shows: a stack trace or the install path, and its type. */
function shape(status: number, contentType: string | null, text: string): string {
  const leaks = /RangeError|Maximum call stack|\n\s+at /.test(text) || text.includes(process.cwd());
  return `${status} ${contentType?.split(';')[0] ?? 'no type'}${leaks ? ', a stack trace in the body' : ''}: ${text.slice(0, 90).replace(/\s+/g, ' ')}`;
}

async function rawPost(url: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body,
  });
  return shape(response.status, response.headers.get('content-type'), await response.text());
}

/** 2. Variables (and extensions) nested 5,000 deep, no token, over every transport. */
async function deepVariables(): Promise<void> {
  const sandbox = await sandboxWith({ users: [userWith(TOKEN)] });
  const front: ServedGateway = await startGateway(sandbox.url, {
    serve: 'websocket',
    log: true,
    mcp: {},
    maxHeaderSize: 64 * 1024,
  });
  const deep = nestedJson(5_000);
  const query = 'query ($v: [Int]) { __typename }';
  const body = `{"query":${JSON.stringify(query)},"variables":{"v":${deep}}}`;
  const subgraph = front.url.replace(/\/graphql$/, '/subgraph');
  try {
    const logged = front.log.length;
    const figures: Record<string, string> = {
      'body size': `${body.length} bytes`,
      'POST /graphql': await rawPost(front.url, body),
      'POST /graphql, deep extensions': await rawPost(
        front.url,
        `{"query":"{ __typename }","extensions":{"x":${deep}}}`,
      ),
      'POST /graphql, a batch of two': await rawPost(front.url, `[${body},${body}]`),
      'POST /subgraph': await rawPost(subgraph, body),
    };
    const target = new URL(front.url);
    target.searchParams.set('query', query);
    target.searchParams.set('variables', `{"v":${deep}}`);
    const get = await fetch(target, {
      headers: { accept: 'application/json', 'x-graphql-yoga-csrf': '1' },
    });
    figures['GET /graphql'] = shape(get.status, get.headers.get('content-type'), await get.text());
    const sse = await fetch(front.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body,
    });
    figures['SSE /graphql'] = shape(sse.status, sse.headers.get('content-type'), await sse.text());
    figures['graphql-ws /graphql'] = await deepOverWebSocket(
      front.wsUrl,
      `{"id":"1","type":"subscribe","payload":${body}}`,
    );
    figures['MCP tools/call, an argument nested 5,000 deep'] = await deepMcp(
      front.mcpUrl,
      `{"search":${deep}}`,
    );
    const lines = front.log.slice(logged);
    figures['JSON log lines'] =
      `${lines.length}: ${lines.filter((l) => l.outcome === 'refused').length} refused, ${
        lines.filter((l) => l.level === 'error').length
      } at error level`;
    figures['/health after'] = String((await fetch(new URL('/health', front.url))).status);
    report('2 variables nested 5,000 deep, no token', figures);
  } finally {
    await front.close();
    await sandbox.close();
  }
}

/** One raw graphql-transport-ws exchange: the message sent as text (no client stringifies it). */
async function deepOverWebSocket(url: string, message: string): Promise<string> {
  const socket = new WebSocket(url, 'graphql-transport-ws');
  const seen: string[] = [];
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 3_000);
    socket.on('open', () => socket.send('{"type":"connection_init"}'));
    socket.on('message', (data) => {
      const text = String(data);
      const type = (JSON.parse(text) as { type: string }).type;
      if (type === 'connection_ack') return void socket.send(message);
      seen.push(text.slice(0, 160));
      if (type === 'error' || type === 'complete') {
        clearTimeout(timer);
        resolve();
      }
    });
    socket.on('close', (code) => {
      seen.push(`closed ${code}`);
      clearTimeout(timer);
      resolve();
    });
    socket.on('error', () => resolve());
  });
  socket.terminate();
  return seen.join(' | ') || 'nothing within 3 s';
}

/** A raw MCP session over Streamable HTTP: initialize, then one `tools/call` sent as text. */
async function deepMcp(url: string, args: string): Promise<string> {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${TOKEN}`,
  };
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'round-three-probe', version: '1.0.0' },
      },
    }),
  });
  await init.text();
  const session = init.headers.get('mcp-session-id');
  const withSession = { ...headers, ...(session ? { 'mcp-session-id': session } : {}) };
  await fetch(url, {
    method: 'POST',
    headers: withSession,
    body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  }).then((r) => r.text());
  const call = await fetch(url, {
    method: 'POST',
    headers: withSession,
    body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_transactions","arguments":${args}}}`,
  });
  const text = await call.text();
  if (session) await fetch(url, { method: 'DELETE', headers: withSession }).then((r) => r.text());
  return shape(
    call.status,
    call.headers.get('content-type'),
    text.replace(/^event: message\s*data: /, ''),
  );
}

/** 5. `_entities` naming 2,000 distinct plans, against `/graphql`'s 5 x 30 aliases. */
async function entitiesPlans(): Promise<void> {
  // The upstream's own quota (200 an hour per token), as the real one has.
  const sandbox = await sandboxWith({ users: [userWith(TOKEN)], rateLimit: { limit: 200 } });
  const entities = await startGateway(sandbox.url);
  const subgraph = entities.url.replace(/\/graphql$/, '/subgraph');
  try {
    const representations = Array.from({ length: 2_000 }, () => ({
      __typename: 'Plan',
      id: randomUUID(),
    }));
    sandbox.resetCalls();
    const answer = await gql(
      subgraph,
      'query ($r: [_Any!]!) { _entities(representations: $r) { __typename } }',
      TOKEN,
      {},
      { r: representations },
    );
    const calls = sandbox.calls();
    const usage = entities.gateway.ledger.usage(tokenKey(TOKEN));
    report('5 _entities with 2,000 distinct plan ids (upstream limit 200 an hour)', {
      answer: `${answer.status} ${codes(answer)}, ${ms(answer.ms)}`,
      'upstream calls sent': calls.length,
      'of them refused by the upstream (429)': calls.filter((c) => c.status === 429).length,
      "the token's ledger after": `${usage.used} used, ${usage.remaining} left`,
    });
  } finally {
    await entities.close();
    await sandbox.close();
  }
  await quotaSpentByEntities();
  const fresh = await sandboxWith({ users: [userWith(TOKEN)] });
  const graph = await startGateway(fresh.url);
  try {
    const aliases = (n: number) =>
      Array.from({ length: n }, (_, i) => `p${i}: plan(id: "${randomUUID()}") { id }`).join(' ');
    const batch = JSON.stringify(
      Array.from({ length: 5 }, () => ({ query: `{ ${aliases(30)} }` })),
    );
    fresh.resetCalls();
    const answer: Answer = await post(graph.url, batch, { authorization: `Bearer ${TOKEN}` });
    report('5 reference: /graphql, a batch of 5 x 30 aliases of plan(id:) with random ids', {
      answer: `${answer.status}, ${ms(answer.ms)}`,
      'upstream calls sent': fresh.calls().length,
    });
  } finally {
    await graph.close();
    await fresh.close();
  }
}

/**
 * 5. The ledger: 12 `_entities` requests of 25 plans each (300 in all, each request within the
 * aliases bound) by one token whose upstream allows 200 an hour.
 */
async function quotaSpentByEntities(): Promise<void> {
  const sandbox = await sandboxWith({ users: [userWith(TOKEN)], rateLimit: { limit: 200 } });
  const front = await startGateway(sandbox.url);
  const subgraph = front.url.replace(/\/graphql$/, '/subgraph');
  try {
    const answers: Answer[] = [];
    for (let i = 0; i < 12; i++) {
      const r = Array.from({ length: 25 }, () => ({ __typename: 'Plan', id: randomUUID() }));
      answers.push(
        await gql(
          subgraph,
          'query ($r: [_Any!]!) { _entities(representations: $r) { __typename } }',
          TOKEN,
          {},
          { r },
        ),
      );
    }
    const calls = sandbox.calls();
    const usage = front.gateway.ledger.usage(tokenKey(TOKEN));
    const codesSeen = new Map<string, number>();
    for (const answer of answers)
      for (const error of answer.json().errors ?? []) {
        const code = String(error.extensions?.code);
        codesSeen.set(code, (codesSeen.get(code) ?? 0) + 1);
      }
    report('5 12 requests x 25 cold plans, upstream limit 200 an hour', {
      'upstream calls sent': calls.length,
      'of them refused by the upstream (429)': calls.filter((c) => c.status === 429).length,
      "the token's ledger after": `${usage.used} used, ${usage.remaining} left`,
      'errors answered': [...codesSeen].map(([code, n]) => `${n} x ${code}`).join(', '),
    });
  } finally {
    await front.close();
    await sandbox.close();
  }
}
/** 6. Fresh reads (`no-cache`) of one document after outside writes: delta requests per read. */
async function freshReads(): Promise<void> {
  const query =
    'query Fresh($planId: PlanId!) { plan(id: $planId) { accounts { name balance } payees { name } } }';
  for (const [label, config] of [
    ['compiled queries, answer cache (defaults)', {}],
    ['executor only (COMPILED_QUERIES=off)', { compiledQueries: false }],
    ['no HTTP caching', { httpCaching: false as const }],
  ] as const) {
    const sandbox = await sandboxWith({ users: [userWith(TOKEN)] });
    const front = await startGateway(sandbox.url, { config });
    const planId = sandbox.users[0]?.planIds[0] ?? '';
    const writer = `${sandbox.url}/plans/${planId}/transactions`;
    try {
      const accounts = (await (
        await fetch(`${sandbox.url}/plans/${planId}/accounts`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        })
      ).json()) as { data: { accounts: { id: string; closed: boolean }[] } };
      const account = accounts.data.accounts.find((a) => !a.closed)?.id ?? '';
      await gql(front.url, query, TOKEN, {}, { planId });
      const deltas: number[] = [];
      for (let run = 0; run < 6; run++) {
        await fetch(writer, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            transaction: {
              account_id: account,
              date: '2025-06-01',
              amount: -1000,
              memo: `r${run}`,
            },
          }),
        });
        sandbox.resetCalls();
        await gql(front.url, query, TOKEN, { 'cache-control': 'no-cache' }, { planId });
        deltas.push(
          sandbox.calls().filter((c) => c.query.last_knowledge_of_server !== undefined).length,
        );
      }
      report(`6 no-cache read after an outside write, 6 runs of one document: ${label}`, {
        'delta requests per run': deltas.join(', '),
      });
    } finally {
      await front.close();
      await sandbox.close();
    }
  }
}

/**
 * 13. The interface the gateway listens on with `UPSTREAM_URL` and no `HOST`: `src/cli.ts` as a
 * process, asked at 127.0.0.1 and at 127.0.0.2 (another loopback address, which only a gateway
 * listening on every interface answers).
 */
async function defaultHost(): Promise<void> {
  const sandbox = await sandboxWith({ users: [userWith(TOKEN)] });
  const app = launch(process.execPath, ['--import', 'tsx', 'src/cli.ts'], {
    PORT: '0',
    UPSTREAM_URL: sandbox.url,
    HOST: undefined,
    NODE_ENV: '',
  });
  try {
    const url = new URL(await app.listening);
    const reach = async (host: string) => {
      try {
        const response = await fetch(`http://${host}:${url.port}/health`);
        return `${response.status}`;
      } catch (error) {
        return `refused (${(error as { cause?: { code?: string } }).cause?.code ?? 'error'})`;
      }
    };
    const line = app.logs().find((entry) => entry.msg === 'listening');
    report('13 HOST by default, with UPSTREAM_URL', {
      'listening log line': `host ${String(line?.host)}`,
      '/health at 127.0.0.1': await reach('127.0.0.1'),
      '/health at 127.0.0.2 (every interface only)': await reach('127.0.0.2'),
    });
  } finally {
    app.killGroup();
    await app.exited;
    await sandbox.close();
  }
}

export const probes: Probes = {
  '2': deepVariables,
  '5': entitiesPlans,
  '6': freshReads,
  '13': defaultHost,
};
