/**
 * Hive Gateway configured for HTTP callback subscriptions in front of `/subgraph` (issue 36):
 * a client's `planChanged` through the router arrives end to end over the callback protocol
 * (the gateway's `check`, then `next` posts to the router's webhooks endpoint), a write arrives
 * as its event, and a router that stops answering is let go within the heartbeat window, its
 * share of the poller freed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIVE } from '../../src/config/config.js';
import { LIVE, openAccount, subscribed } from '../live/support/live.js';
import { sseClient } from '../live/support/subscribers.js';
import { startStack, type TimedStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import { PLANS_SDL } from './support/federation.js';
import { compose, type Router, startCallbackRouter } from './support/router.js';
import { subgraphUrl } from './support/subgraph.js';

/** The gateway's longest heartbeat interval: Hive Gateway's (ten minutes here) is cut to it. */
const GATEWAY_HEARTBEAT_MS = DEFAULT_LIVE.maxCallbackHeartbeatMs;

let stack: TimedStack;
let router: Router & { readonly callbackUrl: string };
beforeAll(async () => {
  stack = await startStack({
    ...LIVE,
    config: { live: { ...DEFAULT_LIVE, callbackAllowPrivateTargets: true } },
  });
  const composed = compose('guild', [{ name: 'plans', url: subgraphUrl(stack), sdl: PLANS_SDL }]);
  if ('errors' in composed) throw new Error(composed.errors.join('; '));
  // Hive Gateway's own heartbeat timeout runs on real time: long enough never to fire here.
  router = await startCallbackRouter(composed.supergraphSdl, { heartbeatMs: 600_000 });
});
afterAll(async () => {
  await router.close();
  await stack.close();
});

interface PlanChanged {
  planChanged: { origin: string; transactions: { id: string; memo: string | null }[] };
}

describe('Hive Gateway with HTTP callback subscriptions', () => {
  it('delivers planChanged end to end by callback, then lets a silent router go', async () => {
    const sse = sseClient(router.url, stack.token);
    const subscriber = sse.subscribe<PlanChanged>(
      `subscription ($planId: PlanId!) {
        planChanged(planId: $planId, since: 0) { origin transactions { id memo } }
      }`,
      { planId: stack.planId },
    );
    try {
      const replay = await subscriber.until(
        (r) => r.data?.planChanged.origin === 'REPLAY',
        'the replay through the router',
      );
      expect(replay.errors).toBeUndefined();
      expect(stack.gateway.callbacks?.stats().active).toBe(1);
      expect(stack.gateway.live.stats()).toMatchObject({ channels: 1, subscribers: 1 });

      const accountId = await openAccount(stack);
      const written = await stack.gql<{ createTransaction: { transaction: { id: string } } }>(
        `mutation ($planId: PlanId!, $account: UUID!) {
          createTransaction(planId: $planId, input: { accountId: $account, date: "2025-06-15", amount: -2500, memo: "through callbacks" }) {
            ... on CreateTransactionPayload { transaction { id } }
          }
        }`,
        { planId: stack.planId, account: accountId },
      );
      const createdId = written.body.data!.createTransaction.transaction.id;
      const event = await subscriber.until(
        // A WRITE event, or the replay when it read the plan after the write.
        (r) => r.data?.planChanged.transactions.some((t) => t.id === createdId) ?? false,
        'the write through the router',
      );
      expect(event.data?.planChanged.transactions.find((t) => t.id === createdId)?.memo).toBe(
        'through callbacks',
      );
    } finally {
      subscriber.stop();
      await sse.close();
    }

    // The router goes away without a word (its port closed): the next heartbeat is not
    // answered, and the subscription ends with its share of the poller.
    await router.close();
    await stack.scheduler.advance(GATEWAY_HEARTBEAT_MS);
    await until(() => stack.gateway.callbacks?.stats().active === 0, 'the subscription ended');
    await subscribed(stack, 0);
    expect(stack.gateway.live.stats().channels).toBe(0);
    expect(stack.gateway.callbacks?.stats().ended.unanswered).toBe(1);
  });
});
