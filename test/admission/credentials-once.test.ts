/**
 * Credentials enter once and travel whole (issue 30, item 2): whatever carries an operation (HTTP
 * POST and GET, an answer replayed at the door, a 304, GraphQL over WebSocket, an MCP tool call),
 * the credential it presents is read from the request once and its token digested once; the
 * context, the HTTP caching plugin, the operation runner and the upstream client take the
 * `Credentials` admission made. Counted by wrapping the functions every reading and every digest
 * goes through, wherever they are called from: the readers of `src/admission/presented.ts` and
 * `tokenKey`. Before issue 30, readings and digests were: a POST 5 and 4, an answer replayed at
 * the door 4 and 3, a GET 5 and 4, a 304 3 and 2, a WebSocket operation 2 and 2, an MCP tool
 * call 2 and 4, a batch of two 5 and 4, and a digest more per upstream call.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { wsClient } from '../live/support/subscribers.js';
import { call, connectHttp } from '../mcp/support/mcp-clients.js';
import type { Stack } from '../support/stack.js';

const counts = vi.hoisted(() => ({ parses: 0, digests: 0 }));

vi.mock('../../src/upstream/token-key.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/upstream/token-key.js')>();
  return {
    ...actual,
    tokenKey: (token: string) => {
      counts.digests += 1;
      return actual.tokenKey(token);
    },
  };
});

vi.mock('../../src/admission/presented.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/admission/presented.js')>();
  const counted = <A extends unknown[], R>(read: (...args: A) => R) => {
    return (...args: A): R => {
      counts.parses += 1;
      return read(...args);
    };
  };
  return {
    ...actual,
    presentedByRequest: counted(actual.presentedByRequest),
    presentedByHeaders: counted(actual.presentedByHeaders),
    presentedByConnection: counted(actual.presentedByConnection),
  };
});

let stack: Stack;
let mcp: Client;

beforeAll(async () => {
  // Files share their worker's modules (\`isolate: false\`): the gateway is loaded afresh, so that
  // every module of it imports the counting versions above.
  vi.resetModules();
  const { startStack } = await import('../support/stack.js');
  stack = await startStack({
    serve: 'websocket',
    sandbox: {
      rateLimit: false,
      users: [
        { token: 'once-token-first-000001', plans: [{ seed: 1, transactions: 50 }] },
        { token: 'once-token-other-000002', plans: [{ seed: 2, transactions: 50 }] },
        { token: 'once-token-cold-0000003', plans: [{ seed: 3, transactions: 50 }] },
      ],
    },
    mcp: {},
  });
  mcp = await connectHttp(stack.mcpUrl, stack.token);
  // The token proven and the plan loaded: what follows is the warm path.
  await stack.gql('{ plan(id: "last-used") { name } }');
});
afterAll(async () => {
  await mcp.close();
  await stack.close();
});

/** Parses and digests of the token while `run` runs. */
async function counted(run: () => Promise<unknown>): Promise<{ parses: number; digests: number }> {
  counts.parses = 0;
  counts.digests = 0;
  await run();
  return { parses: counts.parses, digests: counts.digests };
}

const ONCE = { parses: 1, digests: 1 };
let fresh = 0;
/** A query no answer is held for yet: it runs (a comment makes each text new). */
const newQuery = () => `{ plan(id: "last-used") { name accounts { id } } } # ${++fresh}`;

async function post(query: string, token = stack.token): Promise<Response> {
  const response = await fetch(stack.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query }),
  });
  expect(response.status).toBe(200);
  expect(await response.clone().text()).not.toContain('"errors"');
  return response;
}

async function get(query: string, headers: Record<string, string> = {}): Promise<Response> {
  const url = `${stack.url}?query=${encodeURIComponent(query)}`;
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${stack.token}`, ...headers },
  });
  await response.arrayBuffer();
  return response;
}

it('reads and digests a POST operation once', async () => {
  expect(await counted(() => post(newQuery()))).toEqual(ONCE);
});

it('reads and digests a POST answered from the answer cache once', async () => {
  const query = newQuery();
  await post(query);
  expect(await counted(() => post(query))).toEqual(ONCE);
});

it('reads and digests a GET operation once, and a GET answered 304 once, delta or not', async () => {
  const query = newQuery();
  let etag: string | null = null;
  expect(
    await counted(async () => {
      etag = (await get(query)).headers.get('etag');
    }),
  ).toEqual(ONCE);
  expect(etag).toBeTruthy();
  expect(
    await counted(async () => {
      // fetch adds `Cache-Control: no-cache` to a conditional request: this one accepts the
      // replica as it is (the next one sends a delta).
      const conditional = { 'if-none-match': etag ?? '', 'cache-control': 'max-age=30' };
      expect((await get(query, conditional)).status).toBe(304);
    }),
  ).toEqual(ONCE);
  const calls = stack.upstreamCalls().length;
  expect(
    await counted(async () => {
      // `no-cache`: revalidating sends a delta through the replica's fetch, with the same key.
      expect((await get(query, { 'if-none-match': etag ?? '' })).status).toBe(304);
    }),
  ).toEqual(ONCE);
  expect(stack.upstreamCalls().length - calls).toBe(1);
});

it('reads and digests a WebSocket connection and its operation once', async () => {
  const client = wsClient(stack.wsUrl, stack.token);
  try {
    expect(
      await counted(async () => {
        const subscriber = client.subscribe<{ plan: { name: string } }>(newQuery());
        const { error } = await subscriber.finished;
        expect(error).toBeUndefined();
        expect(subscriber.received).toHaveLength(1);
        expect(subscriber.received[0]?.errors).toBeUndefined();
      }),
    ).toEqual(ONCE);
  } finally {
    await client.close();
  }
});

it('reads and digests an MCP tool call once', async () => {
  const result = await counted(async () => {
    expect((await call(mcp, 'list_plans', {})).isError).toBeFalsy();
  });
  expect(result).toEqual(ONCE);
});

it('digests the token of an operation once, however many upstream calls it makes', async () => {
  const token = stack.sandbox.users[1]?.token ?? '';
  const calls = stack.upstreamCalls().length;
  // A token not seen yet: the user and the plan list are two REST calls (not a plan's replica).
  const result = await counted(() => post('{ user { id } plans { id } }', token));
  expect(stack.upstreamCalls().length - calls).toBe(2);
  expect(result).toEqual(ONCE);
});

it('digests the token of a cold plan load once: the export goes upstream with its key', async () => {
  const token = stack.sandbox.users[2]?.token ?? '';
  const calls = stack.upstreamCalls().length;
  const query = '{ plan(id: "last-used") { name accounts { id } } user { id } }';
  const result = await counted(() => post(query, token));
  expect(stack.upstreamCalls().length - calls).toBeGreaterThanOrEqual(2);
  expect(result).toEqual(ONCE);
});

it('reads and digests a batch once for all its operations', async () => {
  const result = await counted(async () => {
    const response = await fetch(stack.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.token}` },
      body: JSON.stringify([{ query: newQuery() }, { query: newQuery() }]),
    });
    const answers = (await response.json()) as { errors?: unknown }[];
    expect(answers.map((answer) => answer.errors)).toEqual([undefined, undefined]);
  });
  expect(result).toEqual(ONCE);
});
