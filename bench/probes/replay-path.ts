/**
 * The wire replay's own CPU per request, without the socket: an in-process gateway answers the
 * dashboard twice over HTTP (the second sight keeps it), then its `wireReplay` is called in a
 * loop with node-shaped requests and a response that only records what it was sent. What this
 * measures is what a replay costs above raw `node:http` writing the same bytes (the socket, the
 * HTTP parser and the write are the same for both): the replay's reads, checks, report and
 * metrics. CPU time from `process.cpuUsage()`, so a loaded machine disturbs it less than a
 * rate; rounds alternate plain and brotli, medians reported.
 *
 *   npx tsx bench/probes/replay-path.ts [--requests 20000] [--rounds 5]
 */
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createSandbox } from '@plans-gateway/sandbox';
import { defaultConfig } from '../../src/config/config.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { withWireReplay } from '../../src/server/wire-replay.js';

const TOKEN = 'bench-replay-path-token';
const DASHBOARD = readFileSync(new URL('../dashboard.graphql', import.meta.url), 'utf8');
const BODY = Buffer.from(JSON.stringify({ query: DASHBOARD }));

const { values } = parseArgs({
  options: { requests: { type: 'string' }, rounds: { type: 'string' } },
});
const requests = Number(values.requests ?? 20_000);
const rounds = Number(values.rounds ?? 5);

/** A request as node's server hands it over: headers, URL, method, then its body's events. */
class NodeShapedRequest extends EventEmitter {
  readonly method = 'POST';
  readonly url = '/graphql';
  constructor(readonly headers: Record<string, string>) {
    super();
  }
}

/** A response that keeps what it was sent (status, bytes) and nothing else. */
class RecordingResponse {
  headersSent = false;
  status = 0;
  bytes = 0;
  writeHead(status: number): this {
    this.status = status;
    this.headersSent = true;
    return this;
  }
  end(body?: Buffer | string): this {
    this.bytes = body === undefined ? 0 : Buffer.byteLength(body);
    return this;
  }
  destroy(): void {}
}

function headersFor(encoding: string | null): Record<string, string> {
  return {
    host: '127.0.0.1',
    'content-type': 'application/json',
    'content-length': String(BODY.length),
    accept: 'application/graphql-response+json, application/json',
    authorization: `Bearer ${TOKEN}`,
    ...(encoding ? { 'accept-encoding': encoding } : {}),
  };
}

const sandbox = await createSandbox({
  port: 0,
  rateLimit: false,
  users: [{ token: TOKEN, plans: [{ seed: 1, transactions: 2_000 }] }],
});
const gateway = createGateway({
  ...defaultConfig(sandbox.url),
  graphiql: false,
  metrics: 'on-request',
  maxAgeMs: 3_600_000,
});
const wire = gateway.wireReplay;
if (!wire) throw new Error('replay-path: the gateway has no wire replay');
const server = createServer(withWireReplay(gateway.yoga, wire));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
try {
  for (let i = 0; i < 2; i += 1) {
    const { 'content-length': _, host: __, ...headers } = headersFor(null);
    const response = await fetch(url, { method: 'POST', headers, body: BODY });
    if (response.status !== 200) throw new Error(`dashboard: HTTP ${response.status}`);
    await response.arrayBuffer();
  }

  const replayOnce = async (headers: Record<string, string>): Promise<RecordingResponse> => {
    const request = new NodeShapedRequest(headers);
    const response = new RecordingResponse();
    const answered = wire(
      request as unknown as IncomingMessage,
      response as unknown as ServerResponse,
    );
    request.emit('data', BODY);
    request.emit('end');
    if (!(await answered)) throw new Error('replay-path: not replayed');
    return response;
  };
  const measure = async (encoding: string | null): Promise<number> => {
    const headers = headersFor(encoding);
    const before = process.cpuUsage();
    for (let i = 0; i < requests; i += 1) await replayOnce(headers);
    const spent = process.cpuUsage(before);
    return (spent.user + spent.system) / requests;
  };
  // Warm the path (and its compressed copy) before measuring.
  await measure(null);
  await measure('gzip, deflate, br');
  const plain: number[] = [];
  const brotli: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    plain.push(await measure(null));
    brotli.push(await measure('gzip, deflate, br'));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const show = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' ');
  console.log(
    `load average ${(await import('node:os'))
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `replay, CPU µs per request (median of ${rounds}): ${median(plain).toFixed(2)} [${show(plain)}]`,
  );
  console.log(
    `replay br, CPU µs per request (median of ${rounds}): ${median(brotli).toFixed(2)} [${show(brotli)}]`,
  );
} finally {
  server.close();
  await gateway.close?.();
  await sandbox.close();
}
