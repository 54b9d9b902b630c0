/**
 * Variables and extensions nested far past the nesting bound, sent without a token as raw text
 * (no client could stringify them), over every carrier of both endpoints: each gets admission's
 * refusal (413 `OPERATION_TOO_COMPLEX`, `limit: nesting`, JSON), logged as a refused operation,
 * before anything walks them. The answer cache names requests at the door, before admission:
 * it used to walk the variables first (500, `text/plain`, a stack trace with the install path,
 * nothing logged). 100,000 levels overflow any recursive walk; a GET carries 5,000 (its request
 * line is bounded by the server's header limit), which overflowed the answer cache's key too.
 * And a request hook that throws anyway is answered as JSON, never with a stack.
 */
import type { Plugin } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { DEFAULT_LIMITS } from '../../src/config/config.js';
import { type ServedGateway, type Stack, startStack } from '../support/stack.js';

const DEEP = 100_000;
const GET_DEEP = 5_000;
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const QUERY = 'query ($v: [Int]) { __typename }';

/** A request's text with `part` (`variables` or `extensions`) nested `depth` deep. */
const bodyWith = (part: Part, depth: number) =>
  `{"query":${JSON.stringify(QUERY)},"${part}":{"v":${nested(depth)}}}`;

type Part = 'variables' | 'extensions';
const PARTS: Part[] = ['variables', 'extensions'];

interface Refusal {
  status: number;
  contentType: string;
  text: string;
}

let stack: Stack;
let faulty: ServedGateway;
const stderr: string[] = [];

beforeAll(async () => {
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    stderr.push(args.map(String).join(' '));
  });
  stack = await startStack({ serve: 'websocket', log: true, maxHeaderSize: 64 * 1024 });
  faulty = await stack.addGateway({ log: true, deps: { plugins: [throwingAtTheDoor()] } });
});

afterAll(async () => {
  await stack?.close();
  vi.restoreAllMocks();
});

const endpoints = () => ({
  '/graphql': stack.url,
  '/subgraph': stack.url.replace(/\/graphql$/, '/subgraph'),
});

async function answerOf(response: Response): Promise<Refusal> {
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    text: await response.text(),
  };
}

const post = (url: string, body: string, accept = 'application/json') =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body,
  }).then(answerOf);

function get(url: string, part: Part): Promise<Refusal> {
  const target = new URL(url);
  target.searchParams.set('query', QUERY);
  target.searchParams.set(part, `{"v":${nested(GET_DEEP)}}`);
  return fetch(target, {
    headers: { accept: 'application/json', 'x-graphql-yoga-csrf': 'test' },
  }).then(answerOf);
}

/** One graphql-transport-ws exchange with the message as raw text: the frames received. */
function overWebSocket(url: string, message: string): Promise<string[]> {
  const socket = new WebSocket(url, 'graphql-transport-ws');
  const frames: string[] = [];
  return new Promise<string[]>((resolve) => {
    socket.on('open', () => socket.send('{"type":"connection_init"}'));
    socket.on('message', (data) => {
      const text = String(data);
      const { type } = JSON.parse(text) as { type: string };
      if (type === 'connection_ack') return void socket.send(message);
      frames.push(text);
      if (type === 'error' || type === 'complete') socket.close();
    });
    socket.on('close', (code) => {
      if (code !== 1000 && code !== 1005) frames.push(`closed ${code}`);
      resolve(frames);
    });
    socket.on('error', () => resolve(frames));
  });
}

/** The refusal admission gives variables or extensions past the nesting bound. */
function expectNestingRefusal(text: string): void {
  expect(text).not.toMatch(/RangeError|Maximum call stack|\n\s+at /);
  expect(text).not.toContain(process.cwd());
  const json = text.startsWith(':') ? text.slice(text.indexOf('data: ') + 6).split('\n')[0] : text;
  const body = JSON.parse(json ?? '') as { errors?: { extensions?: Record<string, unknown> }[] };
  expect(body.errors?.map((error) => error.extensions)).toEqual([
    { code: 'OPERATION_TOO_COMPLEX', limit: 'nesting', max: DEFAULT_LIMITS.nesting },
  ]);
}

function refusedLines(from: number) {
  return stack.log.slice(from).filter((line) => line.outcome === 'refused');
}

describe.each(PARTS)('%s nested past the bound, no token', (part) => {
  it.each(['/graphql', '/subgraph'] as const)(
    'gets 413 OPERATION_TOO_COMPLEX over POST, GET and SSE at %s, each logged',
    async (path) => {
      const url = endpoints()[path];
      const logged = stack.log.length;
      stack.sandbox.resetCalls();
      const answers = {
        post: await post(url, bodyWith(part, DEEP)),
        get: await get(url, part),
        sse: await post(url, bodyWith(part, DEEP), 'text/event-stream'),
      };
      for (const [carrier, answer] of Object.entries(answers)) {
        expect(answer.status, carrier).toBe(413);
        expect(answer.contentType, carrier).toMatch(
          carrier === 'sse' ? /^text\/event-stream/ : /^application\/(graphql-response\+)?json/,
        );
        expectNestingRefusal(answer.text);
      }
      expect(refusedLines(logged)).toHaveLength(3);
      expect(stack.sandbox.calls()).toEqual([]);
    },
  );

  it.each(['/graphql', '/subgraph'] as const)(
    'gets the same error over graphql-ws at %s, the connection kept',
    async (path) => {
      const url = stack.wsUrl.replace(/\/graphql$/, path);
      const logged = stack.log.length;
      const frames = await overWebSocket(
        url,
        `{"id":"1","type":"subscribe","payload":${bodyWith(part, DEEP)}}`,
      );
      expect(frames).toHaveLength(1);
      const frame = JSON.parse(frames[0] ?? '') as { type: string; payload: unknown };
      expect(frame.type).toBe('error');
      expect(frame.payload).toEqual([
        expect.objectContaining({
          extensions: {
            code: 'OPERATION_TOO_COMPLEX',
            limit: 'nesting',
            max: DEFAULT_LIMITS.nesting,
          },
        }),
      ]);
      expect(refusedLines(logged)).toHaveLength(1);
    },
  );
});

it('refuses each operation of a batch on its own, and answers normally afterwards', async () => {
  const body = bodyWith('variables', DEEP);
  const batch = await post(stack.url, `[${body},{"query":"{ __typename }"}]`);
  const answers = JSON.parse(batch.text) as { errors?: unknown[]; data?: unknown }[];
  expect(answers[0]?.errors).toHaveLength(1);
  expect(answers[1]?.data).toEqual({ __typename: 'Query' });
  // Variables within the bound still name an answer for the answer cache.
  const shallow = `{"query":${JSON.stringify(QUERY)},"variables":{"v":${nested(3)}}}`;
  expect((await post(stack.url, shallow)).status).toBe(200);
  expect((await fetch(new URL('/health', stack.url))).status).toBe(200);
});

it('answers a request hook that throws with a JSON 500, logged, never its stack', async () => {
  const logged = faulty.log.length;
  const answer = await post(faulty.url, '{"query":"{ __typename }"}');
  expect(answer.status).toBe(500);
  expect(answer.contentType).toMatch(/^application\/json/);
  expect(JSON.parse(answer.text)).toEqual({
    errors: [{ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
  });
  expect(answer.text).not.toContain('door hook');
  const lines = faulty.log.slice(logged).filter((line) => line.level === 'error');
  expect(lines).toEqual([expect.objectContaining({ errorType: 'TypeError' })]);
  expect(String(lines[0]?.stack)).not.toContain('door hook');
});

it('logged nothing as an internal error but that hook, and nothing on stderr', () => {
  expect(stderr).toEqual([]);
  expect(stack.log.filter((line) => line.level === 'error')).toEqual([]);
});

/** A plugin whose request hook fails as an unforeseen bug would. */
function throwingAtTheDoor(): Plugin {
  return {
    onRequest() {
      throw new TypeError('door hook failed: /secret/install/path');
    },
  };
}
