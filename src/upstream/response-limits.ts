/**
 * How large an upstream answer may be, by what the operation returns, and how many bytes all
 * answers being read may hold together.
 *
 * Why: an answer is read whole into memory before it is parsed. One cap for every answer had
 * to fit the largest (a plan export of 100,000 transactions is about 60 MB), so a user or a
 * settings answer could also be read up to 256 MiB, and eight endless answers at once took
 * 2 GB. Each operation now has the cap of its kind, and a byte budget shared by every answer
 * in flight bounds the sum, whatever the number of requests.
 */
import type { OperationId } from '@plans-gateway/rest-contract';

export type ResponseKind =
  /** The plan export and the transaction lists: as large as the plan. */
  | 'export'
  /** Collections of a plan (accounts, categories, payees, months, money movements...) and batch writes. */
  | 'list'
  /** One entity, the user, the settings, single writes. */
  | 'entity';

export const DEFAULT_RESPONSE_LIMITS: Readonly<Record<ResponseKind, number>> = {
  export: 256 * 1024 * 1024,
  list: 16 * 1024 * 1024,
  entity: 1024 * 1024,
};

/** @default 256 MiB of answers being read at once, across every request. */
export const DEFAULT_MAX_BUFFERED_RESPONSE_BYTES = 256 * 1024 * 1024;

const KINDS: Readonly<Record<OperationId, ResponseKind>> = {
  getUser: 'entity',
  getPlans: 'list',
  getPlanById: 'export',
  getPlanSettingsById: 'entity',
  getAccounts: 'list',
  createAccount: 'entity',
  getAccountById: 'entity',
  getCategories: 'list',
  createCategory: 'entity',
  getCategoryById: 'entity',
  updateCategory: 'entity',
  getMonthCategoryById: 'entity',
  updateMonthCategory: 'entity',
  createCategoryGroup: 'entity',
  updateCategoryGroup: 'entity',
  getPayees: 'list',
  createPayee: 'entity',
  getPayeeById: 'entity',
  updatePayee: 'entity',
  getPayeeLocations: 'list',
  getPayeeLocationById: 'entity',
  getPayeeLocationsByPayee: 'list',
  getPlanMonths: 'list',
  getPlanMonth: 'list',
  getMoneyMovements: 'list',
  getMoneyMovementsByMonth: 'list',
  getMoneyMovementGroups: 'list',
  getMoneyMovementGroupsByMonth: 'list',
  getTransactions: 'export',
  createTransaction: 'list',
  updateTransactions: 'list',
  importTransactions: 'list',
  getTransactionById: 'entity',
  updateTransaction: 'entity',
  deleteTransaction: 'entity',
  getTransactionsByAccount: 'export',
  getTransactionsByCategory: 'export',
  getTransactionsByPayee: 'export',
  getTransactionsByMonth: 'export',
  getScheduledTransactions: 'list',
  createScheduledTransaction: 'entity',
  getScheduledTransactionById: 'entity',
  updateScheduledTransaction: 'entity',
  deleteScheduledTransaction: 'entity',
};

export function responseKind(operationId: OperationId): ResponseKind {
  return KINDS[operationId];
}

/** Bytes shared by every answer being read: `take` fails once the budget is spent. */
export interface ByteBudget {
  take(bytes: number): boolean;
  give(bytes: number): void;
  readonly used: number;
}

export function createByteBudget(max: number): ByteBudget {
  let used = 0;
  return {
    take(bytes) {
      if (used + bytes > max) return false;
      used += bytes;
      return true;
    },
    give(bytes) {
      used = Math.max(0, used - bytes);
    },
    get used() {
      return used;
    },
  };
}
