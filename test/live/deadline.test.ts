/**
 * The operation deadline (issue 8, item 5) bounds queries and mutations, not subscriptions: an
 * event that arrives long after the subscription started still resolves fields that ask the
 * upstream (here the plan's money movements, from the REST cache).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startStack } from '../support/stack.js';
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

let stack: LiveStack | undefined;
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
    stack = await startStack({ ...LIVE, config: { operationDeadlineMs: DEADLINE_MS } });
    const s = stack;
    const accountId = await openAccount(s);
    client = sseClient(s.url, s.token);
    const subscriber = client.subscribe<BalancesChanged>(BALANCES, { planId: s.planId });
    await subscribed(s, 1);
    // The operation began before the hub held it; wait past its deadline from then, in real time
    // (the deadline is not on the manual clock).
    const held = Date.now();
    await until(() => Date.now() - held > DEADLINE_MS, 'the operation deadline to pass');
    await outsideWrite(s, accountId, 'after the deadline');
    await s.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
    const event = await subscriber.until(
      (result) => result.data !== undefined || result.errors !== undefined,
    );
    expect(event.errors).toBeUndefined();
    expect(event.data!.accountBalancesChanged.plan.moneyMovements.totalCount).toBeGreaterThan(0);
  });
});
