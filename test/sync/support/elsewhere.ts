/**
 * Changes made behind the gateway's back, for the offline tests (test/sync, test/clients): a
 * row edited straight at the REST interface, as another device would, and the gateway's copy
 * aged past max-age so that its next read of the plan sends one delta.
 */
import type { ClockedStack, Stack } from '../../support/stack.js';

/** A transaction's memo changed straight at the REST interface; the answer's knowledge. */
export async function memoChangedElsewhere(
  stack: Stack,
  transactionId: string,
  memo: string,
): Promise<number> {
  const answer = await stack.writer.updateTransaction(
    { token: stack.token },
    { planId: stack.planId, transactionId, body: { transaction: { memo } } },
  );
  return answer.server_knowledge;
}

/** Past max-age: the gateway's next read of the plan sends one delta. */
export function aged(stack: ClockedStack): void {
  stack.clock.advance(stack.gateway.config.maxAgeMs + 1);
}

/** The transaction's memo as the upstream holds it. */
export async function memoUpstream(stack: Stack, transactionId: string): Promise<string | null> {
  const { transaction } = await stack.writer.getTransactionById(
    { token: stack.token },
    { planId: stack.planId, transactionId },
  );
  return transaction.memo ?? null;
}
