/**
 * What one `_entities` request may cost upstream (issue 29). Each plan a representation names
 * that the token holds no replica of costs a call, so an operation may name at most as many of
 * them as `plan(id:)` aliases may (`limits.aliases`, 30), across every `_entities` field it
 * has; the token's own plans, once held, do not count. 2,000 representations of distinct plan
 * ids used to make 2,000 upstream GETs in one request. And no call is sent that the token's
 * request ledger has no room for: past the upstream's 200 an hour, representations answer
 * `RATE_LIMITED` from the ledger, and the upstream sees no request it refuses with 429.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/config/config.js';
import { type Stack, startStack } from '../support/stack.js';
import { entities, subgraphGql } from './support/subgraph.js';

const MAX = DEFAULT_LIMITS.aliases;
const madeUp = (count: number) =>
  Array.from({ length: count }, () => ({ __typename: 'Plan', id: randomUUID() }));

interface Errors {
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}
const codesOf = (body: Errors) => (body.errors ?? []).map((error) => error.extensions?.code);

describe('distinct plans not held, per operation', () => {
  let stack: Stack;
  let ownPlans: readonly string[];

  beforeAll(async () => {
    stack = await startStack({
      sandbox: {
        users: [{ token: 'cold-plans-token-0001', plans: [{ seed: 3 }, { seed: 4 }] }],
        rateLimit: false,
      },
    });
    ownPlans = stack.sandbox.users[0]?.planIds ?? [];
  });

  afterAll(() => stack.close());

  it('refuses 2,000 representations of distinct plans before any upstream call', async () => {
    stack.resetUpstreamCalls();
    const { body } = await entities(stack, madeUp(2_000), '__typename', stack.token);
    expect(body.errors).toEqual([
      expect.objectContaining({
        extensions: { code: 'OPERATION_TOO_COMPLEX', limit: 'plans', value: 2_000, max: MAX },
      }),
    ]);
    expect(stack.upstreamCalls()).toEqual([]);
  });

  it(`reads ${MAX} plans not held, one call each, and refuses ${MAX + 1}`, async () => {
    stack.resetUpstreamCalls();
    const refused = await entities(stack, madeUp(MAX + 1), '__typename', stack.token);
    expect(codesOf(refused.body)).toEqual(['OPERATION_TOO_COMPLEX']);
    expect(stack.upstreamCalls()).toEqual([]);
    const read = await entities(stack, madeUp(MAX), '__typename', stack.token);
    // Unknown plans: each resolves to null after its one call (404).
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data?._entities).toEqual(Array(MAX).fill(null));
    expect(stack.upstreamCalls()).toHaveLength(MAX);
  });

  it('counts across every _entities field of the operation, and each plan once', async () => {
    stack.resetUpstreamCalls();
    const first = madeUp(20);
    // The same plans again in the second field count once; 11 more pass the bound.
    const second = [...first, ...madeUp(11)];
    const { body } = await subgraphGql<{ a: unknown[] | null; b: unknown[] | null }>(
      stack,
      'query ($a: [_Any!]!, $b: [_Any!]!) { a: _entities(representations: $a) { __typename } b: _entities(representations: $b) { __typename } }',
      { a: first, b: second },
      stack.token,
    );
    // `_entities` is non-null: the refusal of the second nulls the answer.
    expect(body.data).toBeNull();
    expect(codesOf(body)).toEqual(['OPERATION_TOO_COMPLEX']);
    // The first field's 20 plans were read (their reads started before the second was refused).
    expect(stack.upstreamCalls()).toHaveLength(20);
  });

  it("does not count the token's plans it holds a replica of", async () => {
    for (const planId of ownPlans)
      await subgraphGql(
        stack,
        'query ($id: PlanId!) { plan(id: $id) { id } }',
        { id: planId },
        stack.token,
      );
    stack.resetUpstreamCalls();
    const held = ownPlans.map((id) => ({ __typename: 'Plan', id }));
    const { body } = await entities(
      stack,
      [...held, ...madeUp(MAX)],
      '... on Plan { id }',
      stack.token,
    );
    expect(body.errors).toBeUndefined();
    expect(body.data?._entities.slice(0, held.length)).toEqual(ownPlans.map((id) => ({ id })));
    expect(stack.upstreamCalls()).toHaveLength(MAX);
  });
});

describe("the token's ledger", () => {
  let stack: Stack;

  beforeAll(async () => {
    // The upstream's own quota, as the gateway's ledger counts it (200 an hour by default).
    stack = await startStack({ sandbox: { rateLimit: { limit: 200 } } });
  });

  afterAll(() => stack.close());

  it('sends no call past it: RATE_LIMITED from the ledger, no 429 from the upstream', async () => {
    stack.resetUpstreamCalls();
    const codes: unknown[] = [];
    for (let request = 0; request < 8; request++) {
      const { body } = await entities(stack, madeUp(MAX), '__typename', stack.token);
      codes.push(...codesOf(body));
    }
    const calls = stack.sandbox.calls();
    expect(calls).toHaveLength(200);
    expect(calls.filter((call) => call.status === 429)).toEqual([]);
    // 8 x 30 representations: 200 answered by the upstream (null: no such plan), 40 not sent.
    expect(codes).toEqual(Array(8 * MAX - 200).fill('RATE_LIMITED'));
    const usage = stack.gateway.ledger.usage(stack.tokenKey);
    expect(usage).toMatchObject({ used: 200, remaining: 0 });
    // The token's rateLimit says the same; the next read is answered from the ledger at once.
    const { body } = await entities(stack, madeUp(1), '__typename', stack.token);
    expect(body.errors?.[0]?.message).toMatch(/^Not sent: this token has made the 200 requests/);
    expect(stack.sandbox.calls()).toHaveLength(200);
  });
});
