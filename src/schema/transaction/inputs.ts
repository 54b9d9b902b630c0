/**
 * Transaction inputs: the REST bodies (NewTransaction, ExistingTransaction,
 * SaveTransactionWithIdOrImportId, SaveSubTransaction) in camelCase, and their mapping back.
 * A field left out is left out of the REST body too (JSON drops `undefined`), so "keep the
 * current value" and "clear it" (`null`) stay distinct.
 */
import type {
  ClearedStatus,
  FlagColor,
  NewTransaction,
  SaveSubTransaction,
  SaveTransactionWithIdOrImportId,
  SaveTransactionWithOptionalFields,
} from '@plans-gateway/rest-contract';
import { builder } from '../builder.js';
import type { InputFields } from '../payloads.js';
import { Milliunits } from '../scalars.js';
import { ClearedStatusEnum, FlagColorEnum } from './enums.js';

const PAYEE_NAME_DESCRIPTION =
  'Used when `payeeId` is null: an existing payee of that name, or a new one. At most 200 characters.';

export const SaveSubTransactionInput = builder.inputType('SaveSubTransactionInput', {
  description: "One part of a split. The parts' amounts must add up to the transaction amount.",
  fields: (t) => ({
    amount: t.field({
      type: Milliunits,
      required: true,
      description: 'The amount of this line in milliunits; the lines add up.',
    }),
    payeeId: t.field({ type: 'UUID', description: 'The REST id of the payee; null when none.' }),
    payeeName: t.string({ description: PAYEE_NAME_DESCRIPTION }),
    categoryId: t.field({
      type: 'UUID',
      description: 'The REST id of the category; null when uncategorized.',
    }),
    memo: t.string({ description: 'At most 500 characters.' }),
  }),
});

/** The fields of every transaction body except the three a create requires. */
function optionalFields(t: InputFields) {
  return {
    payeeId: t.field({
      type: 'UUID',
      description:
        "The payee; an account's `transferPayeeId` makes the transaction a transfer to that account.",
    }),
    payeeName: t.string({ description: PAYEE_NAME_DESCRIPTION }),
    categoryId: t.field({ type: 'UUID', description: 'Null with `subtransactions` for a split.' }),
    memo: t.string({ description: 'At most 500 characters.' }),
    cleared: t.field({
      type: ClearedStatusEnum,
      description: 'Whether the bank has confirmed it.',
    }),
    approved: t.boolean({ description: 'New transactions are unapproved unless this is true.' }),
    flagColor: t.field({ type: FlagColorEnum, description: 'Null removes the flag.' }),
    subtransactions: t.field({
      type: [SaveSubTransactionInput],
      description: 'Makes the transaction a split. An existing split keeps its parts.',
    }),
  };
}

/** Account, date and amount: required to create, optional to update. */
function coreFields(t: InputFields, required: boolean) {
  return {
    accountId: t.field({ type: 'UUID', required, description: 'The REST id of the account.' }),
    date: t.field({
      type: 'Date',
      required,
      description: 'Today or earlier (UTC); a split keeps its date.',
    }),
    amount: t.field({
      type: Milliunits,
      required,
      description: 'Negative for outflows; a split keeps its amount.',
    }),
  };
}

export const CreateTransactionInput = builder.inputType('CreateTransactionInput', {
  description: 'A new transaction (REST `NewTransaction`).',
  fields: (t) => ({
    ...coreFields(t, true),
    ...optionalFields(t),
    importId: t.string({
      description:
        'Marks the transaction as imported; unique per account (a second create with it is refused), ' +
        'so a create that failed with an unknown outcome can be resent safely. At most 36 characters.',
    }),
  }),
});

export const CreateTransactionsInput = builder.inputType('CreateTransactionsInput', {
  description: 'The body of `createTransactions`, as the REST body has it.',
  fields: (t) => ({
    transactions: t.field({
      type: [CreateTransactionInput],
      required: true,
      description: 'At least one.',
    }),
  }),
});

export const UpdateTransactionInput = builder.inputType('UpdateTransactionInput', {
  description:
    'Changes to one transaction (REST `ExistingTransaction`); fields left out keep their value.',
  fields: (t) => ({ ...coreFields(t, false), ...optionalFields(t) }),
});

export const UpdateTransactionsItemInput = builder.inputType('UpdateTransactionsItemInput', {
  description:
    'Changes to one transaction of a bulk update (REST `SaveTransactionWithIdOrImportId`), found ' +
    'by `id` or else by `importId` (give one of the two).',
  fields: (t) => ({
    id: t.id({ description: 'The REST id of the transaction to update (or give `importId`).' }),
    importId: t.string({
      description: 'Only finds the transaction; an import id cannot be changed.',
    }),
    ...coreFields(t, false),
    ...optionalFields(t),
  }),
});

export const UpdateTransactionsInput = builder.inputType('UpdateTransactionsInput', {
  description: 'The body of `updateTransactions`, as the REST body has it.',
  fields: (t) => ({
    transactions: t.field({
      type: [UpdateTransactionsItemInput],
      required: true,
      description: 'At least one.',
    }),
  }),
});

// ---------------------------------------------------------------------------------------------
// Back to REST bodies

interface SubInput {
  amount: number;
  payeeId?: string | null;
  payeeName?: string | null;
  categoryId?: string | null;
  memo?: string | null;
}

interface TransactionInput {
  accountId?: string | null;
  date?: string | null;
  amount?: number | null;
  payeeId?: string | null;
  payeeName?: string | null;
  categoryId?: string | null;
  memo?: string | null;
  cleared?: ClearedStatus | null;
  approved?: boolean | null;
  flagColor?: FlagColor | null;
  subtransactions?: readonly SubInput[] | null;
}

function toSubTransaction(sub: SubInput): SaveSubTransaction {
  return {
    amount: sub.amount,
    payee_id: sub.payeeId,
    payee_name: sub.payeeName,
    category_id: sub.categoryId,
    memo: sub.memo,
  };
}

/** The rules have refused nulls where REST forbids them; `?? undefined` only narrows the types. */
export function toSaveTransaction(input: TransactionInput): SaveTransactionWithOptionalFields {
  return {
    account_id: input.accountId ?? undefined,
    date: input.date ?? undefined,
    amount: input.amount ?? undefined,
    payee_id: input.payeeId,
    payee_name: input.payeeName,
    category_id: input.categoryId,
    memo: input.memo,
    cleared: input.cleared ?? undefined,
    approved: input.approved ?? undefined,
    flag_color: input.flagColor,
    subtransactions: input.subtransactions?.map(toSubTransaction),
  };
}

export function toNewTransaction(
  input: TransactionInput & { importId?: string | null },
): NewTransaction {
  return { ...toSaveTransaction(input), import_id: input.importId };
}

export function toTransactionUpdate(
  input: TransactionInput & { id?: string | null; importId?: string | null },
): SaveTransactionWithIdOrImportId {
  return { id: input.id, import_id: input.importId, ...toSaveTransaction(input) };
}
