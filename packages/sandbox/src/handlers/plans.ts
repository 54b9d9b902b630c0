/** GET /user, the plan list, the full plan export (with deltas) and plan settings. */
import type {
  CategoryBase,
  MonthDetailBase,
  PlanDetail,
  PlanSummary,
} from '@plans-gateway/rest-contract';
import type { Exactly } from '../core/exact.js';
import {
  orderedCategories,
  presentAccount,
  presentAccountBase,
  presentCategoryBase,
  presentCategoryGroup,
  presentMonthDetailBase,
  presentPayee,
  presentPayeeLocation,
  presentPlanSettings,
  presentPlanSummary,
} from '../present/entities.js';
import { LazyList, type Streamable } from '../present/lazy-list.js';
import {
  presentScheduledSubBase,
  presentScheduledSummaryBase,
  presentSubTransactionBase,
  presentTransactionSummaryBase,
} from '../present/transactions.js';
import type { PlanStore } from '../store/plan-store.js';
import type { MonthRecord } from '../store/records.js';
import { readBooleanParam, readKnowledgeParam } from '../validate/query.js';
import {
  followClock,
  type Handler,
  type HandlerContext,
  inDelta,
  moneyOf,
  ok,
  usePlan,
} from './context.js';

const getUser: Handler<'getUser'> = (ctx) => ok({ user: { id: ctx.user.id } });

/** Private: the plan `default_plan` names for this token (none when the alias would 404). */
function defaultPlanIdFor(ctx: HandlerContext): string | null {
  const { principal, user } = ctx;
  if (principal.oauth) {
    return principal.oauth.defaultPlanSelection
      ? (principal.oauth.defaultPlanId ?? user.defaultPlanId)
      : null;
  }
  return user.defaultPlanId;
}

const getPlans: Handler<'getPlans'> = (ctx) => {
  const includeAccounts = readBooleanParam(ctx.query, 'include_accounts') ?? false;
  const summaries = new Map<string, Exactly<PlanSummary>>();
  for (const planId of ctx.user.planIds) {
    const entry = ctx.state.plans.get(planId);
    if (!entry) continue;
    followClock(entry, ctx.today, ctx.now);
    const summary: Exactly<PlanSummary> = presentPlanSummary(entry.store);
    if (includeAccounts) {
      const money = moneyOf(entry.store);
      summary.accounts = [...entry.store.accounts.values()]
        .filter((account) => !account.deleted)
        .map((account) => presentAccount(account, money));
    }
    summaries.set(planId, summary);
  }
  const defaultId = defaultPlanIdFor(ctx);
  const defaultSummary = defaultId === null ? undefined : summaries.get(defaultId);
  return ok({ plans: [...summaries.values()], default_plan: defaultSummary ?? null });
};

/** Private: a category as the export lists it, with its current month amounts. */
function exportCategory(store: PlanStore, categoryId: string): Exactly<CategoryBase> | null {
  const category = store.categories.get(categoryId);
  if (!category) return null;
  const amounts = store.monthsByKey.get(store.currentMonth)?.categories.get(category.id);
  return presentCategoryBase(store, category, store.currentMonth, amounts);
}

/** Private: a category's knowledge as the category lists see it (record or current amounts). */
export function currentCategoryKnowledge(store: PlanStore, categoryId: string): number {
  const category = store.categories.get(categoryId);
  const amounts = store.monthsByKey.get(store.currentMonth)?.categories.get(categoryId);
  return Math.max(category?.knowledge ?? 0, amounts?.knowledge ?? 0);
}

function monthChangedSince(store: PlanStore, month: MonthRecord, since: number): boolean {
  if (month.knowledge > since) return true;
  for (const category of store.categories.values()) {
    const amounts = month.categories.get(category.id);
    if (category.knowledge > since || (amounts?.knowledge ?? 0) > since) return true;
  }
  return false;
}

/**
 * The whole plan. On a delta request every collection holds only what changed after the given
 * knowledge (deleted entities included), and a month holds only its changed categories.
 */
const getPlanById: Handler<'getPlanById'> = (ctx) => {
  const since = readKnowledgeParam(ctx.query);
  const { store } = usePlan(ctx);
  const live = <T extends { knowledge: number; deleted: boolean }>(records: Iterable<T>) =>
    [...records].filter((record) => inDelta(record, since));

  const categories: Exactly<CategoryBase>[] = [];
  for (const category of orderedCategories(store)) {
    const changed =
      since === null ? !category.deleted : currentCategoryKnowledge(store, category.id) > since;
    const presented = changed ? exportCategory(store, category.id) : null;
    if (presented) categories.push(presented);
  }
  const months: Exactly<MonthDetailBase>[] = store.months
    .filter((month) => (since === null ? !month.deleted : monthChangedSince(store, month, since)))
    .map((month) => presentMonthDetailBase(store, month, since));

  // Snapshots of the records to list; the lists present them while the answer streams.
  const transactions = store.transactionOrder.filter((tx) => inDelta(tx, since));
  const splits = store.transactionOrder.filter((tx) => tx.subtransactions.length > 0);
  const scheduled = live(store.scheduledTransactions.values());
  const scheduledSubs = [...store.scheduledTransactions.values()].flatMap((record) =>
    record.subtransactions.filter((sub) => inDelta(sub, since)),
  );

  const plan: Streamable<Exactly<PlanDetail>> = {
    ...presentPlanSummary(store),
    accounts: live(store.accounts.values()).map(presentAccountBase),
    payees: live(store.payees.values()).map(presentPayee),
    payee_locations: live(store.payeeLocations.values()).map(presentPayeeLocation),
    category_groups: live(store.categoryGroups.values()).map(presentCategoryGroup),
    categories,
    months,
    transactions: new LazyList(function* () {
      for (const tx of transactions) {
        // Deleted while the answer streamed: a full export never lists deleted entities.
        if (since === null && tx.deleted) continue;
        yield presentTransactionSummaryBase(store, tx);
      }
    }),
    subtransactions: new LazyList(function* () {
      for (const tx of splits) {
        for (const sub of tx.subtransactions)
          if (inDelta(sub, since)) yield presentSubTransactionBase(store, sub);
      }
    }),
    scheduled_transactions: scheduled.map((record) => presentScheduledSummaryBase(store, record)),
    scheduled_subtransactions: scheduledSubs.map((sub) => presentScheduledSubBase(store, sub)),
  };
  return ok({ plan, server_knowledge: store.knowledge });
};

const getPlanSettingsById: Handler<'getPlanSettingsById'> = (ctx) => {
  const { store } = usePlan(ctx);
  return ok({ settings: presentPlanSettings(store) });
};

export const planHandlers = { getUser, getPlans, getPlanById, getPlanSettingsById };
