/**
 * The floors the gateway is measured against, in a process of their own (as the gateway is): a
 * bare graphql-yoga server over the gateway's printed schema whose default resolvers read a
 * precomputed answer (no replica, no plugins of ours), and raw `node:http` that reads the body and
 * sends the answer's bytes (brotli's, compressed once, to a client that accepts it) with the
 * headers a replay of the gateway sends (as many, as long: the comparison is of the same bytes).
 * Started by `floor-process.ts` with the answer's JSON file as argument; says
 * `{ type: 'ready', yoga, raw }` over IPC, answers any message with its CPU time so far
 * (`{ user, system }`, microseconds), and ends on disconnect.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, constants } from 'node:zlib';
import { buildSchema } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';

const [answerFile] = process.argv.slice(2);
if (!answerFile || !process.send) throw new Error('floor-child: run through floor-process.ts');

const answer = JSON.parse(readFileSync(answerFile, 'utf8')) as { data: Record<string, unknown> };
const bytes = Buffer.from(JSON.stringify(answer));
/** The same answer as brotli, compressed once as the gateway keeps it (quality 4). */
const brotli = brotliCompressSync(bytes, {
  params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
});
const schema = buildSchema(readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8'));

/** Every operation starts from the precomputed answer; default resolvers walk it. */
const fromAnswer: Plugin = {
  onExecute({ args }) {
    args.rootValue = answer.data;
  },
};
const yoga = createYoga({ schema, logging: false, graphiql: false, plugins: [fromAnswer] });

/** What a replay's headers are (`src/server/wire-replay.ts`), with a request id as long. */
const CONTENT_TYPE = 'application/graphql-response+json; charset=utf-8';
const REQUEST_ID = '00000000-0000-4000-8000-000000000000';
const headersOf = (body: Buffer, encoding: 'br' | null): string[] => [
  'content-type',
  CONTENT_TYPE,
  'content-length',
  String(body.length),
  'vary',
  'Accept-Encoding',
  ...(encoding ? ['content-encoding', encoding] : []),
  'x-content-type-options',
  'nosniff',
  'cache-control',
  'no-store',
];
const plainHeaders = headersOf(bytes, null);
const brotliHeaders = headersOf(brotli, 'br');

const raw = (request: IncomingMessage, response: ServerResponse) => {
  // The body is read, as the gateway reads it (its bytes name the operation).
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const br = request.headers['accept-encoding']?.includes('br') === true;
    response.writeHead(200, [...(br ? brotliHeaders : plainHeaders), 'x-request-id', REQUEST_ID]);
    response.end(br ? brotli : bytes);
  });
};

function listen(server: Server): Promise<string> {
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`),
    ),
  );
}

const yogaServer = createServer(yoga);
const rawServer = createServer(raw);
process.send({ type: 'ready', yoga: await listen(yogaServer), raw: await listen(rawServer) });
process.on('message', () => {
  const { user, system } = process.cpuUsage();
  process.send!({ user, system });
});
process.on('disconnect', () => {
  yogaServer.closeAllConnections();
  rawServer.closeAllConnections();
  yogaServer.close();
  rawServer.close();
});
