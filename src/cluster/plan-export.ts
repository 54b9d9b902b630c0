/**
 * A replica written back as the plan export it stands for: what the snapshot tier stores, so an
 * instance that starts or takes over a token rebuilds the replica with `buildPlanState` (through
 * `ReplicaStore.applyRelayed`) instead of downloading the export again.
 *
 * Read through the public `PlanSnapshot` view only, never the replica's internals: whatever the
 * replica answers is what a rebuilt replica answers. Rows lose the keys the replica adds
 * (`plan_id`, and `month` on category rows); deleted entities are not in a replica, so none are
 * written (a full export never holds them either).
 */

import type { SubTransactionBase, TransactionSummaryBase } from '@plans-gateway/rest-contract';
import type { ExportCategory, PlanExport, PlanSnapshot } from '../replica/types.js';

export function planExportOf(snapshot: PlanSnapshot): PlanExport {
  const transactions: TransactionSummaryBase[] = [];
  const subtransactions: SubTransactionBase[] = [];
  for (const row of snapshot.transactions({ order: 'DATE_ASC' }).rows) {
    transactions.push(unscoped(row));
    for (const sub of snapshot.subtransactionsOf(row.id)) subtransactions.push(unscoped(sub));
  }
  const scheduled = snapshot.scheduledTransactions();
  const months: PlanExport['plan']['months'] = snapshot.months().map((row) => ({
    ...unscoped(row),
    // A month without category rows of its own falls back to the top-level ones: not its own.
    categories: snapshot
      .categories(row.month)
      .filter((category) => category.month === row.month)
      .map(categoryOf),
  }));
  return {
    server_knowledge: snapshot.serverKnowledge,
    plan: {
      ...snapshot.info,
      accounts: snapshot.accounts().map(unscoped),
      payees: snapshot.payees().map(unscoped),
      payee_locations: snapshot.payeeLocations().map(unscoped),
      category_groups: snapshot.categoryGroups().map(unscoped),
      categories: snapshot.categories().map(categoryOf),
      months,
      transactions,
      subtransactions,
      scheduled_transactions: scheduled.map(unscoped),
      scheduled_subtransactions: scheduled.flatMap((row) =>
        snapshot.scheduledSubtransactionsOf(row.id).map(unscoped),
      ),
    },
  };
}

// Private: a row without the plan id the replica adds to every row.
function unscoped<T extends { plan_id: string }>(row: T): Omit<T, 'plan_id'> {
  const { plan_id: _, ...rest } = row;
  return rest;
}

// Private: a category row without the replica's `plan_id` and `month` labels.
function categoryOf(row: ExportCategory & { plan_id: string; month: string }): ExportCategory {
  const { plan_id: _, month: __, ...rest } = row;
  return rest;
}
