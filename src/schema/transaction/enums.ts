import {
  CLEARED_STATUSES,
  DEBT_TRANSACTION_TYPES,
  FLAG_COLORS,
  TRANSACTION_LIST_TYPES,
} from '../../upstream/types.js';
import { builder } from '../builder.js';

export const ClearedStatusEnum = builder.enumType('ClearedStatus', {
  values: CLEARED_STATUSES,
});

/** REST also uses the empty string for "no flag"; the graph says null instead. */
export const FlagColorEnum = builder.enumType('FlagColor', {
  values: FLAG_COLORS.filter((c) => c !== ''),
});

export const DebtTransactionTypeEnum = builder.enumType('DebtTransactionType', {
  values: DEBT_TRANSACTION_TYPES,
});

export const TransactionTypeFilterEnum = builder.enumType('TransactionTypeFilter', {
  description: 'The REST `type` filter of transaction lists.',
  values: TRANSACTION_LIST_TYPES,
});

export const TransactionOrderEnum = builder.enumType('TransactionOrder', {
  values: {
    DATE_DESC: { value: 'DATE_DESC', description: 'Newest first (ties: by id, descending).' },
    DATE_ASC: { value: 'DATE_ASC', description: 'Oldest first (ties: by id, ascending).' },
  } as const,
});
