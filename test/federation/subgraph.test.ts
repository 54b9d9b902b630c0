/**
 * The subgraph endpoint (issue 21): `/subgraph` serves the graph as a Federation v2 subgraph on
 * the gateway's port, with the same graph, admission path, door and transports as `/graphql`,
 * whose own surface stays as it was.
 */
import { readFileSync } from 'node:fs';
import { printSubgraphSchema } from '@apollo/subgraph';
import { isIntrospectionType, lexicographicSortSchema, printType } from 'graphql';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { schema, subgraphSchema } from '../../src/schema/index.js';
import { dataOf } from '../gateway/support/responses.js';
import { LIVE } from '../live/support/live.js';
import { sseClient, wsClient } from '../live/support/subscribers.js';
import { startStack, type TimedStack } from '../support/stack.js';
import { subgraphGql, subgraphUrl } from './support/subgraph.js';

let stack: TimedStack;
beforeAll(async () => {
  stack = await startStack({ ...LIVE, sandbox: { rateLimit: false } });
});
afterAll(() => stack.close());

const SERVICE = '{ _service { sdl } }';

describe('the subgraph schema', () => {
  it('answers _service with the committed subgraph.graphql, as Apollo prints it', async () => {
    const answer = await subgraphGql<{ _service: { sdl: string } }>(stack, SERVICE, {}, null);
    const sdl = dataOf(answer)._service.sdl;
    expect(sdl).toBe(printSubgraphSchema(subgraphSchema()));
    expect(`${sdl}\n`).toBe(
      readFileSync(new URL('../../subgraph.graphql', import.meta.url), 'utf8'),
    );
  });

  it('is the graph, type for type, plus _service, _entities and their types', () => {
    // The subgraph's types are sorted (fields, values), the graph's in the order written.
    const graph = lexicographicSortSchema(schema);
    const graphTypes = Object.values(graph.getTypeMap()).filter((t) => !isIntrospectionType(t));
    const query = graph.getQueryType()!;
    for (const type of graphTypes) {
      if (type === query) continue;
      expect(printType(subgraphSchema().getType(type.name)!)).toBe(printType(type));
    }
    const extraTypes = Object.keys(subgraphSchema().getTypeMap()).filter(
      (name) => !schema.getType(name),
    );
    expect(extraTypes.sort()).toEqual(['_Any', '_Entity', '_Service']);
    const subgraphQuery = subgraphSchema().getQueryType()!.getFields();
    const graphQuery = query.getFields();
    for (const [name, field] of Object.entries(graphQuery))
      expect(String(subgraphQuery[name]?.type)).toBe(String(field.type));
    expect(
      Object.keys(subgraphQuery)
        .filter((name) => !(name in graphQuery))
        .sort(),
    ).toEqual(['_entities', '_service']);
  });
});

describe('the graph endpoint', () => {
  it('stays as it was: no _service or _entities at /graphql', async () => {
    for (const query of [SERVICE, '{ _entities(representations: []) { __typename } }']) {
      const answer = await stack.gql(query);
      expect(answer.status).toBe(400);
      expect(answer.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    }
  });
});

describe('one gateway, two endpoints', () => {
  const DASHBOARD = /* GraphQL */ `
    query ($planId: PlanId!) {
      plan(id: $planId) {
        id
        name
        accounts { id planId name balance }
        transactions(first: 20) { nodes { id amount payee { name } } }
      }
    }
  `;

  it('answers the graph at /subgraph as at /graphql, from the same replica', async () => {
    const direct = await stack.gql(DASHBOARD, { planId: stack.planId });
    stack.resetUpstreamCalls();
    const viaSubgraph = await subgraphGql(stack, DASHBOARD, { planId: stack.planId }, stack.token);
    expect(dataOf(viaSubgraph)).toEqual(dataOf(direct));
    expect(stack.upstreamCalls()).toEqual([]);
  });

  it('admits the operations of /subgraph by the same limits', async () => {
    const deep = `{ plan(id: "last-used") { accounts { ${'transferPayee { transferAccount { '.repeat(6)}id${' } }'.repeat(6)} } } }`;
    for (const answer of [await stack.gql(deep), await subgraphGql(stack, deep, {}, stack.token)]) {
      expect(answer.status).toBe(400);
      expect(answer.body.errors?.[0]?.extensions).toMatchObject({
        code: 'OPERATION_TOO_COMPLEX',
        limit: 'depth',
      });
    }
  });

  it("answers through the gateway's door: request id, CORS and compression", async () => {
    const preflight = await fetch(subgraphUrl(stack), {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');

    const response = await fetch(subgraphUrl(stack), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'accept-encoding': 'gzip',
        'x-request-id': 'router-fetch-42',
        authorization: `Bearer ${stack.token}`,
      },
      body: JSON.stringify({ query: SERVICE }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('router-fetch-42');
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(
      ((await response.json()) as { data: { _service: { sdl: string } } }).data._service.sdl,
    ).toContain('@key(fields: "planId id")');
  });

  it('streams subscriptions at /subgraph over SSE and WebSocket, as a router subscribes', async () => {
    const query = `subscription ($planId: PlanId!) { planChanged(planId: $planId, since: 0) { origin accounts { id planId } } }`;
    const sse = sseClient(subgraphUrl(stack), stack.token);
    const ws = wsClient(subgraphUrl(stack).replace('http:', 'ws:'), stack.token);
    try {
      for (const transport of [sse, ws]) {
        const subscriber = transport.subscribe<{
          planChanged: { origin: string; accounts: { planId: string }[] };
        }>(query, { planId: stack.planId });
        const event = await subscriber.until(
          (r) => (r.data?.planChanged.accounts.length ?? 0) > 0,
          'a replay of the accounts',
        );
        expect(event.data?.planChanged.origin).toBe('REPLAY');
        expect(event.data?.planChanged.accounts[0]?.planId).toBe(stack.planId);
        subscriber.stop();
      }
      // Over WebSocket too, /subgraph serves the subgraph schema, under the same admission.
      const service = ws.subscribe<{ _service: { sdl: string } }>(SERVICE);
      expect((await service.until((r) => r.data !== undefined)).data?._service.sdl).toContain(
        '@link',
      );
    } finally {
      await sse.close();
      await ws.close();
    }
  });
});

describe('a router subscribing over WebSocket', () => {
  it("takes the token from the upgrade's Authorization header at /subgraph, as routers forward it", async () => {
    const withHeader = (authorization: string | null) =>
      class extends WebSocket {
        constructor(url: string | URL, protocols?: string | string[]) {
          super(url, protocols, { headers: authorization ? { authorization } : {} });
        }
      };
    const query = `subscription ($planId: PlanId!) { planChanged(planId: $planId, since: 0) { origin } }`;
    const open = (url: string, authorization: string | null) =>
      createClient({ url, webSocketImpl: withHeader(authorization), retryAttempts: 0, lazy: true });
    const first = (client: ReturnType<typeof open>) =>
      new Promise<{ data?: unknown; errors?: { extensions?: Record<string, unknown> }[] }>(
        (resolve, reject) => {
          const stop = client.subscribe(
            { query, variables: { planId: stack.planId } },
            {
              next: (value) => {
                stop();
                resolve(value as { data?: unknown });
              },
              error: (error) => resolve({ errors: Array.isArray(error) ? error : [] }),
              complete: () => reject(new Error('completed without an event')),
            },
          );
        },
      );
    const wsUrl = (path: string) => `${stack.wsUrl.replace(/\/graphql$/, '')}${path}`;
    const routed = open(wsUrl('/subgraph'), `Bearer ${stack.token}`);
    const anonymous = open(wsUrl('/subgraph'), null);
    try {
      expect((await first(routed)).data).toEqual({ planChanged: { origin: 'REPLAY' } });
      // Without a token anywhere, none.
      expect((await first(anonymous)).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    } finally {
      await Promise.all([routed.dispose(), anonymous.dispose()]);
    }
  });
});

describe('settings', () => {
  it('serves no /subgraph with SUBGRAPH off, and /graphql as before', async () => {
    const gateway = await stack.addGateway({ serve: 'websocket', config: { subgraph: false } });
    const answer = await fetch(subgraphUrl(gateway), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: SERVICE }),
    });
    expect(answer.status).toBe(404);
    expect(
      (await gateway.gql('{ plan(id: "last-used") { name } }', {}, { token: stack.token })).status,
    ).toBe(200);
    const ws = wsClient(subgraphUrl(gateway).replace('http:', 'ws:'), stack.token);
    const refused = ws.subscribe(SERVICE);
    expect(await refused.finished).toMatchObject({ error: expect.anything() });
    await ws.close();
  });

  it('refuses _service with INTROSPECTION off, and still resolves entities', async () => {
    const gateway = await stack.addGateway({ serve: 'fetch', config: { introspection: false } });
    const refused = await subgraphGql(gateway, SERVICE, {}, null);
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]).toMatchObject({
      extensions: { code: 'INTROSPECTION_DISABLED' },
    });
    expect(refused.body.errors?.[0]?.message).toContain('subgraph.graphql');
    const found = await subgraphGql<{ _entities: unknown[] }>(
      gateway,
      'query ($r: [_Any!]!) { _entities(representations: $r) { ... on Plan { id } } }',
      { r: [{ __typename: 'Plan', id: stack.planId }] },
      stack.token,
    );
    expect(dataOf(found)._entities).toEqual([{ id: stack.planId }]);
  });
});
