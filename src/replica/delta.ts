/**
 * Pure merge of plan exports (`GET /plans/{id}`, the `getPlanById` body) into replica states.
 *
 * A full export and a delta export (`?last_knowledge_of_server=N`) have the same shape; the
 * difference is what they mean. A full export is the whole plan without deleted entities, so
 * it replaces the replica (merging it would keep entities deleted since). A delta lists only
 * what changed after N, deleted entities included with `deleted: true`, and per collection:
 *
 * - accounts, payees, payee_locations, category_groups, scheduled_transactions: whole rows.
 * - categories: whole rows with the amounts of the current month.
 * - months: the months whose summary or any category changed, each with only the categories
 *   that changed in that month (a partial list: the others keep their rows).
 * - transactions: whole rows. A split's subtransactions come in `subtransactions` when they
 *   changed; a deleted transaction may come without them, so removal cascades.
 * - scheduled_subtransactions: like subtransactions, under scheduled transactions.
 * - plan-level fields (name, last_modified_on, first/last month, formats): always present,
 *   always taken.
 *
 * The rules of the merge itself live in change-set.ts. Both functions validate the body first
 * and never modify their arguments, so a bad response leaves the replica untouched.
 */
import type { IsoDate, PlanDetail } from '@plans-gateway/rest-contract';
import { applyChangeSet, type ChangeSet } from './change-set.js';
import { emptyPlanState, type PlanState } from './plan-state.js';
import type { PlanExport, PlanInfo } from './types.js';
import { assertPlanExport, ReplicaDataError } from './validate.js';

export interface MergeOptions {
  /** The current month (first day, UTC); labels the rows of the top-level categories. */
  currentMonth: IsoDate;
}

/** Builds a replica from a full export. */
export function buildPlanState(data: PlanExport, options: MergeOptions): PlanState {
  assertPlanExport(data);
  const info = planInfoOf(data.plan);
  return applyChangeSet(emptyPlanState(info), changeSetOf(data, info, options));
}

/**
 * Merges a delta export into `state`: upserts what changed, drops what was deleted and takes
 * the delta's knowledge. The delta must be of the same plan.
 */
export function mergePlanDelta(
  state: PlanState,
  data: PlanExport,
  options: MergeOptions,
): PlanState {
  assertPlanExport(data);
  if (data.plan.id !== state.info.id) {
    throw new ReplicaDataError(
      'data.plan.id',
      `the replica's plan id ${state.info.id}`,
      data.plan.id,
    );
  }
  return applyChangeSet(state, changeSetOf(data, planInfoOf(data.plan), options));
}

/** The plan-level fields of an export. */
export function planInfoOf(plan: PlanExport['plan'] | PlanDetail): PlanInfo {
  return {
    id: plan.id,
    name: plan.name,
    last_modified_on: plan.last_modified_on,
    first_month: plan.first_month,
    last_month: plan.last_month,
    date_format: plan.date_format,
    currency_format: plan.currency_format,
  };
}

/** Private: the export as a change set. */
function changeSetOf(data: PlanExport, info: PlanInfo, options: MergeOptions): ChangeSet {
  const plan = data.plan;
  return {
    info,
    serverKnowledge: data.server_knowledge,
    currentMonth: options.currentMonth,
    accounts: plan.accounts,
    payees: plan.payees,
    payeeLocations: plan.payee_locations,
    categoryGroups: plan.category_groups,
    categories: plan.categories,
    months: plan.months,
    transactions: plan.transactions,
    subtransactions: plan.subtransactions,
    scheduledTransactions: plan.scheduled_transactions,
    scheduledSubtransactions: plan.scheduled_subtransactions,
  };
}
