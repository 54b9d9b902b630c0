/**
 * A clocked stack with a large plan, and a second gateway on its sandbox whose replicas count the
 * transaction rows they visit (`QueryMeter`), for the suites that prove a read does not scan.
 */
import type { QueryMeter } from '../../../src/replica/transaction-query.js';
import { startGateway } from '../../support/stack.js';
import { type ClockedStack, startClockedStack } from './clocked-stack.js';

export interface MeteredStack {
  stack: ClockedStack;
  /** The gateway whose reads `meter` counts. */
  metered: Awaited<ReturnType<typeof startGateway>>;
  meter: QueryMeter;
  planId: string;
  close(): Promise<void>;
}

/** One user (`token`) with one plan of `transactions` from `seed`; no rate limit. */
export async function startMeteredStack(
  token: string,
  { seed, transactions }: { seed: number; transactions: number },
): Promise<MeteredStack> {
  const meter: QueryMeter = { rowsVisited: 0 };
  const stack = await startClockedStack({
    sandbox: { rateLimit: false, users: [{ token, plans: [{ seed, transactions }] }] },
  });
  const metered = await startGateway(stack.sandbox, {
    deps: { now: () => stack.clock.now(), replicaMeter: meter },
  });
  return {
    stack,
    metered,
    meter,
    planId: stack.sandbox.users[0]!.planIds[0]!,
    async close() {
      await metered.close();
      await stack.close();
    },
  };
}
