/**
 * The `changes` query (issue 35): what changed in a plan since a client's cursor, from the
 * (token, plan) change log the subscriptions keep (change-log.ts), resolved against the replica
 * as the operation read it (replay.ts), in pages as bounded as a subscription's replay events
 * (parts.ts). It never calls the upstream itself: the operation's one read of the plan does
 * what the freshness rules allow (nothing within max-age, one delta past it).
 *
 * - Without `since`: no rows, and the cursor of the replica's knowledge. From then on the change
 *   log of that (token, plan) is kept (started here when no subscription keeps one), so the next
 *   call is answered from it.
 * - A cursor the log reaches back to: the keys of its entries after the cursor, as rows as they
 *   are now and the ids that are gone; a page that does not hold them all says `hasMore` and its
 *   cursor continues within the same replica version (or, the replica moved on meanwhile, starts
 *   over from the same knowledge: rows are upserts, so a repeat is harmless).
 * - A cursor the log does not reach (too old, issued before a restart or by an instance that
 *   kept another log, a replica reloaded in full): `reload`, never a partial delta.
 */

import { emptyPlanChange, type PlanChange } from '../replica/changes.js';
import type { PlanSnapshot } from '../replica/types.js';
import type { ChangeLog, LogEntry } from './change-log.js';
import type { ChangeItem } from './parts.js';
import { ChangeParts, type EventLimits, type RowSizes } from './parts.js';
import { replayItems, replayPlan } from './replay.js';
import type { CursorState } from './sync-cursor.js';

export type SyncAnswer =
  | {
      readonly kind: 'page';
      readonly change: PlanChange;
      readonly next: CursorState;
      readonly hasMore: boolean;
    }
  | { readonly kind: 'reload'; readonly next: CursorState };

/**
 * The page after `state` (undefined: the current cursor and nothing else) over `at`, the plan as
 * the operation read it, which shows every effect up to knowledge `now` (its own, or past it by
 * the writes on top of it the log holds), from `log` (the (token, plan) log, kept at least from
 * `at` on).
 */
export function syncPage(
  at: PlanSnapshot,
  now: number,
  log: ChangeLog,
  state: CursorState | undefined,
  { limits, sizes }: { limits: EventLimits; sizes: RowSizes },
): SyncAnswer {
  const current: CursorState = { since: now };
  if (state === undefined)
    return { kind: 'page', change: emptyChange(at, now), next: current, hasMore: false };
  const { since } = state;
  // A cursor ahead of this replica (another instance's, further along): it holds all this one
  // would send; later entries cover what comes after it.
  if (since >= now)
    return { kind: 'page', change: emptyChange(at, since), next: { since }, hasMore: false };
  const plan = replayPlan(log, since);
  // A log behind the replica missed something (a gap): only a reload is exact.
  if (plan === undefined || log.knowledge < now) return { kind: 'reload', next: current };
  // Entries the replica read by this operation has not reached yet wait for the next call.
  const entries: LogEntry[] = plan.entries.filter((entry) => entry.to <= now);
  const skip = state.page?.at === now ? state.page.sent : 0;
  const parts = new ChangeParts(
    skipped(replayItems(at, { everything: plan.everything, entries }), skip),
    {
      planId: at.planId,
      origin: 'REPLAY',
      from: since,
      to: now,
      previous: since,
      ...(plan.everything ? { wholePlan: true } : {}),
    },
    sizes,
  );
  const part = parts.next(limits);
  if (part === undefined)
    return { kind: 'page', change: emptyChange(at, now), next: current, hasMore: false };
  if (part.last) return { kind: 'page', change: part.change, next: current, hasMore: false };
  return {
    kind: 'page',
    change: part.change,
    next: { since, page: { at: now, sent: skip + itemCount(part.change) } },
    hasMore: true,
  };
}

// Private: the items after the first `count` that are not marks (those keep their place).
function* skipped(items: Iterable<ChangeItem>, count: number): Generator<ChangeItem> {
  let left = count;
  for (const item of items) {
    if (left > 0 && item.kind !== 'reached') {
      left -= 1;
      continue;
    }
    yield item;
  }
}

// Private: the items a page holds (a transaction with its lines is one; each deleted id one).
function itemCount(change: PlanChange): number {
  let count =
    change.accounts.length +
    change.categoryGroups.length +
    change.categories.length +
    change.months.length +
    change.monthCategories.length +
    change.payees.length +
    change.transactions.length +
    change.scheduledTransactions.length;
  for (const ids of Object.values(change.deleted)) count += ids.length;
  return count;
}

function emptyChange(at: PlanSnapshot, knowledge = at.serverKnowledge): PlanChange {
  return emptyPlanChange(at.planId, 'REPLAY', knowledge);
}

/**
 * `changes` cannot say exactly what changed since the cursor: the client reloads what it shows
 * and goes on from `cursor` (a typed result of the query, not a GraphQL error).
 */
export class ReloadRequiredError extends Error {
  override readonly name = 'ReloadRequiredError';
  readonly code = 'GW_ERR_SYNC_RELOAD';
  constructor(
    readonly planId: string,
    /** The current cursor: reload, then ask for the changes after it. */
    readonly cursor: string,
  ) {
    super(
      'The gateway no longer knows everything that changed since this cursor (too old, from before a restart or another instance, or the plan was reloaded): reload what you show, then go on from `cursor`.',
    );
  }
}
