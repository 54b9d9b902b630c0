/**
 * Transaction scopes: the fields the five lists filter on. The lists match a transaction's current
 * scope; a delta request also matches the scopes it had before changes made after the client's
 * knowledge, so a transaction that left a filtered list (another month, account, category,
 * payee, or approved) still reaches the client, which filters it out again.
 */
import type { PlanStore } from './plan-store.js';
import type { TransactionRecord, TransactionScope } from './records.js';

/** True for a transaction nobody categorized: see the list rules in handlers/transactions-read.ts. */
export function isUncategorized(store: PlanStore, tx: TransactionRecord): boolean {
  if (tx.category_id !== null || tx.subtransactions.length > 0) return false;
  if (!store.accounts.get(tx.account_id)?.on_budget) return false;
  return !(
    tx.transfer_account_id !== null && store.accounts.get(tx.transfer_account_id)?.on_budget
  );
}

export function scopeOf(
  store: PlanStore,
  tx: TransactionRecord,
  knowledge: number,
): TransactionScope {
  const isSplit = tx.subtransactions.length > 0;
  return {
    knowledge,
    date: tx.date,
    accountId: tx.account_id,
    categoryIds: isSplit ? tx.subtransactions.map((sub) => sub.category_id) : [tx.category_id],
    payeeIds: [tx.payee_id, ...tx.subtransactions.map((sub) => sub.payee_id)],
    approved: tx.approved,
    uncategorized: isUncategorized(store, tx),
  };
}

/** Call before changing any scope field: keeps the scope as it was before the running change. */
export function rememberScope(store: PlanStore, tx: TransactionRecord): void {
  // A silent change (an injected fault) leaves nothing for deltas to find, this included.
  if (store.silent) return;
  const knowledge = store.changeKnowledge;
  // Already remembered in this change, or created by it (then no client saw an earlier scope).
  if (tx.knowledge === knowledge) return;
  tx.formerScopes ??= [];
  tx.formerScopes.push(scopeOf(store, tx, knowledge));
}

/** The scopes a delta since `since` must consider: the current one and those left after `since`. */
export function scopesSince(
  store: PlanStore,
  tx: TransactionRecord,
  since: number | null,
): TransactionScope[] {
  const current = scopeOf(store, tx, tx.knowledge);
  if (since === null || !tx.formerScopes) return [current];
  return [current, ...tx.formerScopes.filter((scope) => scope.knowledge > since)];
}
