/**
 * Read-your-writes: applies the entities a REST write returned to a replica state, without
 * touching its knowledge, so the next delta (asked from the old knowledge) still carries them
 * and confirms or supersedes them.
 *
 * Write responses use the full REST shapes; the replica stores the export's base shapes. Each
 * entity is therefore cut down to its base fields (dropping `_formatted` / `_currency`
 * companions and the names a detail adds), and a transaction's nested `subtransactions` become
 * rows of their own. A write's subtransaction list is complete, so it replaces the replica's.
 * A transaction that names a payee the replica does not know yet (one created by `payee_name`)
 * gets a provisional payee row with that name, until the next delta brings the real one.
 */
import type {
  AccountBase,
  CategoryBase,
  CategoryGroup,
  IsoDate,
  Payee,
  ScheduledSubTransactionBase,
  ScheduledTransactionSummaryBase,
  SubTransactionBase,
  TransactionSummaryBase,
} from '@plans-gateway/rest-contract';
import { applyChangeSet } from './change-set.js';
import type { PlanState } from './plan-state.js';
import type { ExportCategory, SavedEntities } from './types.js';
import { assertDate, assertEntity, type CheckedCollection, ReplicaDataError } from './validate.js';

export interface ApplySavedOptions {
  /** The current month (first day, UTC): where `categories` amounts belong. */
  currentMonth: IsoDate;
}

/** Returns the state with the saved entities applied; knowledge and plan fields unchanged. */
export function applySavedEntities(
  state: PlanState,
  saved: SavedEntities,
  options: ApplySavedOptions,
): PlanState {
  const accounts = checked('accounts', saved.accounts, 'saved.accounts').map((row) =>
    pick(row, ACCOUNT),
  );
  const categoryGroups = checked(
    'category_groups',
    saved.categoryGroups,
    'saved.categoryGroups',
  ).map((row) => pick(row, CATEGORY_GROUP));
  const categories: ExportCategory[] = checked(
    'categories',
    saved.categories,
    'saved.categories',
  ).map((row) => pick(row, CATEGORY));
  const payees = checked('payees', saved.payees, 'saved.payees').map((row) => pick(row, PAYEE));

  const monthCategories: { month: IsoDate; category: ExportCategory }[] = (
    saved.monthCategories ?? []
  ).map(({ month, category }, index) => {
    assertDate(month, `saved.monthCategories[${index}].month`);
    assertEntity('categories', category, `saved.monthCategories[${index}].category`);
    return { month: firstOfMonth(month), category: pick(category, CATEGORY) };
  });
  // The top-level categories hold the current month's amounts; keep them in step.
  for (const { month, category } of monthCategories) {
    if (month === options.currentMonth) categories.push(category);
  }
  for (const category of saved.categories ?? []) {
    monthCategories.push({ month: options.currentMonth, category: pick(category, CATEGORY) });
  }

  // Derived rows (local-effects.ts) come after the answer's own, so they win where both speak.
  const derived = saved.derived;
  for (const { month, category } of derived?.monthCategories ?? []) {
    monthCategories.push({ month, category });
    if (month === options.currentMonth) categories.push(category);
  }

  const transactions: TransactionSummaryBase[] = [];
  const subtransactions: SubTransactionBase[] = [];
  const completeSubtransactionsOf = new Set<string>();
  checked('transactions', saved.transactions, 'saved.transactions').forEach((detail, index) => {
    transactions.push(pick(detail, TRANSACTION));
    if (detail.deleted) return;
    completeSubtransactionsOf.add(detail.id);
    const subs = detail.subtransactions;
    if (!Array.isArray(subs)) {
      throw new ReplicaDataError(`saved.transactions[${index}].subtransactions`, 'an array', subs);
    }
    subs.forEach((sub, i) => {
      assertEntity('subtransactions', sub, `saved.transactions[${index}].subtransactions[${i}]`);
      subtransactions.push(pick(sub, SUBTRANSACTION));
    });
    addProvisionalPayee(
      state,
      payees,
      detail.payee_id,
      detail.payee_name,
      detail.transfer_account_id,
    );
    for (const sub of subs) {
      addProvisionalPayee(state, payees, sub.payee_id, sub.payee_name, sub.transfer_account_id);
    }
  });

  // A transfer's other side, and payees created by name, as the write's arithmetic left them.
  for (const row of derived?.transactions ?? []) transactions.push(pick(row, TRANSACTION));
  for (const row of derived?.payees ?? []) {
    const at = payees.findIndex((payee) => payee.id === row.id);
    if (at >= 0) payees.splice(at, 1);
    payees.push(pick(row, PAYEE));
  }

  const scheduledTransactions: ScheduledTransactionSummaryBase[] = [];
  const scheduledSubtransactions: ScheduledSubTransactionBase[] = [];
  const completeScheduledSubtransactionsOf = new Set<string>();
  checked(
    'scheduled_transactions',
    saved.scheduledTransactions,
    'saved.scheduledTransactions',
  ).forEach((detail, index) => {
    scheduledTransactions.push(pick(detail, SCHEDULED_TRANSACTION));
    if (detail.deleted) return;
    completeScheduledSubtransactionsOf.add(detail.id);
    const subs = detail.subtransactions;
    if (!Array.isArray(subs)) {
      throw new ReplicaDataError(
        `saved.scheduledTransactions[${index}].subtransactions`,
        'an array',
        subs,
      );
    }
    subs.forEach((sub, i) => {
      const path = `saved.scheduledTransactions[${index}].subtransactions[${i}]`;
      assertEntity('scheduled_subtransactions', sub, path);
      scheduledSubtransactions.push(pick(sub, SCHEDULED_SUBTRANSACTION));
    });
  });

  return applyChangeSet(state, {
    currentMonth: options.currentMonth,
    accounts: [...accounts, ...(derived?.accounts ?? [])],
    months: derived?.months ?? [],
    categoryGroups,
    categories,
    monthCategories,
    payees,
    transactions,
    subtransactions,
    completeSubtransactionsOf,
    scheduledTransactions,
    scheduledSubtransactions,
    completeScheduledSubtransactionsOf,
  });
}

/** Private: validates a saved list (absent means empty) and returns it as an array. */
function checked<T>(
  collection: CheckedCollection,
  list: readonly T[] | undefined,
  path: string,
): T[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new ReplicaDataError(path, 'an array', list);
  for (const [index, entity] of list.entries())
    assertEntity(collection, entity, `${path}[${index}]`);
  return [...list];
}

/** Private: a payee row for a payee id the replica has not seen, named as the write named it. */
function addProvisionalPayee(
  state: PlanState,
  payees: Payee[],
  payeeId: string | null,
  payeeName: string | null,
  transferAccountId: string | null,
): void {
  if (payeeId === null || payeeName === null) return;
  if (state.payees.has(payeeId) || payees.some((payee) => payee.id === payeeId)) return;
  payees.push({
    id: payeeId,
    name: payeeName,
    transfer_account_id: transferAccountId,
    deleted: false,
  });
}

function firstOfMonth(date: IsoDate): IsoDate {
  return `${date.slice(0, 7)}-01`;
}

/** Private: a new object with exactly `keys` of `source` (missing ones become null). */
function pick<T, K extends keyof T>(source: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const key of keys) out[key] = (source[key] ?? null) as T[K];
  return out;
}

/**
 * The base field lists. `fields<T>()` only accepts a list naming every key of T, so a field
 * added to a base shape of the REST contract fails to compile here until it is listed.
 */
function fields<T>() {
  return <const K extends readonly (keyof T)[]>(
    ...keys: K &
      ([Exclude<keyof T, K[number]>] extends [never]
        ? unknown
        : { missing: Exclude<keyof T, K[number]> })
  ): readonly (keyof T)[] => keys;
}

const ACCOUNT = fields<AccountBase>()(
  'id',
  'name',
  'type',
  'on_budget',
  'closed',
  'note',
  'balance',
  'cleared_balance',
  'uncleared_balance',
  'transfer_payee_id',
  'direct_import_linked',
  'direct_import_in_error',
  'last_reconciled_at',
  'debt_original_balance',
  'debt_interest_rates',
  'debt_minimum_payments',
  'debt_escrow_amounts',
  'deleted',
);
const CATEGORY_GROUP = fields<CategoryGroup>()('id', 'name', 'hidden', 'internal', 'deleted');
const PAYEE = fields<Payee>()('id', 'name', 'transfer_account_id', 'deleted');
const CATEGORY = fields<CategoryBase>()(
  'id',
  'category_group_id',
  'category_group_name',
  'name',
  'hidden',
  'internal',
  'original_category_group_id',
  'note',
  'budgeted',
  'activity',
  'balance',
  'goal_type',
  'goal_needs_whole_amount',
  'goal_day',
  'goal_cadence',
  'goal_cadence_frequency',
  'goal_creation_month',
  'goal_target',
  'goal_target_month',
  'goal_target_date',
  'goal_percentage_complete',
  'goal_months_to_budget',
  'goal_under_funded',
  'goal_overall_funded',
  'goal_overall_left',
  'goal_snoozed_at',
  'deleted',
);
const TRANSACTION = fields<TransactionSummaryBase>()(
  'id',
  'date',
  'amount',
  'memo',
  'cleared',
  'approved',
  'flag_color',
  'flag_name',
  'account_id',
  'payee_id',
  'category_id',
  'transfer_account_id',
  'transfer_transaction_id',
  'matched_transaction_id',
  'import_id',
  'import_payee_name',
  'import_payee_name_original',
  'debt_transaction_type',
  'deleted',
);
const SUBTRANSACTION = fields<SubTransactionBase>()(
  'id',
  'transaction_id',
  'amount',
  'memo',
  'payee_id',
  'payee_name',
  'category_id',
  'category_name',
  'transfer_account_id',
  'transfer_transaction_id',
  'deleted',
);
const SCHEDULED_TRANSACTION = fields<ScheduledTransactionSummaryBase>()(
  'id',
  'date_first',
  'date_next',
  'frequency',
  'amount',
  'memo',
  'flag_color',
  'flag_name',
  'account_id',
  'payee_id',
  'category_id',
  'transfer_account_id',
  'deleted',
);
const SCHEDULED_SUBTRANSACTION = fields<ScheduledSubTransactionBase>()(
  'id',
  'scheduled_transaction_id',
  'amount',
  'memo',
  'payee_id',
  'payee_name',
  'category_id',
  'category_name',
  'transfer_account_id',
  'deleted',
);
