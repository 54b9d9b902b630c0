/**
 * The kinds of change an endpoint can ask for: the lists of a `planChanged` event, each with the
 * ids its deletions carry. An event goes to an endpoint only when it holds something of a kind
 * the endpoint wants, and carries only those kinds.
 */
export const WEBHOOK_KINDS = [
  'ACCOUNTS',
  'CATEGORY_GROUPS',
  'CATEGORIES',
  'MONTHS',
  'MONTH_CATEGORIES',
  'PAYEES',
  'TRANSACTIONS',
  'SCHEDULED_TRANSACTIONS',
] as const;

export type WebhookKind = (typeof WEBHOOK_KINDS)[number];

/** Where each kind sits in a `planChanged` event: its list, and its deletions' list (if any). */
export const KIND_FIELDS: Readonly<Record<WebhookKind, { list: string; deleted?: string }>> = {
  ACCOUNTS: { list: 'accounts', deleted: 'accountIds' },
  CATEGORY_GROUPS: { list: 'categoryGroups', deleted: 'categoryGroupIds' },
  CATEGORIES: { list: 'categories', deleted: 'categoryIds' },
  MONTHS: { list: 'months', deleted: 'months' },
  MONTH_CATEGORIES: { list: 'monthCategories' },
  PAYEES: { list: 'payees', deleted: 'payeeIds' },
  TRANSACTIONS: { list: 'transactions', deleted: 'transactionIds' },
  SCHEDULED_TRANSACTIONS: { list: 'scheduledTransactions', deleted: 'scheduledTransactionIds' },
};

export function isWebhookKind(value: string): value is WebhookKind {
  return (WEBHOOK_KINDS as readonly string[]).includes(value);
}
