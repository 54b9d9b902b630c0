/**
 * What a write changed, for its payload's `changes`: the accounts, categories (with the current
 * month's amounts), month categories and months whose rows differ between the replica before
 * the write and the replica after it (its answer applied, then its delta sync). Derived values
 * the REST answer does not carry (balances, activity, month totals) come from the delta, so a
 * client's normalized cache can take them without a refetch.
 *
 * The comparison covers every row of those collections of both snapshots (a plan has tens of
 * accounts and categories, times its months), never the transactions; rows unchanged since the
 * earlier snapshot are the same objects, so most comparisons end at identity. Whatever else the
 * delta brought (another client's change) is listed too: it is also news to the cache.
 */
import type { IsoDate } from '@plans-gateway/rest-contract';
import { type ChangeKeys, changedKeys, emptyKeys, resolveKeys } from '../replica/changes.js';
import type { AccountRow, CategoryRow, MonthRow, PlanSnapshot } from '../replica/types.js';

export interface WriteChanges {
  readonly accounts: readonly AccountRow[];
  /** With the amounts of the current month. */
  readonly categories: readonly CategoryRow[];
  /** Category rows of the months whose amounts changed (`month` says which). */
  readonly monthCategories: readonly CategoryRow[];
  readonly months: readonly MonthRow[];
}

/** The rows of `after` that differ from `before` (two versions of one plan's replica). */
export function changesBetween(before: PlanSnapshot, after: PlanSnapshot): WriteChanges {
  const keys = emptyKeys();
  for (const snapshot of [before, after]) noteBudgetRows(keys, snapshot);
  const change = resolveKeys(changedKeys(keys, before, after), after, {
    planId: after.planId,
    origin: 'WRITE',
    serverKnowledge: after.serverKnowledge,
    previousServerKnowledge: before.serverKnowledge,
  });
  return {
    accounts: change.accounts,
    categories: change.categories,
    monthCategories: change.monthCategories,
    months: change.months,
  };
}

// Private: the keys of a snapshot's accounts, categories, months and their category rows.
function noteBudgetRows(keys: ChangeKeys, snapshot: PlanSnapshot): void {
  for (const row of snapshot.accounts()) keys.accounts.add(row.id);
  for (const row of snapshot.categories()) keys.categories.add(row.id);
  for (const { month } of snapshot.months()) {
    keys.months.add(month);
    const ids = monthIds(keys, month);
    for (const row of snapshot.categories(month)) if (row.month === month) ids.add(row.id);
  }
}

// Private: the category ids noted for a month, made on first use.
function monthIds(keys: ChangeKeys, month: IsoDate): Set<string> {
  let ids = keys.monthCategories.get(month);
  if (!ids) {
    ids = new Set();
    keys.monthCategories.set(month, ids);
  }
  return ids;
}
