/**
 * Resuming (see README.md here, "Resume"): what a subscriber missed after its `since`, as items
 * over one replica version, cut into bounded events by `ChangeParts`. Nothing is built ahead:
 * each event resolves its own rows when the subscriber asks for it.
 *
 * - `since: 0` (or below anything): the whole plan, from the replica alone. A client at 0 holds
 *   nothing, so no deletion concerns it.
 * - A knowledge the change log reaches back to: the keys of its entries after `since`, in
 *   knowledge order, each resolved against the replica (rows as a query reads them, ids it no
 *   longer holds as deleted). An id also in a later entry is sent with that one, and after each
 *   entry the events reach its knowledge: a client that drops mid-replay resumes from there.
 * - Older than the log: one delta from `since` first, the channel's next poll (replay.ts does
 *   not fetch; see `backfill` in hub.ts), after which the log reaches back to it.
 * - A log entry that stands for everything (a large backfill): the whole plan, then the ids its
 *   entries say are gone.
 */

import { allTransactions, type ChangeKeys, type PlanDeletions } from '../replica/changes.js';
import type { PlanSnapshot } from '../replica/types.js';
import type { ChangeLog, LogEntry } from './change-log.js';
import { type ChangeItem, ChangeParts, type RowSizes } from './parts.js';

/** What a replay from some knowledge is made of. */
export interface ReplayPlan {
  /** The whole plan first (then only the deletions of `entries`). */
  readonly everything: boolean;
  /** The log entries after the replay's knowledge, oldest first. */
  readonly entries: readonly LogEntry[];
}

/** How the log replays from `since`; undefined when it does not reach back that far. */
export function replayPlan(log: ChangeLog, since: number): ReplayPlan | undefined {
  if (since <= 0) return { everything: true, entries: [] };
  const entries = log.entriesAfter(since);
  if (entries === undefined) return undefined;
  return { everything: entries.some((entry) => entry.everything), entries };
}

/** The events of a replay from `since` to the knowledge of `at`, resolved against `at`. */
export function replayParts(
  at: PlanSnapshot,
  since: number,
  plan: ReplayPlan,
  sizes: RowSizes,
): ChangeParts {
  return new ChangeParts(
    replayItems(at, plan),
    {
      planId: at.planId,
      origin: 'REPLAY',
      from: since,
      to: at.serverKnowledge,
      previous: since,
      ...(plan.everything ? { wholePlan: true } : {}),
    },
    sizes,
  );
}

/** The items of a replay, in knowledge order. */
export function* replayItems(at: PlanSnapshot, plan: ReplayPlan): Generator<ChangeItem> {
  const { entries } = plan;
  if (plan.everything) {
    yield* everythingIn(at);
    for (let i = 0; i < entries.length; i++) yield* keyedItems(at, entries, i, true);
    return;
  }
  for (let i = 0; i < entries.length; i++) {
    yield* keyedItems(at, entries, i, false);
    yield { kind: 'reached', knowledge: entries[i]!.to };
  }
}

/** Private: every row of the plan, parents first. */
function* everythingIn(at: PlanSnapshot): Generator<ChangeItem> {
  for (const row of at.accounts()) yield { kind: 'row', field: 'accounts', row };
  for (const row of at.categoryGroups()) yield { kind: 'row', field: 'categoryGroups', row };
  for (const row of at.categories()) yield { kind: 'row', field: 'categories', row };
  for (const row of at.months()) {
    yield { kind: 'row', field: 'months', row };
    for (const category of at.categories(row.month)) {
      if (category.month === row.month) {
        yield { kind: 'row', field: 'monthCategories', row: category };
      }
    }
  }
  for (const row of at.payees()) yield { kind: 'row', field: 'payees', row };
  for (const row of allTransactions(at)) {
    yield { kind: 'transaction', row, lines: at.subtransactionsOf(row.id) };
  }
  for (const row of at.scheduledTransactions()) {
    yield { kind: 'row', field: 'scheduledTransactions', row };
  }
}

/** Private: the ids of a plain collection, the row-finder and the deletion field of each. */
const PLAIN = [
  ['accounts', 'accountIds', (at: PlanSnapshot, id: string) => at.account(id)],
  ['categoryGroups', 'categoryGroupIds', (at: PlanSnapshot, id: string) => at.categoryGroup(id)],
  ['categories', 'categoryIds', (at: PlanSnapshot, id: string) => at.category(id)],
  ['months', 'months', (at: PlanSnapshot, month: string) => at.month(month)],
  ['payees', 'payeeIds', (at: PlanSnapshot, id: string) => at.payee(id)],
] as const satisfies readonly (readonly [keyof ChangeKeys, keyof PlanDeletions, unknown])[];

/**
 * Private: entry `i`'s keys resolved against `at`, skipping ids a later entry sends again;
 * `goneOnly`: only the ids `at` no longer holds (the rows came with the whole plan).
 */
function* keyedItems(
  at: PlanSnapshot,
  entries: readonly LogEntry[],
  i: number,
  goneOnly: boolean,
): Generator<ChangeItem> {
  const keys = entries[i]!.keys;
  const later = (ids: (keys: ChangeKeys) => ReadonlySet<string> | undefined, id: string) => {
    for (let j = i + 1; j < entries.length; j++) if (ids(entries[j]!.keys)?.has(id)) return true;
    return false;
  };
  for (const [collection, field, find] of PLAIN) {
    for (const id of keys[collection]) {
      if (later((k) => k[collection], id)) continue;
      const row = find(at, id);
      if (row === undefined) yield { kind: 'gone', field, id };
      else if (!goneOnly) yield { kind: 'row', field: collection, row } as ChangeItem;
    }
  }
  if (!goneOnly) {
    for (const [month, ids] of keys.monthCategories) {
      for (const id of ids) {
        if (later((k) => k.monthCategories.get(month), id)) continue;
        // A month the replica lacks falls back to the current month's row: not this month's.
        const row = at.category(id, month);
        if (row !== undefined && row.month === month) {
          yield { kind: 'row', field: 'monthCategories', row };
        }
      }
    }
  }
  for (const id of keys.transactions) {
    if (later((k) => k.transactions, id)) continue;
    const row = at.transaction(id);
    // Filed where it was before the first entry that touched it: nowhere, if that one made it.
    const before = entries.find((entry) => entry.keys.transactions.has(id))?.keys.before.get(id);
    if (row === undefined) yield { kind: 'gone', field: 'transactionIds', id, before };
    else if (!goneOnly) {
      yield { kind: 'transaction', row, lines: at.subtransactionsOf(id), before };
    }
  }
  for (const id of keys.scheduledTransactions) {
    if (later((k) => k.scheduledTransactions, id)) continue;
    const row = at.scheduledTransaction(id);
    if (row === undefined) yield { kind: 'gone', field: 'scheduledTransactionIds', id };
    else if (!goneOnly) yield { kind: 'row', field: 'scheduledTransactions', row };
  }
}
