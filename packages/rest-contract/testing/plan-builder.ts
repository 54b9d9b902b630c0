/**
 * Builders for plan export entities with plausible defaults, for every suite that needs a plan
 * fixture (the replica, the scale tests, the sandbox's own checkers). Every builder takes
 * overrides; ids come from a per-builder counter so fixtures are stable.
 */
import type {
  AccountBase,
  CategoryBase,
  CategoryGroup,
  MonthDetailBase,
  Payee,
  PayeeLocation,
  PlanDetail,
  ResponseData,
  ScheduledSubTransactionBase,
  ScheduledTransactionSummaryBase,
  SubTransactionBase,
  TransactionSummaryBase,
} from '../src/types.js';

/** A uuid-shaped id from a number, so tests can read which entity is which. */
export function uuid(kind: number, n: number): string {
  const hex = (value: number, width: number) => value.toString(16).padStart(width, '0');
  return `${hex(kind, 8)}-0000-4000-8000-${hex(n, 12)}`;
}

export function account(overrides: Partial<AccountBase> & { id: string }): AccountBase {
  return {
    name: `Account ${overrides.id.slice(-4)}`,
    type: 'checking',
    on_budget: true,
    closed: false,
    note: null,
    balance: 0,
    cleared_balance: 0,
    uncleared_balance: 0,
    transfer_payee_id: null,
    direct_import_linked: false,
    direct_import_in_error: false,
    last_reconciled_at: null,
    debt_original_balance: null,
    debt_interest_rates: null,
    debt_minimum_payments: null,
    debt_escrow_amounts: null,
    deleted: false,
    ...overrides,
  };
}

export function payee(overrides: Partial<Payee> & { id: string }): Payee {
  return {
    name: `Payee ${overrides.id.slice(-4)}`,
    transfer_account_id: null,
    deleted: false,
    ...overrides,
  };
}

export function payeeLocation(
  overrides: Partial<PayeeLocation> & { id: string; payee_id: string },
): PayeeLocation {
  return { latitude: '52.37', longitude: '4.89', deleted: false, ...overrides };
}

export function categoryGroup(overrides: Partial<CategoryGroup> & { id: string }): CategoryGroup {
  return {
    name: `Group ${overrides.id.slice(-4)}`,
    hidden: false,
    internal: false,
    deleted: false,
    ...overrides,
  };
}

/** A category's amounts in a month, when nothing was assigned or spent and it has no goal. */
export const ZERO_AMOUNTS = {
  budgeted: 0,
  activity: 0,
  balance: 0,
  goal_type: null,
  goal_needs_whole_amount: null,
  goal_day: null,
  goal_cadence: null,
  goal_cadence_frequency: null,
  goal_creation_month: null,
  goal_target: null,
  goal_target_month: null,
  goal_target_date: null,
  goal_percentage_complete: null,
  goal_months_to_budget: null,
  goal_under_funded: null,
  goal_overall_funded: null,
  goal_overall_left: null,
  goal_snoozed_at: null,
} satisfies Partial<CategoryBase>;

export function category(
  overrides: Partial<CategoryBase> & { id: string; category_group_id: string },
): CategoryBase {
  return {
    category_group_name: `Group ${overrides.category_group_id.slice(-4)}`,
    name: `Category ${overrides.id.slice(-4)}`,
    hidden: false,
    internal: false,
    original_category_group_id: null,
    note: null,
    ...ZERO_AMOUNTS,
    deleted: false,
    ...overrides,
  };
}

export function month(overrides: Partial<MonthDetailBase> & { month: string }): MonthDetailBase {
  return {
    note: null,
    income: 0,
    budgeted: 0,
    activity: 0,
    to_be_budgeted: 0,
    age_of_money: null,
    deleted: false,
    categories: [],
    ...overrides,
  };
}

export function transaction(
  overrides: Partial<TransactionSummaryBase> & { id: string; account_id: string; date: string },
): TransactionSummaryBase {
  return {
    amount: -1000,
    memo: null,
    cleared: 'cleared',
    approved: true,
    flag_color: null,
    flag_name: null,
    payee_id: null,
    category_id: null,
    transfer_account_id: null,
    transfer_transaction_id: null,
    matched_transaction_id: null,
    import_id: null,
    import_payee_name: null,
    import_payee_name_original: null,
    debt_transaction_type: null,
    deleted: false,
    ...overrides,
  };
}

export function subtransaction(
  overrides: Partial<SubTransactionBase> & { id: string; transaction_id: string },
): SubTransactionBase {
  return {
    amount: -500,
    memo: null,
    payee_id: null,
    payee_name: null,
    category_id: null,
    category_name: null,
    transfer_account_id: null,
    transfer_transaction_id: null,
    deleted: false,
    ...overrides,
  };
}

export function scheduledTransaction(
  overrides: Partial<ScheduledTransactionSummaryBase> & { id: string; account_id: string },
): ScheduledTransactionSummaryBase {
  return {
    date_first: '2026-01-15',
    date_next: '2026-04-15',
    frequency: 'monthly',
    amount: -25000,
    memo: null,
    flag_color: null,
    flag_name: null,
    payee_id: null,
    category_id: null,
    transfer_account_id: null,
    deleted: false,
    ...overrides,
  };
}

export function scheduledSubtransaction(
  overrides: Partial<ScheduledSubTransactionBase> & {
    id: string;
    scheduled_transaction_id: string;
  },
): ScheduledSubTransactionBase {
  return {
    amount: -12500,
    memo: null,
    payee_id: null,
    payee_name: null,
    category_id: null,
    category_name: null,
    transfer_account_id: null,
    deleted: false,
    ...overrides,
  };
}

/** A `getPlanById` body; collections default to empty (a delta that changed nothing). */
export function planExport(
  plan: Partial<PlanDetail> & { id: string },
  serverKnowledge: number,
): ResponseData['getPlanById'] {
  return {
    server_knowledge: serverKnowledge,
    plan: {
      name: 'Test Plan',
      last_modified_on: '2026-03-10T12:00:00Z',
      first_month: '2026-01-01',
      last_month: '2026-06-01',
      date_format: { format: 'YYYY-MM-DD' },
      currency_format: {
        iso_code: 'EUR',
        example_format: '123.456,78',
        decimal_digits: 2,
        decimal_separator: ',',
        symbol_first: false,
        group_separator: '.',
        currency_symbol: '€',
        display_symbol: true,
      },
      accounts: [],
      payees: [],
      payee_locations: [],
      category_groups: [],
      categories: [],
      months: [],
      transactions: [],
      subtransactions: [],
      scheduled_transactions: [],
      scheduled_subtransactions: [],
      ...plan,
    },
  };
}

/** 2026-03-15T12:00:00Z: the tests' "now"; its month is 2026-03-01. */
export const TEST_NOW = Date.UTC(2026, 2, 15, 12);
export const TEST_MONTH = '2026-03-01';
