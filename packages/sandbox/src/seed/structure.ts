/**
 * The fixed part of a seeded plan: category groups and categories (with goals), accounts with
 * their transfer payees, merchant payees and their locations. Runs inside the first change.
 */
import type { IsoDate, LoanAccountPeriodicValue } from '@plans-gateway/rest-contract';
import { addDays, addMonths, isoDateTimeOf } from '../core/dates.js';
import type { Random } from '../core/random.js';
import { addCategoryToMonths } from '../store/budget.js';
import { NO_GOAL } from '../store/goals.js';
import type { PlanStore } from '../store/plan-store.js';
import type {
  AccountRecord,
  CategoryGroupRecord,
  CategoryRecord,
  GoalConfig,
  PayeeRecord,
} from '../store/records.js';
import {
  ACCOUNTS,
  type AccountKey,
  ADJUSTMENT_PAYEES,
  CAR_LENDER,
  CATEGORY_GROUPS,
  type CategorySpec,
  CREDIT_CARD_GROUP_NAME,
  EMPLOYER,
  type GoalSpec,
  INTERNAL_GROUP_NAME,
  MARKET_PAYEE,
  MERCHANTS,
  MONTHLY_BILLS,
  MORTGAGE_LENDER,
  READY_TO_ASSIGN_NAME,
  SPLIT_MERCHANT,
  STARTING_BALANCE_PAYEE,
} from './catalog.js';

export interface SeededStructure {
  accounts: Map<AccountKey, AccountRecord>;
  /** Category ids by catalog key, plus 'readyToAssign'. */
  categories: Map<string, string>;
  /** Payee ids by name. */
  payees: Map<string, string>;
}

function goalConfig(
  spec: GoalSpec | undefined,
  firstMonth: IsoDate,
  currentMonth: IsoDate,
  nowMs: number,
): GoalConfig {
  if (!spec) return { ...NO_GOAL };
  const targetDate =
    spec.targetInMonths === undefined
      ? null
      : addDays(addMonths(currentMonth, spec.targetInMonths), 14);
  return {
    goal_type: spec.type,
    goal_needs_whole_amount: spec.type === 'NEED' ? (spec.needsWholeAmount ?? true) : null,
    goal_day: spec.day ?? null,
    goal_cadence: spec.cadence ?? (spec.type === 'TB' || spec.type === 'TBD' ? 0 : 1),
    goal_cadence_frequency:
      spec.cadenceFrequency ?? (spec.type === 'TB' || spec.type === 'TBD' ? 0 : 1),
    goal_creation_month: firstMonth,
    goal_target: spec.target,
    goal_target_date: targetDate,
    goal_snoozed_at: spec.snoozed ? isoDateTimeOf(nowMs - 9 * 86_400_000) : null,
  };
}

export function seedStructure(store: PlanStore, ids: Random, nowMs: number): SeededStructure {
  const categories = new Map<string, string>();
  const payees = new Map<string, string>();
  const accounts = new Map<AccountKey, AccountRecord>();

  const addGroup = (name: string, internal: boolean, hidden: boolean): CategoryGroupRecord => {
    const group: CategoryGroupRecord = {
      id: ids.uuid(),
      name,
      hidden,
      internal,
      deleted: false,
      knowledge: 0,
    };
    store.categoryGroups.set(group.id, group);
    store.touch(group);
    return group;
  };
  const addCategory = (
    group: CategoryGroupRecord,
    spec: Pick<CategorySpec, 'name' | 'note' | 'hidden' | 'goal'>,
    role: CategoryRecord['role'],
    creditCardAccountId: string | null = null,
  ): CategoryRecord => {
    const category: CategoryRecord = {
      id: ids.uuid(),
      category_group_id: group.id,
      name: spec.name,
      hidden: spec.hidden ?? false,
      internal: group.internal,
      note: spec.note ?? null,
      deleted: false,
      role,
      creditCardAccountId,
      knowledge: 0,
      ...goalConfig(spec.goal, store.firstMonth, store.currentMonth, nowMs),
    };
    store.categories.set(category.id, category);
    store.touch(category);
    addCategoryToMonths(store, category);
    return category;
  };
  const addPayee = (name: string, transferAccountId: string | null = null): PayeeRecord => {
    const payee: PayeeRecord = {
      id: ids.uuid(),
      name,
      transfer_account_id: transferAccountId,
      deleted: false,
      knowledge: 0,
    };
    store.payees.set(payee.id, payee);
    store.touch(payee);
    if (transferAccountId === null) payees.set(name, payee.id);
    return payee;
  };

  const internal = addGroup(INTERNAL_GROUP_NAME, true, false);
  const rta = addCategory(internal, { name: READY_TO_ASSIGN_NAME }, 'readyToAssign');
  store.readyToAssignCategoryId = rta.id;
  categories.set('readyToAssign', rta.id);
  const creditCards = addGroup(CREDIT_CARD_GROUP_NAME, false, false);

  for (const spec of ACCOUNTS) {
    const account: AccountRecord = {
      id: ids.uuid(),
      name: spec.name,
      type: spec.type,
      on_budget: spec.onBudget,
      closed: false,
      note: spec.note,
      balance: 0,
      cleared_balance: 0,
      uncleared_balance: 0,
      transfer_payee_id: null,
      direct_import_linked: spec.linked ?? false,
      direct_import_in_error: false,
      last_reconciled_at: null,
      debt_original_balance: null,
      debt_interest_rates: periodic(spec.debt?.interestRate, store.firstMonth),
      debt_minimum_payments: periodic(spec.debt?.minimumPayment, store.firstMonth),
      debt_escrow_amounts: periodic(spec.debt?.escrow, store.firstMonth),
      deleted: false,
      knowledge: 0,
    };
    store.accounts.set(account.id, account);
    store.touch(account);
    account.transfer_payee_id = addPayee(`Transfer : ${account.name}`, account.id).id;
    accounts.set(spec.key, account);
    if (spec.type === 'creditCard') {
      const category = addCategory(
        creditCards,
        { name: spec.name },
        'creditCardPayment',
        account.id,
      );
      categories.set(`card:${spec.key}`, category.id);
      store.paymentCategoryByCard.set(account.id, category.id);
    }
  }

  for (const groupSpec of CATEGORY_GROUPS) {
    const group = addGroup(groupSpec.name, false, groupSpec.hidden ?? false);
    for (const spec of groupSpec.categories)
      categories.set(spec.key, addCategory(group, spec, 'regular').id);
  }

  store.startingBalancePayeeId = addPayee(STARTING_BALANCE_PAYEE).id;
  for (const name of ADJUSTMENT_PAYEES) addPayee(name);
  for (const name of [EMPLOYER.name, MORTGAGE_LENDER, CAR_LENDER, MARKET_PAYEE]) addPayee(name);
  for (const bill of MONTHLY_BILLS) addPayee(bill.payee);
  for (const merchant of [...MERCHANTS, SPLIT_MERCHANT]) {
    const payee = addPayee(merchant.name);
    if (!merchant.location) continue;
    addLocation(store, ids, payee.id, merchant.location[0], merchant.location[1]);
    if (merchant.name === 'Fresh Market')
      addLocation(store, ids, payee.id, '45.489320', '-122.611740');
  }
  return { accounts, categories, payees };
}

function periodic(value: number | undefined, month: IsoDate): LoanAccountPeriodicValue {
  return value === undefined ? null : { [month]: value };
}

function addLocation(
  store: PlanStore,
  ids: Random,
  payeeId: string,
  latitude: string,
  longitude: string,
): void {
  const location = {
    id: ids.uuid(),
    payee_id: payeeId,
    latitude,
    longitude,
    deleted: false,
    knowledge: 0,
  };
  store.payeeLocations.set(location.id, location);
  store.touch(location);
}
