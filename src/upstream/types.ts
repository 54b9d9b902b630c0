/**
 * REST shapes of the Plans interface (YNAB API v1), as they travel on the wire: snake_case,
 * integer milliunits, ISO dates as strings, `null` for absent values (never omitted).
 *
 * These types are the contract between the sandbox (which produces them) and the gateway
 * (which consumes them). Nothing here knows about GraphQL.
 *
 * Naming follows the interface's schema names so a reader can hold both side by side:
 * `...Base` is the shape inside the plan export (no formatted companions), the plain name adds
 * the `_formatted` / `_currency` companions computed from the plan's currency format.
 */

/** Integer thousandths of a currency unit. Always a safe integer (|n| <= 2^53 - 1). */
export type Milliunits = number;
/** `YYYY-MM-DD`, UTC. */
export type IsoDate = string;
/** RFC 3339 timestamp, UTC. */
export type IsoDateTime = string;
/** Lower-case hyphenated UUID. */
export type Uuid = string;

// ---------------------------------------------------------------------------------------------
// Enumerations

export const ACCOUNT_TYPES = [
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
] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

/** Types an account can be created with through the interface. */
export const SAVE_ACCOUNT_TYPES = [
  'checking',
  'savings',
  'cash',
  'creditCard',
  'otherAsset',
  'otherLiability',
] as const;
export type SaveAccountType = (typeof SAVE_ACCOUNT_TYPES)[number];

export const GOAL_TYPES = ['TB', 'TBD', 'MF', 'NEED', 'DEBT'] as const;
export type GoalType = (typeof GOAL_TYPES)[number];

export const CLEARED_STATUSES = ['cleared', 'uncleared', 'reconciled'] as const;
export type ClearedStatus = (typeof CLEARED_STATUSES)[number];

/** The empty string is a valid flag colour on the wire (it clears the flag). */
export const FLAG_COLORS = ['red', 'orange', 'yellow', 'green', 'blue', 'purple', ''] as const;
export type FlagColor = (typeof FLAG_COLORS)[number];

export const FREQUENCIES = [
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
export type Frequency = (typeof FREQUENCIES)[number];

export const DEBT_TRANSACTION_TYPES = [
  'payment',
  'refund',
  'fee',
  'interest',
  'escrow',
  'balanceAdjustment',
  'credit',
  'charge',
] as const;
export type DebtTransactionType = (typeof DEBT_TRANSACTION_TYPES)[number];

export const TRANSACTION_LIST_TYPES = ['uncategorized', 'unapproved'] as const;
export type TransactionListType = (typeof TRANSACTION_LIST_TYPES)[number];

// ---------------------------------------------------------------------------------------------
// Errors

export interface ErrorDetail {
  /** `400`, `401`, `403.1` ... `404.2`, `409`, `429`, `500`, `503`. */
  id: string;
  name: string;
  detail: string;
}

// ---------------------------------------------------------------------------------------------
// User and plans

export interface User {
  id: Uuid;
}

export interface DateFormat {
  format: string;
}

export interface CurrencyFormat {
  iso_code: string;
  example_format: string;
  decimal_digits: number;
  decimal_separator: string;
  symbol_first: boolean;
  group_separator: string;
  currency_symbol: string;
  display_symbol: boolean;
}

export interface PlanSummary {
  id: Uuid;
  name: string;
  last_modified_on: IsoDateTime | null;
  first_month: IsoDate | null;
  last_month: IsoDate | null;
  date_format: DateFormat | null;
  currency_format: CurrencyFormat | null;
  /** Only present when the list was asked for with `include_accounts=true`. */
  accounts?: Account[];
}

export interface PlanDetail extends Omit<PlanSummary, 'accounts'> {
  accounts: AccountBase[];
  payees: Payee[];
  payee_locations: PayeeLocation[];
  category_groups: CategoryGroup[];
  categories: CategoryBase[];
  months: MonthDetailBase[];
  transactions: TransactionSummaryBase[];
  subtransactions: SubTransactionBase[];
  scheduled_transactions: ScheduledTransactionSummaryBase[];
  scheduled_subtransactions: ScheduledSubTransactionBase[];
}

export interface PlanSettings {
  date_format: DateFormat | null;
  currency_format: CurrencyFormat | null;
}

// ---------------------------------------------------------------------------------------------
// Accounts

/** Keyed by the first date of a period (`YYYY-MM-DD`); values in milliunits. */
export type LoanAccountPeriodicValue = Record<IsoDate, Milliunits> | null;

export interface AccountBase {
  id: Uuid;
  name: string;
  type: AccountType;
  on_budget: boolean;
  closed: boolean;
  note: string | null;
  balance: Milliunits;
  cleared_balance: Milliunits;
  uncleared_balance: Milliunits;
  transfer_payee_id: Uuid | null;
  direct_import_linked: boolean;
  direct_import_in_error: boolean;
  last_reconciled_at: IsoDateTime | null;
  /** Deprecated by the interface; always `null`. */
  debt_original_balance: Milliunits | null;
  debt_interest_rates: LoanAccountPeriodicValue;
  debt_minimum_payments: LoanAccountPeriodicValue;
  debt_escrow_amounts: LoanAccountPeriodicValue;
  deleted: boolean;
}

export interface Account extends AccountBase {
  balance_formatted: string;
  balance_currency: number;
  cleared_balance_formatted: string;
  cleared_balance_currency: number;
  uncleared_balance_formatted: string;
  uncleared_balance_currency: number;
}

export interface SaveAccount {
  name: string;
  type: SaveAccountType;
  balance: Milliunits;
}

// ---------------------------------------------------------------------------------------------
// Categories

export interface CategoryGroup {
  id: Uuid;
  name: string;
  hidden: boolean;
  internal: boolean;
  deleted: boolean;
}

export interface CategoryBase {
  id: Uuid;
  category_group_id: Uuid;
  category_group_name: string;
  name: string;
  hidden: boolean;
  internal: boolean;
  /** Deprecated by the interface; always `null`. */
  original_category_group_id: Uuid | null;
  note: string | null;
  budgeted: Milliunits;
  activity: Milliunits;
  balance: Milliunits;
  goal_type: GoalType | null;
  goal_needs_whole_amount: boolean | null;
  goal_day: number | null;
  goal_cadence: number | null;
  goal_cadence_frequency: number | null;
  goal_creation_month: IsoDate | null;
  goal_target: Milliunits | null;
  /** Deprecated by the interface; always `null`. */
  goal_target_month: IsoDate | null;
  goal_target_date: IsoDate | null;
  goal_percentage_complete: number | null;
  goal_months_to_budget: number | null;
  goal_under_funded: Milliunits | null;
  goal_overall_funded: Milliunits | null;
  goal_overall_left: Milliunits | null;
  goal_snoozed_at: IsoDateTime | null;
  deleted: boolean;
}

export interface Category extends CategoryBase {
  balance_formatted: string;
  balance_currency: number;
  activity_formatted: string;
  activity_currency: number;
  budgeted_formatted: string;
  budgeted_currency: number;
  goal_target_formatted: string | null;
  goal_target_currency: number | null;
  goal_under_funded_formatted: string | null;
  goal_under_funded_currency: number | null;
  goal_overall_funded_formatted: string | null;
  goal_overall_funded_currency: number | null;
  goal_overall_left_formatted: string | null;
  goal_overall_left_currency: number | null;
}

export interface CategoryGroupWithCategories extends CategoryGroup {
  categories: Category[];
}

export interface SaveCategory {
  name?: string | null;
  note?: string | null;
  category_group_id?: Uuid;
  goal_target?: Milliunits | null;
  goal_target_date?: IsoDate | null;
  goal_needs_whole_amount?: boolean | null;
}

export interface NewCategory extends SaveCategory {
  name: string;
  category_group_id: Uuid;
}

export interface SaveMonthCategory {
  budgeted: Milliunits;
}

export interface SaveCategoryGroup {
  name: string;
}

// ---------------------------------------------------------------------------------------------
// Payees and payee locations

export interface Payee {
  id: Uuid;
  name: string;
  transfer_account_id: Uuid | null;
  deleted: boolean;
}

export interface PostPayee {
  name: string;
}

export interface SavePayee {
  name?: string;
}

export interface PayeeLocation {
  id: Uuid;
  payee_id: Uuid;
  /** Decimal degrees as a string, as the interface sends them. */
  latitude: string;
  longitude: string;
  deleted: boolean;
}

// ---------------------------------------------------------------------------------------------
// Months

export interface MonthSummaryBase {
  month: IsoDate;
  note: string | null;
  income: Milliunits;
  budgeted: Milliunits;
  activity: Milliunits;
  to_be_budgeted: Milliunits;
  age_of_money: number | null;
  deleted: boolean;
}

export interface MonthSummary extends MonthSummaryBase {
  income_formatted: string;
  income_currency: number;
  budgeted_formatted: string;
  budgeted_currency: number;
  activity_formatted: string;
  activity_currency: number;
  to_be_budgeted_formatted: string;
  to_be_budgeted_currency: number;
}

export interface MonthDetailBase extends MonthSummaryBase {
  categories: CategoryBase[];
}

export interface MonthDetail extends MonthSummary {
  categories: Category[];
}

// ---------------------------------------------------------------------------------------------
// Money movements

export interface MoneyMovementBase {
  id: Uuid;
  month: IsoDate | null;
  moved_at: IsoDateTime | null;
  note: string | null;
  money_movement_group_id: Uuid | null;
  performed_by_user_id: Uuid | null;
  /** `null` means the unassigned pool (Ready to Assign). */
  from_category_id: Uuid | null;
  to_category_id: Uuid | null;
  amount: Milliunits;
}

export interface MoneyMovement extends MoneyMovementBase {
  amount_formatted: string;
  amount_currency: number;
}

export interface MoneyMovementGroup {
  id: Uuid;
  group_created_at: IsoDateTime;
  month: IsoDate;
  note: string | null;
  performed_by_user_id: Uuid | null;
}

// ---------------------------------------------------------------------------------------------
// Transactions

export interface TransactionSummaryBase {
  id: string;
  date: IsoDate;
  amount: Milliunits;
  memo: string | null;
  cleared: ClearedStatus;
  approved: boolean;
  flag_color: FlagColor | null;
  flag_name: string | null;
  account_id: Uuid;
  payee_id: Uuid | null;
  category_id: Uuid | null;
  transfer_account_id: Uuid | null;
  transfer_transaction_id: string | null;
  matched_transaction_id: string | null;
  import_id: string | null;
  import_payee_name: string | null;
  import_payee_name_original: string | null;
  debt_transaction_type: DebtTransactionType | null;
  deleted: boolean;
}

export interface TransactionSummary extends TransactionSummaryBase {
  amount_formatted: string;
  amount_currency: number;
}

export interface SubTransactionBase {
  id: string;
  transaction_id: string;
  amount: Milliunits;
  memo: string | null;
  payee_id: Uuid | null;
  payee_name: string | null;
  category_id: Uuid | null;
  category_name: string | null;
  transfer_account_id: Uuid | null;
  transfer_transaction_id: string | null;
  deleted: boolean;
}

export interface SubTransaction extends SubTransactionBase {
  amount_formatted: string;
  amount_currency: number;
}

export interface TransactionDetail extends TransactionSummary {
  account_name: string;
  payee_name: string | null;
  /** `'Split'` for a split transaction. */
  category_name: string | null;
  subtransactions: SubTransaction[];
}

/** A row of the by-category and by-payee lists: a transaction or one subtransaction of a split. */
export interface HybridTransaction extends TransactionSummary {
  type: 'transaction' | 'subtransaction';
  parent_transaction_id: string | null;
  account_name: string;
  payee_name: string | null;
  category_name: string;
}

export interface SaveSubTransaction {
  amount: Milliunits;
  payee_id?: Uuid | null;
  payee_name?: string | null;
  category_id?: Uuid | null;
  memo?: string | null;
}

export interface SaveTransactionWithOptionalFields {
  account_id?: Uuid;
  date?: IsoDate;
  amount?: Milliunits;
  payee_id?: Uuid | null;
  payee_name?: string | null;
  category_id?: Uuid | null;
  memo?: string | null;
  cleared?: ClearedStatus;
  approved?: boolean;
  flag_color?: FlagColor | null;
  subtransactions?: SaveSubTransaction[];
}

export interface NewTransaction extends SaveTransactionWithOptionalFields {
  import_id?: string | null;
}

export type ExistingTransaction = SaveTransactionWithOptionalFields;

export interface SaveTransactionWithIdOrImportId extends SaveTransactionWithOptionalFields {
  id?: string | null;
  import_id?: string | null;
}

// ---------------------------------------------------------------------------------------------
// Scheduled transactions

export interface ScheduledTransactionSummaryBase {
  id: Uuid;
  date_first: IsoDate;
  date_next: IsoDate;
  frequency: Frequency;
  amount: Milliunits;
  memo: string | null;
  flag_color: FlagColor | null;
  flag_name: string | null;
  account_id: Uuid;
  payee_id: Uuid | null;
  category_id: Uuid | null;
  transfer_account_id: Uuid | null;
  deleted: boolean;
}

export interface ScheduledTransactionSummary extends ScheduledTransactionSummaryBase {
  amount_formatted: string;
  amount_currency: number;
}

export interface ScheduledSubTransactionBase {
  id: Uuid;
  scheduled_transaction_id: Uuid;
  amount: Milliunits;
  memo: string | null;
  payee_id: Uuid | null;
  payee_name: string | null;
  category_id: Uuid | null;
  category_name: string | null;
  transfer_account_id: Uuid | null;
  deleted: boolean;
}

export interface ScheduledSubTransaction extends ScheduledSubTransactionBase {
  amount_formatted: string;
  amount_currency: number;
}

export interface ScheduledTransactionDetail extends ScheduledTransactionSummary {
  account_name: string;
  payee_name: string | null;
  category_name: string | null;
  subtransactions: ScheduledSubTransaction[];
}

export interface SaveScheduledTransaction {
  account_id: Uuid;
  date: IsoDate;
  amount?: Milliunits;
  payee_id?: Uuid | null;
  payee_name?: string | null;
  category_id?: Uuid | null;
  memo?: string | null;
  flag_color?: FlagColor | null;
  frequency?: Frequency;
}

// ---------------------------------------------------------------------------------------------
// Response bodies: what sits inside `data`, keyed by operationId.

export interface ResponseData {
  getUser: { user: User };
  getPlans: { plans: PlanSummary[]; default_plan: PlanSummary | null };
  getPlanById: { plan: PlanDetail; server_knowledge: number };
  getPlanSettingsById: { settings: PlanSettings };
  getAccounts: { accounts: Account[]; server_knowledge: number };
  createAccount: { account: Account };
  getAccountById: { account: Account };
  getCategories: { category_groups: CategoryGroupWithCategories[]; server_knowledge: number };
  createCategory: { category: Category; server_knowledge: number };
  getCategoryById: { category: Category };
  updateCategory: { category: Category; server_knowledge: number };
  getMonthCategoryById: { category: Category };
  updateMonthCategory: { category: Category; server_knowledge: number };
  createCategoryGroup: { category_group: CategoryGroup; server_knowledge: number };
  updateCategoryGroup: { category_group: CategoryGroup; server_knowledge: number };
  getPayees: { payees: Payee[]; server_knowledge: number };
  createPayee: { payee: Payee; server_knowledge: number };
  getPayeeById: { payee: Payee };
  updatePayee: { payee: Payee; server_knowledge: number };
  getPayeeLocations: { payee_locations: PayeeLocation[] };
  getPayeeLocationById: { payee_location: PayeeLocation };
  getPayeeLocationsByPayee: { payee_locations: PayeeLocation[] };
  getPlanMonths: { months: MonthSummary[]; server_knowledge: number };
  getPlanMonth: { month: MonthDetail };
  getMoneyMovements: { money_movements: MoneyMovement[]; server_knowledge: number };
  getMoneyMovementsByMonth: { money_movements: MoneyMovement[]; server_knowledge: number };
  getMoneyMovementGroups: { money_movement_groups: MoneyMovementGroup[]; server_knowledge: number };
  getMoneyMovementGroupsByMonth: {
    money_movement_groups: MoneyMovementGroup[];
    server_knowledge: number;
  };
  getTransactions: { transactions: TransactionDetail[]; server_knowledge: number };
  createTransaction: SaveTransactionsResponseData;
  updateTransactions: SaveTransactionsResponseData;
  importTransactions: { transaction_ids: string[] };
  getTransactionById: { transaction: TransactionDetail; server_knowledge: number };
  updateTransaction: { transaction: TransactionDetail; server_knowledge: number };
  deleteTransaction: { transaction: TransactionDetail; server_knowledge: number };
  getTransactionsByAccount: { transactions: TransactionDetail[]; server_knowledge: number };
  getTransactionsByCategory: { transactions: HybridTransaction[]; server_knowledge: number };
  getTransactionsByPayee: { transactions: HybridTransaction[]; server_knowledge: number };
  getTransactionsByMonth: { transactions: TransactionDetail[]; server_knowledge: number };
  getScheduledTransactions: {
    scheduled_transactions: ScheduledTransactionDetail[];
    server_knowledge: number;
  };
  createScheduledTransaction: { scheduled_transaction: ScheduledTransactionDetail };
  getScheduledTransactionById: { scheduled_transaction: ScheduledTransactionDetail };
  updateScheduledTransaction: { scheduled_transaction: ScheduledTransactionDetail };
  deleteScheduledTransaction: { scheduled_transaction: ScheduledTransactionDetail };
}

export interface SaveTransactionsResponseData {
  transaction_ids: string[];
  /** Present when a single `transaction` was sent. */
  transaction?: TransactionDetail;
  /** Present when a `transactions` array was sent. */
  transactions?: TransactionDetail[];
  /** Present when a `transactions` array was sent. */
  duplicate_import_ids?: string[];
  server_knowledge: number;
}

export type OperationId = keyof ResponseData;

// ---------------------------------------------------------------------------------------------
// Request bodies, keyed by operationId.

export interface RequestBody {
  createAccount: { account: SaveAccount };
  createCategory: { category: NewCategory };
  updateCategory: { category: SaveCategory };
  updateMonthCategory: { category: SaveMonthCategory };
  createCategoryGroup: { category_group: SaveCategoryGroup };
  updateCategoryGroup: { category_group: SaveCategoryGroup };
  createPayee: { payee: PostPayee };
  updatePayee: { payee: SavePayee };
  createTransaction: { transaction?: NewTransaction; transactions?: NewTransaction[] };
  updateTransactions: { transactions: SaveTransactionWithIdOrImportId[] };
  updateTransaction: { transaction: ExistingTransaction };
  createScheduledTransaction: { scheduled_transaction: SaveScheduledTransaction };
  updateScheduledTransaction: { scheduled_transaction: SaveScheduledTransaction };
}

// ---------------------------------------------------------------------------------------------
// OAuth token endpoint

export interface OAuthTokenResponse {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  refresh_token: string;
  /** Present on code grants; the sandbox also echoes the granted scope. */
  scope?: string;
  created_at?: number;
}
