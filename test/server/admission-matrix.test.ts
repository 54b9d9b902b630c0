/**
 * The admission matrix: each hostile input of both hardening rounds, sent over every transport
 * (HTTP POST, HTTP GET, SSE with graphql-sse, GraphQL over WebSocket with graphql-ws), gets the
 * same refusal code on each, before any upstream call; no WebSocket is closed for it; nothing
 * reaches stderr or the log as an internal error; and the gateway answers normally after.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_LIMITS, type GatewayConfig } from '../../src/config/config.js';
import { type ServedGateway, type Stack, startStack } from '../support/stack.js';
import {
  getOperation,
  type Operation,
  type Outcome,
  postOperation,
  sseOperation,
  TRANSPORTS,
  type TransportName,
  upgradeFrom,
  wsConnection,
} from './support/transports.js';

/** Small enough that an over-size document still fits a GET request line. */
const LIMITS = { ...DEFAULT_LIMITS, bodyBytes: 64 * 1024, documentBytes: 16 * 1024 };
const ALLOWED_ORIGIN = 'https://app.example';
const REGISTERED = 'query Registered { user { id } }';

const log = () => [...open.log, ...trusted.log];
let open: Stack;
let trusted: ServedGateway;
let manifestDir: string;

// Room for a GET that carries an over-size document (node's default is 16 KiB of headers).
const served = (config: Partial<GatewayConfig>) =>
  ({
    serve: 'websocket',
    log: true,
    config: { limits: LIMITS, ...config },
    maxHeaderSize: 128 * 1024,
  }) as const;

const stderr: string[] = [];
beforeAll(async () => {
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    stderr.push(args.map(String).join(' '));
  });
  manifestDir = mkdtempSync(join(tmpdir(), 'admission-matrix-'));
  const manifestPath = join(manifestDir, 'persisted-documents.json');
  const hash = createHash('sha256').update(REGISTERED).digest('hex');
  writeFileSync(manifestPath, JSON.stringify({ [hash]: REGISTERED }));
  open = await startStack(served({ corsOrigins: [ALLOWED_ORIGIN] }));
  trusted = await open.addGateway(served({ trustedDocuments: { manifestPath, only: true } }));
});

afterAll(async () => {
  await open?.close();
  rmSync(manifestDir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

const token = () => open.token;

/** Sends `operation` over every transport; one graphql-ws connection per operation. */
async function overEveryTransport(
  front: ServedGateway,
  operation: Operation,
): Promise<Record<TransportName, Outcome> & { wsCloses: number[] }> {
  const ws = wsConnection(front.wsUrl, operation);
  try {
    const outcomes = {
      post: await postOperation(front.url, operation),
      get: await getOperation(front.url, operation),
      sse: await sseOperation(front.url, operation),
      ws: await ws.send(operation),
    };
    return { ...outcomes, wsCloses: [...ws.closes] };
  } finally {
    await ws.close();
  }
}

interface Row {
  name: string;
  operation: () => Operation;
  /** The code, with the limit of an OPERATION_TOO_COMPLEX (`OPERATION_TOO_COMPLEX:depth`). */
  code: string;
  /** The gateway to send it to. @default the one with a CORS list */
  front?: () => ServedGateway;
}

const aliases = (n: number) => Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(' ');
const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

const ROWS: Row[] = [
  {
    name: 'a document over MAX_DOCUMENT_BYTES (a padded comment)',
    operation: () => ({ query: `#${'x'.repeat(17 * 1024)}\n{ __typename }`, token: token() }),
    code: 'OPERATION_TOO_COMPLEX:documentBytes',
  },
  {
    name: 'comments that would escape the token limit (5,000 comment lines)',
    operation: () => ({ query: `${'#\n'.repeat(5_000)}{ __typename }`, token: token() }),
    code: 'OPERATION_TOO_COMPLEX:tokens',
  },
  {
    name: 'a parse failure',
    operation: () => ({ query: '{ user { id }', token: token() }),
    code: 'GRAPHQL_PARSE_FAILED',
  },
  {
    name: 'a list literal nested 2,400 deep, under the token limit',
    operation: () => ({
      query: `{ plan(id: "last-used") { transactions(first: 1, accountId: ${nested(2_400)}) { totalCount } } }`,
      token: token(),
    }),
    code: 'OPERATION_TOO_COMPLEX:nesting',
  },
  {
    name: 'variables nested 200 deep',
    operation: () => ({
      query: 'query($ids: [ID!]) { nodes(ids: $ids) { id } }',
      variables: { ids: JSON.parse(nested(200)) as unknown },
      token: token(),
    }),
    code: 'OPERATION_TOO_COMPLEX:nesting',
  },
  {
    name: 'too many aliases',
    operation: () => ({ query: `{ ${aliases(LIMITS.aliases + 1)} }`, token: token() }),
    code: 'OPERATION_TOO_COMPLEX:aliases',
  },
  {
    name: 'too many tokens',
    operation: () => ({ query: `{ user { ${'id '.repeat(5_000)}} }`, token: token() }),
    code: 'OPERATION_TOO_COMPLEX:tokens',
  },
  {
    name: 'too many directives',
    operation: () => ({
      query: `{ __typename ${'@include(if: true) '.repeat(LIMITS.directives + 1)}}`,
      token: token(),
    }),
    code: 'OPERATION_TOO_COMPLEX:directives',
  },
  {
    name: 'too deep',
    operation: () => ({
      query: `{ plan(id: "last-used") { accounts { ${'transferPayee { transferAccount { '.repeat(6)}name${' } }'.repeat(6)} } } }`,
      token: token(),
    }),
    code: 'OPERATION_TOO_COMPLEX:depth',
  },
  {
    name: 'over the cost limit',
    operation: () => ({
      query:
        '{ plan(id: "last-used") { categoryGroups { categories { transactions(first: 500) { nodes { id amount memo date payee { name } category { name } account { name } } } } } } }',
      token: token(),
    }),
    code: 'OPERATION_TOO_COMPLEX:cost',
  },
  {
    name: 'a document sent as text under TRUSTED_DOCUMENTS_ONLY',
    operation: () => ({ query: '{ plan(id: "last-used") { name } }', token: token() }),
    code: 'PERSISTED_QUERY_ONLY',
    front: () => trusted,
  },
  {
    name: 'an unregistered hash under TRUSTED_DOCUMENTS_ONLY',
    operation: () => ({
      query: '',
      extensions: { persistedQuery: { version: 1, sha256Hash: '0'.repeat(64) } },
      token: token(),
    }),
    code: 'PERSISTED_QUERY_NOT_IN_LIST',
    front: () => trusted,
  },
  {
    name: 'no token',
    operation: () => ({ query: '{ user { id } }', token: null }),
    code: 'UNAUTHENTICATED',
  },
  {
    name: 'a token that cannot be one (non-ASCII)',
    operation: () => ({ query: '{ user { id } }', token: 'tøken-ünïcode' }),
    code: 'UNAUTHENTICATED',
  },
  {
    name: 'a junk token',
    operation: () => ({ query: '{ user { id } }', token: 'junk-token-0123456789' }),
    code: 'UNAUTHENTICATED',
  },
];

describe('one admission path: the same refusal over every transport', () => {
  it.each(ROWS)('$name', async (row) => {
    const front = row.front?.() ?? open;
    const operation = row.operation();
    open.sandbox.resetCalls();
    const outcomes = await overEveryTransport(front, operation);
    for (const transport of TRANSPORTS) {
      expect(outcomes[transport].codes, transport).toEqual([row.code]);
      expect(outcomes[transport].data, transport).toBe(false);
    }
    expect(outcomes.wsCloses).toEqual([]);
    // Refused before any upstream call, except the junk token's one check by the token gate.
    const calls = open.sandbox.calls().length;
    if (row.name === 'a junk token') expect(calls).toBeLessThanOrEqual(1);
    else expect(calls).toBe(0);
  });

  it('refuses a foreign Origin on every transport, a WebSocket at its upgrade', async () => {
    const operation: Operation = {
      query: '{ user { id } }',
      token: token(),
      origin: 'https://evil.example',
    };
    const http = await Promise.all([
      postOperation(open.url, operation),
      getOperation(open.url, operation),
      sseOperation(open.url, operation),
    ]);
    for (const outcome of http)
      expect(outcome).toMatchObject({ codes: ['FORBIDDEN_ORIGIN'], status: 403 });
    expect(await upgradeFrom(open.wsUrl, operation.origin ?? '')).toMatchObject({
      codes: ['FORBIDDEN_ORIGIN'],
      status: 403,
    });
    const ws = wsConnection(open.wsUrl, operation);
    const refused = await ws.send(operation);
    await ws.close();
    expect(refused.data).toBe(false);
    // The listed origin, and the gateway's own, pass.
    expect((await upgradeFrom(open.wsUrl, ALLOWED_ORIGIN)).status).toBe(101);
    expect((await upgradeFrom(open.wsUrl, new URL(open.url).origin)).status).toBe(101);
  });

  it('refuses a body over the limit at each carrier, without reading it', async () => {
    const operation: Operation = {
      query: `{ __typename }`,
      variables: { padding: 'x'.repeat(LIMITS.bodyBytes) },
      token: token(),
    };
    expect((await postOperation(open.url, operation)).status).toBe(413);
    expect((await sseOperation(open.url, operation)).status).toBe(413);
    // GET has no body: its request line is bounded by the server's header limit instead.
    const long = { ...operation, variables: { padding: 'x'.repeat(130 * 1024) } };
    expect((await getOperation(open.url, long)).status).toBe(431);
    const ws = wsConnection(open.wsUrl, operation);
    const outcome = await ws.send(operation);
    await ws.close();
    expect(outcome.closed).toBe(1009);
  });

  it('stays healthy: the same operations run afterwards over every transport', async () => {
    const outcomes = await overEveryTransport(open, { query: '{ user { id } }', token: token() });
    for (const transport of TRANSPORTS) {
      expect(outcomes[transport].codes, transport).toEqual([]);
      expect(outcomes[transport].data, transport).toBe(true);
    }
    const registered = createHash('sha256').update(REGISTERED).digest('hex');
    const byHash = await overEveryTransport(trusted, {
      query: '',
      extensions: { persistedQuery: { version: 1, sha256Hash: registered } },
      token: token(),
    });
    for (const transport of TRANSPORTS) expect(byHash[transport].data, transport).toBe(true);
    expect((await fetch(new URL('/health', open.url))).status).toBe(200);
  });

  it('logged every refusal as one JSON line, and nothing as an internal error or on stderr', () => {
    expect(stderr).toEqual([]);
    expect(log().filter((line) => line.level === 'error')).toEqual([]);
    const refused = log().filter((line) => line.outcome === 'refused');
    // Every row on every transport, but for the two that execution refuses: no token (the
    // resolver asks for one), and the junk token's first operation (its one upstream check).
    expect(refused).toHaveLength(ROWS.length * TRANSPORTS.length - TRANSPORTS.length - 1);
    for (const line of refused) expect(line).toMatchObject({ msg: 'operation', verified: false });
  });
});
