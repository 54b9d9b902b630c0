/**
 * What the sandbox keeps per plan. Records mirror the REST `...Base` shapes (snake_case,
 * milliunits) so presenting them is a copy, plus `knowledge`: the plan's server knowledge at which
 * the record last changed, which is all the delta requests need.
 *
 * Names that travel with other entities (account_name, payee_name, category_name,
 * category_group_name, flag_name) are not stored on the records that show them; they are looked
 * up when presenting. A rename therefore also touches every record that shows the name, so delta
 * responses carry the new name (see `cascadeRename` in the store).
 */
import type {
  AccountBase,
  CategoryGroup,
  FlagColor,
  GoalType,
  IsoDate,
  IsoDateTime,
  MoneyMovementBase,
  MoneyMovementGroup,
  Payee,
  PayeeLocation,
  ScheduledSubTransactionBase,
  ScheduledTransactionSummaryBase,
  SubTransactionBase,
  TransactionSummaryBase,
} from '@plans-gateway/rest-contract';
import type { Exact } from '../core/exact.js';

export interface Versioned {
  knowledge: number;
}

/** Balances are sums of transactions: exact past 2^53 (core/exact.ts). */
export type AccountRecord = Omit<
  AccountBase,
  'balance' | 'cleared_balance' | 'uncleared_balance'
> & {
  balance: Exact;
  cleared_balance: Exact;
  uncleared_balance: Exact;
} & Versioned;
export type PayeeRecord = Payee & Versioned;
export type PayeeLocationRecord = PayeeLocation & Versioned;
export type CategoryGroupRecord = CategoryGroup & Versioned;

/** How a category takes part in the budget arithmetic. */
export type CategoryRole = 'readyToAssign' | 'creditCardPayment' | 'regular';

/** The stored part of a category's goal; the progress fields are computed per month. */
export interface GoalConfig {
  goal_type: GoalType | null;
  goal_needs_whole_amount: boolean | null;
  goal_day: number | null;
  goal_cadence: number | null;
  goal_cadence_frequency: number | null;
  goal_creation_month: IsoDate | null;
  goal_target: number | null;
  goal_target_date: IsoDate | null;
  goal_snoozed_at: IsoDateTime | null;
}

export interface CategoryRecord extends GoalConfig, Versioned {
  id: string;
  category_group_id: string;
  name: string;
  hidden: boolean;
  internal: boolean;
  note: string | null;
  deleted: boolean;
  role: CategoryRole;
  /** For credit card payment categories: the card's account. */
  creditCardAccountId: string | null;
}

/** `budgeted` is one assignment (a number); activity and the carried balance are sums. */
export interface MonthCategoryRecord extends Versioned {
  categoryId: string;
  budgeted: number;
  activity: Exact;
  balance: Exact;
  /**
   * The part of `activity` spent (negative) or refunded (positive) on each credit card, by card
   * account id; absent while the category has no card activity in the month. Not in responses.
   */
  cardActivity?: Map<string, Exact>;
  /**
   * What the card activity moved to each card's payment category (negative: a refund moving money
   * back), as last settled; absent when nothing moved. Not in responses.
   */
  movedToCards?: Map<string, Exact>;
  /** Card spending beyond what the category held: new card debt (see store/budget.ts). */
  creditOverspent?: Exact;
}

export interface MonthRecord extends Versioned {
  month: IsoDate;
  note: string | null;
  income: Exact;
  budgeted: Exact;
  activity: Exact;
  to_be_budgeted: Exact;
  age_of_money: number | null;
  deleted: boolean;
  /** Month values of every category, in category order. */
  categories: Map<string, MonthCategoryRecord>;
}

export type SubTransactionRecord = Omit<SubTransactionBase, 'payee_name' | 'category_name'> &
  Versioned;

export interface TransactionRecord extends Omit<TransactionSummaryBase, 'flag_name'>, Versioned {
  /** Subtransactions of a split (empty otherwise); deleted only together with the parent. */
  subtransactions: SubTransactionRecord[];
  /**
   * What the transaction looked like to the filtered lists before each change that moved it
   * (date, account, categories, payees, approval), so a delta of a filtered list can still carry
   * a transaction that left the list. Absent until the first such change.
   */
  formerScopes?: TransactionScope[];
}

/** The fields the transaction lists filter on, as of before the change at `knowledge`. */
export interface TransactionScope {
  knowledge: number;
  date: IsoDate;
  accountId: string;
  /** The transaction's category, or its subtransactions' categories for a split. */
  categoryIds: (string | null)[];
  /** The transaction's payee and its subtransactions' payees. */
  payeeIds: (string | null)[];
  approved: boolean;
  uncategorized: boolean;
}

export type ScheduledSubTransactionRecord = Omit<
  ScheduledSubTransactionBase,
  'payee_name' | 'category_name'
> &
  Versioned;

export interface ScheduledTransactionRecord
  extends Omit<ScheduledTransactionSummaryBase, 'flag_name'>,
    Versioned {
  subtransactions: ScheduledSubTransactionRecord[];
}

/** An assignment's change can be twice the largest assignment. */
export type MoneyMovementRecord = Omit<MoneyMovementBase, 'amount'> & {
  amount: Exact;
} & Versioned;
export type MoneyMovementGroupRecord = MoneyMovementGroup & Versioned;

/** A transaction waiting at the "bank" of a linked account until POST /transactions/import. */
export interface ImportableTransaction {
  accountId: string;
  date: IsoDate;
  amount: number;
  /** The payee the import resolves to (as a payee rename rule would). */
  payeeName: string;
  /** As the bank statement shows it. */
  statementName: string;
  memo: string | null;
}

export type FlagNames = Partial<Record<Exclude<FlagColor, ''>, string>>;
