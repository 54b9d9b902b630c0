/**
 * Helpers that read a replica in full, for comparing two replicas or checking one against a
 * brute-force model.
 */
import type { PlanState } from '../../../src/replica/plan-state.js';
import type { PlanSnapshot, TransactionRow } from '../../../src/replica/types.js';

/** Everything a snapshot says, as plain data (transactions in (date, id) order). */
export function dumpSnapshot(snapshot: PlanSnapshot) {
  const transactions = snapshot.transactions({ order: 'DATE_ASC' }).rows;
  return {
    planId: snapshot.planId,
    serverKnowledge: snapshot.serverKnowledge,
    info: snapshot.info,
    accounts: snapshot.accounts(),
    payees: snapshot.payees(),
    payeeLocations: snapshot.payeeLocations(),
    categoryGroups: snapshot.categoryGroups(),
    categories: snapshot.categories('2000-01-01'),
    months: snapshot.months(),
    monthCategories: Object.fromEntries(
      snapshot.months().map((m) => [m.month, snapshot.categories(m.month)]),
    ),
    transactions,
    subtransactions: Object.fromEntries(
      transactions
        .filter((t) => snapshot.subtransactionsOf(t.id).length > 0)
        .map((t) => [t.id, snapshot.subtransactionsOf(t.id)]),
    ),
    scheduledTransactions: snapshot.scheduledTransactions(),
    scheduledSubtransactions: Object.fromEntries(
      snapshot
        .scheduledTransactions()
        .map((s) => [s.id, snapshot.scheduledSubtransactionsOf(s.id)]),
    ),
  };
}

/** The content of every transaction index, as arrays of ids. */
export function dumpIndexes(state: PlanState) {
  const ids = (rows: Iterable<TransactionRow>) => [...rows].map((row) => row.id);
  const family = (lists: PlanState['transactionsByAccount']) =>
    Object.fromEntries(
      [...lists].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, list]) => [key, ids(list)]),
    );
  return {
    byDate: ids(state.transactionsByDate),
    byAccount: family(state.transactionsByAccount),
    byCategory: family(state.transactionsByCategory),
    byPayee: family(state.transactionsByPayee),
    subtransactionCount: state.subtransactions.size,
    transactionCount: state.transactions.size,
  };
}
