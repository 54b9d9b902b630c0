/**
 * Records → REST shapes for everything except transactions. Field order follows the interface's
 * description so responses read like the official ones; every nullable field is present.
 */
import type {
  Account,
  AccountBase,
  Category,
  CategoryBase,
  CategoryGroup,
  IsoDate,
  MoneyMovement,
  MoneyMovementGroup,
  MonthDetail,
  MonthDetailBase,
  MonthSummary,
  MonthSummaryBase,
  Payee,
  PayeeLocation,
  PlanSettings,
  PlanSummary,
} from '@plans-gateway/rest-contract';
import { isoDateTimeOf } from '../core/dates.js';
import type { Exact, Exactly } from '../core/exact.js';
import { goalProgress } from '../store/goals.js';
import type { PlanStore } from '../store/plan-store.js';
import type {
  AccountRecord,
  CategoryGroupRecord,
  CategoryRecord,
  MoneyMovementGroupRecord,
  MoneyMovementRecord,
  MonthCategoryRecord,
  MonthRecord,
  PayeeLocationRecord,
  PayeeRecord,
} from '../store/records.js';
import type { MoneyPresenter } from './money.js';

export function presentAccountBase(account: AccountRecord): Exactly<AccountBase> {
  return {
    id: account.id,
    name: account.name,
    type: account.type,
    on_budget: account.on_budget,
    closed: account.closed,
    note: account.note,
    balance: account.balance,
    cleared_balance: account.cleared_balance,
    uncleared_balance: account.uncleared_balance,
    transfer_payee_id: account.transfer_payee_id,
    direct_import_linked: account.direct_import_linked,
    direct_import_in_error: account.direct_import_in_error,
    last_reconciled_at: account.last_reconciled_at,
    debt_original_balance: null,
    debt_interest_rates: account.debt_interest_rates && { ...account.debt_interest_rates },
    debt_minimum_payments: account.debt_minimum_payments && { ...account.debt_minimum_payments },
    debt_escrow_amounts: account.debt_escrow_amounts && { ...account.debt_escrow_amounts },
    deleted: account.deleted,
  };
}

export function presentAccount(account: AccountRecord, money: MoneyPresenter): Exactly<Account> {
  const balance = money(account.balance);
  const cleared = money(account.cleared_balance);
  const uncleared = money(account.uncleared_balance);
  return {
    ...presentAccountBase(account),
    balance_formatted: balance.formatted,
    balance_currency: balance.currency,
    cleared_balance_formatted: cleared.formatted,
    cleared_balance_currency: cleared.currency,
    uncleared_balance_formatted: uncleared.formatted,
    uncleared_balance_currency: uncleared.currency,
  };
}

export function presentPayee(payee: PayeeRecord): Payee {
  return {
    id: payee.id,
    name: payee.name,
    transfer_account_id: payee.transfer_account_id,
    deleted: payee.deleted,
  };
}

export function presentPayeeLocation(location: PayeeLocationRecord): PayeeLocation {
  return {
    id: location.id,
    payee_id: location.payee_id,
    latitude: location.latitude,
    longitude: location.longitude,
    deleted: location.deleted,
  };
}

export function presentCategoryGroup(group: CategoryGroupRecord): CategoryGroup {
  return {
    id: group.id,
    name: group.name,
    hidden: group.hidden,
    internal: group.internal,
    deleted: group.deleted,
  };
}

const ZERO_AMOUNTS = { budgeted: 0, activity: 0, balance: 0 };

/** A category with its amounts for `month` (the month's values, or zeros if it has none). */
export function presentCategoryBase(
  store: PlanStore,
  category: CategoryRecord,
  month: IsoDate,
  amounts: Pick<MonthCategoryRecord, 'budgeted' | 'activity' | 'balance'> | undefined,
): Exactly<CategoryBase> {
  const values = amounts ?? ZERO_AMOUNTS;
  const progress = goalProgress(category, values, month);
  return {
    id: category.id,
    category_group_id: category.category_group_id,
    category_group_name: store.categoryGroups.get(category.category_group_id)?.name ?? '',
    name: category.name,
    hidden: category.hidden,
    internal: category.internal,
    original_category_group_id: null,
    note: category.note,
    budgeted: values.budgeted,
    activity: values.activity,
    balance: values.balance,
    goal_type: category.goal_type,
    goal_needs_whole_amount: category.goal_needs_whole_amount,
    goal_day: category.goal_day,
    goal_cadence: category.goal_cadence,
    goal_cadence_frequency: category.goal_cadence_frequency,
    goal_creation_month: category.goal_creation_month,
    goal_target: category.goal_target,
    goal_target_month: null,
    goal_target_date: category.goal_target_date,
    goal_percentage_complete: progress.goal_percentage_complete,
    goal_months_to_budget: progress.goal_months_to_budget,
    goal_under_funded: progress.goal_under_funded,
    goal_overall_funded: progress.goal_overall_funded,
    goal_overall_left: progress.goal_overall_left,
    goal_snoozed_at: category.goal_snoozed_at,
    deleted: category.deleted,
  };
}

export function withCategoryCompanions(
  base: Exactly<CategoryBase>,
  money: MoneyPresenter,
): Exactly<Category> {
  const optional = (value: Exact | null) => (value === null ? null : money(value));
  const balance = money(base.balance);
  const activity = money(base.activity);
  const budgeted = money(base.budgeted);
  const target = optional(base.goal_target);
  const under = optional(base.goal_under_funded);
  const funded = optional(base.goal_overall_funded);
  const left = optional(base.goal_overall_left);
  return {
    ...base,
    balance_formatted: balance.formatted,
    balance_currency: balance.currency,
    activity_formatted: activity.formatted,
    activity_currency: activity.currency,
    budgeted_formatted: budgeted.formatted,
    budgeted_currency: budgeted.currency,
    goal_target_formatted: target?.formatted ?? null,
    goal_target_currency: target?.currency ?? null,
    goal_under_funded_formatted: under?.formatted ?? null,
    goal_under_funded_currency: under?.currency ?? null,
    goal_overall_funded_formatted: funded?.formatted ?? null,
    goal_overall_funded_currency: funded?.currency ?? null,
    goal_overall_left_formatted: left?.formatted ?? null,
    goal_overall_left_currency: left?.currency ?? null,
  };
}

/** A category with the amounts of the plan's current month, as the category endpoints show it. */
export function presentCurrentCategory(
  store: PlanStore,
  category: CategoryRecord,
  money: MoneyPresenter,
): Exactly<Category> {
  const month = store.currentMonth;
  const amounts = store.monthsByKey.get(month)?.categories.get(category.id);
  return withCategoryCompanions(presentCategoryBase(store, category, month, amounts), money);
}

export function presentMonthCategory(
  store: PlanStore,
  category: CategoryRecord,
  month: MonthRecord,
  money: MoneyPresenter,
): Exactly<Category> {
  const base = presentCategoryBase(store, category, month.month, month.categories.get(category.id));
  return withCategoryCompanions(base, money);
}

export function presentMonthSummaryBase(month: MonthRecord): Exactly<MonthSummaryBase> {
  return {
    month: month.month,
    note: month.note,
    income: month.income,
    budgeted: month.budgeted,
    activity: month.activity,
    to_be_budgeted: month.to_be_budgeted,
    age_of_money: month.age_of_money,
    deleted: month.deleted,
  };
}

export function presentMonthSummary(
  month: MonthRecord,
  money: MoneyPresenter,
): Exactly<MonthSummary> {
  const income = money(month.income);
  const budgeted = money(month.budgeted);
  const activity = money(month.activity);
  const tbb = money(month.to_be_budgeted);
  return {
    ...presentMonthSummaryBase(month),
    income_formatted: income.formatted,
    income_currency: income.currency,
    budgeted_formatted: budgeted.formatted,
    budgeted_currency: budgeted.currency,
    activity_formatted: activity.formatted,
    activity_currency: activity.currency,
    to_be_budgeted_formatted: tbb.formatted,
    to_be_budgeted_currency: tbb.currency,
  };
}

/** Live categories in display order: by group order, then category order. */
export function orderedCategories(store: PlanStore): CategoryRecord[] {
  const byGroup = new Map<string, CategoryRecord[]>();
  for (const category of store.categories.values()) {
    const list = byGroup.get(category.category_group_id) ?? [];
    list.push(category);
    byGroup.set(category.category_group_id, list);
  }
  const ordered: CategoryRecord[] = [];
  for (const group of store.categoryGroups.values()) ordered.push(...(byGroup.get(group.id) ?? []));
  return ordered;
}

export function presentMonthDetail(
  store: PlanStore,
  month: MonthRecord,
  money: MoneyPresenter,
): Exactly<MonthDetail> {
  const categories = orderedCategories(store)
    .filter((category) => !category.deleted)
    .map((category) => presentMonthCategory(store, category, month, money));
  return { ...presentMonthSummary(month, money), categories };
}

/**
 * A month inside the plan export. `sinceKnowledge` limits the categories to those changed after
 * it (delta requests); a category counts as changed when its own record or its month values did.
 */
export function presentMonthDetailBase(
  store: PlanStore,
  month: MonthRecord,
  sinceKnowledge: number | null,
): Exactly<MonthDetailBase> {
  const categories: Exactly<CategoryBase>[] = [];
  for (const category of orderedCategories(store)) {
    const amounts = month.categories.get(category.id);
    if (sinceKnowledge === null) {
      if (category.deleted) continue;
    } else if (Math.max(category.knowledge, amounts?.knowledge ?? 0) <= sinceKnowledge) {
      continue;
    }
    categories.push(presentCategoryBase(store, category, month.month, amounts));
  }
  return { ...presentMonthSummaryBase(month), categories };
}

export function presentMoneyMovement(
  movement: MoneyMovementRecord,
  money: MoneyPresenter,
): Exactly<MoneyMovement> {
  const amount = money(movement.amount);
  return {
    id: movement.id,
    month: movement.month,
    moved_at: movement.moved_at,
    note: movement.note,
    money_movement_group_id: movement.money_movement_group_id,
    performed_by_user_id: movement.performed_by_user_id,
    from_category_id: movement.from_category_id,
    to_category_id: movement.to_category_id,
    amount: movement.amount,
    amount_formatted: amount.formatted,
    amount_currency: amount.currency,
  };
}

export function presentMoneyMovementGroup(group: MoneyMovementGroupRecord): MoneyMovementGroup {
  return {
    id: group.id,
    group_created_at: group.group_created_at,
    month: group.month,
    note: group.note,
    performed_by_user_id: group.performed_by_user_id,
  };
}

export function presentPlanSummary(store: PlanStore): PlanSummary {
  return {
    id: store.id,
    name: store.name,
    last_modified_on: isoDateTimeOf(store.lastModifiedOn),
    first_month: store.firstMonth,
    last_month: store.lastMonth,
    date_format: store.dateFormat && { ...store.dateFormat },
    currency_format: store.currencyFormat && { ...store.currencyFormat },
  };
}

export function presentPlanSettings(store: PlanStore): PlanSettings {
  return {
    date_format: store.dateFormat && { ...store.dateFormat },
    currency_format: store.currencyFormat && { ...store.currencyFormat },
  };
}
