/**
 * Expected response shapes of the Plans interface, written as data so one walker can check any
 * response. Field names and types follow the interface's schema; the lists are ours.
 *
 * Every listed property must be present (the interface sends `null`, never omits), with the
 * listed type; a property not listed is reported too, so the sandbox cannot invent fields.
 */

export type ShapeName =
  | 'ErrorDetail'
  | 'User'
  | 'DateFormat'
  | 'CurrencyFormat'
  | 'PlanSummary'
  | 'PlanSummaryWithAccounts'
  | 'PlanDetail'
  | 'PlanSettings'
  | 'AccountBase'
  | 'Account'
  | 'CategoryGroup'
  | 'CategoryGroupWithCategories'
  | 'CategoryBase'
  | 'Category'
  | 'Payee'
  | 'PayeeLocation'
  | 'MonthSummary'
  | 'MonthDetailBase'
  | 'MonthDetail'
  | 'MoneyMovement'
  | 'MoneyMovementGroup'
  | 'TransactionSummaryBase'
  | 'TransactionDetail'
  | 'HybridTransaction'
  | 'SubTransactionBase'
  | 'SubTransaction'
  | 'ScheduledTransactionSummaryBase'
  | 'ScheduledTransactionDetail'
  | 'ScheduledSubTransactionBase'
  | 'ScheduledSubTransaction';

export type Scalar = 'string' | 'integer' | 'number' | 'boolean' | 'date' | 'datetime' | 'uuid';

export type FieldType =
  | Scalar
  | { readonly enum: readonly string[] }
  | { readonly ref: ShapeName }
  | { readonly array: FieldType }
  /** An object whose keys are free and whose values all have this type. */
  | { readonly map: FieldType };

export interface Field {
  readonly type: FieldType;
  readonly nullable: boolean;
  /** The property may be left out (only where the interface says it appears conditionally). */
  readonly optional: boolean;
}

export type Shape = Readonly<Record<string, Field>>;

const field = (type: FieldType): Field => ({ type, nullable: false, optional: false });
const nullable = (type: FieldType): Field => ({ type, nullable: true, optional: false });
const optional = (type: FieldType): Field => ({ type, nullable: false, optional: true });
const ref = (name: ShapeName): { ref: ShapeName } => ({ ref: name });
const arrayOf = (type: FieldType): { array: FieldType } => ({ array: type });

const ACCOUNT_TYPE = {
  enum: [
    'checking',
    'savings',
    'cash',
    'creditCard',
    'lineOfCredit',
    'otherAsset',
    'otherLiability',
    'mortgage',
    'autoLoan',
    'studentLoan',
    'personalLoan',
    'medicalDebt',
    'otherDebt',
  ],
} as const;
const GOAL_TYPE = { enum: ['TB', 'TBD', 'MF', 'NEED', 'DEBT'] } as const;
const CLEARED = { enum: ['cleared', 'uncleared', 'reconciled'] } as const;
const FLAG_COLOR = { enum: ['red', 'orange', 'yellow', 'green', 'blue', 'purple', ''] } as const;
export const FREQUENCY_VALUES = [
  'never',
  'daily',
  'weekly',
  'everyOtherWeek',
  'twiceAMonth',
  'every4Weeks',
  'monthly',
  'everyOtherMonth',
  'every3Months',
  'every4Months',
  'twiceAYear',
  'yearly',
  'everyOtherYear',
] as const;
const FREQUENCY = { enum: FREQUENCY_VALUES } as const;
const DEBT_TRANSACTION_TYPE = {
  enum: ['payment', 'refund', 'fee', 'interest', 'escrow', 'balanceAdjustment', 'credit', 'charge'],
} as const;

/** Adds the `_formatted` / `_currency` companions of each named amount. */
function withMoney(
  shape: Shape,
  amounts: readonly string[],
  nullableAmounts: readonly string[] = [],
): Shape {
  const extra: Record<string, Field> = {};
  for (const name of amounts) {
    extra[`${name}_formatted`] = field('string');
    extra[`${name}_currency`] = field('number');
  }
  for (const name of nullableAmounts) {
    extra[`${name}_formatted`] = nullable('string');
    extra[`${name}_currency`] = nullable('number');
  }
  return { ...shape, ...extra };
}

const user: Shape = { id: field('uuid') };

const dateFormat: Shape = { format: field('string') };

const currencyFormat: Shape = {
  iso_code: field('string'),
  example_format: field('string'),
  decimal_digits: field('integer'),
  decimal_separator: field('string'),
  symbol_first: field('boolean'),
  group_separator: field('string'),
  currency_symbol: field('string'),
  display_symbol: field('boolean'),
};

const planSummaryFields: Shape = {
  id: field('uuid'),
  name: field('string'),
  last_modified_on: nullable('datetime'),
  first_month: nullable('date'),
  last_month: nullable('date'),
  date_format: nullable(ref('DateFormat')),
  currency_format: nullable(ref('CurrencyFormat')),
};

const accountBase: Shape = {
  id: field('uuid'),
  name: field('string'),
  type: field(ACCOUNT_TYPE),
  on_budget: field('boolean'),
  closed: field('boolean'),
  note: nullable('string'),
  balance: field('integer'),
  cleared_balance: field('integer'),
  uncleared_balance: field('integer'),
  transfer_payee_id: nullable('uuid'),
  direct_import_linked: field('boolean'),
  direct_import_in_error: field('boolean'),
  last_reconciled_at: nullable('datetime'),
  debt_original_balance: nullable('integer'),
  debt_interest_rates: nullable({ map: 'integer' }),
  debt_minimum_payments: nullable({ map: 'integer' }),
  debt_escrow_amounts: nullable({ map: 'integer' }),
  deleted: field('boolean'),
};

const categoryGroup: Shape = {
  id: field('uuid'),
  name: field('string'),
  hidden: field('boolean'),
  internal: field('boolean'),
  deleted: field('boolean'),
};

const categoryBase: Shape = {
  id: field('uuid'),
  category_group_id: field('uuid'),
  category_group_name: field('string'),
  name: field('string'),
  hidden: field('boolean'),
  internal: field('boolean'),
  original_category_group_id: nullable('uuid'),
  note: nullable('string'),
  budgeted: field('integer'),
  activity: field('integer'),
  balance: field('integer'),
  goal_type: nullable(GOAL_TYPE),
  goal_needs_whole_amount: nullable('boolean'),
  goal_day: nullable('integer'),
  goal_cadence: nullable('integer'),
  goal_cadence_frequency: nullable('integer'),
  goal_creation_month: nullable('date'),
  goal_target: nullable('integer'),
  goal_target_month: nullable('date'),
  goal_target_date: nullable('date'),
  goal_percentage_complete: nullable('integer'),
  goal_months_to_budget: nullable('integer'),
  goal_under_funded: nullable('integer'),
  goal_overall_funded: nullable('integer'),
  goal_overall_left: nullable('integer'),
  goal_snoozed_at: nullable('datetime'),
  deleted: field('boolean'),
};

const payee: Shape = {
  id: field('uuid'),
  name: field('string'),
  transfer_account_id: nullable('uuid'),
  deleted: field('boolean'),
};

const payeeLocation: Shape = {
  id: field('uuid'),
  payee_id: field('uuid'),
  latitude: field('string'),
  longitude: field('string'),
  deleted: field('boolean'),
};

const monthSummaryBase: Shape = {
  month: field('date'),
  note: nullable('string'),
  income: field('integer'),
  budgeted: field('integer'),
  activity: field('integer'),
  to_be_budgeted: field('integer'),
  age_of_money: nullable('integer'),
  deleted: field('boolean'),
};

const monthSummary = withMoney(monthSummaryBase, [
  'income',
  'budgeted',
  'activity',
  'to_be_budgeted',
]);

const moneyMovementBase: Shape = {
  id: field('uuid'),
  month: nullable('date'),
  moved_at: nullable('datetime'),
  note: nullable('string'),
  money_movement_group_id: nullable('uuid'),
  performed_by_user_id: nullable('uuid'),
  from_category_id: nullable('uuid'),
  to_category_id: nullable('uuid'),
  amount: field('integer'),
};

const moneyMovementGroup: Shape = {
  id: field('uuid'),
  group_created_at: field('datetime'),
  month: field('date'),
  note: nullable('string'),
  performed_by_user_id: nullable('uuid'),
};

const transactionSummaryBase: Shape = {
  id: field('string'),
  date: field('date'),
  amount: field('integer'),
  memo: nullable('string'),
  cleared: field(CLEARED),
  approved: field('boolean'),
  flag_color: nullable(FLAG_COLOR),
  flag_name: nullable('string'),
  account_id: field('uuid'),
  payee_id: nullable('uuid'),
  category_id: nullable('uuid'),
  transfer_account_id: nullable('uuid'),
  transfer_transaction_id: nullable('string'),
  matched_transaction_id: nullable('string'),
  import_id: nullable('string'),
  import_payee_name: nullable('string'),
  import_payee_name_original: nullable('string'),
  debt_transaction_type: nullable(DEBT_TRANSACTION_TYPE),
  deleted: field('boolean'),
};

const transactionSummary = withMoney(transactionSummaryBase, ['amount']);

const subTransactionBase: Shape = {
  id: field('string'),
  transaction_id: field('string'),
  amount: field('integer'),
  memo: nullable('string'),
  payee_id: nullable('uuid'),
  payee_name: nullable('string'),
  category_id: nullable('uuid'),
  category_name: nullable('string'),
  transfer_account_id: nullable('uuid'),
  transfer_transaction_id: nullable('string'),
  deleted: field('boolean'),
};

const scheduledTransactionSummaryBase: Shape = {
  id: field('uuid'),
  date_first: field('date'),
  date_next: field('date'),
  frequency: field(FREQUENCY),
  amount: field('integer'),
  memo: nullable('string'),
  flag_color: nullable(FLAG_COLOR),
  flag_name: nullable('string'),
  account_id: field('uuid'),
  payee_id: nullable('uuid'),
  category_id: nullable('uuid'),
  transfer_account_id: nullable('uuid'),
  deleted: field('boolean'),
};

const scheduledSubTransactionBase: Shape = {
  id: field('uuid'),
  scheduled_transaction_id: field('uuid'),
  amount: field('integer'),
  memo: nullable('string'),
  payee_id: nullable('uuid'),
  payee_name: nullable('string'),
  category_id: nullable('uuid'),
  category_name: nullable('string'),
  transfer_account_id: nullable('uuid'),
  deleted: field('boolean'),
};

const SHAPE_TABLE: Record<ShapeName, Shape> = {
  ErrorDetail: { id: field('string'), name: field('string'), detail: field('string') },
  User: user,
  DateFormat: dateFormat,
  CurrencyFormat: currencyFormat,
  PlanSummary: planSummaryFields,
  PlanSummaryWithAccounts: { ...planSummaryFields, accounts: field(arrayOf(ref('Account'))) },
  PlanDetail: {
    ...planSummaryFields,
    accounts: field(arrayOf(ref('AccountBase'))),
    payees: field(arrayOf(ref('Payee'))),
    payee_locations: field(arrayOf(ref('PayeeLocation'))),
    category_groups: field(arrayOf(ref('CategoryGroup'))),
    categories: field(arrayOf(ref('CategoryBase'))),
    months: field(arrayOf(ref('MonthDetailBase'))),
    transactions: field(arrayOf(ref('TransactionSummaryBase'))),
    subtransactions: field(arrayOf(ref('SubTransactionBase'))),
    scheduled_transactions: field(arrayOf(ref('ScheduledTransactionSummaryBase'))),
    scheduled_subtransactions: field(arrayOf(ref('ScheduledSubTransactionBase'))),
  },
  PlanSettings: {
    date_format: nullable(ref('DateFormat')),
    currency_format: nullable(ref('CurrencyFormat')),
  },
  AccountBase: accountBase,
  Account: withMoney(accountBase, ['balance', 'cleared_balance', 'uncleared_balance']),
  CategoryGroup: categoryGroup,
  CategoryGroupWithCategories: { ...categoryGroup, categories: field(arrayOf(ref('Category'))) },
  CategoryBase: categoryBase,
  Category: withMoney(
    categoryBase,
    ['balance', 'activity', 'budgeted'],
    ['goal_target', 'goal_under_funded', 'goal_overall_funded', 'goal_overall_left'],
  ),
  Payee: payee,
  PayeeLocation: payeeLocation,
  MonthSummary: monthSummary,
  MonthDetailBase: { ...monthSummaryBase, categories: field(arrayOf(ref('CategoryBase'))) },
  MonthDetail: { ...monthSummary, categories: field(arrayOf(ref('Category'))) },
  MoneyMovement: withMoney(moneyMovementBase, ['amount']),
  MoneyMovementGroup: moneyMovementGroup,
  TransactionSummaryBase: transactionSummaryBase,
  TransactionDetail: {
    ...transactionSummary,
    account_name: field('string'),
    payee_name: nullable('string'),
    category_name: nullable('string'),
    subtransactions: field(arrayOf(ref('SubTransaction'))),
  },
  HybridTransaction: {
    ...transactionSummary,
    type: field({ enum: ['transaction', 'subtransaction'] }),
    parent_transaction_id: nullable('string'),
    account_name: field('string'),
    payee_name: nullable('string'),
    category_name: field('string'),
  },
  SubTransactionBase: subTransactionBase,
  SubTransaction: withMoney(subTransactionBase, ['amount']),
  ScheduledTransactionSummaryBase: scheduledTransactionSummaryBase,
  ScheduledTransactionDetail: {
    ...withMoney(scheduledTransactionSummaryBase, ['amount']),
    account_name: field('string'),
    payee_name: nullable('string'),
    category_name: nullable('string'),
    subtransactions: field(arrayOf(ref('ScheduledSubTransaction'))),
  },
  ScheduledSubTransactionBase: scheduledSubTransactionBase,
  ScheduledSubTransaction: withMoney(scheduledSubTransactionBase, ['amount']),
};

/**
 * What sits inside `data` for each operation. Conditional members are `optional` here and
 * asserted by the tests that know which variant they asked for.
 */
const RESPONSE_TABLE = {
  getUser: { user: field(ref('User')) },
  getPlans: {
    plans: field(arrayOf(ref('PlanSummary'))),
    default_plan: nullable(ref('PlanSummary')),
  },
  getPlansWithAccounts: {
    plans: field(arrayOf(ref('PlanSummaryWithAccounts'))),
    default_plan: nullable(ref('PlanSummaryWithAccounts')),
  },
  getPlanById: { plan: field(ref('PlanDetail')), server_knowledge: field('integer') },
  getPlanSettingsById: { settings: field(ref('PlanSettings')) },
  getAccounts: { accounts: field(arrayOf(ref('Account'))), server_knowledge: field('integer') },
  createAccount: { account: field(ref('Account')) },
  getAccountById: { account: field(ref('Account')) },
  getCategories: {
    category_groups: field(arrayOf(ref('CategoryGroupWithCategories'))),
    server_knowledge: field('integer'),
  },
  createCategory: { category: field(ref('Category')), server_knowledge: field('integer') },
  getCategoryById: { category: field(ref('Category')) },
  updateCategory: { category: field(ref('Category')), server_knowledge: field('integer') },
  getMonthCategoryById: { category: field(ref('Category')) },
  updateMonthCategory: { category: field(ref('Category')), server_knowledge: field('integer') },
  createCategoryGroup: {
    category_group: field(ref('CategoryGroup')),
    server_knowledge: field('integer'),
  },
  updateCategoryGroup: {
    category_group: field(ref('CategoryGroup')),
    server_knowledge: field('integer'),
  },
  getPayees: { payees: field(arrayOf(ref('Payee'))), server_knowledge: field('integer') },
  createPayee: { payee: field(ref('Payee')), server_knowledge: field('integer') },
  getPayeeById: { payee: field(ref('Payee')) },
  updatePayee: { payee: field(ref('Payee')), server_knowledge: field('integer') },
  getPayeeLocations: { payee_locations: field(arrayOf(ref('PayeeLocation'))) },
  getPayeeLocationById: { payee_location: field(ref('PayeeLocation')) },
  getPayeeLocationsByPayee: { payee_locations: field(arrayOf(ref('PayeeLocation'))) },
  getPlanMonths: {
    months: field(arrayOf(ref('MonthSummary'))),
    server_knowledge: field('integer'),
  },
  getPlanMonth: { month: field(ref('MonthDetail')) },
  getMoneyMovements: {
    money_movements: field(arrayOf(ref('MoneyMovement'))),
    server_knowledge: field('integer'),
  },
  getMoneyMovementGroups: {
    money_movement_groups: field(arrayOf(ref('MoneyMovementGroup'))),
    server_knowledge: field('integer'),
  },
  getTransactions: {
    transactions: field(arrayOf(ref('TransactionDetail'))),
    server_knowledge: field('integer'),
  },
  getHybridTransactions: {
    transactions: field(arrayOf(ref('HybridTransaction'))),
    server_knowledge: field('integer'),
  },
  saveTransactions: {
    transaction_ids: field(arrayOf('string')),
    transaction: optional(ref('TransactionDetail')),
    transactions: optional(arrayOf(ref('TransactionDetail'))),
    duplicate_import_ids: optional(arrayOf('string')),
    server_knowledge: field('integer'),
  },
  importTransactions: { transaction_ids: field(arrayOf('string')) },
  transaction: { transaction: field(ref('TransactionDetail')), server_knowledge: field('integer') },
  getScheduledTransactions: {
    scheduled_transactions: field(arrayOf(ref('ScheduledTransactionDetail'))),
    server_knowledge: field('integer'),
  },
  scheduledTransaction: { scheduled_transaction: field(ref('ScheduledTransactionDetail')) },
} satisfies Record<string, Shape>;

export type ResponseName = keyof typeof RESPONSE_TABLE;

export const SHAPES: Readonly<Record<ShapeName, Shape>> = SHAPE_TABLE;
export const RESPONSES: Readonly<Record<ResponseName, Shape>> = RESPONSE_TABLE;
