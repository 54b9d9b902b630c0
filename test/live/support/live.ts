/**
 * What the live-update suites share: the stack they run on (`LIVE`: the sandbox and a gateway over
 * real HTTP and WebSocket, one manual clock that also drives the gateway's poll timers), and
 * readers and writers of the plan around it (a REST writer changes the plan behind the gateway's
 * back).
 */
import type { Sandbox } from '@plans-gateway/sandbox';
import type { TimedStack } from '../../support/stack.js';
import { until } from '../../support/wait.js';

/** `startStack({ ...LIVE, ... })`: manual clock and timers, WebSocket beside HTTP. */
export const LIVE = { clock: 'manual', timers: 'manual', serve: 'websocket' } as const;

/** With the defaults (200 an hour, share 0.5, max-age 30 s): 3,600 s / 100 polls. */
export const DEFAULT_POLL_INTERVAL_MS = 36_000;

/** What the live helpers take: a stack started with `LIVE`. */
export type LiveStack = TimedStack;

/** Waits until the hub holds `count` subscribers. */
export function subscribed(stack: LiveStack, count: number): Promise<void> {
  return until(
    () => stack.gateway.live.stats().subscribers === count,
    () => `${count} subscribers (have ${stack.gateway.live.stats().subscribers})`,
  );
}

/** The knowledge of the stack's plan as a query reads it (loading or syncing the replica). */
export async function knowledgeOf(stack: LiveStack): Promise<number> {
  const answer = await stack.gql<{ plan: { serverKnowledge: number } }>(
    'query($planId: PlanId!) { plan(id: $planId) { serverKnowledge } }',
    { planId: stack.planId },
  );
  return answer.body.data!.plan.serverKnowledge;
}

/** Operation ids of the sandbox calls presented with `token` (all when omitted), deltas marked. */
export function callsOf(sandbox: Sandbox, token?: string): string[] {
  return sandbox
    .calls()
    .filter((call) => token === undefined || call.token === token)
    .map(
      (call) =>
        `${call.operationId ?? call.path}${call.query.last_knowledge_of_server === undefined ? '' : `@${call.query.last_knowledge_of_server}`}`,
    );
}

/** An open on-budget account of the plan, read straight from the REST interface. */
export async function openAccount(
  stack: LiveStack,
  token = stack.token,
  planId = stack.planId,
): Promise<string> {
  const { accounts } = await stack.writer.getAccounts({ token }, { planId });
  const account = accounts.find((a) => !a.closed && !a.deleted && a.on_budget);
  if (!account) throw new Error(`plan ${planId} has no open on-budget account`);
  return account.id;
}

/** A transaction created straight at the REST interface, behind the gateway's back. */
export async function outsideWrite(
  stack: LiveStack,
  accountId: string,
  memo: string,
  { amount = -12_340, token = stack.token, planId = stack.planId } = {},
): Promise<{ id: string; serverKnowledge: number }> {
  const today = new Date(stack.clock.now()).toISOString().slice(0, 10);
  const created = await stack.writer.createTransaction(
    { token },
    { planId, body: { transaction: { account_id: accountId, date: today, amount, memo } } },
  );
  return { id: created.transaction!.id, serverKnowledge: created.server_knowledge };
}
