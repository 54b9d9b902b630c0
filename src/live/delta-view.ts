/**
 * A delta fetched straight from the upstream (to replay what a resuming subscriber missed when
 * the change log does not reach back far enough), seen as rows: the delta's own rows where it has
 * them (it is newer than the replica for what it carries; `deleted: true` means gone), the
 * replica's for everything else. Only used to resolve the delta's own keys.
 */
import type { PlanDetail } from '@plans-gateway/rest-contract';
import type { PlanSnapshot } from '../replica/types.js';
import type { RowSource } from './changes.js';

export function deltaView(plan: PlanDetail, replica: PlanSnapshot): RowSource {
  const planId = plan.id;
  const scoped = <T extends object>(row: T): T & { plan_id: string } => ({
    plan_id: planId,
    ...row,
  });
  /** Private: undefined = the delta does not carry it; null = the delta deleted it. */
  const index = <T extends { id: string; deleted: boolean }>(rows: readonly T[]) =>
    new Map(rows.map((row) => [row.id, row.deleted ? null : scoped(row)] as const));
  const fromDelta = <T>(row: T | null | undefined, fallback: () => T | undefined) =>
    row === null ? undefined : (row ?? fallback());

  const accounts = index(plan.accounts);
  const groups = index(plan.category_groups);
  const payees = index(plan.payees);
  const transactions = index(plan.transactions);
  const scheduled = index(plan.scheduled_transactions);
  const currentMonth = replica.currentMonth();
  const categories = new Map(
    plan.categories.map((row) => [
      row.id,
      row.deleted ? null : { plan_id: planId, month: currentMonth, ...row },
    ]),
  );
  const months = new Map(
    plan.months.map(({ categories: monthCategories, ...summary }) => [
      summary.month,
      {
        summary: summary.deleted ? null : scoped(summary),
        categories: new Map(
          monthCategories.map((row) => [
            row.id,
            row.deleted ? null : { plan_id: planId, month: summary.month, ...row },
          ]),
        ),
      },
    ]),
  );

  return {
    account: (id) => fromDelta(accounts.get(id), () => replica.account(id)),
    categoryGroup: (id) => fromDelta(groups.get(id), () => replica.categoryGroup(id)),
    category(id, month) {
      if (month !== undefined && month !== currentMonth) {
        const inMonth = months.get(month);
        if (inMonth?.summary === null) return undefined;
        return fromDelta(inMonth?.categories.get(id), () => replica.category(id, month));
      }
      return fromDelta(categories.get(id), () => replica.category(id, month));
    },
    month: (month) => fromDelta(months.get(month)?.summary, () => replica.month(month)),
    payee: (id) => fromDelta(payees.get(id), () => replica.payee(id)),
    transaction: (id) => fromDelta(transactions.get(id), () => replica.transaction(id)),
    subtransactionsOf(id) {
      const lines = new Map(replica.subtransactionsOf(id).map((sub) => [sub.id, sub] as const));
      for (const sub of plan.subtransactions) {
        if (sub.transaction_id !== id) continue;
        if (sub.deleted) lines.delete(sub.id);
        else lines.set(sub.id, scoped(sub));
      }
      return [...lines.values()];
    },
    scheduledTransaction: (id) =>
      fromDelta(scheduled.get(id), () => replica.scheduledTransaction(id)),
  };
}
