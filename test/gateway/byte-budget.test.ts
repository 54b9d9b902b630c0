/**
 * The replicas of all tokens share one byte budget (`replicaMaxBytes`). Loading more plans than
 * fit evicts the least recently read: reading an evicted plan costs a full export again, a
 * recently read one costs nothing, and the budget holds after every step.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClockedStack, startStack } from '../support/stack.js';
import { planSyncs } from './support/calls.js';
import { dataOf } from './support/responses.js';

const ALICE = 'alice-token-0000000001';
const BOB = 'bob-token-00000000002';
const CAROL = 'carol-token-0000000003';

let stack: ClockedStack;
/** Each plan by a short name, with the token that owns it. */
const plans = new Map<string, { token: string; id: string }>();
/** The replica store's estimate for each plan, measured by a gateway with room for all. */
const sizes = new Map<string, number>();

const READ =
  'query($planId: PlanId!) { plan(id: $planId) { id accounts { id } transactions(first: 5) { nodes { id } } } }';

beforeAll(async () => {
  stack = await startStack({
    serve: 'fetch',
    clock: 'manual',
    sandbox: {
      rateLimit: false,
      users: [
        {
          token: ALICE,
          plans: [
            { seed: 1, transactions: 300 },
            { seed: 2, transactions: 300 },
          ],
        },
        { token: BOB, plans: [{ seed: 3, transactions: 300 }] },
        { token: CAROL, plans: [{ seed: 4, transactions: 300 }] },
      ],
    },
  });
  const [alice, bob, carol] = stack.sandbox.users;
  plans.set('A1', { token: ALICE, id: alice!.planIds[0]! });
  plans.set('A2', { token: ALICE, id: alice!.planIds[1]! });
  plans.set('B', { token: BOB, id: bob!.planIds[0]! });
  plans.set('C', { token: CAROL, id: carol!.planIds[0]! });

  // The stack's own gateway has room for every plan: it measures each.
  for (const [name, plan] of plans) {
    const before = stack.gateway.replicas.stats().bytes;
    dataOf(await stack.gql(READ, { planId: plan.id }, { token: plan.token }));
    sizes.set(name, stack.gateway.replicas.stats().bytes - before);
  }
});

afterAll(() => stack.close());

describe('the replica byte budget at the gateway', () => {
  it('evicts the least recently read replica across tokens and reloads it in full', async () => {
    const largest = Math.max(...sizes.values());
    const smallest = Math.min(...sizes.values());
    const budget = Math.floor(2.5 * largest);
    // Two replicas always fit, three never do.
    expect(2 * largest).toBeLessThanOrEqual(budget);
    expect(3 * smallest).toBeGreaterThan(budget);

    const front = await stack.addGateway({ serve: 'fetch', config: { replicaMaxBytes: budget } });
    const read = async (name: string, headers: Record<string, string> = {}) => {
      const plan = plans.get(name)!;
      stack.sandbox.resetCalls();
      const response = await front.gql<{ plan: { id: string } }>(
        READ,
        { planId: plan.id },
        { token: plan.token, headers },
      );
      expect(dataOf(response).plan.id).toBe(plan.id);
      const stats = front.gateway.replicas.stats();
      expect(stats.bytes).toBeLessThanOrEqual(budget);
      expect(stats.replicas).toBeLessThanOrEqual(2);
      return planSyncs(stack.sandbox.calls());
    };

    try {
      expect(await read('A1')).toEqual([null]);
      expect(await read('B')).toEqual([null]);
      stack.clock.advance(1_000);
      expect(await read('A1')).toEqual([]); // A1 is now the most recent
      expect(await read('C')).toEqual([null]); // evicts B
      expect(front.gateway.replicas.stats()).toEqual({
        replicas: 2,
        bytes: sizes.get('A1')! + sizes.get('C')!,
      });

      expect(await read('A1')).toEqual([]);
      expect(await read('B')).toEqual([null]); // evicted: a full export again; evicts C
      expect(await read('A1')).toEqual([]);
      expect(await read('A2')).toEqual([null]); // Alice's second plan evicts B
      expect(await read('C')).toEqual([null]); // evicts A1
      expect(await read('A2')).toEqual([]);
      expect(await read('A1')).toEqual([null]); // evicts C

      // A resident replica past max-age costs a delta, not an export.
      stack.clock.advance(60_000);
      const delta = await read('A2');
      expect(delta).toHaveLength(1);
      expect(delta[0]).toEqual(expect.any(Number));
    } finally {
      await front.close();
    }
  });

  it('refuses a plan larger than the whole budget once, naming the setting, and not again', async () => {
    const front = await stack.addGateway({
      serve: 'fetch',
      config: { replicaMaxBytes: Math.floor(Math.min(...sizes.values()) / 2) },
    });
    try {
      const plan = plans.get('B')!;
      // The export read stops at what the budget can hold: one call, not retried.
      const calls: (number | null)[][] = [];
      for (let i = 0; i < 2; i += 1) {
        stack.sandbox.resetCalls();
        const response = await front.gql(READ, { planId: plan.id }, { token: plan.token });
        const [error] = response.body.errors ?? [];
        expect(error?.extensions?.code).toBe('UPSTREAM_ERROR');
        expect(error?.message).toMatch(/REPLICA_MAX_MB setting bounds it/);
        calls.push(planSyncs(stack.sandbox.calls()));
        expect(front.gateway.replicas.stats()).toEqual({ replicas: 0, bytes: 0 });
      }
      // The second operation does not download it again: too large is deterministic.
      expect(calls).toEqual([[null], []]);
    } finally {
      await front.close();
    }
  });
});
