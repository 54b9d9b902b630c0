/**
 * Probes of the admission path (issue 18, items 2, 4, 6, 7 and 8): what each hostile input costs
 * or gets, over HTTP and over GraphQL over WebSocket. Run through `bench/probes/transports.ts`.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { type GatewayOptions, startGateway } from '../../../test/support/stack.js';
import {
  type Answer,
  codes,
  gql,
  heapAfterGc,
  mb,
  ms,
  post,
  report,
  sandboxWith,
  sleep,
  startFront,
  userWith,
} from '../kit.js';
import type { Probes } from './probe.js';

/** A gateway whose JSON log lines the probe reads, with WebSocket beside HTTP. */
const startLoggedFront = (url: string, options: GatewayOptions = {}) =>
  startGateway(url, { serve: 'websocket', log: true, ...options });

const TOKEN = 'admission-token-0001';

/** What one operation over a raw graphql-transport-ws connection got. */
interface WsOutcome {
  /** `ack`, or how the connection ended before it was acknowledged (`http 403`, `close 4403`). */
  connection: string;
  /** The message types received for the operation (`next`, `error`, `complete`). */
  messages: string[];
  codes: string[];
  /** The close code, if the connection closed within the wait. */
  closed: number | null;
}

/** Connects, sends one operation, and collects what comes back within `waitMs`. */
async function overWebSocket(
  wsUrl: string,
  connectionParams: Record<string, unknown>,
  payload: Record<string, unknown>,
  { origin, waitMs = 1_500 }: { origin?: string; waitMs?: number } = {},
): Promise<WsOutcome> {
  const outcome: WsOutcome = { connection: 'pending', messages: [], codes: [], closed: null };
  const socket = new WebSocket(wsUrl, 'graphql-transport-ws', origin ? { origin } : {});
  let settle: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const timer = setTimeout(settle, waitMs);
  socket.on('unexpected-response', (_request, response) => {
    outcome.connection = `http ${response.statusCode}`;
    settle();
  });
  socket.on('error', () => settle());
  socket.on('close', (code) => {
    outcome.closed = code;
    if (outcome.connection === 'pending') outcome.connection = `close ${code}`;
    settle();
  });
  socket.on('open', () =>
    socket.send(JSON.stringify({ type: 'connection_init', payload: connectionParams })),
  );
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as {
      type: string;
      payload?: unknown;
    };
    if (message.type === 'connection_ack') {
      outcome.connection = 'ack';
      socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload }));
      return;
    }
    if (message.type === 'ping') return;
    outcome.messages.push(message.type);
    const errors =
      message.type === 'error'
        ? (message.payload as { extensions?: { code?: string } }[])
        : ((message.payload as { errors?: { extensions?: { code?: string } }[] } | undefined)
            ?.errors ?? []);
    for (const error of errors) outcome.codes.push(error.extensions?.code ?? 'none');
    if (message.type === 'complete' || message.type === 'error') settle();
  });
  await done;
  clearTimeout(timer);
  const seen = { ...outcome, messages: [...outcome.messages], codes: [...outcome.codes] };
  socket.terminate();
  return seen;
}

const shown = (o: WsOutcome) =>
  `connection ${o.connection}; messages ${o.messages.join(',') || 'none'}; codes ${
    o.codes.join(',') || 'none'
  }; closed ${o.closed ?? 'no'}`;

/** Bytes written to stderr while `work` runs (stack traces printed outside the JSON log). */
async function stderrBytes<T>(work: () => Promise<T>): Promise<{ result: T; bytes: number }> {
  const write = process.stderr.write.bind(process.stderr);
  let bytes = 0;
  // Counted, not shown: the figure is how much escaped the JSON log.
  process.stderr.write = ((chunk: string | Uint8Array) => {
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    return true;
  }) as typeof process.stderr.write;
  try {
    return { result: await work(), bytes };
  } finally {
    process.stderr.write = write;
  }
}

async function pool<T>(count: number, width: number, task: (i: number) => Promise<T>) {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

const tally = (answers: Answer[]) => {
  const counts = new Map<string, number>();
  for (const a of answers) {
    const key = `${a.status} ${codes(a)}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${n} x ${k}`).join('; ');
};

/** 2. Padded and failing documents against the parse and validation caches. */
async function documentCaches(): Promise<void> {
  const sandbox = await sandboxWith({ users: [userWith(TOKEN)] });
  const front = await startFront(sandbox.url);
  try {
    const padding = `#${'x'.repeat(900_000)}\n`;
    const baseline = heapAfterGc();
    const started = performance.now();
    const padded = await pool(1_200, 4, (i) =>
      post(front.url, JSON.stringify({ query: `${padding}query Q${i} { __typename }` })),
    );
    const afterPadded = heapAfterGc();
    const failing = await pool(1_200, 4, (i) =>
      post(front.url, JSON.stringify({ query: `${padding}query F${i} { __typename ` })),
    );
    const afterFailing = heapAfterGc();
    const elapsed = performance.now() - started;
    const under = `#${'y'.repeat(90_000)}\n`;
    const near = await pool(1_200, 4, (i) =>
      post(front.url, JSON.stringify({ query: `${under}query N${i} { __typename }` })),
    );
    const afterNear = heapAfterGc();
    const comments = `${'#\n'.repeat(20_000)}{ __typename }`;
    const manyComments = await post(front.url, JSON.stringify({ query: comments }));
    report('2 document caches (no token)', {
      'heap after GC at start': mb(baseline),
      '1,200 POSTs of { __typename } with a 900 KB comment': tally(padded),
      'heap after GC after them': mb(afterPadded),
      '1,200 POSTs of 900 KB that fail to parse': tally(failing),
      'heap after GC after those': mb(afterFailing),
      'time for the 2,400': ms(elapsed),
      '1,200 POSTs with a 90 KB comment (under 100 KB)': tally(near),
      'heap after GC after those too': mb(afterNear),
      '20,000 comment lines around { __typename }': `${manyComments.status} ${codes(manyComments)}`,
    });
  } finally {
    await front.close();
    await sandbox.close();
  }
}

/** 4. Trusted documents and CORS over WebSocket. */
async function webSocketPolicies(): Promise<void> {
  const sandbox = await sandboxWith({ users: [userWith(TOKEN)] });
  const dir = mkdtempSync(join(tmpdir(), 'admission-probe-'));
  const registered = 'query Registered { user { id } }';
  const hash = createHash('sha256').update(registered).digest('hex');
  const manifestPath = join(dir, 'persisted-documents.json');
  writeFileSync(manifestPath, JSON.stringify({ [hash]: registered }));
  const trusted = await startLoggedFront(sandbox.url, {
    config: { trustedDocuments: { manifestPath, only: true } },
  });
  const cors = await startLoggedFront(sandbox.url, {
    config: { corsOrigins: ['https://app.example'] },
  });
  const auth = { authorization: `Bearer ${TOKEN}` };
  try {
    const text = '{ plan(id: "last-used") { name accounts { name balance } } }';
    const overHttp = await gql(trusted.url, text, TOKEN);
    const overWs = await overWebSocket(trusted.wsUrl, auth, { query: text });
    const byHash = await overWebSocket(trusted.wsUrl, auth, {
      query: '',
      extensions: { persistedQuery: { version: 1, sha256Hash: hash } },
    });
    const foreignHttp = await gql(cors.url, '{ user { id } }', TOKEN, {
      origin: 'https://evil.example',
    });
    const foreignWs = await overWebSocket(
      cors.wsUrl,
      auth,
      { query: '{ user { id } }' },
      { origin: 'https://evil.example' },
    );
    const allowedWs = await overWebSocket(
      cors.wsUrl,
      auth,
      { query: '{ user { id } }' },
      { origin: 'https://app.example' },
    );
    report('4 TRUSTED_DOCUMENTS_ONLY and CORS_ORIGINS over WebSocket', {
      'trusted only, text over HTTP': `${overHttp.status} ${codes(overHttp)}`,
      'trusted only, text over graphql-ws': shown(overWs),
      'trusted only, registered hash over graphql-ws': shown(byHash),
      'CORS list, foreign Origin over HTTP': `${foreignHttp.status} ${codes(foreignHttp)}`,
      'CORS list, foreign Origin upgrade': shown(foreignWs),
      'CORS list, listed Origin upgrade': shown(allowedWs),
    });
  } finally {
    await trusted.close();
    await cors.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** 6. 64 downloads of GraphiQL's app.js that never read, then another GraphiQL client. */
async function graphiqlReaders(): Promise<void> {
  const sandbox = await sandboxWith({ users: [userWith(TOKEN)] });
  const front = await startFront(sandbox.url, { graphiql: true });
  const sockets: Socket[] = [];
  try {
    const page = await (await fetch(front.url, { headers: { accept: 'text/html' } })).text();
    const script = /src="(\/graphiql\/[0-9a-f]+\/app\.js)"/.exec(page)?.[1] ?? '';
    const { port } = new URL(front.url);
    const statuses: string[] = [];
    for (let i = 0; i < 64; i++) {
      const socket = connect(Number(port), '127.0.0.1');
      socket.once('data', (chunk: Buffer) => {
        statuses.push(chunk.toString('latin1').slice(9, 12));
        socket.pause(); // never read the rest
      });
      socket.on('error', () => {});
      socket.write(`GET ${script} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      sockets.push(socket);
    }
    await sleep(1_500);
    const started = performance.now();
    const seen: string[] = [];
    let firstOk: number | null = null;
    while (performance.now() - started < 20_000) {
      const response = await fetch(new URL(script, front.url));
      const body = await response.arrayBuffer();
      seen.push(String(response.status));
      if (response.status === 200 && body.byteLength > 0) {
        firstOk = performance.now() - started;
        break;
      }
      await sleep(500);
    }
    report('6 64 non-reading downloads of app.js, then another client', {
      'the 64 got': [...new Set(statuses)].join(','),
      "the other client's answers": `${seen.filter((s) => s === '503').length} x 503, then ${
        firstOk === null ? 'no 200 within 20 s' : `200 after ${ms(firstOk)}`
      }`,
    });
  } finally {
    for (const socket of sockets) socket.destroy();
    await front.close();
    await sandbox.close();
  }
}

/** 7. Junk operation names from requests without a good token, then a real operation. */
async function metricsNames(): Promise<void> {
  const sandbox = await sandboxWith({ users: [userWith(TOKEN)] });
  const front = await startFront(sandbox.url);
  try {
    const aliases = Array.from({ length: 31 }, (_, i) => `a${i}: __typename`).join(' ');
    const kinds: ((i: number) => Promise<Answer>)[] = [
      (i: number) => gql(front.url, `query Junk${i} { __typename }`, null),
      (i: number) => gql(front.url, `query NoToken${i} { user { id } }`, null),
      (i: number) => gql(front.url, `query JunkToken${i} { user { id } }`, `junk-token-${i}`),
      (i: number) => gql(front.url, `query Refused${i} { ${aliases} }`, null),
    ];
    const answers = await pool(1_000, 8, (i) => kinds[i % kinds.length]!(i));
    await gql(front.url, 'query Dashboard { plan(id: "last-used") { name } }', TOKEN);
    const text = await (await fetch(new URL('/metrics', front.url))).text();
    const names = new Set(
      [...text.matchAll(/^gateway_operations_total\{operation="([^"]*)"/gm)].map((m) => m[1]),
    );
    const junk = [...names].filter((n) => /^(Junk|NoToken|JunkToken|Refused)\d+$/.test(n ?? ''));
    report('7 /metrics after 1,000 requests without a good token', {
      answers: tally(answers),
      'operation labels in gateway_operations_total': names.size,
      'of them junk names': junk.length,
      'the real Dashboard operation labelled by name': names.has('Dashboard'),
    });
  } finally {
    await front.close();
    await sandbox.close();
  }
}

/** 8. A list literal nested 2,400 deep, and bad input over WebSocket. */
async function deepAndBroken(): Promise<void> {
  const sandbox = await sandboxWith({ users: [userWith(TOKEN)] });
  const front = await startLoggedFront(sandbox.url);
  try {
    const deep = `{ plan(id: "last-used") { transactions(first: 1, accountId: ${'['.repeat(2_400)}1${']'.repeat(2_400)}) { totalCount } } }`;
    const overHttp = await gql(front.url, deep, TOKEN);
    const stacksHttp = front.log.filter((line) => line.stack !== undefined).length;
    const aliases = Array.from({ length: 31 }, (_, i) => `a${i}: __typename`).join(' ');
    const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
      ['non-ASCII token', { authorization: 'Bearer tøken-ünïcode' }, { query: '{ user { id } }' }],
      ['31 aliases', { authorization: `Bearer ${TOKEN}` }, { query: `{ ${aliases} }` }],
      ['list nested 2,400 deep', { authorization: `Bearer ${TOKEN}` }, { query: deep }],
    ];
    const figures: Record<string, string | number> = {
      'over HTTP': `${overHttp.status} ${codes(overHttp)}; log lines with a stack: ${stacksHttp}`,
    };
    for (const [label, params, payload] of cases) {
      const logged = front.log.length;
      const { result, bytes } = await stderrBytes(() =>
        overWebSocket(front.wsUrl, params, payload),
      );
      figures[`over graphql-ws, ${label}`] =
        `${shown(result)}; stderr ${bytes} bytes; JSON log lines ${front.log.length - logged}`;
    }
    const health = await fetch(new URL('/health', front.url));
    figures['/health after'] = health.status;
    report('8 deep nesting, and a bad token or over-limit document over WebSocket', figures);
  } finally {
    await front.close();
    await sandbox.close();
  }
}

export const probes: Probes = {
  '2': documentCaches,
  '4': webSocketPolicies,
  '6': graphiqlReaders,
  '7': metricsNames,
  '8': deepAndBroken,
};
