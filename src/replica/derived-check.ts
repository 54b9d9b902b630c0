/**
 * Pure: the check of the derived rows writes applied on their own (`SavedEntities.derived`,
 * computed by `local-effects.ts`) against the delta that confirms those writes.
 *
 * A delta asked from the replica's knowledge carries every row the upstream changed since, so:
 * - a derived row the delta carries is replaced by the delta's (the merge does it); when nothing
 *   but those writes happened in between (the delta's knowledge is the last of theirs), a row it
 *   carries that differs from the replica's (derived or not) is drift;
 * - a derived row the delta does not carry was not changed upstream: it goes back to what it
 *   was before the first of those writes, and counts as drift if it had moved.
 *
 * Derived transactions (a transfer's other side) and payees (created by name) are checked the
 * same way, by their ids only (the delta's other transactions are the writes' own answers); a
 * row that was not there before is `deleted: true` in `previous`, and an absent row equals a
 * deleted one.
 */

import type { Payee, TransactionSummaryBase } from '@plans-gateway/rest-contract';
import { sameRow } from './drift.js';
import type { PlanState } from './plan-state.js';
import type { DerivedRowSet, DriftKind, PlanExport } from './types.js';

export interface DerivedCheck {
  /** The rows to put back after the merge (derived rows the delta did not carry). */
  readonly restore: DerivedRowSet;
  /** Rows found different, by kind; empty when the local arithmetic agreed. */
  readonly drift: Partial<Record<DriftKind, number>>;
}

/** What the confirming writes need of a pending write. */
export interface ConfirmedWrite {
  readonly knowledge: number | undefined;
  readonly derived?: { readonly previous: DerivedRowSet } & DerivedRowSet;
}

/**
 * The check of `confirmed` (the writes with derived rows this delta includes, in the order they
 * were applied) against `delta`, the replica being `held` before the merge. Undefined when
 * none of them has derived rows.
 */
export function checkDerived(
  held: PlanState,
  delta: PlanExport,
  confirmed: readonly ConfirmedWrite[],
): DerivedCheck | undefined {
  const withRows = confirmed.filter((write) => write.derived !== undefined);
  if (withRows.length === 0) return undefined;
  const drift: Partial<Record<DriftKind, number>> = {};
  const count = (kind: DriftKind) => {
    drift[kind] = (drift[kind] ?? 0) + 1;
  };
  const carried = carriedKeys(delta);
  const exact =
    withRows.length === confirmed.length &&
    delta.server_knowledge === Math.max(...withRows.map((write) => write.knowledge ?? -1));
  if (exact) {
    for (const row of delta.plan.accounts) {
      const mine = held.accounts.get(row.id);
      if (mine && !sameRow('accounts', mine, row)) count('accounts');
    }
    for (const month of delta.plan.months) {
      const mine = held.months.get(month.month);
      if (mine && !sameRow('months', mine, month)) count('months');
      const table = held.monthCategories.get(month.month);
      for (const category of month.categories) {
        const row = table?.get(category.id);
        if (row && !sameRow('monthCategories', row, category)) count('monthCategories');
      }
    }
    const carriedTransactions = new Map(delta.plan.transactions.map((row) => [row.id, row]));
    const carriedPayees = new Map(delta.plan.payees.map((row) => [row.id, row]));
    for (const write of withRows) {
      for (const { id } of write.derived?.transactions ?? []) {
        const row = carriedTransactions.get(id);
        if (row && !sameOrGone('transactions', held.transactions.get(id), row))
          count('transactions');
      }
      for (const { id } of write.derived?.payees ?? []) {
        const row = carriedPayees.get(id);
        if (row && !sameOrGone('payees', held.payees.get(id), row)) count('payees');
      }
    }
  }
  // The first write's `previous` is what the upstream held before them all.
  const restore = { accounts: new Map(), months: new Map(), monthCategories: new Map() } as {
    accounts: Map<string, DerivedRowSet['accounts'][number]>;
    months: Map<string, DerivedRowSet['months'][number]>;
    monthCategories: Map<string, DerivedRowSet['monthCategories'][number]>;
  };
  const transactions = new Map<string, TransactionSummaryBase>();
  const payees = new Map<string, Payee>();
  for (const write of withRows) {
    const previous = write.derived?.previous;
    for (const row of previous?.transactions ?? []) {
      if (!carried.has(`t/${row.id}`) && !transactions.has(row.id)) transactions.set(row.id, row);
    }
    for (const row of previous?.payees ?? []) {
      if (!carried.has(`p/${row.id}`) && !payees.has(row.id)) payees.set(row.id, row);
    }
    for (const row of previous?.accounts ?? []) {
      if (!carried.has(`a/${row.id}`) && !restore.accounts.has(row.id))
        restore.accounts.set(row.id, row);
    }
    for (const row of previous?.months ?? []) {
      if (!carried.has(`m/${row.month}`) && !restore.months.has(row.month))
        restore.months.set(row.month, row);
    }
    for (const entry of previous?.monthCategories ?? []) {
      const key = `c/${entry.month}/${entry.category.id}`;
      if (!carried.has(key) && !restore.monthCategories.has(key))
        restore.monthCategories.set(key, entry);
    }
  }
  for (const row of restore.accounts.values()) {
    const mine = held.accounts.get(row.id);
    if (mine && !sameRow('accounts', mine, row)) count('accounts');
  }
  for (const row of restore.months.values()) {
    const mine = held.months.get(row.month);
    if (mine && !sameRow('months', mine, row)) count('months');
  }
  for (const { month, category } of restore.monthCategories.values()) {
    const mine = held.monthCategories.get(month)?.get(category.id);
    if (mine && !sameRow('monthCategories', mine, category)) count('monthCategories');
  }
  for (const row of transactions.values()) {
    if (!sameOrGone('transactions', held.transactions.get(row.id), row)) count('transactions');
  }
  for (const row of payees.values()) {
    if (!sameOrGone('payees', held.payees.get(row.id), row)) count('payees');
  }
  return {
    restore: {
      accounts: [...restore.accounts.values()],
      months: [...restore.months.values()],
      monthCategories: [...restore.monthCategories.values()],
      ...(transactions.size > 0 ? { transactions: [...transactions.values()] } : {}),
      ...(payees.size > 0 ? { payees: [...payees.values()] } : {}),
    },
    drift,
  };
}

/** Private: whether the replica's row (absent when removed) is `row` (deleted: absent). */
function sameOrGone(
  kind: 'transactions' | 'payees',
  mine: object | undefined,
  row: { readonly deleted: boolean },
): boolean {
  if (row.deleted || mine === undefined) return row.deleted && mine === undefined;
  return sameRow(kind, mine, row);
}

/** Private: the keys of the rows a delta carries. */
function carriedKeys(delta: PlanExport): Set<string> {
  const keys = new Set<string>();
  for (const row of delta.plan.accounts) keys.add(`a/${row.id}`);
  for (const row of delta.plan.transactions) keys.add(`t/${row.id}`);
  for (const row of delta.plan.payees) keys.add(`p/${row.id}`);
  for (const month of delta.plan.months) {
    keys.add(`m/${month.month}`);
    for (const category of month.categories) keys.add(`c/${month.month}/${category.id}`);
  }
  return keys;
}
