import { type IncomingMessage, request } from 'node:http';
import { print } from 'graphql';
import { meros } from 'meros';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeferredDashboardDocument } from '../../examples/generated/graphql.js';
import { type Stack, startStack } from '../support/stack.js';

const DEFERRED_DASHBOARD = print(DeferredDashboardDocument);

interface Part {
  data?: { plan?: { name?: string; transactions?: unknown } };
  incremental?: {
    data: { transactions?: { nodes: unknown[] } };
    path: unknown[];
    label?: string;
  }[];
  hasNext: boolean;
}

function post(url: string, token: string, accept: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${token}` },
    });
    req.on('response', resolve).on('error', reject);
    req.end(JSON.stringify({ query: DEFERRED_DASHBOARD }));
  });
}

describe('@defer over multipart HTTP and SSE', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  it('delivers a deferred dashboard in two parts (meros), one upstream call in all', async () => {
    stack.gateway.replicas.clear();
    stack.resetUpstreamCalls();
    const response = await post(stack.url, stack.token, 'multipart/mixed');
    expect(response.headers['content-type']).toContain('multipart/mixed');
    const parts = await meros<Part>(response);
    expect(Symbol.asyncIterator in parts).toBe(true);
    const received: Part[] = [];
    for await (const part of parts as AsyncGenerator<{ json: boolean; body: Part }>) {
      expect(part.json).toBe(true);
      received.push(part.body);
    }
    expect(received).toHaveLength(2);
    const [header, rest] = received;
    expect(header!.hasNext).toBe(true);
    expect(header!.data?.plan?.name).toBeTruthy();
    expect(header!.data?.plan?.transactions).toBeUndefined();
    expect(rest!.hasNext).toBe(false);
    expect(rest!.incremental?.[0]).toMatchObject({ label: 'transactions', path: ['plan'] });
    expect(rest!.incremental?.[0]?.data.transactions?.nodes.length).toBeGreaterThan(0);
    // The deferred part read the same replica: the export the first part loaded, nothing more.
    expect(stack.upstreamCalls()).toEqual(['getPlanById']);
  });

  it('delivers the same parts as server-sent events', async () => {
    stack.gateway.replicas.clear();
    stack.resetUpstreamCalls();
    const response = await post(stack.url, stack.token, 'text/event-stream');
    expect(response.headers['content-type']).toContain('text/event-stream');
    let text = '';
    for await (const chunk of response) text += chunk;
    const events = text
      .split('\n\n')
      .filter((block) => block.startsWith('event: next'))
      .map((block) => JSON.parse(block.slice(block.indexOf('data: ') + 6)) as Part);
    expect(events.map((e) => e.hasNext)).toEqual([true, false]);
    expect(text).toContain('event: complete');
    expect(stack.upstreamCalls()).toEqual(['getPlanById']);
  });

  it('answers @defer asked for as one JSON body with 406 and an error that says what to send', async () => {
    const response = await post(stack.url, stack.token, 'application/json');
    expect(response.statusCode).toBe(406);
    expect(response.headers['content-type']).toContain('application/json');
    expect(response.headers.accept).toBe('multipart/mixed, text/event-stream');
    let text = '';
    for await (const chunk of response) text += chunk;
    const body = JSON.parse(text) as {
      errors: { message: string; extensions: { code: string } }[];
    };
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0]?.extensions.code).toBe('NOT_ACCEPTABLE');
    expect(body.errors[0]?.message).toContain('Accept: multipart/mixed');
    expect(body.errors[0]?.message).toContain('@defer');
  });
});
