/**
 * What each REST write changes, as the write pipeline needs to know it: the entities its answer
 * carries (applied to the replica at once), whether that answer is the whole effect, and which
 * REST-cache collections it makes stale.
 *
 * `complete: true` means the answer describes everything the write changed: a payee or a
 * category group (names shown elsewhere are derived from these rows when read). Any other write
 * moves derived values the answer does not carry (balances, activity, month totals, transfer
 * sides, payees created by name, retired matches), so the pipeline follows it with one delta sync.
 */
import type { IsoDate, OperationResult, Params } from '@plans-gateway/rest-contract';
import type { LocalWrite } from '../replica/local-effects.js';
import type { SavedEntities } from '../replica/types.js';

export type WriteOperationId =
  | 'createAccount'
  | 'createCategory'
  | 'updateCategory'
  | 'updateMonthCategory'
  | 'createCategoryGroup'
  | 'updateCategoryGroup'
  | 'createPayee'
  | 'updatePayee'
  | 'createTransaction'
  | 'updateTransactions'
  | 'importTransactions'
  | 'updateTransaction'
  | 'deleteTransaction'
  | 'createScheduledTransaction'
  | 'updateScheduledTransaction'
  | 'deleteScheduledTransaction';

export interface WriteEffect<Op extends WriteOperationId> {
  /** The entities the answer carries, in REST shapes, for `ReplicaStore.applySaved`. */
  saved(data: OperationResult<Op>, params: Params<Op>, currentMonth: IsoDate): SavedEntities;
  /** The answer is the write's whole effect: no delta sync needed after it. */
  complete: boolean;
  /** REST-cache key prefixes (per token) whose answers the write changes. */
  invalidates: readonly string[];
}

/** Every write moves the plan's `last_modified_on`, which the plan list carries. */
const PLAN_LIST = 'getPlans';
/** Both money movement collections, of every plan: the keys start `getMoneyMovement...`. */
const MONEY_MOVEMENTS = 'getMoneyMovement';

export const WRITE_EFFECTS: { readonly [Op in WriteOperationId]: WriteEffect<Op> } = {
  createAccount: {
    saved: (data) => ({ accounts: [data.account] }),
    complete: false,
    invalidates: [PLAN_LIST],
  },
  createCategory: {
    saved: (data) => ({ categories: [data.category], serverKnowledge: data.server_knowledge }),
    complete: false,
    invalidates: [PLAN_LIST],
  },
  updateCategory: {
    saved: (data) => ({ categories: [data.category], serverKnowledge: data.server_knowledge }),
    complete: false,
    invalidates: [PLAN_LIST],
  },
  updateMonthCategory: {
    saved: (data, params, currentMonth) => ({
      monthCategories: [
        {
          month: params.month === 'current' ? currentMonth : params.month,
          category: data.category,
        },
      ],
      serverKnowledge: data.server_knowledge,
    }),
    complete: false,
    // An assignment records a money movement from or to Ready to Assign.
    invalidates: [PLAN_LIST, MONEY_MOVEMENTS],
  },
  createCategoryGroup: {
    saved: (data) => ({
      categoryGroups: [data.category_group],
      serverKnowledge: data.server_knowledge,
    }),
    complete: true,
    invalidates: [PLAN_LIST],
  },
  updateCategoryGroup: {
    saved: (data) => ({
      categoryGroups: [data.category_group],
      serverKnowledge: data.server_knowledge,
    }),
    complete: true,
    invalidates: [PLAN_LIST],
  },
  createPayee: {
    saved: (data) => ({ payees: [data.payee], serverKnowledge: data.server_knowledge }),
    complete: true,
    invalidates: [PLAN_LIST],
  },
  updatePayee: {
    saved: (data) => ({ payees: [data.payee], serverKnowledge: data.server_knowledge }),
    complete: true,
    invalidates: [PLAN_LIST],
  },
  createTransaction: {
    saved: (data) => ({
      transactions: data.transactions ?? (data.transaction ? [data.transaction] : []),
      serverKnowledge: data.server_knowledge,
    }),
    complete: false,
    invalidates: [PLAN_LIST],
  },
  updateTransactions: {
    saved: (data) => ({
      transactions: data.transactions ?? (data.transaction ? [data.transaction] : []),
      serverKnowledge: data.server_knowledge,
    }),
    complete: false,
    invalidates: [PLAN_LIST],
  },
  importTransactions: {
    // The answer holds ids only; the delta sync brings the transactions.
    saved: () => ({}),
    complete: false,
    invalidates: [PLAN_LIST],
  },
  updateTransaction: {
    saved: (data) => ({ transactions: [data.transaction], serverKnowledge: data.server_knowledge }),
    complete: false,
    invalidates: [PLAN_LIST],
  },
  deleteTransaction: {
    saved: (data) => ({ transactions: [data.transaction], serverKnowledge: data.server_knowledge }),
    complete: false,
    invalidates: [PLAN_LIST],
  },
  createScheduledTransaction: {
    saved: (data) => ({ scheduledTransactions: [data.scheduled_transaction] }),
    complete: false,
    invalidates: [PLAN_LIST],
  },
  updateScheduledTransaction: {
    saved: (data) => ({ scheduledTransactions: [data.scheduled_transaction] }),
    complete: false,
    invalidates: [PLAN_LIST],
  },
  deleteScheduledTransaction: {
    saved: (data) => ({ scheduledTransactions: [data.scheduled_transaction] }),
    complete: false,
    invalidates: [PLAN_LIST],
  },
};

/**
 * What a write did, for the local arithmetic (`src/replica/local-effects.ts`): the transactions
 * it saved, or the assigned amount it set; null for the writes it does not follow (their derived
 * effects come from the delta).
 */
export function localWriteOf<Op extends WriteOperationId>(
  operationId: Op,
  params: Params<Op>,
  data: OperationResult<Op>,
  today: IsoDate,
): LocalWrite | null {
  switch (operationId) {
    case 'createTransaction':
    case 'updateTransactions':
    case 'updateTransaction':
    case 'deleteTransaction': {
      const currentMonth = `${today.slice(0, 7)}-01`;
      const saved = WRITE_EFFECTS[operationId].saved(data as never, params as never, currentMonth);
      return { kind: 'transactions', saved: saved.transactions ?? [] };
    }
    case 'updateMonthCategory': {
      const { month, categoryId } = params as unknown as Params<'updateMonthCategory'>;
      const { category } = data as unknown as OperationResult<'updateMonthCategory'>;
      if (typeof category.budgeted !== 'number') return null;
      return {
        kind: 'budgeted',
        month: month === 'current' ? `${today.slice(0, 7)}-01` : month,
        categoryId,
        budgeted: category.budgeted,
      };
    }
    default:
      return null;
  }
}
