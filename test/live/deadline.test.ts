/**
 * The operation deadline (issue 8, item 5) bounds queries and mutations, not subscriptions: an
 * event that arrives long after the subscription started still resolves fields that ask the
 * upstream (here the plan's money movements, from the REST cache).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type HostileStack, startStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import {
  DEFAULT_POLL_INTERVAL_MS,
  LIVE,
  type LiveStack,
  openAccount,
  outsideWrite,
  subscribed,
} from './support/live.js';
import { sseClient, type Transport } from './support/subscribers.js';

const DEADLINE_MS = 100;

let stack: (LiveStack & HostileStack) | undefined;
let client: Transport | undefined;

afterEach(async () => {
  await client?.close();
  await stack?.close();
  stack = undefined;
  client = undefined;
});

const BALANCES = `subscription($planId: PlanId!) {
  accountBalancesChanged(planId: $planId) { planId plan { moneyMovements(first: 1) { totalCount } } }
}`;

interface BalancesChanged {
  accountBalancesChanged: { planId: string; plan: { moneyMovements: { totalCount: number } } };
}

describe('a subscription', () => {
  it('has no operation deadline: an event past it still asks the upstream', async () => {
    stack = await startStack({
      ...LIVE,
      hostile: true,
      config: { operationDeadlineMs: DEADLINE_MS },
    });
    const s = stack;
    const accountId = await openAccount(s);
    client = sseClient(s.url, s.token);
    const subscriber = client.subscribe<BalancesChanged>(BALANCES, { planId: s.planId });
    await subscribed(s, 1);
    // A query sent after the subscription began, whose upstream call never answers, ends at its
    // own deadline (on the stack's timers): the subscription's has passed by then.
    s.hostile.setRule((request) =>
      request.operationId === 'getUser' ? { kind: 'hang' } : { kind: 'pass' },
    );
    const pending = s.gql('{ user { id } }', {}, { headers: { 'cache-control': 'no-cache' } });
    await until(
      () => s.hostile.calls().some((c) => c.operationId === 'getUser' && c.action === 'hang'),
      'the query hung upstream',
    );
    await s.scheduler.advance(DEADLINE_MS);
    const late = await pending;
    expect(late.body.errors?.map((e) => e.extensions?.code)).toEqual(['UPSTREAM_UNAVAILABLE']);
    s.hostile.setRule(() => ({ kind: 'pass' }));
    s.hostile.dropOpen();
    await outsideWrite(s, accountId, 'after the deadline');
    await s.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
    const event = await subscriber.until(
      (result) => result.data !== undefined || result.errors !== undefined,
    );
    expect(event.errors).toBeUndefined();
    expect(event.data!.accountBalancesChanged.plan.moneyMovements.totalCount).toBeGreaterThan(0);
  });
});
