/**
 * Repeated queries run compiled (graphql-jit) where they can, else through yoga's executor
 * (src/server/plugins/use-compiled-queries.ts). Whichever path runs, a client reads the same
 * answer: each operation here is sent three times to a gateway with compiled queries (its first
 * two runs are the executor's, the second followed by its compiling, the third compiled) and
 * twice to one without, over the same sandbox, and the bodies and statuses must be equal.
 */
import { parse, print } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledQueryOf } from '../../src/server/plugins/use-compiled-queries.js';
import { DashboardDocument } from '../generated/operations.js';
import { type ServedGateway, type Stack, startStack } from '../support/stack.js';

/** Counts the results a compiled query produced (graphql-jit hands each its `stringify`). */
function countCompiled(): { plugin: Plugin; count(): number } {
  let compiled = 0;
  const plugin: Plugin = {
    onExecute: () => ({
      onExecuteDone({ result }) {
        if (typeof result === 'object' && result !== null && 'stringify' in result) compiled += 1;
      },
    }),
  };
  return { plugin, count: () => compiled };
}

let stack: Stack;
let executor: ServedGateway;
const compiled = countCompiled();
// The gateway with COMPILED_QUERIES off: nothing of it may run compiled.
const uncompiled = countCompiled();

beforeAll(async () => {
  stack = await startStack({ serve: 'fetch', deps: { plugins: [compiled.plugin] } });
  executor = await stack.addGateway({
    serve: 'fetch',
    config: { compiledQueries: false },
    deps: { plugins: [uncompiled.plugin] },
  });
});

afterAll(() => stack.close());

/** The operation's answer (status, data, errors) from both gateways; fails unless the same. */
async function bothAnswer(
  body: { query: string; variables?: Record<string, unknown>; operationName?: string },
  { expectCompiled }: { expectCompiled: boolean },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const send = async (gateway: ServedGateway) => {
    const response = await gateway.fetch(gateway.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        authorization: `Bearer ${stack.token}`,
      },
      body: JSON.stringify(body),
    });
    // Extensions say what each gateway's own replica cost (calls, age): not the answer.
    const { extensions: _, ...answer } = (await response.json()) as Record<string, unknown>;
    return { status: response.status, body: answer };
  };
  const before = compiled.count();
  // A document sent once is never compiled; its first repeat is compiled after its answer went
  // out, so it runs compiled from its third run on.
  const first = await send(stack);
  expect(compiled.count() - before, 'first run compiled').toBe(0);
  const repeat = await send(stack);
  expect(compiled.count() - before, 'compiled on the first repeat').toBe(0);
  await afterAnswers();
  const fast = await send(stack);
  expect(compiled.count() - before, 'third run compiled').toBe(expectCompiled ? 1 : 0);
  const slow = await send(executor);
  expect(await send(executor)).toEqual(slow);
  expect(uncompiled.count(), 'run compiled with compiledQueries off').toBe(0);
  expect(fast).toEqual(slow);
  expect(first).toEqual(slow);
  expect(repeat).toEqual(slow);
  return fast;
}

/** Once the work queued after the answers so far has run (the compiler's, by setImmediate). */
const afterAnswers = () => new Promise<void>((resolve) => setImmediate(resolve));

const DASHBOARD = print(DashboardDocument);

describe('compiled queries', () => {
  it('answer the dashboard as the executor does, its non-null variable left to its default', async () => {
    const answer = await bothAnswer({ query: DASHBOARD }, { expectCompiled: true });
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    // Another text, so another document: its first run is the executor's again.
    await bothAnswer(
      { query: `${DASHBOARD}\n# the plan by id`, variables: { planId: stack.planId } },
      { expectCompiled: true },
    );
  });

  it('answer fragments, aliases, @include and @skip, an interface and introspection alike', async () => {
    const accounts = await stack.gql<{ plan: { accounts: { id: string }[] } }>(
      `query { plan(id: "${stack.planId}") { accounts { id } } }`,
    );
    const accountId = accounts.body.data!.plan.accounts[0]!.id;
    const query = `
      query Shapes($plan: PlanId!, $node: ID!, $withMonth: Boolean = true, $hide: Boolean!) {
        first: plan(id: $plan) { ...Names month(month: "current") @include(if: $withMonth) { month } }
        again: plan(id: $plan) { id @skip(if: $hide) transactions(first: 3, order: DATE_ASC) {
          totalCount edges { cursor node { date amount amountFormatted } } } }
        node(id: $node) { __typename id ... on Account { name balance } }
        __type(name: "Node") { kind possibleTypes { name } }
      }
      fragment Names on Plan { __typename name accounts { name onBudget } }`;
    const answer = await bothAnswer(
      { query, variables: { plan: stack.planId, node: accountId, hide: true } },
      { expectCompiled: true },
    );
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data).toMatchObject({ node: { __typename: 'Account', id: accountId } });
  });

  it('answer errors alike: a plan not found, a list item missing, where each points', async () => {
    const missing = await bothAnswer(
      {
        query: `query {
          plan(id: "7d3c0f0e-1b1a-4f7e-9a57-0c5f8b2d6a11") { name }
          other: plan(id: "${stack.planId}") { account(id: "7d3c0f0e-1b1a-4f7e-9a57-0c5f8b2d6a12") { name } }
        }`,
      },
      { expectCompiled: true },
    );
    expect(missing.body.errors).toBeDefined();
  });

  it('leave variables graphql-js refuses to the executor, which names the reason', async () => {
    const answer = await bothAnswer(
      {
        query: `query ($plan: PlanId!, $since: Date) {
          plan(id: $plan) { transactions(first: 1, sinceDate: $since) { totalCount } } }`,
        variables: { plan: stack.planId, since: '2025-02-30' },
      },
      { expectCompiled: false },
    );
    expect(answer.status).toBe(400);
  });

  it('run the operation asked for in a document of several (by the executor)', async () => {
    const query = `query A { user { id } } query B { plans { name } }`;
    const answer = await bothAnswer({ query, operationName: 'B' }, { expectCompiled: false });
    expect(answer.body.data).toHaveProperty('plans');
    await bothAnswer({ query, operationName: 'A' }, { expectCompiled: false });
  });

  it('are only queries of one operation without @defer or @stream', () => {
    const of = (text: string) => compiledQueryOf(parse(text))?.name?.value;
    expect(of('query Q { user { id } }')).toBe('Q');
    expect(of('query A { user { id } } query B { user { id } }')).toBeUndefined();
    expect(of('mutation M { __typename }')).toBeUndefined();
    expect(of('subscription S { __typename }')).toBeUndefined();
    expect(of('query D { user { ... @defer { id } } }')).toBeUndefined();
    expect(of('query S { plans @stream { id } }')).toBeUndefined();
  });
});
