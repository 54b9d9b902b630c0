/**
 * The price of an operation in its answer, named as routers name theirs (`extensions.cost`:
 * `estimated`, `max`), and the cost limit's `measure` mode: an operation over the limit runs and
 * its log line says what enforcing would have answered (docs/federation.md#demand-control,
 * docs/operating.md `COST_LIMIT_MODE`).
 */
import { type ExecutionResult, parse } from 'graphql';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { introspectionSizes, pricedOperation } from '../../src/admission/operation-cost.js';
import { bearer } from '../../src/admission/presented.js';
import { DEFAULT_LIMITS } from '../../src/config/config.js';
import { parseSettings } from '../../src/config/settings.js';
import { priceOf } from '../../src/schema/cost.js';
import { schema } from '../../src/schema/index.js';
import { prepareOperation } from '../../src/server/run-operation.js';
import { type Stack, startStack } from '../support/stack.js';

const OVER =
  '{ plan(id: "last-used") { accounts { transactions(first: 500) { nodes { id amount memo } } } } }';
const SMALL = '{ plan(id: "last-used") { name accounts { name } } }';
const LIMIT = 5_000;

const priceOfQuery = (query: string) =>
  pricedOperation(schema, parse(query), null, {}, priceOf, introspectionSizes(schema)).cost!
    .complexity;

function stackWith(costMode: 'enforce' | 'measure') {
  return startStack({
    log: true,
    serve: 'websocket',
    config: { limits: { ...DEFAULT_LIMITS, complexity: LIMIT, costMode } },
  });
}

describe('extensions.cost', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await stackWith('enforce');
  });
  afterAll(() => stack.close());

  it("answers the operation's price and the limit, as Hive Gateway and Apollo Router name them", async () => {
    const response = await stack.gql(SMALL);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.extensions?.cost).toEqual({
      estimated: priceOfQuery(SMALL),
      max: LIMIT,
    });
  });

  it('enforces: an operation over the limit is refused before any upstream call', async () => {
    stack.resetUpstreamCalls();
    const response = await stack.gql(OVER);
    expect(response.body.errors?.[0]?.extensions).toMatchObject({
      code: 'OPERATION_TOO_COMPLEX',
      limit: 'cost',
      value: priceOfQuery(OVER),
      max: LIMIT,
    });
    expect(stack.upstreamCalls()).toEqual([]);
  });
});

describe('COST_LIMIT_MODE=measure', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await stackWith('measure');
  });
  afterAll(() => stack.close());

  it('runs an operation over the limit and logs what enforcing would have answered', async () => {
    const response = await stack.gql(OVER);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data).toMatchObject({ plan: { accounts: expect.any(Array) } });
    expect(response.body.extensions?.cost).toEqual({
      estimated: priceOfQuery(OVER),
      max: LIMIT,
      mode: 'measure',
    });
    const line = stack.log.find((entry) => entry.msg === 'operation' && entry.wouldRefuse);
    expect(line).toMatchObject({
      level: expect.anything(),
      outcome: 'ok',
      wouldRefuse: { limit: 'cost', value: priceOfQuery(OVER), max: LIMIT },
    });
  });

  it('logs nothing of the kind for an operation within the limit', async () => {
    const before = stack.log.filter((entry) => entry.wouldRefuse).length;
    const response = await stack.gql(SMALL);
    expect(response.body.errors).toBeUndefined();
    expect(stack.log.filter((entry) => entry.wouldRefuse)).toHaveLength(before);
  });

  it('keeps the other limits enforced', async () => {
    const levels = 6;
    const deep = `{ plan(id: "last-used") { accounts { ${'transferPayee { transferAccount { '.repeat(levels)}name${' } }'.repeat(levels)} } } }`;
    const response = await stack.gql(deep);
    expect(response.body.errors?.[0]?.extensions).toMatchObject({
      code: 'OPERATION_TOO_COMPLEX',
      limit: 'depth',
    });
  });
});

/** What both transports answer, as far as these tests read it. */
interface Answer {
  readonly errors?: unknown;
  readonly extensions?: { readonly cost?: unknown } | undefined;
}

/** One operation over WebSocket (graphql-transport-ws), its first result. */
async function overWebSocket(
  stack: Stack,
  query: string,
): Promise<Pick<ExecutionResult, 'extensions'> & { errors?: unknown }> {
  const client = createClient({
    url: stack.wsUrl,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${stack.token}` },
    retryAttempts: 0,
  });
  try {
    const results = client.iterate({ query });
    for await (const result of results) return result as Answer;
    throw new Error('no result over WebSocket');
  } finally {
    await client.dispose();
  }
}

/** One operation through the path MCP tools, resources and webhooks share (run-operation.ts). */
async function throughRunOperation(stack: Stack, query: string): Promise<Answer> {
  const prepared = await prepareOperation(stack.gateway, { query, presented: bearer(stack.token) });
  if (!prepared.ok) throw new Error(`refused: ${JSON.stringify(prepared.errors)}`);
  return (await prepared.execute()) as Answer;
}

describe('the price over the other transports (COST_LIMIT_MODE=measure)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await stackWith('measure');
  });
  afterAll(() => stack.close());

  const cases = [
    ['WebSocket', overWebSocket],
    ['MCP (run-operation)', throughRunOperation],
  ] as const;
  for (const [name, run] of cases) {
    it(`${name}: the answer carries extensions.cost and the log line wouldRefuse`, async () => {
      const before = stack.log.filter((entry) => entry.wouldRefuse).length;
      const result = await run(stack, OVER);
      expect(result.errors).toBeUndefined();
      expect(result.extensions?.cost).toEqual({
        estimated: priceOfQuery(OVER),
        max: LIMIT,
        mode: 'measure',
      });
      const lines = stack.log.filter((entry) => entry.msg === 'operation' && entry.wouldRefuse);
      expect(lines).toHaveLength(before + 1);
      expect(lines.at(-1)).toMatchObject({
        outcome: 'ok',
        wouldRefuse: { limit: 'cost', value: priceOfQuery(OVER), max: LIMIT },
      });
    });
  }
});

describe('the COST_LIMIT_MODE setting', () => {
  const settingsOf = (value?: string) => {
    const parsed = parseSettings([], value === undefined ? {} : { COST_LIMIT_MODE: value });
    return parsed;
  };

  it('is enforce by default, measure on request, and refuses anything else by name', () => {
    const byDefault = settingsOf();
    expect(byDefault.kind === 'run' && byDefault.settings.costLimitMode).toBe('enforce');
    const measure = settingsOf('MEASURE');
    expect(measure.kind === 'run' && measure.settings.costLimitMode).toBe('measure');
    expect(settingsOf('log')).toEqual({
      kind: 'error',
      message: 'COST_LIMIT_MODE must be enforce or measure; got "log"',
    });
  });
});
