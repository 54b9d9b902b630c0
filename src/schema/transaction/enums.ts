import {
  CLEARED_STATUSES,
  DEBT_TRANSACTION_TYPES,
  FLAG_COLORS,
  TRANSACTION_LIST_TYPES,
} from '@plans-gateway/rest-contract';
import { builder } from '../builder.js';
import { describedValues } from '../enum-values.js';

export const ClearedStatusEnum = builder.enumType('ClearedStatus', {
  description: 'Whether the bank has confirmed a transaction (REST `cleared`).',
  values: describedValues(CLEARED_STATUSES, {
    cleared: 'Confirmed by the bank.',
    uncleared: 'Not confirmed by the bank yet.',
    reconciled: 'Cleared and reconciled with a statement.',
  }),
});

/** REST also uses the empty string for "no flag"; the graph says null instead. */
export const FlagColorEnum = builder.enumType('FlagColor', {
  description: 'A flag on a transaction (REST `flag_color`; no flag is null, not an empty string).',
  values: describedValues(
    FLAG_COLORS.filter((c) => c !== ''),
    {
      red: 'Red.',
      orange: 'Orange.',
      yellow: 'Yellow.',
      green: 'Green.',
      blue: 'Blue.',
      purple: 'Purple.',
    },
  ),
});

export const DebtTransactionTypeEnum = builder.enumType('DebtTransactionType', {
  description: 'What a transaction in a debt account does to the debt.',
  values: describedValues(DEBT_TRANSACTION_TYPES, {
    payment: 'A payment toward the debt.',
    refund: 'A refund added to the debt.',
    fee: 'A fee added to the debt.',
    interest: 'Interest added to the debt.',
    escrow: 'An escrow payment.',
    balanceAdjustment: 'An adjustment of the balance.',
    credit: 'A credit reducing the debt.',
    charge: 'A charge adding to the debt.',
  }),
});

export const TransactionTypeFilterEnum = builder.enumType('TransactionTypeFilter', {
  description: 'The REST `type` filter of transaction lists.',
  values: describedValues(TRANSACTION_LIST_TYPES, {
    uncategorized: 'Needs a category.',
    unapproved: 'Waits for approval.',
  }),
});

export const TransactionOrderEnum = builder.enumType('TransactionOrder', {
  description: 'The order of a transaction list, by date then id.',
  values: {
    DATE_DESC: { value: 'DATE_DESC', description: 'Newest first (ties: by id, descending).' },
    DATE_ASC: { value: 'DATE_ASC', description: 'Oldest first (ties: by id, ascending).' },
  } as const,
});
