/**
 * Transaction input rules, checked before any upstream call. Amounts need no rule here: the
 * `Milliunits` scalar already refused fractions and values beyond ±(2^53 - 1).
 *
 * Rules that need the plan (does the account exist, is it a split already, may this category
 * be used) stay with the upstream, which answers a typed ValidationError.
 */

import { badUserInput, maxLength, nonEmptyList, notNull, sumsTo } from '../input-checks.js';

/** REST field limits (openapi-1.85.0: SaveTransactionWithOptionalFields, SaveSubTransaction, NewTransaction). */
export const MEMO_MAX = 500;
export const PAYEE_NAME_MAX = 200;
export const IMPORT_ID_MAX = 36;

export interface SubTransactionFields {
  amount: number;
  payeeName?: string | null;
  memo?: string | null;
}

export interface TransactionFields {
  id?: string | null;
  importId?: string | null;
  accountId?: string | null;
  date?: string | null;
  amount?: number | null;
  payeeName?: string | null;
  memo?: string | null;
  cleared?: string | null;
  approved?: boolean | null;
  subtransactions?: readonly SubTransactionFields[] | null;
}

/** Fields every transaction body may carry (create, update, bulk update). */
function checkFields(input: TransactionFields, path: string, today: string): void {
  // The REST body forbids null for these; GraphQL cannot, so it is checked here.
  for (const name of [
    'accountId',
    'date',
    'amount',
    'cleared',
    'approved',
    'subtransactions',
  ] as const) {
    notNull(input[name], `${path}.${name}`);
  }
  if (input.date && input.date > today) {
    throw badUserInput(
      `${path}.date`,
      `must not be in the future (today is ${today}, UTC); use createScheduledTransaction for future dates`,
    );
  }
  maxLength(input.memo, MEMO_MAX, `${path}.memo`);
  maxLength(input.payeeName, PAYEE_NAME_MAX, `${path}.payeeName`);
  const subs = input.subtransactions ?? [];
  subs.forEach((sub, i) => {
    maxLength(sub.memo, MEMO_MAX, `${path}.subtransactions[${i}].memo`);
    maxLength(sub.payeeName, PAYEE_NAME_MAX, `${path}.subtransactions[${i}].payeeName`);
  });
  // Without an amount (an update keeping it) the sum is the upstream's to check.
  if (subs.length > 0 && typeof input.amount === 'number') {
    sumsTo(
      subs.map((sub) => sub.amount),
      input.amount,
      `${path}.subtransactions`,
      `${path}.amount`,
    );
  }
}

/** createTransaction's `input`, or one item of createTransactions. */
export function checkNewTransaction(input: TransactionFields, path: string, today: string): void {
  checkFields(input, path, today);
  maxLength(input.importId, IMPORT_ID_MAX, `${path}.importId`);
}

export function checkNewTransactions(
  items: readonly TransactionFields[],
  path: string,
  today: string,
): void {
  nonEmptyList(items, path, 'transaction');
  for (const [i, item] of items.entries()) checkNewTransaction(item, `${path}[${i}]`, today);
}

/** updateTransaction's `input` (the transaction is named by the `transactionId` argument). */
export function checkTransactionUpdate(
  input: TransactionFields,
  path: string,
  today: string,
): void {
  checkFields(input, path, today);
}

/** updateTransactions: each item names its transaction by `id` or by `importId`, never both. */
export function checkTransactionUpdates(
  items: readonly TransactionFields[],
  path: string,
  today: string,
): void {
  nonEmptyList(items, path, 'transaction');
  items.forEach((item, i) => {
    const at = `${path}[${i}]`;
    const hasId = item.id !== undefined && item.id !== null;
    const hasImportId = item.importId !== undefined && item.importId !== null;
    if (hasId && hasImportId) {
      throw badUserInput(
        at,
        'give either id or importId, not both (importId only looks the transaction up; it cannot be changed)',
      );
    }
    if (!hasId && !hasImportId)
      throw badUserInput(at, 'id or importId is required to find the transaction');
    maxLength(item.importId, IMPORT_ID_MAX, `${at}.importId`);
    checkFields(item, at, today);
  });
}
