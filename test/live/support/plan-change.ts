import type { PlanChange } from '../../../src/replica/changes.js';

/** A SYNC change of plan `p` at knowledge 1 with nothing in it, and `partial` over it. */
export function planChange(partial: Partial<PlanChange> = {}): PlanChange {
  return {
    planId: 'p',
    origin: 'SYNC',
    serverKnowledge: 1,
    previousServerKnowledge: 0,
    accounts: [],
    categoryGroups: [],
    categories: [],
    months: [],
    monthCategories: [],
    payees: [],
    transactions: [],
    subtransactions: [],
    scheduledTransactions: [],
    transactionsBefore: [],
    deleted: {
      accountIds: [],
      categoryGroupIds: [],
      categoryIds: [],
      months: [],
      payeeIds: [],
      transactionIds: [],
      scheduledTransactionIds: [],
    },
    ...partial,
  };
}
