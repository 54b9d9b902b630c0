/**
 * Failures over GraphQL over WebSocket stay with the operation that met them (issue 18, item 8):
 * the gateway's own failure fails that one operation with INTERNAL_SERVER_ERROR, logged as a
 * JSON line through the gateway's logger (stack frames, never the message), and the connection
 * carries on; a message over the body limit closes its connection with 1009, logged as a
 * warning. Nothing is printed to stderr. Hostile documents and tokens: admission-matrix.test.ts.
 */

import { createClient } from 'graphql-ws';
import type { Plugin } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { DEFAULT_LIMITS, DEFAULT_LIVE } from '../../src/config/config.js';
import { startStack, type TimedStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import { postOperation, wsConnection } from './support/transports.js';

const SECRET = 'secret-in-a-message-0123456789';

/** Fails building the context of an operation named Boom, as a bug of the gateway's would. */
const boom: Plugin = {
  onContextBuilding({ context }) {
    const params = (context as { params?: { query?: string } }).params;
    if (params?.query?.startsWith('query Boom'))
      throw new Error(`boom at https://upstream/?t=${SECRET}`);
  },
};

let front: TimedStack;
const printed: string[] = [];

beforeAll(async () => {
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    printed.push(args.map(String).join(' '));
  });
  // Manual timers: a connection's idle time passes only as a test advances it.
  front = await startStack({
    clock: 'manual',
    timers: 'manual',
    serve: 'websocket',
    log: true,
    config: { limits: { ...DEFAULT_LIMITS, bodyBytes: 16 * 1024 } },
    deps: { plugins: [boom] },
  });
});

afterAll(async () => {
  await front?.close();
  vi.restoreAllMocks();
});

const token = () => front.token;

describe('GraphQL over WebSocket', () => {
  it('fails only the operation the gateway failed, logs it as JSON, and keeps the connection', async () => {
    const ws = wsConnection(front.wsUrl, { token: token() });
    try {
      const failed = await ws.send({ query: 'query Boom { __typename }' });
      expect(failed.codes).toEqual(['INTERNAL_SERVER_ERROR']);
      const next = await ws.send({ query: 'query Fine { user { id } }' });
      expect(next).toMatchObject({ codes: [], data: true });
      expect(ws.closes).toEqual([]);
    } finally {
      await ws.close();
    }
    // The same failure over HTTP, for comparison: masked alike.
    const overHttp = await postOperation(front.url, {
      query: 'query Boom { __typename }',
      token: token(),
    });
    expect(overHttp.codes).toEqual(['INTERNAL_SERVER_ERROR']);

    // One line for each failure, over WebSocket and over HTTP.
    const internal = front.log.filter((line) => line.level === 'error');
    expect(internal).toHaveLength(2);
    for (const line of internal) {
      expect(line).toMatchObject({ errorType: 'Error', stack: expect.stringContaining('at ') });
    }
    expect(JSON.stringify(front.log)).not.toContain(SECRET);
    expect(printed).toEqual([]);
  });

  it('closes a connection whose message is over the body limit with 1009, logged as a warning', async () => {
    const ws = wsConnection(front.wsUrl, { token: token() });
    try {
      const outcome = await ws.send({
        query: '{ __typename }',
        variables: { padding: 'x'.repeat(20 * 1024) },
      });
      expect(outcome.closed).toBe(1009);
    } finally {
      await ws.close();
    }
    expect(front.log).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        msg: 'websocket connection failed',
        transport: 'websocket',
      }),
    );
    expect(printed).toEqual([]);
  });

  it('closes a connection that only ever had operations refused once it has been idle', async () => {
    const { idleTimeoutMs } = DEFAULT_LIVE;
    const ws = wsConnection(front.wsUrl, { token: 'tøken' });
    try {
      for (let i = 0; i < 3; i++) {
        expect((await ws.send({ query: '{ user { id } }' })).codes).toEqual(['UNAUTHENTICATED']);
        // Refused operations neither keep it open nor restart its idle time.
        await front.scheduler.advance(idleTimeoutMs / 4);
      }
      expect(ws.closes).toEqual([]);
      await front.scheduler.advance(idleTimeoutMs / 4);
      await until(() => ws.closes.length > 0, 'the idle connection closed');
      expect(ws.closes).toEqual([1000]);
    } finally {
      await ws.close();
    }
  });
});

describe('the token on the upgrade request', () => {
  /** One query over a connection whose upgrade carries `headers` and no connectionParams. */
  const queryWith = async (url: string, headers: Record<string, string>) => {
    const closes: number[] = [];
    const client = createClient({
      url,
      webSocketImpl: class extends WebSocket {
        constructor(address: string | URL, protocols?: string | string[]) {
          super(address, protocols, { headers });
        }
      },
      retryAttempts: 0,
      on: { closed: (event) => closes.push((event as { code: number }).code) },
    });
    try {
      const result = await new Promise<{ data?: unknown; codes: unknown[] }>((resolve) => {
        client.subscribe(
          { query: '{ user { id } }' },
          {
            next: (value) =>
              resolve({
                data: value.data,
                codes: (value.errors ?? []).map((e) => e.extensions?.code),
              }),
            error: (error) =>
              resolve({
                codes: Array.isArray(error)
                  ? error.map((e: { extensions?: { code?: unknown } }) => e.extensions?.code)
                  : [`closed ${(error as { code?: number }).code}`],
              }),
            complete: () => {},
          },
        );
      });
      return { ...result, closes };
    } finally {
      await client.dispose();
    }
  };

  it('authenticates with `Authorization: Bearer` on the upgrade, as server-side clients send it', async () => {
    const answer = await queryWith(front.wsUrl, { authorization: `Bearer ${token()}` });
    expect(answer).toMatchObject({ codes: [], data: { user: { id: expect.any(String) } } });
    expect(answer.closes).toEqual([]);
  });

  it('authenticates with `access_token` in the upgrade URL, as over HTTP', async () => {
    const answer = await queryWith(`${front.wsUrl}?access_token=${token()}`, {});
    expect(answer).toMatchObject({ codes: [], data: { user: { id: expect.any(String) } } });
  });

  it('refuses a token the upgrade carries that cannot be one, and keeps the connection', async () => {
    const answer = await queryWith(front.wsUrl, { authorization: 'Bearer not-a-token' });
    expect(answer.codes).toEqual(['UNAUTHENTICATED']);
    expect(answer.closes).toEqual([]);
  });
});
