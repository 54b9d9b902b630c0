/**
 * The admission path's order (src/server/README.md, docs/security.md): an operation that fails
 * several checks gets the refusal of the earliest (size, parse, trusted documents, limits,
 * credentials), the same over POST, GET, SSE and WebSocket; a token nobody has proven costs no
 * upstream call when a local check refuses its operation; and a page on a foreign origin gets
 * 403 before the gateway reads its body.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/config/config.js';
import { type ServedGateway, type Stack, startStack } from '../support/stack.js';
import {
  getOperation,
  type Operation,
  postOperation,
  sseOperation,
  TRANSPORTS,
  wsConnection,
} from './support/transports.js';

const REGISTERED = 'query Registered { user { id } }';
/** Small enough that an over-size document still fits a GET request line. */
const LIMITS = { ...DEFAULT_LIMITS, documentBytes: 16 * 1024 };
const ALLOWED_ORIGIN = 'https://app.example';

let open: Stack;
let trusted: ServedGateway;
let manifestDir: string;

beforeAll(async () => {
  manifestDir = mkdtempSync(join(tmpdir(), 'admission-order-'));
  const manifestPath = join(manifestDir, 'persisted-documents.json');
  const hash = createHash('sha256').update(REGISTERED).digest('hex');
  writeFileSync(manifestPath, JSON.stringify({ [hash]: REGISTERED }));
  const config = { limits: LIMITS, corsOrigins: [ALLOWED_ORIGIN] };
  const served = { serve: 'websocket' as const, config, maxHeaderSize: 64 * 1024 };
  open = await startStack(served);
  trusted = await open.addGateway({
    ...served,
    config: { ...served.config, trustedDocuments: { manifestPath, only: true } },
  });
  const refused = await open.gql('{ user { id } }', {}, { token: REFUSED });
  expect(refused.status).toBe(401);
});

afterAll(async () => {
  await open?.close();
  rmSync(manifestDir, { recursive: true, force: true });
});

const deep = `{ plan(id: "last-used") { accounts { ${'transferPayee { transferAccount { '.repeat(6)}name${' } }'.repeat(6)} } } }`;
const aliases = Array.from({ length: LIMITS.aliases + 1 }, (_, i) => `a${i}: __typename`).join(' ');
/** A token the upstream refused once; the gateway remembers it (the token gate). */
const REFUSED = 'refused-once-token-0001';
/** A token of the right shape that the upstream has never seen. */
const unproven = (i: number) => `never-proven-token-${String(i).padStart(4, '0')}`;

interface Case {
  name: string;
  operation: (i: number) => Operation;
  front?: () => ServedGateway;
  /** The earliest stage's code (with the limit of an OPERATION_TOO_COMPLEX). */
  code: string;
}

const CASES: Case[] = [
  {
    name: 'size before parse: an over-size document that does not parse either',
    operation: (i) => ({ query: `#${'x'.repeat(17 * 1024)}\n{ user { id }`, token: unproven(i) }),
    code: 'OPERATION_TOO_COMPLEX:documentBytes',
  },
  {
    name: 'parse before limits: too many aliases in a document that does not parse',
    operation: (i) => ({ query: `{ ${aliases} `, token: unproven(i) }),
    code: 'GRAPHQL_PARSE_FAILED',
  },
  {
    name: 'trusted documents before limits: a text over the depth limit',
    operation: (i) => ({ query: deep, token: unproven(i) }),
    front: () => trusted,
    code: 'PERSISTED_QUERY_ONLY',
  },
  {
    name: 'limits before credentials: too many aliases with a token nobody proved',
    operation: (i) => ({ query: `{ ${aliases} }`, token: unproven(i) }),
    code: 'OPERATION_TOO_COMPLEX:aliases',
  },
  {
    name: 'limits before credentials: too many aliases with a token the upstream refused',
    operation: () => ({ query: `{ ${aliases} }`, token: REFUSED }),
    code: 'OPERATION_TOO_COMPLEX:aliases',
  },
  {
    name: 'limits before credentials: too deep with no token at all',
    operation: () => ({ query: deep, token: null }),
    code: 'OPERATION_TOO_COMPLEX:depth',
  },
];

describe('an operation that fails several checks', () => {
  it.each(CASES.map((c, i) => ({ ...c, i })))('$name', async ({ operation, front, code, i }) => {
    const gateway = front?.() ?? open;
    open.sandbox.resetCalls();
    // A token of its own per transport: none of them may be sent upstream to be proven.
    const sent = TRANSPORTS.map((_, t) => operation(i * 10 + t));
    const ws = wsConnection(gateway.wsUrl, sent[3]!);
    try {
      const outcomes = [
        await postOperation(gateway.url, sent[0]!),
        await getOperation(gateway.url, sent[1]!),
        await sseOperation(gateway.url, sent[2]!),
        await ws.send(sent[3]!),
      ];
      expect(outcomes.map((outcome) => outcome.codes)).toEqual(TRANSPORTS.map(() => [code]));
    } finally {
      await ws.close();
    }
    expect(open.sandbox.calls()).toEqual([]);
  });
});

describe('a page on a foreign origin', () => {
  it('gets 403 FORBIDDEN_ORIGIN before its body is read', async () => {
    const { port } = new URL(open.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        // Announces 1 MiB and sends none of it: only an answer that skips the body can come.
        socket.write(
          [
            'POST /graphql HTTP/1.1',
            `host: 127.0.0.1:${port}`,
            'origin: https://evil.example',
            'content-type: application/json',
            `content-length: ${1024 * 1024}`,
            '',
            '',
          ].join('\r\n'),
        );
      });
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        if (text.includes('FORBIDDEN_ORIGIN')) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 403 /);
    expect(answer).toContain('FORBIDDEN_ORIGIN');
  });
});
