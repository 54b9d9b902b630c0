/**
 * For the suites that prove a read does not scan: a stack of one user with one large plan, and a
 * second gateway on its sandbox whose replicas count the transaction rows they visit.
 */
import { DEFAULT_HTTP_CACHING } from '../../../src/config/config.js';
import type { QueryMeter } from '../../../src/replica/transaction-query.js';
import { type ClockedStack, type ServedGateway, startStack } from '../../support/stack.js';

export interface MeteredStack {
  stack: ClockedStack;
  /** The gateway whose reads `meter` counts. */
  metered: ServedGateway;
  meter: QueryMeter;
}

/**
 * One user (`token`) with one plan of `transactions` from `seed`; no rate limit; manual clock; no
 * socket (reach the gateways with their `gql` and `fetch`).
 */
export async function startMeteredStack(
  token: string,
  plan: { seed: number; transactions: number },
): Promise<MeteredStack> {
  const stack = await startStack({
    serve: 'fetch',
    clock: 'manual',
    sandbox: { rateLimit: false, users: [{ token, plans: [plan] }] },
  });
  const meter: QueryMeter = { rowsVisited: 0 };
  // Every read executes: an answer repeated from the answer cache would visit no row.
  const metered = await stack.addGateway({
    serve: 'fetch',
    config: { httpCaching: { ...DEFAULT_HTTP_CACHING, answerMaxBytes: 0 } },
    deps: { replicaMeter: meter },
  });
  return { stack, metered, meter };
}
