import { expect } from 'vitest';
import type { ServedGateway } from '../../support/stack.js';
import { until } from '../../support/wait.js';
import {
  callsOf,
  DEFAULT_POLL_INTERVAL_MS,
  type LiveStack,
  openAccount,
  outsideWrite,
} from './live.js';
import { sseClient, type Transport, wsClient } from './subscribers.js';

interface PlanChanged {
  planChanged: { serverKnowledge: number; transactions: { id: string; memo: string | null }[] };
}
const PLAN_CHANGED = `subscription($planId: PlanId!) {
  planChanged(planId: $planId) { serverKnowledge transactions { id memo } }
}`;

/**
 * What every way of sharing live updates between two instances must do: with a subscriber on
 * each (SSE on the first, a WebSocket on the second), two outside writes are each polled once in
 * all and reach both subscribers. `keep` receives the clients, for the caller to close.
 */
export async function expectOnePollPerChangeOnBoth(
  s: LiveStack,
  second: ServedGateway,
  keep: (client: Transport) => void,
): Promise<void> {
  const accountId = await openAccount(s);
  const sse = sseClient(s.url, s.token);
  const ws = wsClient(second.wsUrl, s.token);
  keep(sse);
  keep(ws);
  const onFirst = sse.subscribe<PlanChanged>(PLAN_CHANGED, { planId: s.planId });
  const onSecond = ws.subscribe<PlanChanged>(PLAN_CHANGED, { planId: s.planId });
  await until(
    () => s.gateway.live.stats().subscribers === 1 && second.gateway.live.stats().subscribers === 1,
    'one subscriber on each instance',
  );
  for (let round = 1; round <= 2; round += 1) {
    const written = await outsideWrite(s, accountId, `round ${round}`);
    s.sandbox.resetCalls();
    await s.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
    for (const subscriber of [onFirst, onSecond]) {
      const event = await subscriber.until((r) =>
        r.data!.planChanged.transactions.some((tx) => tx.id === written.id),
      );
      expect(event.data!.planChanged.serverKnowledge).toBe(written.serverKnowledge);
    }
    expect(callsOf(s.sandbox, s.token)).toEqual([expect.stringMatching(/^getPlanById@\d+$/)]);
  }
}
