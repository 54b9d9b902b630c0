/**
 * REST shapes of the Plans interface (YNAB API v1), as they travel on the wire: snake_case,
 * integer milliunits, ISO dates as strings, `null` for absent values (never omitted).
 *
 * The shapes are generated from the official OpenAPI description (`generated/openapi.ts`); this
 * file names them and corrects the description where it is wrong or silent, each place saying
 * why. Names follow the description's schema names: `...Base` is the shape inside the plan export
 * (no formatted companions), the plain name adds the `_formatted` / `_currency` companions.
 */
import type { components, operations } from './generated/openapi.js';
import { ENUMS } from './generated/operations.js';

type Schemas = components['schemas'];

/**
 * Correction, the description is wrong: the interface promises that a property with no value "is
 * present with the value null; it is never omitted", yet the description leaves most properties
 * of its answers out of `required`. Every answer shape therefore has all of its properties, at
 * every depth; the few that really are conditional are named below.
 */
type Present<T> = T extends readonly (infer Item)[]
  ? Present<Item>[]
  : T extends object
    ? { [K in keyof T]-?: Present<T[K]> }
    : T;

/** Integer thousandths of a currency unit (`format: int64`). Always a safe integer. */
export type Milliunits = number;
/** `YYYY-MM-DD`, UTC (`format: date`). */
export type IsoDate = string;
/** RFC 3339 timestamp, UTC (`format: date-time`). */
export type IsoDateTime = string;
/** Lower-case hyphenated UUID (`format: uuid`). */
export type Uuid = string;

// ---------------------------------------------------------------------------------------------
// Enumerations: the values are generated too (`ENUMS`), so a value the description adds reaches
// the sandbox's validation and the graph's enums without an edit here.

export const ACCOUNT_TYPES = ENUMS.AccountType;
export type AccountType = Schemas['AccountType'];
/** Types an account can be created with through the interface. */
export const SAVE_ACCOUNT_TYPES = ENUMS.SaveAccountType;
export type SaveAccountType = Schemas['SaveAccountType'];
export const GOAL_TYPES = ENUMS['CategoryBase.goal_type'];
export type GoalType = (typeof GOAL_TYPES)[number];
/** The repeat of a recurring target, set through a category's `goal_frequency` (since 1.86.0). */
export const GOAL_FREQUENCIES = ENUMS['SaveCategory.goal_frequency'];
export type GoalFrequency = (typeof GOAL_FREQUENCIES)[number];
export const CLEARED_STATUSES = ENUMS.TransactionClearedStatus;
export type ClearedStatus = Schemas['TransactionClearedStatus'];
/** The empty string is a valid flag colour on the wire (it clears the flag). */
export const FLAG_COLORS = ENUMS.TransactionFlagColor;
export type FlagColor = NonNullable<Schemas['TransactionFlagColor']>;
export const FREQUENCIES = ENUMS.ScheduledTransactionFrequency;
export type Frequency = Schemas['ScheduledTransactionFrequency'];
export const DEBT_TRANSACTION_TYPES = ENUMS['TransactionSummaryBase.debt_transaction_type'];
export type DebtTransactionType = (typeof DEBT_TRANSACTION_TYPES)[number];
/** The `type` filter of the five transaction lists. */
export const TRANSACTION_LIST_TYPES = ENUMS['getTransactions.type'];
export type TransactionListType = (typeof TRANSACTION_LIST_TYPES)[number];

// ---------------------------------------------------------------------------------------------
// Answers

export type ErrorDetail = Schemas['ErrorDetail'];
export type User = Present<Schemas['User']>;
export type DateFormat = NonNullable<Schemas['DateFormat']>;
export type CurrencyFormat = NonNullable<Schemas['CurrencyFormat']>;
export type PlanSettings = Present<Schemas['PlanSettings']>;

export type PlanSummary = Present<Omit<Schemas['PlanSummary'], 'accounts'>> & {
  /** Conditional, as the description says: only with `include_accounts=true`. */
  accounts?: Account[];
};
/**
 * Correction, the description is wrong: it composes the export from `PlanSummary`, whose
 * `accounts` are full accounts, and adds `accounts` of `AccountBase`, so the property would be
 * both. The export carries `AccountBase` (no formatted companions), like its other entities.
 */
export type PlanDetail = Present<Omit<Schemas['PlanDetail'], 'accounts'>> & {
  accounts: AccountBase[];
};

/** Keyed by the first date of a period (`YYYY-MM-DD`); values in milliunits. */
export type LoanAccountPeriodicValue = Schemas['LoanAccountPeriodicValue'];
export type AccountBase = Present<Schemas['AccountBase']>;
export type Account = Present<Schemas['Account']>;

export type CategoryGroup = Present<Schemas['CategoryGroup']>;
export type CategoryBase = Present<Schemas['CategoryBase']>;
export type Category = Present<Schemas['Category']>;
export type CategoryGroupWithCategories = Present<Schemas['CategoryGroupWithCategories']>;

export type Payee = Present<Schemas['Payee']>;
/** Decimal degrees as strings, as the interface sends them. */
export type PayeeLocation = Present<Schemas['PayeeLocation']>;

export type MonthSummaryBase = Present<Schemas['MonthSummaryBase']>;
export type MonthSummary = Present<Schemas['MonthSummary']>;
export type MonthDetailBase = Present<Schemas['MonthDetailBase']>;
export type MonthDetail = Present<Schemas['MonthDetail']>;

/** `from_category_id` / `to_category_id` `null` mean the unassigned pool (Ready to Assign). */
export type MoneyMovementBase = Present<Schemas['MoneyMovementBase']>;
export type MoneyMovement = Present<Schemas['MoneyMovement']>;
export type MoneyMovementGroup = Present<Schemas['MoneyMovementGroup']>;

export type TransactionSummaryBase = Present<Schemas['TransactionSummaryBase']>;
export type SubTransactionBase = Present<Schemas['SubTransactionBase']>;
export type SubTransaction = Present<Schemas['SubTransaction']>;
/** `category_name` is `'Split'` for a split transaction. */
export type TransactionDetail = Present<Schemas['TransactionDetail']>;
/** A row of the by-category and by-payee lists: a transaction or one subtransaction of a split. */
export type HybridTransaction = Present<Schemas['HybridTransaction']>;

export type ScheduledTransactionSummaryBase = Present<Schemas['ScheduledTransactionSummaryBase']>;
export type ScheduledSubTransactionBase = Present<Schemas['ScheduledSubTransactionBase']>;
export type ScheduledSubTransaction = Present<Schemas['ScheduledSubTransaction']>;
export type ScheduledTransactionDetail = Present<Schemas['ScheduledTransactionDetail']>;

// ---------------------------------------------------------------------------------------------
// Request bodies: optional means "may be left out", as the description says.

export type SaveCategory = Schemas['SaveCategory'];
/**
 * Correction, the generator drops it: the description requires `name` and `category_group_id`
 * through an `allOf` member that has no properties of its own. A new category's name is a
 * string: the interface refuses `null` (400), as the sandbox does.
 */
export type NewCategory = SaveCategory & { name: string; category_group_id: Uuid };
export type SaveSubTransaction = Schemas['SaveSubTransaction'];
export type SaveTransactionWithOptionalFields = Schemas['SaveTransactionWithOptionalFields'];
export type NewTransaction = Schemas['NewTransaction'];
/**
 * Correction, the generator is wrong here: the description adds an empty `type: object` to the
 * fields, which openapi-typescript renders as `Record<string, never>` and so forbids every field.
 * The same holds for `ExistingCategory`, the body of `updateCategory`: plain `SaveCategory`.
 */
export type ExistingTransaction = SaveTransactionWithOptionalFields;
export type SaveTransactionWithIdOrImportId = Schemas['SaveTransactionWithIdOrImportId'];
export type SaveScheduledTransaction = Schemas['SaveScheduledTransaction'];

// ---------------------------------------------------------------------------------------------
// Operations

export type OperationId = keyof operations;

/** Private: the JSON body an operation answers with on success (200 or 201). */
type SuccessBody<Op extends OperationId> = {
  [Status in keyof operations[Op]['responses']]: Status extends 200 | 201
    ? operations[Op]['responses'][Status] extends { content: { 'application/json': infer Body } }
      ? Body
      : never
    : never;
}[keyof operations[Op]['responses']];

/** Present when a single `transaction` was sent, or a `transactions` array, as described. */
export interface SaveTransactionsResponseData {
  transaction_ids: string[];
  transaction?: TransactionDetail;
  transactions?: TransactionDetail[];
  duplicate_import_ids?: string[];
  server_knowledge: number;
}

/** Answers whose shape the null rule alone does not give (see `PlanSummary`, `PlanDetail`). */
interface ResponseCorrections {
  getPlans: { plans: PlanSummary[]; default_plan: PlanSummary | null };
  getPlanById: { plan: PlanDetail; server_knowledge: number };
  createTransaction: SaveTransactionsResponseData;
  updateTransactions: SaveTransactionsResponseData;
}

/** What sits inside `data` of each operation's answer. */
export type ResponseData = {
  [Op in OperationId]: Op extends keyof ResponseCorrections
    ? ResponseCorrections[Op]
    : SuccessBody<Op> extends { data: infer Data }
      ? Present<Data>
      : never;
};

/** Private: the JSON body an operation takes, for those that take one. */
type RequestBodyOf<Op extends OperationId> = operations[Op]['requestBody'] extends
  | { content: { 'application/json': infer Body } }
  | undefined
  ? Body
  : never;

/** Bodies that take the corrected `NewCategory` / `ExistingTransaction` above. */
interface RequestCorrections {
  createCategory: { category: NewCategory };
  updateCategory: { category: SaveCategory };
  updateTransaction: { transaction: ExistingTransaction };
}

type OperationsWithBody = {
  [Op in OperationId]: operations[Op]['requestBody'] extends undefined ? never : Op;
}[OperationId];

/** Request bodies, keyed by operationId. */
export type RequestBody = {
  [Op in OperationsWithBody]: Op extends keyof RequestCorrections
    ? RequestCorrections[Op]
    : RequestBodyOf<Op>;
};

// ---------------------------------------------------------------------------------------------
// OAuth token endpoint: the description is silent (OAuth lives outside `/v1`).

export interface OAuthTokenResponse {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  refresh_token: string;
  /** Present on code grants; the sandbox also echoes the granted scope. */
  scope?: string;
  created_at?: number;
}
