/**
 * A deliberately naive implementation of `PlanSnapshot.transactions(query)`: filter every
 * transaction, sort, slice. The indexed implementation must agree with it on every query.
 */
import type { PlanSnapshot, TransactionQuery, TransactionRow } from '../../../src/replica/types.js';

export interface ReferencePage {
  ids: string[];
  totalCount: number;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
}

export function referenceQuery(
  snapshot: PlanSnapshot,
  all: readonly TransactionRow[],
  query: TransactionQuery,
): ReferencePage {
  const subs = (row: TransactionRow) => snapshot.subtransactionsOf(row.id);
  const onBudget = (id: string) => snapshot.account(id)?.on_budget ?? true;
  const matches = (row: TransactionRow): boolean => {
    if (query.accountId !== undefined && row.account_id !== query.accountId) return false;
    if (
      query.categoryId !== undefined &&
      row.category_id !== query.categoryId &&
      !subs(row).some((sub) => sub.category_id === query.categoryId)
    ) {
      return false;
    }
    if (
      query.payeeId !== undefined &&
      row.payee_id !== query.payeeId &&
      !subs(row).some((sub) => sub.payee_id === query.payeeId)
    ) {
      return false;
    }
    if (query.sinceDate !== undefined && row.date < query.sinceDate) return false;
    if (query.untilDate !== undefined && row.date > query.untilDate) return false;
    if (query.type === 'unapproved' && row.approved) return false;
    if (query.type === 'uncategorized') {
      const transferToBudget =
        row.transfer_account_id !== null && onBudget(row.transfer_account_id);
      if (
        row.category_id !== null ||
        subs(row).length > 0 ||
        !onBudget(row.account_id) ||
        transferToBudget
      ) {
        return false;
      }
    }
    return true;
  };
  const sign = query.order === 'DATE_ASC' ? 1 : -1;
  const cmp = (a: { date: string; id: string }, b: { date: string; id: string }) =>
    sign * (a.date < b.date ? -1 : a.date > b.date ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const list = all.filter(matches).sort(cmp);

  let a = 0;
  let b = list.length;
  if (query.after) {
    const after = query.after;
    a = list.findIndex((row) => cmp(row, after) > 0);
    if (a < 0) a = list.length;
  }
  if (query.before) {
    const before = query.before;
    b = list.findIndex((row) => cmp(row, before) >= 0);
    if (b < 0) b = list.length;
  }
  if (b < a) b = a;
  let p = a;
  let q = b; // page = list[p, q)
  if (query.first !== undefined) q = Math.min(q, p + query.first);
  if (query.last !== undefined) p = Math.max(p, q - query.last);
  const page = list.slice(p, q);
  const backward = query.last !== undefined && query.first === undefined;
  let hasNextPage: boolean;
  let hasPreviousPage: boolean;
  if (page.length > 0) {
    hasNextPage = q < list.length;
    hasPreviousPage = p > 0;
  } else if (backward) {
    hasNextPage = b < list.length;
    hasPreviousPage = b > 0;
  } else {
    hasNextPage = a < list.length;
    hasPreviousPage = a > 0;
  }
  return { ids: page.map((row) => row.id), totalCount: list.length, hasNextPage, hasPreviousPage };
}
